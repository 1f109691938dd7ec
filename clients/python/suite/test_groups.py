"""Consumer groups through the client: delete_consumer_group (with its
metadata) and update_consumer_group_timestamp."""

from __future__ import annotations

from conftest import datas, iso, mentions, pop_of, push_many, records, stamp


async def test_delete_consumer_group_resets_it(client, name):
    q, g = name("gdel"), name("g")
    await push_many(client, q, [1, 2])
    msgs = await pop_of(client, q, group=g).pop()
    assert (await client.ack(msgs, True, {"group": g}))["success"] is True
    assert await pop_of(client, q, group=g).pop() == []
    res = await client.delete_consumer_group(g, delete_metadata=True)
    assert not (isinstance(res, dict) and res.get("error")), res
    listed = await client.admin.list_consumer_groups()
    assert not mentions(listed, g), f"a deleted group is not listed: {listed!r}"
    # Deleted with its metadata: the group starts over, from the beginning.
    assert datas(await pop_of(client, q, group=g).pop()) == [1, 2]


async def test_update_consumer_group_timestamp_rewinds(client, name):
    q, g = name("gts"), name("g")
    await push_many(client, q, ["m1"])
    await push_many(client, q, ["m2"])
    recs = await records(client, q)
    t1, t2 = stamp(recs[0]["ts"]), stamp(recs[1]["ts"])
    consumer = client.queue(q).group(g).subscription_mode("new").batch(10).wait(False)
    assert await consumer.pop() == [], "a new-mode group starts after m2"
    res = await client.update_consumer_group_timestamp(g, iso(t1 + (t2 - t1) / 2))
    assert not (isinstance(res, dict) and res.get("error")), res
    assert datas(await consumer.pop()) == ["m2"], "the subscription now starts between m1 and m2"
