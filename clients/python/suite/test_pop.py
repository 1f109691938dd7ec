"""pop: queue mode and consumer groups, partitions, namespace/task
discovery, long poll, commit at delivery, subscription mode and start,
multi-partition pops, pop_result's autopilot echo, conflation."""

from __future__ import annotations

import asyncio
import time

import pytest

from conftest import datas, iso, pop_of, push_many, records, stamp, txids


async def test_pop_message_fields(client, name):
    q, g = name("fields"), name("g")
    pushed = await push_many(client, q, [{"k": "v"}])
    msgs = await pop_of(client, q, group=g).pop()
    assert len(msgs) == 1, msgs
    m = msgs[0]
    # What the client reads of a message: transactionId, partitionId and
    # leaseId for ack and renew, data for the handler.
    assert m.get("transactionId") == pushed[0]["transaction_id"], m
    assert m.get("data") == {"k": "v"}, m
    assert isinstance(m.get("partitionId"), str) and m["partitionId"], m
    assert isinstance(m.get("leaseId"), str) and m["leaseId"], m
    assert m.get("partition") == "Default" and m.get("consumerGroup") == g, m
    assert m.get("deliveryAttempt") == 1 and m.get("id") == pushed[0]["message_id"], m
    assert stamp(m.get("createdAt")), m


async def test_pop_queue_mode_shares_one_cursor(client, name):
    q = name("qmode")
    await push_many(client, q, [1, 2, 3])
    first = await pop_of(client, q, batch=2).pop()
    assert datas(first) == [1, 2], first
    assert all(m.get("consumerGroup") in ("__QUEUE_MODE__", None) for m in first), first
    ack = await client.ack(first, True)
    assert ack.get("success") is True, ack
    rest = await pop_of(client, q, batch=10).pop()
    assert datas(rest) == [3], rest


async def test_pop_empty_answers_empty_list(client, name):
    q = name("empty")
    await client.queue(q).create()
    assert await pop_of(client, q, group=name("g")).pop() == []


async def test_pop_wait_times_out_empty(client, name):
    q = name("waitto")
    await client.queue(q).create()
    started = time.monotonic()
    got = await client.queue(q).group(name("g")).batch(1).wait(True).timeout_millis(700).pop()
    took = time.monotonic() - started
    assert got == [], got
    assert took >= 0.6, f"a waiting pop holds for its timeout (took {took:.2f} s)"


async def test_pop_wait_wakes_on_push(client, name):
    q, g = name("waitpush"), name("g")
    await client.queue(q).create()
    popping = asyncio.ensure_future(client.queue(q).group(g).batch(5).wait(True).timeout_millis(15000).pop())
    # Let the pop park on the broker first, so that the push wakes it; the
    # answer asserted is the same either way.
    await asyncio.sleep(0.3)
    await push_many(client, q, ["late"])
    msgs = await asyncio.wait_for(popping, 20)
    assert datas(msgs) == ["late"], msgs


async def test_pop_one_partition(client, name):
    q, g = name("onepart"), name("g")
    await push_many(client, q, ["a1", "a2"], partition="a")
    await push_many(client, q, ["b1"], partition="b")
    msgs = await pop_of(client, q, group=g, partition="b").pop()
    assert datas(msgs) == ["b1"] and msgs[0]["partition"] == "b", msgs


async def test_pop_by_namespace_and_task(client, name):
    ns, task = name("ns"), name("task")
    q = name("nsq")
    await client.queue(q).namespace(ns).task(task).create()
    await push_many(client, q, ["n1", "n2"])
    msgs = await client.queue().namespace(ns).task(task).group(name("g")).subscription_mode("all").batch(10).wait(False).pop()
    assert datas(msgs) == ["n1", "n2"] and all(m.get("queue", q) == q for m in msgs), msgs


