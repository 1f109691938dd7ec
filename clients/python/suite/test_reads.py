"""Reads by offset: queue.fetch (several partitions, offsets, a small
byte budget, unknown partitions) and queue.changed_since."""

from __future__ import annotations

from conftest import push_many


async def test_fetch_partitions(client, name):
    q = name("fetch")
    await push_many(client, q, ["a0", "a1", "a2"], partition="a")
    await push_many(client, q, ["b0", "b1"], partition="b")
    read = await client.queue(q).fetch(["a", "b"])
    assert list(read) == ["a", "b"], read
    a, b = read["a"], read["b"]
    assert [r["payload"] for r in a["records"]] == ["a0", "a1", "a2"] and [r["offset"] for r in a["records"]] == [0, 1, 2], a
    assert a["highWatermark"] == 3 and a["nextOffset"] == 3 and a["logStartOffset"] == 0, a
    assert [r["payload"] for r in b["records"]] == ["b0", "b1"] and b["highWatermark"] == 2, b
    assert all(r["transactionId"] and r["ts"] for r in a["records"]), a


async def test_fetch_from_offsets(client, name):
    q = name("fetchoff")
    await push_many(client, q, list(range(5)))
    read = await client.queue(q).fetch("Default", offsets={"Default": 3})
    assert [r["payload"] for r in read["Default"]["records"]] == [3, 4], read
    again = await client.queue(q).fetch("Default", offsets={"Default": read["Default"]["nextOffset"]})
    assert again["Default"]["records"] == [], "nothing new past nextOffset"


async def test_fetch_small_budget_still_reads_all(client, name):
    q = name("fetchsmall")
    await push_many(client, q, [{"pad": "x" * 200, "i": i} for i in range(6)])
    read = await client.queue(q).fetch("Default", max_bytes=100)
    assert [r["payload"]["i"] for r in read["Default"]["records"]] == list(range(6)), read


async def test_fetch_unknown(client, name):
    q = name("fetchnone")
    read = await client.queue(q).fetch(["nope"])
    assert read["nope"]["records"] == [], read
    await push_many(client, q, [1])
    read = await client.queue(q).fetch(["Default", "nope"])
    assert [r["payload"] for r in read["Default"]["records"]] == [1] and read["nope"]["records"] == [], read


async def test_changed_since(client, name):
    q = name("changed")
    await push_many(client, q, [1], partition="p1")
    await push_many(client, q, [2, 3], partition="p2")
    every = await client.queue(q).changed_since()
    assert [p["name"] for p in every["partitions"]] == ["p1", "p2"], every
    assert [p["lastOffset"] for p in every["partitions"]] == [0, 1], every
    assert every["safeTime"], every
    await push_many(client, q, [4], partition="p2")
    later = await client.queue(q).changed_since(every["safeTime"])
    assert [p["name"] for p in later["partitions"]] == ["p2"] and later["partitions"][0]["lastOffset"] == 2, later
    none = await client.queue(name("nosuch")).changed_since()
    assert none["partitions"] == [], none
