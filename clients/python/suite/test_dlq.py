"""The DLQ builder: queue(q).dlq(group) with limit, offset, from/to and a
partition, over messages filed by a 'dlq' ack."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from conftest import iso, pop_of, push_many, txids


async def _filed(client, name, payloads, partition=None):
    q, g = name("dlq"), name("g")
    await push_many(client, q, payloads, partition=partition)
    msgs = await pop_of(client, q, group=g, partition=partition).pop()
    for m in msgs:
        res = await client.ack(m, "dlq", {"group": g, "error": f"bad {m['data']}"})
        assert res.get("success") is True, res
    return q, g, msgs


async def test_dlq_lists_filed_messages(client, name):
    q, g, msgs = await _filed(client, name, ["x", "y"])
    dlq = await client.queue(q).dlq(g).get()
    assert dlq.get("total") == 2, dlq
    assert sorted(txids(dlq.get("messages") or [])) == sorted(txids(msgs)), dlq


async def test_dlq_limit_and_offset(client, name):
    q, g, msgs = await _filed(client, name, ["a", "b", "c"])
    first = await client.queue(q).dlq(g).limit(2).get()
    rest = await client.queue(q).dlq(g).limit(2).offset(2).get()
    assert len(first.get("messages") or []) == 2 and first.get("total") == 3, first
    assert len(rest.get("messages") or []) == 1 and rest.get("total") == 3, rest
    assert set(txids(first["messages"] + rest["messages"])) == set(txids(msgs))


async def test_dlq_time_window(client, name):
    q, g, msgs = await _filed(client, name, ["t"])
    future = iso(datetime.now(timezone.utc) + timedelta(hours=1))
    past = iso(datetime.now(timezone.utc) - timedelta(hours=1))
    assert (await client.queue(q).dlq(g).from_(future).get()).get("messages") == [], "nothing filed after the future"
    assert len((await client.queue(q).dlq(g).from_(past).to(future).get()).get("messages") or []) == 1


async def test_dlq_partition_filter(client, name):
    q, g = name("dlqp"), name("g")
    for p in ("p1", "p2"):
        await push_many(client, q, [p], partition=p)
        msgs = await pop_of(client, q, group=g, partition=p).pop()
        assert (await client.ack(msgs[0], "dlq", {"group": g}))["success"] is True
    only = await client.queue(q).partition("p2").dlq(g).get()
    assert [m.get("partition") for m in only.get("messages") or []] == ["p2"] and only.get("total") == 1, only


async def test_dlq_of_other_group_is_empty(client, name):
    q, g, msgs = await _filed(client, name, ["z"])
    other = await client.queue(q).dlq(name("other")).get()
    assert other.get("messages") == [] and other.get("total") == 0, other
