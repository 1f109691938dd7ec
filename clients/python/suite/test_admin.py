"""client.admin: every method of admin/admin.py. The client passes these
answers through unread, so the tests assert what a dashboard needs of
them: the names and numbers of what this test made, found in the answer."""

from __future__ import annotations

import httpx
import pytest

from conftest import datas, mentions, pop_of, push_many, txids, wait_until


async def _queue_with_group(client, name, payloads=("a", "b", "c"), acked=1, ns=None, task=None):
    q, g = name("adm"), name("g")
    b = client.queue(q)
    if ns:
        b = b.namespace(ns)
    if task:
        b = b.task(task)
    await b.create()
    await push_many(client, q, list(payloads))
    if acked:
        msgs = await pop_of(client, q, group=g, batch=acked).pop()
        assert (await client.ack(msgs, True, {"group": g}))["success"] is True
    return q, g


async def test_overview(client, name):
    await _queue_with_group(client, name)
    res = await client.admin.get_overview()
    assert isinstance(res, dict), res
    assert isinstance(res.get("queues"), int) and res["queues"] >= 1, f"overview counts the queues: {res!r}"
    assert isinstance(res.get("messages"), dict), f"overview carries message counts: {res!r}"


async def test_namespaces_and_tasks(client, name):
    ns, task = name("ns"), name("task")
    await _queue_with_group(client, name, ns=ns, task=task)
    assert mentions(await client.admin.get_namespaces(), ns)
    assert mentions(await client.admin.get_tasks(), task)


async def test_list_queues_and_get_queue(client, name):
    q, g = await _queue_with_group(client, name)
    assert mentions(await client.admin.list_queues(), q)
    detail = await client.admin.get_queue(q)
    assert detail.get("name", detail.get("queue")) == q, detail
    assert mentions(detail.get("partitions"), "Default"), detail
    assert isinstance(detail.get("options"), dict), detail


async def test_queue_depth(client, name):
    q, g = await _queue_with_group(client, name, acked=1)
    res = await client.admin.get_queue_depth(q, g)
    assert res.get("queue") == q and res.get("group") == g, res
    assert res.get("pending") == 2 and res.get("partitionsPending") == 1, res
    assert res.get("conflation") is False and res.get("effectivePending") == 2, res
    assert res.get("partitions") == [{"partition": "Default", "pending": 2}], res
    whole = await client.admin.get_queue_depth(q)
    assert whole.get("queue") == q and whole.get("conflation") is False, whole


async def test_partitions(client, name):
    q = name("admparts")
    for p in ("p1", "p2"):
        await push_many(client, q, [p], partition=p)
    res = await client.admin.get_partitions(queue=q)
    assert mentions(res, "p1") and mentions(res, "p2"), res


async def test_list_messages(client, name):
    q = name("admmsgs")
    pushed = await push_many(client, q, ["m1", "m2"])
    res = await client.admin.list_messages(queue=q)
    for item in pushed:
        assert mentions(res, item["transaction_id"]), res


async def test_get_and_delete_message(client, name):
    q, g = name("admmsg"), name("g")
    await push_many(client, q, ["keep", "drop"])
    msgs = await pop_of(client, q, group=g).pop()
    await client.ack(msgs, "retry", {"group": g})
    pid, txid = msgs[1]["partitionId"], msgs[1]["transactionId"]
    got = await client.admin.get_message(pid, txid)
    assert mentions(got, txid) and mentions(got, "drop"), got
    await client.admin.delete_message(pid, txid)
    with pytest.raises(httpx.HTTPStatusError):
        await client.admin.get_message(pid, txid)
    assert datas(await pop_of(client, q, group=g).pop()) == ["keep"], "a deleted message is not delivered"


async def test_retry_message_from_dlq(client, name):
    q, g = name("admretry"), name("g")
    await push_many(client, q, ["again"])
    msgs = await pop_of(client, q, group=g).pop()
    assert (await client.ack(msgs[0], "dlq", {"group": g}))["success"] is True
    res = await client.admin.retry_message(msgs[0]["partitionId"], msgs[0]["transactionId"])
    assert not (isinstance(res, dict) and res.get("error")), res
    again = await pop_of(client, q, group=g).pop()
    assert datas(again) == ["again"], f"a retried message is delivered again: {again!r}"


