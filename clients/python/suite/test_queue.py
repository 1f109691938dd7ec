"""The queue builder's configuration: create with options, namespace and
task, the defaults the client sends, delete."""

from __future__ import annotations

import pytest

from conftest import mentions, pop_of, push_many, records


async def test_create_with_config_echoes_options(client, name):
    q, ns, task = name("cfg"), name("ns"), name("task")
    res = await (
        client.queue(q)
        .namespace(ns)
        .task(task)
        .config({"lease_time": 45, "retry_limit": 5, "priority": 2, "delayed_processing": 0,
                 "retention_seconds": 7200, "dead_letter_queue": True, "dlq_after_max_retries": True})
        .create()
    )
    assert res.get("configured") is True, res
    assert res.get("queue") == q and res.get("namespace") == ns and res.get("task") == task, res
    opts = res.get("options") or {}
    # The client sends snake_case options as camelCase (leaseTime, retryLimit...).
    assert opts.get("leaseTime") == 45 and opts.get("retryLimit") == 5 and opts.get("priority") == 2, opts
    assert opts.get("retentionSeconds") == 7200 and opts.get("deadLetterQueue") is True, opts


async def test_create_without_config_sends_client_defaults(client, name):
    q = name("defaults")
    res = await client.queue(q).create()
    opts = res.get("options") or {}
    # QUEUE_DEFAULTS: lease_time 300, retry_limit 3, priority 0, encryption off.
    assert opts.get("leaseTime") == 300 and opts.get("retryLimit") == 3 and opts.get("priority") == 0, res
    assert opts.get("encryptionEnabled") is False, res


async def test_create_reconfigure_keeps_queue_and_messages(client, name):
    q = name("reconf")
    await client.queue(q).config({"lease_time": 30}).create()
    await push_many(client, q, [1, 2])
    res = await client.queue(q).config({"lease_time": 90, "retry_limit": 7}).create()
    assert (res.get("options") or {}).get("leaseTime") == 90, res
    assert [r["payload"] for r in await records(client, q)] == [1, 2], "configure leaves the messages as they are"
    detail = await client.admin.get_queue(q)
    assert (detail.get("options") or {}).get("retryLimit") == 7, detail


async def test_create_callbacks(client, name):
    q = name("cb")
    seen = []

    async def ok(result):
        seen.append(result)

    res = await client.queue(q).create().on_success(ok)
    assert seen and seen[0] is res and res.get("configured") is True, seen


async def test_delete_queue_drops_messages_and_config(client, name):
    q = name("del")
    await client.queue(q).config({"lease_time": 40}).create()
    await push_many(client, q, ["a", "b"])
    deleted = []

    async def ok(result):
        deleted.append(result)

    res = await client.queue(q).delete().on_success(ok)
    assert deleted and not (isinstance(res, dict) and res.get("error")), res
    listed = await client.admin.list_queues()
    assert not mentions(listed, q), f"a deleted queue is not listed: {listed!r}"
    assert await records(client, q) == [], "a deleted queue's messages are gone"
    assert await pop_of(client, q).pop() == [], "nothing to pop from a deleted queue"
