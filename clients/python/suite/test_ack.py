"""ack and nack: an ack is an offset commit per consumer group and
partition. Acking message N completes every earlier message of the same
lease; in one ack call a failed or retry item clamps the commit just below
it and releases the lease at once, so it and everything after it are
delivered again (a later completed item never skips a nack; retry charges
no retry). A nack of a committed message is refused as already committed;
a completed ack of a committed message is success with noop:true; an ack
of an unknown transaction is refused as unresolvable."""

from __future__ import annotations

import pytest

from conftest import datas, pop_of, push_many, txids


async def _popped(client, name, payloads, retry_limit=3, kind="ack"):
    q, g = name(kind), name("g")
    # retry_delay 0: a failed message may come back at once (the queue
    # default, retryDelay 1000 ms, holds it back for a second).
    await client.queue(q).config({"retry_limit": retry_limit, "lease_time": 60, "retry_delay": 0}).create()
    await push_many(client, q, payloads)
    consumer = pop_of(client, q, group=g)
    msgs = await consumer.pop()
    assert datas(msgs) == payloads, msgs
    return q, g, consumer, msgs


async def test_ack_single_completed(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["a"])
    res = await client.ack(msgs[0], True, {"group": g})
    assert res.get("success") is True, res
    assert "noop" not in res, f"an in-range ack carries no noop: {res!r}"
    assert await consumer.pop() == []


async def test_ack_list_completes_all(client, name):
    q, g, consumer, msgs = await _popped(client, name, [1, 2, 3])
    res = await client.ack(msgs, True, {"group": g})
    assert res.get("success") is True and len(res.get("results") or []) == 3, res
    assert all(r.get("success") is True for r in res["results"]), res
    assert await consumer.pop() == []


async def test_ack_later_message_commits_earlier_ones(client, name):
    q, g, consumer, msgs = await _popped(client, name, [1, 2, 3])
    res = await client.ack(msgs[1], True, {"group": g})
    assert res.get("success") is True, res
    again = await client.ack(msgs[0], True, {"group": g})
    assert again.get("success") is True and again.get("noop") is True, \
        f"message 0 was committed by the ack of message 1: {again!r}"
    last = await client.ack(msgs[2], True, {"group": g})
    assert last.get("success") is True and "noop" not in last, last
    assert await consumer.pop() == []


async def test_ack_failed_redelivers_at_once(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["x", "y"])
    res = await client.ack(msgs[0], False, {"group": g, "error": "boom"})
    assert res.get("success") is True, res
    # The nack released the lease: no wait for its expiry.
    again = await consumer.pop()
    assert datas(again) == ["x", "y"], again
    assert again[0].get("deliveryAttempt") == 2, again[0]


async def test_ack_individual_status_clamps_at_nack(client, name):
    q, g, consumer, msgs = await _popped(client, name, [0, 1, 2, 3])
    batch = [
        {**msgs[0], "_status": True},
        {**msgs[1], "_status": "failed", "_error": "bad"},
        {**msgs[2], "_status": True},
        {**msgs[3], "_status": True},
    ]
    res = await client.ack(batch, True, {"group": g})
    results = res.get("results") or []
    assert len(results) == 4, res
    assert results[0].get("success") is True and results[1].get("success") is True, res
    again = await consumer.pop()
    # Commit clamped below message 1: 1, 2 and 3 come again, at once.
    assert datas(again) == [1, 2, 3], again
    assert again[0].get("deliveryAttempt") == 2, again[0]
    done = await client.ack(msgs[0], True, {"group": g})
    assert done.get("success") is True and done.get("noop") is True, f"message 0 stays committed: {done!r}"


async def test_ack_retry_charges_no_retry(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["r"], retry_limit=1)
    for attempt in range(3):
        res = await client.ack(msgs[0], "retry", {"group": g})
        assert res.get("success") is True, (attempt, res)
        msgs = await consumer.pop()
        assert datas(msgs) == ["r"], f"retry {attempt + 1} with retryLimit 1 still redelivers: {msgs!r}"
    dlq = await client.queue(q).dlq(g).get()
    assert dlq.get("messages") == [] or not dlq.get("messages"), f"retry never files to the DLQ: {dlq!r}"
    assert (await client.ack(msgs[0], True, {"group": g}))["success"] is True


