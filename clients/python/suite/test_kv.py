"""client.kv: get, put (ttl, forever, expect), putIfAbsent, delete,
incr (bounds, type), check, getMany, getPrefix, list_all, once, batch,
expiry."""

from __future__ import annotations

import pytest

from conftest import stamp, wait_until

NS = "cs-suite"


async def test_put_and_get(client, name):
    k = name("k")
    put = await client.kv.put(NS, k, {"a": [1, 2]}, forever=True)
    assert put.get("applied") is True and bool(put) and put.get("op") == "put", put
    assert isinstance(put.get("version"), int) and put["version"] > 0, put
    got = await client.kv.get(NS, k)
    assert got.get("found") is True and bool(got), got
    assert got.get("value") == {"a": [1, 2]} and got.get("version") == put["version"] and got.get("key") == k, got
    assert got.get("expiresAt") is None and stamp(got.get("updatedAt")), got


async def test_get_missing(client, name):
    got = await client.kv.get(NS, name("missing"))
    assert got.get("found") is False and not got and "value" not in got, got


async def test_put_null_value_is_found(client, name):
    k = name("null")
    await client.kv.put(NS, k, None, forever=True)
    got = await client.kv.get(NS, k)
    assert got.get("found") is True and got.get("value") is None, got


async def test_put_ttl_sets_expiry_and_expires(client, name):
    k = name("ttl")
    await client.kv.put(NS, k, "short", ttl_seconds=1)
    got = await client.kv.get(NS, k)
    assert got.get("found") is True and stamp(got.get("expiresAt")) > stamp(got.get("updatedAt")), got

    async def gone():
        return (await client.kv.get(NS, k)).get("found") is False

    # Waits out the 1 s lifetime on the broker's clock.
    await wait_until("the 1 s key to expire", gone)


async def test_put_expect_fences(client, name):
    k = name("fence")
    v1 = (await client.kv.put(NS, k, 1, forever=True))["version"]
    ok = await client.kv.put(NS, k, 2, forever=True, expect=v1)
    assert ok.get("applied") is True and ok["version"] > v1, ok
    stale = await client.kv.put(NS, k, 3, forever=True, expect=v1)
    assert stale.get("applied") is False and stale.get("reason") == "version", stale
    assert stale.get("value") == 2 and stale.get("version") == ok["version"], "the loser sees the winner"
    create = await client.kv.put(NS, name("nope"), 1, forever=True, expect=5)
    assert create.get("applied") is False, "expect N>0 never creates"


async def test_put_if_absent(client, name):
    k = name("pia")
    first = await client.kv.put_if_absent(NS, k, "mine", ttl_seconds=60)
    second = await client.kv.put_if_absent(NS, k, "yours", ttl_seconds=60)
    assert first.get("applied") is True and second.get("applied") is False, (first, second)
    assert second.get("reason") == "exists" and second.get("value") == "mine", second


async def test_delete(client, name):
    k = name("del")
    v = (await client.kv.put(NS, k, "x", forever=True))["version"]
    wrong = await client.kv.delete(NS, k, expect=v + 1000)
    assert wrong.get("applied") is False and wrong.get("reason") == "version", wrong
    res = await client.kv.delete(NS, k, expect=v)
    assert res.get("applied") is True, res
    assert (await client.kv.get(NS, k)).get("found") is False
    again = await client.kv.delete(NS, k)
    assert again.get("applied") is False and again.get("reason") == "absent" and not again, again


async def test_incr_bounds_and_type(client, name):
    k = name("ctr")
    a = await client.kv.incr(NS, k, delta=5, forever=True)
    b = await client.kv.incr(NS, k, delta=2, forever=True)
    assert a.get("value") == 5 and b.get("value") == 7 and b["version"] > a["version"], (a, b)
    over = await client.kv.incr(NS, k, delta=2, max=8, forever=True)
    assert over.get("applied") is False and over.get("reason") == "limit" and over.get("value") == 7, over
    under = await client.kv.incr(NS, k, delta=-10, min=0, forever=True)
    assert under.get("applied") is False and under.get("reason") == "limit", under
    s = name("str")
    await client.kv.put(NS, s, "text", forever=True)
    bad = await client.kv.incr(NS, s, delta=1, forever=True)
    assert bad.get("applied") is False and bad.get("reason") == "type", bad


async def test_check(client, name):
    k = name("check")
    v = (await client.kv.put(NS, k, "c", forever=True))["version"]
    held = await client.kv.check(NS, k, expect=v)
    assert held.get("applied") is True, held
    moved = await client.kv.check(NS, k, expect=v + 1)
    assert moved.get("applied") is False and moved.get("reason") == "version", moved
    exists = await client.kv.check(NS, k, expect=0)
    assert exists.get("applied") is False and exists.get("reason") == "exists", exists
    with pytest.raises(ValueError):
        await client.kv.check(NS, k)


async def test_get_many(client, name):
    base = name("many")
    keys = [f"{base}/b", f"{base}/a", f"{base}/c"]
    for i, k in enumerate(keys[:2]):
        await client.kv.put(NS, k, i, forever=True)
    res = await client.kv.get_many(NS, keys)
    assert [r["key"] for r in res.get("rows") or []] == [f"{base}/a", f"{base}/b"], "rows in key byte order"
    assert res.get("missing") == [f"{base}/c"], res
    assert res.get("truncated") is False, res


async def test_get_prefix_pages(client, name):
    base = name("pfx")
    for k in ("a/1", "a/2", "a/3", "b/1"):
        await client.kv.put(NS, f"{base}/{k}", k, forever=True)
    page = await client.kv.get_prefix(NS, f"{base}/a/", limit=2)
    assert [r["key"] for r in page.get("rows") or []] == [f"{base}/a/1", f"{base}/a/2"], page
    assert page.get("truncated") is True and page.get("nextAfter"), page
    rest = await client.kv.get_prefix(NS, f"{base}/a/", after=page["nextAfter"])
    assert [r["key"] for r in rest.get("rows") or []] == [f"{base}/a/3"] and rest.get("truncated") is False, rest
    keys_only = await client.kv.get_prefix(NS, f"{base}/", keys_only=True)
    assert len(keys_only["rows"]) == 4 and all("value" not in r for r in keys_only["rows"]), keys_only
    walked = await client.kv.list_all(NS, f"{base}/", limit=1)
    assert [r["value"] for r in walked] == ["a/1", "a/2", "a/3", "b/1"], walked


async def test_once(client, name):
    k = name("once")
    assert await client.kv.once(NS, k, ttl_seconds=60) is True
    assert await client.kv.once(NS, k, ttl_seconds=60) is False


async def test_batch_index_aligned(client, name):
    k1, k2 = name("b1"), name("b2")
    ops = client.kv.op
    res = await client.kv.batch([ops.put(NS, k1, 1, forever=True), ops.incr(NS, k2, delta=3, forever=True), ops.get(NS, k1)])
    assert [r.get("index") for r in res] == [0, 1, 2] and [r.get("op") for r in res] == ["put", "incr", "get"], res
    assert res[2].get("found") is True and res[2].get("value") == 1, "a call's reads see its own writes"


async def test_expiry_is_mandatory(client, name):
    with pytest.raises(ValueError, match="kv_expiry_not_specified"):
        await client.kv.put(NS, name("noexp"), 1)
