"""consume: each and batch handlers, limit, idle, concurrency, autoAck
on and off, groups and subscription, the failing handler's nack and the
redelivery it causes, the DLQ after the retry limit, callbacks, lease
renewal while a handler works."""

from __future__ import annotations

import asyncio

import pytest

from conftest import DEADLINE, datas, gather, pop_of, push_many, wait_until


async def _run(builder, timeout=None, seen=None):
    """Awaits a consume() to its end (limit, idle or signal), bounded; a
    consume still running at the deadline fails naming what it had seen."""
    limit = DEADLINE if timeout is None else timeout
    try:
        await asyncio.wait_for(builder, limit)
    except asyncio.TimeoutError:
        pytest.fail(f"the consume did not end within {limit:.0f} s; its handler had seen {seen!r}")


def _keep(into):
    """A consume handler that keeps each message it is given, as given."""

    async def handler(m):
        into.append(m)

    return handler


async def test_consume_each_with_limit_acks_in_order(client, name):
    q, g = name("each"), name("g")
    await push_many(client, q, list(range(5)))
    seen = []

    async def handler(m):
        seen.append(m["data"])

    await _run(client.queue(q).group(g).subscription_mode("all").batch(5).each().limit(5).wait(False).consume(handler))
    assert seen == [0, 1, 2, 3, 4], seen
    assert await pop_of(client, q, group=g).pop() == [], "each message was acked after its handler"


async def test_consume_batch_handler(client, name):
    q, g = name("cbatch"), name("g")
    await push_many(client, q, list(range(6)))
    batches = []

    async def handler(msgs):
        batches.append(datas(msgs))

    await _run(client.queue(q).group(g).subscription_mode("all").batch(3).limit(6).wait(False).consume(handler))
    assert [x for b in batches for x in b] == list(range(6)) and all(len(b) <= 3 for b in batches), batches
    assert await pop_of(client, q, group=g).pop() == []


async def test_consume_batch_one_passes_single_message(client, name):
    q, g = name("one"), name("g")
    await push_many(client, q, ["solo"])
    got = []

    await _run(client.queue(q).group(g).subscription_mode("all").batch(1).limit(1).wait(False).consume(_keep(got)))
    assert len(got) == 1 and isinstance(got[0], dict) and got[0]["data"] == "solo", got


async def test_consume_idle_stops(client, name):
    q, g = name("idle"), name("g")
    await push_many(client, q, [1, 2])
    seen = []

    await _run(client.queue(q).group(g).subscription_mode("all").batch(10).idle_millis(800).wait(False).consume(gather(seen)))
    assert seen == [1, 2], seen


async def test_consume_concurrency_splits_partitions(client, name):
    q, g = name("conc"), name("g")
    for p in ("p1", "p2", "p3", "p4"):
        await push_many(client, q, [f"{p}-{i}" for i in range(3)], partition=p)
    seen = []

    await _run(client.queue(q).group(g).subscription_mode("all").concurrency(2).batch(10)
               .idle_millis(1500).wait(False).consume(gather(seen)))
    assert sorted(seen) == sorted(f"{p}-{i}" for p in ("p1", "p2", "p3", "p4") for i in range(3)), seen
    assert len(seen) == 12, "every message handled once"
    assert await pop_of(client, q, group=g).pop() == []


async def test_consume_without_auto_ack_leaves_lease(client, name):
    q, g = name("noack"), name("g")
    await push_many(client, q, ["keep"])
    got = []

    await _run(client.queue(q).group(g).subscription_mode("all").batch(1).limit(1).auto_ack(False).wait(False).consume(_keep(got)))
    assert len(got) == 1
    assert await pop_of(client, q, group=g).pop() == [], "the unacked message is still leased"
    res = await client.ack(got[0], True, {"group": g})
    assert res.get("success") is True, res
    assert await pop_of(client, q, group=g).pop() == []