async def test_removed_routes_raise_before_any_request(client, name, wire):
    with pytest.raises(NotImplementedError):
        await client.admin.clear_queue(name("q"))
    with pytest.raises(NotImplementedError):
        await client.admin.move_message_to_dlq("1", "tx")
    assert wire == [], "neither sends anything"


async def test_traces(client, name):
    import asyncio
    q, g = name("admtrace"), name("g")
    tname = name("tn")
    await push_many(client, q, ["t"])
    seen, handled = [], []

    async def handler(m):
        # message.trace() is what consume() adds: POST /api/v1/traces.
        handled.append(m)
        seen.append(await m["trace"]({"traceName": [tname, ""], "data": {"note": "hello"}}))

    await asyncio.wait_for(client.queue(q).group(g).subscription_mode("all").batch(1).limit(1).wait(False).consume(handler), 20)
    assert seen and seen[0].get("success") is True, seen
    by_name = await client.admin.get_traces_by_name(tname)
    assert mentions(by_name, {"note": "hello"}), by_name
    names = await client.admin.get_trace_names()
    assert mentions(names, tname), names
    for_msg = await client.admin.get_traces_for_message(handled[0]["partitionId"], handled[0]["transactionId"])
    assert mentions(for_msg, {"note": "hello"}), for_msg


async def test_status_and_queue_stats(client, name):
    q, g = await _queue_with_group(client, name)
    status = await client.admin.get_status()
    assert isinstance(status, dict) and status, status
    stats = await client.admin.get_queue_stats()
    assert mentions(stats, q), stats
    detail = await client.admin.get_queue_detail(q)
    assert mentions(detail, q), detail
    analytics = await client.admin.get_analytics()
    assert isinstance(analytics, dict) and analytics, analytics


async def test_consumer_groups(client, name):
    q, g = await _queue_with_group(client, name)
    assert mentions(await client.admin.list_consumer_groups(), g)
    one = await client.admin.get_consumer_group(g)
    assert mentions(one, q), one
    refreshed = await client.admin.refresh_consumer_stats()
    assert refreshed.get("success") is True, refreshed


async def test_lagging_consumers(client, name):
    q, g = await _queue_with_group(client, name)

    async def lagging():
        res = await client.admin.get_lagging_consumers(min_lag_seconds=1)
        return res if mentions(res, g) else None

    # Waits for the group's oldest pending message to be 1 s old.
    res = await wait_until("the group with a backlog to be listed as lagging", lagging)
    assert mentions(res, q), res


async def test_delete_consumer_group_for_queue(client, name):
    q, g = await _queue_with_group(client, name, payloads=("a", "b"), acked=1)
    await client.admin.delete_consumer_group_for_queue(g, q, delete_metadata=True)
    assert datas(await pop_of(client, q, group=g).pop()) == ["a", "b"], "the group starts over on this queue"


async def test_seek_consumer_group(client, name):
    q, g = await _queue_with_group(client, name, payloads=("a", "b", "c"), acked=1)
    await client.admin.seek_consumer_group(g, q, {"toEnd": True})
    assert await pop_of(client, q, group=g).pop() == [], "sought to the end: nothing pending"
    await push_many(client, q, ["d"])
    assert datas(await pop_of(client, q, group=g).pop()) == ["d"]


async def test_health(client):
    res = await client.admin.health()
    assert res.get("status") == "healthy", res


async def test_metrics(client):
    res = await client.admin.metrics()
    # The client decodes only JSON; a text answer reaches the caller as None.
    assert isinstance(res, dict) and res, f"/metrics answers a JSON document: {res!r}"


async def test_system_and_worker_metrics(client):
    sysm = await client.admin.get_system_metrics()
    assert isinstance(sysm, dict) and sysm, sysm
    work = await client.admin.get_worker_metrics()
    assert isinstance(work, dict) and work, work
