"""client.ephemeral: configure, push (direct and buffered), pop, ack with
its outcomes, queues, depth, reset, delete, and the missing-queue error."""

from __future__ import annotations

import asyncio

import pytest

from conftest import DEADLINE

from queen import EPHEMERAL_QUEUE_NOT_FOUND, EphemeralQueueNotFoundError


async def test_ephemeral_round_trip(client, name):
    q = name("eph")
    eph = client.ephemeral
    await eph.configure(q, max_length=100, lease_seconds=30, retry_limit=2)
    pushed = await eph.push(q, [{"a": 1}, {"payload": "two"}, {"data": 3}], partition="p")
    assert pushed.get("pushed") == 3, pushed
    popped = await eph.pop(q, partition="p", batch=10, group="g")
    msgs = popped["messages"]
    assert popped["queue"] == q and [m.get("payload") for m in msgs] == [{"a": 1}, "two", 3], popped
    assert all(isinstance(m.get("id"), str) and m.get("attempts") in (0, 1) for m in msgs), msgs
    acked = await eph.ack(q, msgs, group="g")
    assert [r.get("outcome") for r in acked.get("results") or []] == ["acked"] * 3, acked
    assert (await eph.pop(q, partition="p", group="g"))["messages"] == []


async def test_ephemeral_retry_redelivers(client, name):
    q = name("ephr")
    eph = client.ephemeral
    await eph.push(q, ["x"], partition="p")
    first = (await eph.pop(q, partition="p"))["messages"]
    res = await eph.ack(q, first, status="retry")
    assert [r.get("outcome") for r in res.get("results") or []] == ["redelivered"], res
    again = (await eph.pop(q, partition="p"))["messages"]
    assert [m["payload"] for m in again] == ["x"] and again[0]["attempts"] == first[0]["attempts"] + 1, again


async def test_ephemeral_fanout_groups(client, name):
    q = name("ephf")
    eph = client.ephemeral
    await eph.push(q, [1, 2], partition="p")
    a = await eph.pop(q, partition="p", group="ga", batch=10)
    b = await eph.pop(q, partition="p", group="gb", batch=10)
    assert [m["payload"] for m in a["messages"]] == [1, 2] == [m["payload"] for m in b["messages"]], (a, b)


async def test_ephemeral_commit_on_delivery(client, name):
    q = name("ephc")
    eph = client.ephemeral
    await eph.push(q, ["once"], partition="p")
    got = await eph.pop(q, partition="p", commit_on_delivery=True)
    assert [m["payload"] for m in got["messages"]] == ["once"], got
    assert (await eph.pop(q, partition="p"))["messages"] == []


async def test_ephemeral_queues_depth_reset_delete(client, name):
    q = name("ephd")
    eph = client.ephemeral
    await eph.push(q, [1, 2, 3], partition="p")
    from conftest import mentions
    assert mentions(await eph.queues(), q)
    depth = await eph.depth(q)
    assert mentions(depth, q) and mentions(depth, 3), depth
    reset = await eph.reset(q)
    assert reset.get("dropped") == 3, reset
    assert (await eph.pop(q, partition="p"))["messages"] == []
    deleted = await eph.delete(q)
    assert deleted.get("deleted") is True, deleted
    with pytest.raises(EphemeralQueueNotFoundError) as e:
        await eph.depth(q)
    assert e.value.code == EPHEMERAL_QUEUE_NOT_FOUND


async def test_ephemeral_buffered_push(client, name):
    q = name("ephb")
    eph = client.ephemeral
    res = await eph.push(q, [1, 2], partition="p", buffered={"message_count": 10, "time_millis": 60000})
    assert res == {"buffered": True, "count": 2}, res
    # flush() retries a failed batch for ever: bounded here, a batch the
    # broker never takes is the failure.
    try:
        await asyncio.wait_for(eph.flush(q, partition="p"), DEADLINE)
    except asyncio.TimeoutError:
        pytest.fail(f"the buffered ephemeral push did not flush within {DEADLINE:.0f} s")
    got = await eph.pop(q, partition="p", batch=10)
    assert [m["payload"] for m in got["messages"]] == [1, 2], got
