"""Three nodes: what one node is told, another answers. Each test runs
only when three URLs are given (QUEEN_URLS). Reads by offset are served
from the answering node's applied state, so a read on another node than
the write polls until that node has applied it."""

from __future__ import annotations

import asyncio

import pytest

from conftest import DEADLINE, datas, gather, pop_of, push_many, records, wait_until

pytestmark = pytest.mark.three_nodes


async def test_push_on_one_pop_on_another_ack_on_a_third(clients, name):
    a, b, c = clients
    q, g = name("x3"), name("g")
    await push_many(a, q, [1, 2, 3])
    msgs = await pop_of(b, q, group=g).pop()
    assert datas(msgs) == [1, 2, 3], msgs
    res = await c.ack(msgs, True, {"group": g})
    assert res.get("success") is True, res
    assert await pop_of(a, q, group=g).pop() == [], "the ack on node 3 committed for node 1"


async def test_lease_is_exclusive_across_nodes(clients, name):
    a, b, c = clients
    q, g = name("excl"), name("g")
    await a.queue(q).config({"retry_delay": 0}).create()
    await push_many(a, q, ["only"])
    first = await pop_of(a, q, group=g).pop()
    assert datas(first) == ["only"]
    assert await pop_of(b, q, group=g).pop() == [] and await pop_of(c, q, group=g).pop() == []
    renewed = await b.renew(first[0])
    assert renewed.get("success") is True, "a lease taken on node 1 renews on node 2"
    nack = await c.ack(first[0], False, {"group": g})
    assert nack.get("success") is True, nack
    assert datas(await pop_of(b, q, group=g).pop()) == ["only"], "the nack on node 3 released it for node 2"


async def test_fetch_on_every_node(clients, name):
    a, b, c = clients
    q = name("fetch3")
    await push_many(a, q, ["r1", "r2"])
    for node in (b, c):
        async def applied(node=node):
            got = await records(node, q)
            return got if len(got) == 2 else None

        got = await wait_until("the other node to apply the push", applied)
        assert [r["payload"] for r in got] == ["r1", "r2"]


async def test_kv_linearizable_across_nodes(clients, name):
    a, b, c = clients
    k = name("k3")
    put = await a.kv.put("cs-suite", k, "v", forever=True)
    got = await b.kv.get("cs-suite", k)
    assert got.get("found") is True and got.get("version") == put["version"], "a KV read waits for the read index"
    assert (await c.kv.put_if_absent("cs-suite", k, "w", ttl_seconds=60)).get("applied") is False


async def test_lock_across_nodes(clients, name):
    a, b, c = clients
    n = name("l3")
    la = a.lock(n, ttl_seconds=30, auto_renew=False)
    lb = b.lock(n, ttl_seconds=30, auto_renew=False)
    assert await la.acquire() and not await lb.acquire()
    await la.release()
    assert await lb.acquire()
    await lb.release()


async def test_transaction_acks_what_another_node_leased(clients, name):
    a, b, c = clients
    src, dst, g = name("tx3"), name("tx3d"), name("g")
    await push_many(a, src, ["in"])
    msgs = await pop_of(a, src, group=g).pop()
    res = await b.transaction().ack(msgs[0], "completed", {"consumer_group": g}).queue(dst).push({"data": "out"}).commit()
    assert res.get("success") is True, res
    assert await pop_of(c, src, group=g).pop() == []
    assert datas(await pop_of(c, dst, group=name("g2")).pop()) == ["out"]


@pytest.mark.parametrize("strategy", ["affinity", "round-robin", "session"])
async def test_client_with_three_urls(make_client, urls, name, strategy):
    client = make_client(urls[:3], load_balancing_strategy=strategy)
    q, g = name("lb"), name("g")
    for i in range(6):
        await client.queue(q).push({"data": i})
    seen = []

    await asyncio.wait_for(client.queue(q).group(g).subscription_mode("all").batch(10).limit(6).wait(False).consume(gather(seen)), DEADLINE)
    assert seen == list(range(6)), seen
    assert await pop_of(client, q, group=g).pop() == []


async def test_three_url_client_long_poll_wakes(make_client, urls, clients, name):
    client = make_client(urls[:3])
    q, g = name("lp3"), name("g")
    await client.queue(q).create()
    popping = asyncio.ensure_future(client.queue(q).group(g).batch(5).wait(True).timeout_millis(15000).pop())
    await asyncio.sleep(0.3)  # let the pop park first; the answer is the same either way
    for i, c in enumerate(clients):
        await push_many(c, q, [f"from-node{i + 1}"])
    msgs = await asyncio.wait_for(popping, 20)
    assert msgs and all(str(d).startswith("from-") for d in datas(msgs)), msgs