async def test_consume_failing_handler_nacks_and_redelivers(client, name):
    q, g = name("fail"), name("g")
    await client.queue(q).config({"retry_limit": 3, "retry_delay": 0}).create()
    await push_many(client, q, ["a", "b", "c"])
    attempts = []
    done = asyncio.Event()

    async def handler(m):
        attempts.append((m["data"], m.get("deliveryAttempt")))
        if m["data"] == "b" and len([a for a in attempts if a[0] == "b"]) == 1:
            raise RuntimeError("first try of b fails")
        if m["data"] == "c":
            done.set()

    await _run(client.queue(q).group(g).subscription_mode("all").batch(10).each().wait(False).consume(handler, signal=done),
               seen=attempts)
    # b's nack released the partition: b comes again (attempt 2), then c;
    # a is not delivered again (it was acked before b failed).
    assert attempts == [("a", 1), ("b", 1), ("b", 2), ("c", 1)] or attempts == [("a", 1), ("b", 1), ("b", 2), ("c", 2)], attempts
    assert await pop_of(client, q, group=g).pop() == []


async def test_consume_failing_handler_ends_in_dlq(client, name):
    q, g = name("faildlq"), name("g")
    await client.queue(q).config({"retry_limit": 1, "retry_delay": 0}).create()
    await push_many(client, q, ["poison", "fine"])
    attempts = []
    done = asyncio.Event()

    async def handler(m):
        attempts.append((m["data"], m.get("deliveryAttempt")))
        if m["data"] == "poison":
            raise RuntimeError(f"poison attempt {len(attempts)}")
        done.set()

    await _run(client.queue(q).group(g).subscription_mode("all").batch(10).each().wait(False).consume(handler, signal=done),
               seen=attempts)
    poison = len([a for a in attempts if a[0] == "poison"])
    assert poison == 2, f"retryLimit 1: one delivery and one retry before the DLQ (got {attempts!r})"

    async def filed():
        d = await client.queue(q).dlq(g).get()
        return d if d.get("messages") else None

    dlq = await wait_until("the poison message in the DLQ", filed)
    assert datas(dlq["messages"]) == ["poison"] or [m.get("data", m.get("payload")) for m in dlq["messages"]] == ["poison"], dlq


async def test_consume_batch_failure_nacks_whole_batch(client, name):
    q, g = name("bfail"), name("g")
    await client.queue(q).config({"retry_limit": 3, "retry_delay": 0}).create()
    await push_many(client, q, [1, 2, 3])
    calls = []
    done = asyncio.Event()

    async def handler(msgs):
        calls.append(datas(msgs))
        if len(calls) == 1:
            raise RuntimeError("the whole batch fails")
        done.set()

    await _run(client.queue(q).group(g).subscription_mode("all").batch(10).wait(False).consume(handler, signal=done), seen=calls)
    assert calls[0] == [1, 2, 3] and calls[1] == [1, 2, 3], f"a failed batch is delivered again whole: {calls!r}"
    assert await pop_of(client, q, group=g).pop() == []


async def test_consume_callbacks_replace_auto_ack(client, name):
    q, g = name("cbk"), name("g")
    await push_many(client, q, ["ok", "bad"])
    oks, errs, acks = [], [], []

    async def handler(m):
        if m["data"] == "bad":
            raise ValueError("bad message")
        return "handled"

    async def on_success(m, result):
        oks.append((m["data"], result))
        acks.append(await client.ack(m, True, {"group": g}))

    async def on_error(m, error):
        errs.append((m["data"], str(error)))
        acks.append(await client.ack(m, "dlq", {"group": g, "error": str(error)}))

    await _run(client.queue(q).group(g).subscription_mode("all").batch(10).each().limit(2).wait(False)
               .consume(handler).on_success(on_success).on_error(on_error))
    assert oks == [("ok", "handled")] and errs == [("bad", "bad message")], (oks, errs)
    assert all(a.get("success") is True for a in acks), acks
    assert await pop_of(client, q, group=g).pop() == []