async def test_ack_retry_in_batch_clamps(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["a", "b", "c"])
    res = await client.ack([{**msgs[0], "_status": True}, {**msgs[1], "_status": "retry"}, {**msgs[2], "_status": True}],
                           True, {"group": g})
    assert (res.get("results") or [{}])[0].get("success") is True, res
    again = await consumer.pop()
    assert datas(again) == ["b", "c"], again


async def test_nack_of_committed_message_is_refused(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["c"])
    assert (await client.ack(msgs[0], True, {"group": g}))["success"] is True
    res = await client.ack(msgs[0], False, {"group": g})
    assert res.get("success") is False, res
    assert "committed" in str(res.get("error", "")).lower(), f"the error says it is already committed: {res!r}"


async def test_completed_ack_of_committed_message_is_noop(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["n"])
    assert (await client.ack(msgs[0], True, {"group": g}))["success"] is True
    res = await client.ack(msgs[0], True, {"group": g})
    assert res.get("success") is True and res.get("noop") is True, res


async def test_ack_of_unknown_transaction_is_unresolvable(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["u"])
    ghost = {**msgs[0], "transactionId": "no-such-transaction", "id": None}
    res = await client.ack(ghost, True, {"group": g})
    assert res.get("success") is False, res
    assert "unresolvable" in str(res.get("error", "")).lower(), res


async def test_ack_failed_past_retry_limit_files_to_dlq(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["p", "q"], retry_limit=1)
    # retryLimit 1: the first failure redelivers, the second files it.
    assert (await client.ack(msgs[0], False, {"group": g, "error": "first"}))["success"] is True
    msgs = await consumer.pop()
    assert datas(msgs) == ["p", "q"], msgs
    assert (await client.ack(msgs[0], False, {"group": g, "error": "second"}))["success"] is True
    rest = await consumer.pop()
    assert datas(rest) == ["q"], f"the dead-lettered message is not delivered again: {rest!r}"
    dlq = await client.queue(q).dlq(g).get()
    assert txids(dlq.get("messages") or []) == [msgs[0]["transactionId"]] and dlq.get("total") == 1, dlq


async def test_ack_dlq_status_files_now(client, name):
    q, g, consumer, msgs = await _popped(client, name, ["d", "e"])
    res = await client.ack(msgs[0], "dlq", {"group": g, "error": "poison"})
    assert res.get("success") is True, res
    dlq = await client.queue(q).dlq(g).get()
    entries = dlq.get("messages") or []
    assert txids(entries) == [msgs[0]["transactionId"]] and dlq.get("total") == 1, dlq
    assert entries[0].get("errorMessage") == "poison", f"the DLQ entry keeps the ack's error: {entries[0]!r}"
    # Filed, not nacked: the commit moves past it, e stays leased and acks.
    rest = await client.ack(msgs[1], True, {"group": g})
    assert rest.get("success") is True, rest
    assert await consumer.pop() == [], "neither d nor e is delivered again"


async def test_ack_queue_mode_without_group(client, name):
    q = name("ackq")
    await push_many(client, q, ["a", "b"])
    consumer = pop_of(client, q, batch=10)
    msgs = await consumer.pop()
    res = await client.ack(msgs[1], True)
    assert res.get("success") is True, res
    assert await consumer.pop() == []


async def test_ack_with_stale_lease_is_refused(client, name):
    q, g = name("stale"), name("g")
    await client.queue(q).config({"lease_time": 1}).create()
    await push_many(client, q, ["s"])
    consumer = pop_of(client, q, group=g)
    first = await consumer.pop()
    assert datas(first) == ["s"], first

    async def redelivered():
        got = await consumer.pop()
        return got or None

    # Waits for the 1 s lease to expire: the broker's clock decides when.
    from conftest import wait_until
    second = await wait_until("the expired lease's message to be delivered again", redelivered)
    assert second[0]["leaseId"] != first[0]["leaseId"] and second[0].get("deliveryAttempt") == 2, second
    stale = await client.ack(first[0], True, {"group": g})
    assert stale.get("success") is False, f"an ack under an expired lease is refused: {stale!r}"
    fresh = await client.ack(second[0], True, {"group": g})
    assert fresh.get("success") is True, fresh
