"""push: single, batch, partitions, the payload spellings, transactionId
dedup and its callbacks, trace ids, buffered push and flush."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from conftest import DEADLINE, pop_of, push_many, records, txids, wait_until


async def _bounded(flush):
    # A flush retries a failed batch for ever: bounded here.
    try:
        await asyncio.wait_for(flush, DEADLINE)
    except asyncio.TimeoutError:
        pytest.fail(f"the buffer did not flush within {DEADLINE:.0f} s")


async def test_push_single_answers_queued_with_ids(client, name):
    q = name("push1")
    txid = f"tx-{uuid.uuid4()}"
    res = await client.queue(q).push({"data": {"n": 1}, "transactionId": txid})
    assert isinstance(res, list) and len(res) == 1, res
    item = res[0]
    assert item.get("status") == "queued", item
    assert item.get("transaction_id") == txid and item.get("queueName") == q, item
    assert isinstance(item.get("message_id"), str) and item["message_id"], item
    assert item.get("offset") == 0, item
    got = await records(client, q)
    assert [(r["transactionId"], r["payload"]) for r in got] == [(txid, {"n": 1})], got


async def test_push_batch_keeps_order(client, name):
    q = name("batch")
    res = await push_many(client, q, [{"i": i} for i in range(5)])
    assert [r.get("offset") for r in res] == [0, 1, 2, 3, 4], res
    assert [r.get("index") for r in res] == [0, 1, 2, 3, 4], res
    msgs = await pop_of(client, q, group=name("g")).pop()
    assert [m["data"]["i"] for m in msgs] == [0, 1, 2, 3, 4], msgs


async def test_push_payload_spellings(client, name):
    q = name("spell")
    await client.queue(q).push([{"data": "d"}, {"payload": [1, 2]}, {"bare": True}, {"data": None}])
    got = [r["payload"] for r in await records(client, q)]
    # {"data": X} and {"payload": X} push X; any other dict is the payload itself.
    assert got == ["d", [1, 2], {"bare": True}, None], got


async def test_push_to_partitions(client, name):
    q = name("parts")
    await client.queue(q).partition("p1").push([{"data": 1}, {"data": 2}])
    await client.queue(q).partition("p2").push({"data": 3})
    read = await client.queue(q).fetch(["p1", "p2"])
    assert [r["payload"] for r in read["p1"]["records"]] == [1, 2], read
    assert [r["payload"] for r in read["p2"]["records"]] == [3], read
    msgs = await pop_of(client, q, group=name("g"), partition="p2").pop()
    assert [m["data"] for m in msgs] == [3] and msgs[0].get("partition") == "p2", msgs


async def test_push_duplicate_transaction_id(client, name):
    q = name("dedup")
    txid = f"dup-{uuid.uuid4()}"
    first = await client.queue(q).push({"data": 1, "transactionId": txid})
    dups = []

    async def on_dup(items, error):
        dups.append(items)

    second = await client.queue(q).push({"data": 2, "transactionId": txid}).on_duplicate(on_dup)
    assert second[0].get("status") == "duplicate", second
    assert second[0].get("message_id") == first[0].get("message_id"), (first, second)
    assert second[0].get("offset") == first[0].get("offset"), (first, second)
    assert len(dups) == 1 and dups[0][0]["transactionId"] == txid, dups
    assert [r["payload"] for r in await records(client, q)] == [1], "the duplicate wrote nothing"


async def test_push_duplicate_inside_one_request(client, name):
    q = name("dedup1")
    txid = f"dup-{uuid.uuid4()}"
    res = await client.queue(q).push([{"data": 1, "transactionId": txid}, {"data": 2, "transactionId": txid}])
    assert [r.get("status") for r in res] == ["queued", "duplicate"], res
    assert res[1].get("message_id") == res[0].get("message_id"), res
    assert [r["payload"] for r in await records(client, q)] == [1], "stored once"


async def test_push_on_success_callback(client, name):
    q = name("cbs")
    ok = []

    async def on_ok(items):
        ok.append(items)

    await client.queue(q).push([{"data": 1}, {"data": 2}]).on_success(on_ok)
    assert len(ok) == 1 and [i["payload"] for i in ok[0]] == [1, 2], ok
    assert all(i["result"]["status"] == "queued" for i in ok[0]), ok


async def test_push_trace_id_is_delivered(client, name):
    q = name("trace")
    trace = str(uuid.uuid4())
    await client.queue(q).push({"data": 1, "traceId": trace})
    msgs = await pop_of(client, q, group=name("g")).pop()
    assert len(msgs) == 1 and msgs[0].get("traceId") == trace, msgs


async def test_buffered_push_waits_for_flush(client, name):
    q = name("buf")
    # 60 s linger and a count of 10: nothing leaves the client until flush.
    buf = {"message_count": 10, "time_millis": 60000}
    r1 = await client.queue(q).buffer(buf).push({"data": 1})
    r2 = await client.queue(q).buffer(buf).push([{"data": 2}, {"data": 3}])
    assert r1 == {"buffered": True, "count": 1} and r2 == {"buffered": True, "count": 2}, (r1, r2)
    stats = client.get_buffer_stats()
    assert stats["totalBufferedMessages"] == 3 and stats["activeBuffers"] == 1, stats
    assert await records(client, q) == [], "buffered messages are not sent before a flush"
    await _bounded(client.queue(q).flush_buffer())
    assert [r["payload"] for r in await records(client, q)] == [1, 2, 3]
    stats = client.get_buffer_stats()
    assert stats["totalBufferedMessages"] == 0 and stats["flushesPerformed"] >= 1, stats


async def test_buffered_push_flushes_at_count(client, name):
    q = name("bufn")
    buf = {"message_count": 3, "time_millis": 60000}
    for i in range(3):
        await client.queue(q).buffer(buf).push({"data": i})

    async def flushed():
        got = await records(client, q)
        return got if len(got) == 3 else None

    # The count threshold schedules the drain in the background.
    got = await wait_until("the buffer to flush at its message_count", flushed)
    assert [r["payload"] for r in got] == [0, 1, 2]


async def test_flush_all_buffers(client, name):
    qa, qb = name("bufa"), name("bufb")
    buf = {"message_count": 50, "time_millis": 60000}
    await client.queue(qa).buffer(buf).push({"data": "a"})
    await client.queue(qb).partition("px").buffer(buf).push({"data": "b"})
    await _bounded(client.flush_all_buffers())
    assert [r["payload"] for r in await records(client, qa)] == ["a"]
    assert [r["payload"] for r in await records(client, qb, "px")] == ["b"]
    assert client.get_buffer_stats()["totalBufferedMessages"] == 0


async def test_push_mints_distinct_transaction_ids(client, name):
    q = name("mint")
    res = await push_many(client, q, [1, 2, 3])
    ids = [r.get("transaction_id") for r in res]
    assert len(set(ids)) == 3 and all(ids), res
    assert txids(await pop_of(client, q, group=name("g")).pop()) == ids