async def test_consume_two_groups_each_see_everything(client, name):
    q = name("fan")
    await push_many(client, q, [1, 2, 3])
    seen = {"g1": [], "g2": []}
    for key in seen:
        g = name(key)

        await _run(client.queue(q).group(g).subscription_mode("all").batch(10).limit(3).wait(False).consume(gather(seen[key])))
    assert seen == {"g1": [1, 2, 3], "g2": [1, 2, 3]}, seen


async def test_consume_subscription_new(client, name):
    q, g = name("cnew"), name("g")
    await push_many(client, q, ["history"])
    seen = []

    consumer = asyncio.ensure_future(
        client.queue(q).group(g).subscription_mode("new").batch(10).limit(1).wait(True).timeout_millis(2000).consume(gather(seen)))
    # The group registers on its first pop, which answers nothing (history is
    # skipped); a probe pop of the same group sees the same nothing.
    assert await client.queue(q).group(g).subscription_mode("new").batch(10).wait(False).pop() == []
    await push_many(client, q, ["fresh"])
    await asyncio.wait_for(consumer, DEADLINE)
    assert seen == ["fresh"], seen


async def test_consume_renews_lease_while_handler_works(client, name):
    q, g = name("renew"), name("g")
    await client.queue(q).config({"lease_time": 2}).create()
    await push_many(client, q, ["slow"])
    acks = []
    stolen = []

    async def handler(m):
        # The handler's work outlives the 2 s lease; the consumer renews it
        # every 500 ms. While it works, another pop of the group gets nothing.
        for _ in range(8):
            stolen.extend(await pop_of(client, q, group=g).pop())
            await asyncio.sleep(0.5)

    async def on_success(m, result):
        acks.append(await client.ack(m, True, {"group": g}))

    await _run(client.queue(q).group(g).subscription_mode("all").batch(1).limit(1).renew_lease(True, 500).wait(False)
               .consume(handler).on_success(on_success), timeout=30)
    assert stolen == [], f"a renewed lease is not handed to another consumer: {stolen!r}"
    assert acks and acks[0].get("success") is True, acks


async def test_consume_message_trace(client, name):
    q, g = name("trc"), name("g")
    trace_name = name("tname")
    await push_many(client, q, ["traced"])
    answers = []

    async def handler(m):
        answers.append(await m["trace"]({"traceName": trace_name, "eventType": "step", "data": {"step": 1}}))
        answers.append(await m["trace"]({"no": "data"}))

    await _run(client.queue(q).group(g).subscription_mode("all").batch(1).limit(1).wait(False).consume(handler))
    assert answers[0].get("success") is True, answers
    assert answers[1].get("success") is False, "a trace without data is refused by the client"
    traces = await client.admin.get_traces_by_name(trace_name)
    from conftest import mentions
    assert mentions(traces, {"step": 1}) or mentions(traces, trace_name), traces


async def test_consume_supervision_publishes_its_status(client, name):
    import base64
    import json

    q, g, app = name("sup"), name("g"), name("app")
    await push_many(client, q, ["a", "b"])
    seen = []

    async def handler(m):
        seen.append(m["data"])

    await _run(client.queue(q).group(g).subscription_mode("all").batch(1).each().limit(2).wait(False)
               .supervision({"group": app}).consume(handler), seen=seen)
    assert seen == ["a", "b"], seen

    async def published():
        page = await client.kv.get_prefix("queen-supervisor", f"{app}/")
        rows = page.get("rows") or page.get("items") or []
        chunks = [r for r in rows if "/chunk/" in r.get("key", "")]
        if not chunks:
            return None
        doc = json.loads(base64.b64decode(chunks[0]["value"]["data"]))
        return doc if doc.get("state") == "stopped" else None

    doc = await wait_until("the consumer's stopped status in KV", published)
    pool = doc["pool_status"][0]
    assert pool["queue"] == q and pool["consumer_group"] == g and pool["completed"] == 2 and pool["failed"] == 0, doc