async def test_pop_commit_on_delivery(client, name):
    q, g = name("cod"), name("g")
    await push_many(client, q, [1, 2])
    msgs = await client.queue(q).group(g).subscription_mode("all").batch(10).wait(False).commit_on_delivery().pop()
    assert datas(msgs) == [1, 2], msgs
    assert all(not m.get("leaseId") for m in msgs), "committed at delivery: no lease"
    assert await pop_of(client, q, group=g).pop() == [], "nothing left: the cursor moved at delivery"


async def test_subscription_mode_new_skips_history(client, name):
    q, g = name("subnew"), name("g")
    await push_many(client, q, ["old1", "old2"])
    consumer = client.queue(q).group(g).subscription_mode("new").batch(10).wait(False)
    assert await consumer.pop() == [], "a new-mode group does not read what was pushed before it"
    await push_many(client, q, ["new1"])
    assert datas(await consumer.pop()) == ["new1"]


@pytest.mark.parametrize("mode", ["all", "from_beginning"])
async def test_subscription_mode_all_reads_history(client, name, mode):
    q, g = name("suball"), name("g")
    await push_many(client, q, ["h1", "h2"])
    msgs = await client.queue(q).group(g).subscription_mode(mode).batch(10).wait(False).pop()
    assert datas(msgs) == ["h1", "h2"], msgs


async def test_subscription_from_timestamp(client, name):
    q, g = name("subfrom"), name("g")
    await push_many(client, q, ["before"])
    await push_many(client, q, ["after1", "after2"])
    recs = await records(client, q)
    t0, t1 = stamp(recs[0]["ts"]), stamp(recs[1]["ts"])
    assert t1 > t0, "two pushes have distinct stamps"
    middle = iso(t0 + (t1 - t0) / 2)
    msgs = await client.queue(q).group(g).subscription_from(middle).batch(10).wait(False).pop()
    assert datas(msgs) == ["after1", "after2"], msgs


async def test_pop_several_partitions_share_one_lease(client, name):
    q, g = name("multi"), name("g")
    for p in ("x", "y", "z"):
        await push_many(client, q, [p + "1", p + "2"], partition=p)
    msgs = await client.queue(q).group(g).subscription_mode("all").partitions(3).batch(10).wait(False).pop()
    assert sorted(datas(msgs)) == ["x1", "x2", "y1", "y2", "z1", "z2"], msgs
    assert len({m["leaseId"] for m in msgs}) == 1, "one pop's partitions share one leaseId"
    renewed = await client.renew(msgs)
    assert isinstance(renewed, list) and len(renewed) == 1 and renewed[0]["success"] is True, renewed


async def test_pop_batch_budget(client, name):
    q, g = name("budget"), name("g")
    await push_many(client, q, list(range(7)))
    consumer = pop_of(client, q, group=g, batch=3)
    first = await consumer.pop()
    assert datas(first) == [0, 1, 2], first
    assert (await client.ack(first, True, {"group": g}))["success"] is True
    second = await consumer.pop()
    assert datas(second) == [3, 4, 5], second


async def test_pop_result_autopilot_echo(client, name):
    q, g = name("auto"), name("g")
    await push_many(client, q, [1, 2, 3])
    # batch and partitions left unset: the client sends autopilot=true and the
    # broker sizes the pop, echoing what it chose.
    res = await client.queue(q).group(g).subscription_mode("all").wait(False).pop_result()
    assert datas(res.messages) == [1, 2, 3], res
    assert res.autopilot is not None, "the broker echoes its autopilot decision"
    assert res.autopilot.partitions >= 1 and res.autopilot.batch >= 3, res.autopilot


async def test_pop_conflation_delivers_newest(client, name):
    q, g = name("confl"), name("g")
    await push_many(client, q, ["v1", "v2", "v3"], partition="key-1")
    await push_many(client, q, ["w1"], partition="key-2")
    consumer = client.queue(q).group(g).subscription_mode("all").conflation().partitions(2).batch(10).wait(False)
    msgs = await consumer.pop()
    assert sorted(datas(msgs)) == ["v3", "w1"], "one message per partition, the newest"
    assert (await client.ack(msgs, True, {"group": g}))["success"] is True
    assert await consumer.pop() == [], "the older messages were retired"
