"""Locks, semaphores and timers, lightly: clients/python/test_locks_timers.py
covers them deeply."""

from __future__ import annotations

import pytest

from conftest import records, wait_until
from queen import LockNotHeldError


async def test_lock_context_manager(client, name):
    n = name("lock")
    async with client.lock(n, ttl_seconds=30, auto_renew=False) as lock:
        assert lock.held and lock.token and lock.slot == 0
        other = client.lock(n, ttl_seconds=30, auto_renew=False)
        with pytest.raises(LockNotHeldError):
            async with other:
                pass
    got = await client.locks.get(n)
    assert got.get("held") is False, got


async def test_lock_run(client, name):
    n = name("run")

    async def work(lock):
        return lock.token

    res = await client.lock(n, ttl_seconds=30).run(work)
    assert res["acquired"] is True and isinstance(res["value"], int), res
    assert (await client.locks.get(n)).get("held") is False


async def test_semaphore_two_permits(client, name):
    n = name("sem")
    a, b, c = (client.semaphore(n, 2, ttl_seconds=30, auto_renew=False) for _ in range(3))
    assert await a.acquire() and await b.acquire()
    assert not await c.acquire()
    assert {a.slot, b.slot} == {0, 1}
    await a.release()
    assert await c.acquire()
    await b.release()
    await c.release()


async def test_timer_schedule_fire_cancel(client, name):
    q = name("timer")
    fire = await client.timers.schedule(q, "soon", {"x": 1}, delay_ms=200)
    keep = await client.timer(q).key("later").payload({"x": 2}).after_ms(600_000).schedule()
    assert fire.get("status") == "scheduled" and keep.get("status") == "scheduled", (fire, keep)

    async def fired():
        return [r for r in await records(client, q) if r["transactionId"] == fire["txn"]]

    got = await wait_until("the timer to fire", fired)
    assert got[0]["payload"] == {"x": 1}
    listed = await client.timers.list(q)
    assert [r["timerKey"] for r in listed.get("rows") or []] == ["later"], listed
    cancelled = await client.timers.cancel(q, "later", txn=keep["txn"])
    assert cancelled.get("status") == "cancelled" and cancelled.get("ok") is True, cancelled
    assert (await client.timers.peek(q, "later")).get("found") is False


async def test_lock_on_lost_when_its_lifetime_passes(client, name):
    import asyncio

    lost = []
    lock = client.lock(name("lost"), ttl_seconds=1, auto_renew=False).on_lost(lost.append)
    assert await lock.acquire()
    try:
        await asyncio.wait_for(lock.lost.wait(), 10)
    except asyncio.TimeoutError:
        pytest.fail("a 1 s lock that is never renewed was not lost within 10 s")
    assert lost == ["expired"] and not lock.held, lost


async def test_release_all_gives_back_every_permit(client, name):
    a, b = name("all-a"), name("all-b")
    assert await client.lock(a, ttl_seconds=30, auto_renew=False).acquire()
    assert await client.semaphore(b, 2, ttl_seconds=30, auto_renew=False).acquire()
    assert await client.locks.release_all() == 2
    assert (await client.locks.get(a)).get("held") is False
    sem = await client.locks.get(b)
    assert sem.get("held") is False and sem.get("holders") == [], sem
