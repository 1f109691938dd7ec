"""transaction(): push and ack in one commit, KV riders (put, incr,
delete, check, putIfAbsent, get), once() gates, required leases, a timer
rider (light: clients/python/test_locks_timers.py covers timers deeply)."""

from __future__ import annotations

import pytest

from conftest import datas, pop_of, push_many, records, wait_until


async def test_txn_ack_and_push(client, name):
    src, dst, g = name("src"), name("dst"), name("g")
    await push_many(client, src, ["in"])
    msgs = await pop_of(client, src, group=g).pop()
    res = await (
        client.transaction()
        .ack(msgs[0], "completed", {"consumer_group": g})
        .queue(dst).partition("out").push([{"data": "o1"}, {"data": "o2"}])
        .commit()
    )
    assert res.get("success") is True and bool(res), res
    kinds = [r.get("type") for r in res.get("results") or []]
    assert kinds == ["ack", "push", "push"], res
    assert all(r.get("success") is True for r in res["results"]), res
    assert [r["payload"] for r in await records(client, dst, "out")] == ["o1", "o2"]
    assert await pop_of(client, src, group=g).pop() == [], "the transaction's ack committed the message"


async def test_txn_ack_queue_mode(client, name):
    src, dst = name("srcq"), name("dstq")
    await push_many(client, src, ["a", "b"])
    msgs = await pop_of(client, src, batch=10).pop()
    res = await client.transaction().ack(msgs).queue(dst).push({"data": "x"}).commit()
    assert res.get("success") is True, res
    assert await pop_of(client, src, batch=10).pop() == []


async def test_txn_push_dedup_rolls_back(client, name):
    q = name("txdup")
    await client.transaction().queue(q).push({"data": 1, "transactionId": "same-id"}).commit()
    with pytest.raises(Exception):
        # A pushed id already in the dedup window rolls the bundle back
        # (reason duplicate), which commit() raises.
        await client.transaction().queue(q).push([{"data": 2, "transactionId": "other"},
                                                  {"data": 3, "transactionId": "same-id"}]).commit()
    assert [r["payload"] for r in await records(client, q)] == [1], "nothing of the rolled-back bundle was pushed"


async def test_txn_kv_riders(client, name):
    q, ns = name("txkv"), "cs-suite"
    k, c = name("key"), name("ctr")
    res = await (
        client.transaction()
        .queue(q).push({"data": "with-kv"})
        .kv.put(ns, k, {"v": 1}, forever=True)
        .kv.incr(ns, c, delta=5, forever=True)
        .kv.put_if_absent(ns, name("pia"), "first", ttl_seconds=60)
        .commit()
    )
    assert res.get("success") is True, res
    results = res["results"]
    assert [r.get("type") for r in results][:1] == ["push"], results
    kv = [r for r in results if r.get("opIndex") is not None]
    assert [r.get("op") for r in kv] == ["put", "incr", "putIfAbsent"], results
    assert all(r.get("applied") is True for r in kv), results
    assert kv[1].get("value") == 5, results
    got = await client.kv.get(ns, k)
    assert got.get("found") is True and got.get("value") == {"v": 1}, got
    res2 = await client.transaction().kv.incr(ns, c, delta=2, forever=True).kv.get(ns, k).kv.delete(ns, k).commit()
    kv2 = [r for r in res2["results"]]
    assert kv2[0].get("value") == 7 and kv2[1].get("found") is True and kv2[2].get("applied") is True, res2
    assert (await client.kv.get(ns, k)).get("found") is False


async def test_txn_once_gate(client, name):
    q, ns, key = name("once"), "cs-suite", name("gate")
    first = await client.transaction().once(ns, key, ttl_seconds=300).queue(q).push({"data": "first"}).commit()
    assert first.get("success") is True, first
    second = await client.transaction().once(ns, key, ttl_seconds=300).queue(q).push({"data": "second"}).commit()
    assert second.get("success") is False and not second, second
    assert second.get("reason") == "kv_precondition" and second.get("kvReason") == "exists", second
    assert isinstance(second.get("failedIndex"), int), second
    assert [r["payload"] for r in await records(client, q)] == ["first"], "the gated bundle pushed nothing"


async def test_txn_check_required(client, name):
    q, ns, key = name("chk"), "cs-suite", name("chk")
    put = await client.kv.put(ns, key, "v", forever=True)
    ok = await client.transaction().kv.check(ns, key, expect=put["version"], required=True).queue(q).push({"data": 1}).commit()
    assert ok.get("success") is True, ok
    await client.kv.put(ns, key, "moved", forever=True)
    lost = await client.transaction().kv.check(ns, key, expect=put["version"], required=True).queue(q).push({"data": 2}).commit()
    assert lost.get("success") is False and lost.get("reason") == "kv_precondition" and lost.get("kvReason") == "version", lost
    assert lost.get("value") == "moved", lost
    assert [r["payload"] for r in await records(client, q)] == [1]


async def test_txn_required_lease_of_another_holder(client, name):
    src, dst, g = name("rl"), name("rldst"), name("g")
    await client.queue(src).config({"lease_time": 1}).create()
    await push_many(client, src, ["leased"])
    consumer = pop_of(client, src, group=g)
    first = await consumer.pop()

    async def again():
        return await consumer.pop() or None

    # Waits for the 1 s lease to expire and the message to go to a new lease.
    second = await wait_until("the message under a new lease", again)
    with pytest.raises(Exception):
        await client.transaction().ack(first[0], "completed", {"consumer_group": g}).queue(dst).push({"data": "zombie"}).commit()
    assert await records(client, dst) == [], "a bundle acking under a lost lease pushes nothing"
    ok = await client.transaction().ack(second[0], "completed", {"consumer_group": g}).queue(dst).push({"data": "holder"}).commit()
    assert ok.get("success") is True, ok
    assert [r["payload"] for r in await records(client, dst)] == ["holder"]


async def test_txn_nack_redelivers(client, name):
    q, g = name("txnack"), name("g")
    await client.queue(q).config({"retry_delay": 0}).create()
    await push_many(client, q, ["n1", "n2"])
    consumer = pop_of(client, q, group=g)
    msgs = await consumer.pop()
    res = await client.transaction().ack(msgs[0], "failed", {"consumer_group": g}).commit()
    assert res.get("success") is True, res
    assert datas(await consumer.pop()) == ["n1", "n2"], "a nack in a transaction releases and redelivers"


async def test_txn_timer_rider(client, name):
    q = name("txtimer")
    res = await client.transaction().timer(q).key("k1").payload({"t": 1}).after_ms(100).schedule().commit()
    assert res.get("success") is True, res
    timer = res["results"][0]
    assert timer.get("type") == "timer" and timer.get("status") == "scheduled", res

    async def fired():
        return [r for r in await records(client, q) if r.get("transactionId") == timer.get("txn")]

    got = await wait_until("the transaction's timer to fire", fired)
    assert got[0]["payload"] == {"t": 1}, got


async def test_txn_without_operations_raises(client):
    with pytest.raises(Exception, match="no operations"):
        await client.transaction().commit()
