"""The client's binary wire, switched on by its own options: binary_push
(the QPB1 push body), push_compression (messages framed and compressed by
the client, kept with the ids it minted; pushes in a transaction go as the
QTB1 body) and framed_pop (pops answered as QPF1 frames). Each test checks
from the wire record that the binary body or answer was really used, then
that the results are the JSON path's."""

from __future__ import annotations

import uuid

from conftest import datas, pop_of, records, txids

BINARY = {"binary_push": True}
FRAMED = {"binary_push": True, "push_compression": True}


def _sent(wire, path, magic):
    """The wire records of requests to path whose body starts with magic."""
    return [e for e in wire if path in e["url"] and e.get("body", "").startswith(magic)]


async def test_binary_push_plain(make_client, wire, name):
    c = make_client(**BINARY)
    q = name("bin")
    txid = f"bin-{uuid.uuid4()}"
    res = await c.queue(q).push([{"data": {"n": 1}, "transactionId": txid}, {"data": [1, "é"]}, {"data": None}])
    assert _sent(wire, "/api/v1/push", "QPB1"), "the push went out as the binary body"
    assert [r.get("status") for r in res] == ["queued"] * 3, res
    assert [r.get("offset") for r in res] == [0, 1, 2], res
    assert res[0]["transaction_id"] == txid, res
    got = await records(c, q)
    assert [r["payload"] for r in got] == [{"n": 1}, [1, "é"], None], got
    assert [r["transactionId"] for r in got] == [r["transaction_id"] for r in res], (got, res)
    again = await c.queue(q).push({"data": "other", "transactionId": txid})
    assert again[0].get("status") == "duplicate" and again[0].get("offset") == 0, again


async def test_binary_push_framed_keeps_client_ids(make_client, wire, name):
    c = make_client(**FRAMED)
    q, g = name("frm"), name("g")
    res = await c.queue(q).partition("p1").push([{"data": i} for i in range(4)] + [{"data": "t", "transactionId": "own-id"}])
    assert _sent(wire, "/api/v1/push", "QPB1"), "the push went out as the binary body"
    assert [r.get("status") for r in res] == ["queued"] * 5, res
    ids = [r["message_id"] for r in res]
    assert all(uuid.UUID(i).version == 7 for i in ids), ids
    msgs = await pop_of(c, q, group=g, partition="p1").pop()
    assert datas(msgs) == [0, 1, 2, 3, "t"], msgs
    assert [m["id"] for m in msgs] == ids, "a message keeps the id the client minted"
    assert txids(msgs) == [r["transaction_id"] for r in res] and txids(msgs)[4] == "own-id", msgs
    dup = await c.queue(q).partition("p1").push({"data": "again", "transactionId": "own-id"})
    assert dup[0].get("status") == "duplicate" and dup[0].get("message_id") == ids[4], dup


async def test_framed_pop_then_ack(make_client, wire, name):
    c = make_client(framed_pop=True)
    q, g = name("fpop"), name("g")
    trace = str(uuid.uuid4())
    await c.queue(q).partition("a").push([{"data": {"i": 0}, "traceId": trace}, {"data": {"i": 1}}])
    await c.queue(q).partition("b").push({"data": {"i": 2}})
    msgs = await c.queue(q).group(g).subscription_mode("all").batch(10).partitions(2).wait(False).pop()
    framed = [e for e in wire if "/api/v1/pop" in e["url"] and "frames=true" in e["url"]]
    assert framed and all(e.get("answer", "").startswith("QPF1") for e in framed if e.get("status") == 200), framed
    assert sorted(m["data"]["i"] for m in msgs) == [0, 1, 2], msgs
    by = {m["data"]["i"]: m for m in msgs}
    assert by[0]["traceId"] == trace and by[1]["traceId"] is None, msgs
    assert by[0]["partition"] == "a" and by[2]["partition"] == "b" and by[1]["offset"] == 1, msgs
    assert all(m["consumerGroup"] == g and m["leaseId"] and m["deliveryAttempt"] == 1 for m in msgs), msgs
    acked = await c.ack(msgs, True, {"group": g})
    assert acked is not None
    assert await pop_of(c, q, group=g, batch=10).pop() == [], "the framed pop's messages acked"


async def test_binary_transaction_keeps_the_callers_order(make_client, wire, name):
    c = make_client(**FRAMED)
    src, dst, g = name("tsrc"), name("tdst"), name("g")
    await c.queue(src).push([{"data": "in"}])
    msgs = await pop_of(c, src, group=g).pop()
    res = await (
        c.transaction()
        .queue(dst).push([{"data": "o1"}])
        .ack(msgs[0], "completed", {"consumer_group": g})
        .queue(dst).push([{"data": "o2", "transactionId": "tx-o2"}])
        .commit()
    )
    assert _sent(wire, "/api/v1/transaction", "QTB1"), "the transaction went out as the binary body"
    assert res.get("success") is True, res
    # The broker answers the head's ack first; the client puts the results
    # back in the caller's order.
    assert [r.get("type") for r in res["results"]] == ["push", "ack", "push"], res
    assert [r["payload"] for r in await records(c, dst)] == ["o1", "o2"]
    assert await pop_of(c, src, group=g).pop() == [], "the transaction's ack committed"
