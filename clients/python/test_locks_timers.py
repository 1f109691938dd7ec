#!/usr/bin/env python3
"""The official Python client (queen-mq, clients/python/requirements.txt)
against a real broker: locks, semaphores, timers, and transactions that carry
a guard and a timer.

    .cache/client-venv/bin/python clients/python/test_locks_timers.py --url http://127.0.0.1:6632

It uses only the client's public API, exactly as published: ``Queen(url)``,
``client.lock`` / ``client.semaphore`` / ``client.locks``, ``client.timers`` /
``client.timer(queue)``, ``client.transaction()`` with ``.guard``, ``.queue``
and ``.timer``, and reads what was delivered with ``queue(q).fetch`` and
``queue(q).group(g).pop``. Every wait is a poll of a condition with a
deadline (``--deadline``), never a sleep standing in for one.

Each case prints ``PASS <case>`` or ``FAIL <case>: <what>``, then one closing
line ``N passed, N failed``; the exit status is 1 when any case failed.

``--lie NAME`` puts a transport between the client and the broker that
falsifies one kind of answer (see LIES). The Go test
(queen/e2e/client_python_test.go) runs each lie against the case it targets
and requires that case to FAIL: the assertions are shown to bite.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Awaitable, Callable, Dict, List, Optional
from urllib.parse import unquote

import httpx

from casekit import Failure, check, run_cases
from queen import Queen

# Names are unique per run, so a run never meets a previous run's locks or
# timers on the same broker.
RUN = uuid.uuid4().hex[:10]
DEADLINE = 20.0


async def wait_until(what: str, probe: Callable[[], Awaitable[Any]], timeout: Optional[float] = None) -> Any:
    """Polls probe() until it answers something truthy, and returns that; a
    Failure naming ``what`` and the last answer when the deadline passes."""
    deadline = time.monotonic() + (DEADLINE if timeout is None else timeout)
    last: Any = None
    while True:
        last = await probe()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise Failure(f"timed out after {DEADLINE if timeout is None else timeout:.0f} s waiting for {what} (last {last!r})")
        await asyncio.sleep(0.05)


def stamp(s: Any) -> datetime:
    check(isinstance(s, str) and s, "a broker timestamp is an ISO-8601 string", s)
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def name(kind: str) -> str:
    return f"client-{kind}-{RUN}"


async def records(client: Queen, queue: str, partition: str = "Default") -> List[Dict[str, Any]]:
    read = await client.queue(queue).fetch(partition)
    return read[partition]["records"]


# ---------------------------------------------------------------------------
# Locks
# ---------------------------------------------------------------------------


async def case_lock_exclusive(client: Queen) -> None:
    """One acquire wins; a second holder is refused while it is held, and gets
    it once the first releases."""
    n = name("lock")
    a = client.lock(n, ttl_seconds=30, auto_renew=False)
    b = client.lock(n, ttl_seconds=30, auto_renew=False)
    check(await a.acquire(), "the first acquire of a free lock is granted", a.token)
    check(isinstance(a.token, int) and a.token > 0, "a granted lock carries a positive token", a.token)
    check(a.slot == 0, "a lock's permit is slot 0", a.slot)
    check(not await b.acquire(), "a second holder is refused while the lock is held", b.token)
    check(not b.held, "the refused handle holds nothing", b.token)

    raw = await client.locks.acquire(n, ttl_seconds=30, owner=f"other-{RUN}")
    check(raw.get("acquired") is False and not raw, "a raw acquire by another owner answers acquired:false", raw)
    check(raw.get("reason") == "held", "a refused acquire says the lock is held", raw)
    holders = raw.get("holders") or []
    check(len(holders) == 1 and holders[0].get("owner") == a.owner, "the refusal names the holder", raw)

    same = await client.locks.acquire(n, ttl_seconds=30, owner=a.owner)
    check(same.get("acquired") is True and same.get("already") is True, "the holder's own owner re-acquiring gets its permit back, already:true", same)
    check(same.get("token") == a.token, "re-acquiring by the same owner answers the same token", same)

    got = await client.locks.get(n)
    check(got.get("held") is True and bool(got), "get says the lock is held", got)
    hs = got.get("holders") or []
    check(len(hs) == 1 and hs[0].get("owner") == a.owner and hs[0].get("token") == a.token,
          "get names the one holder and its token", got)

    check(await a.release(), "the holder's release is accepted")
    check(await b.acquire(), "once released, the lock goes to the next holder")
    check(b.token is not None and b.token > same["token"], "the next holder's token is above the last one", b.token)
    check(await b.release(), "the second holder's release is accepted")
    got = await client.locks.get(n)
    check(got.get("held") is False and not got.get("holders"), "a released lock is held by nobody", got)


async def case_lock_renew(client: Queen) -> None:
    """A renew answers a new token and retires the old one."""
    n = name("renew")
    owner = f"renewer-{RUN}"
    first = await client.locks.acquire(n, ttl_seconds=30, owner=owner)
    check(first.get("acquired") is True, "acquire of a free lock", first)
    t1 = first.get("token")
    guard = first.get("guard") or {}
    check(guard.get("op") == "check" and guard.get("required") is True and guard.get("expect") == t1,
          "the acquire's guard checks the permit at its token, required", first)

    renewed = await client.locks.renew(n, token=t1, ttl_seconds=30, slot=first.get("slot"), owner=owner)
    check(renewed.get("renewed") is True and bool(renewed), "renew with the current token is accepted", renewed)
    t2 = renewed.get("token")
    check(isinstance(t2, int) and t2 != t1 and t2 > t1, "renew answers a new, higher token", renewed)
    check((renewed.get("guard") or {}).get("expect") == t2, "the renew's guard carries the new token", renewed)

    stale = await client.locks.renew(n, token=t1, ttl_seconds=30, slot=first.get("slot"), owner=owner)
    check(stale.get("renewed") is False and stale.get("reason") == "lost", "renew with the retired token answers lost", stale)
    rel = await client.locks.release(n, token=t1, slot=first.get("slot"))
    check(rel.get("released") is False and rel.get("reason") == "lost", "release with the retired token answers lost", rel)
    got = await client.locks.get(n)
    check(got.get("held") is True and (got.get("holders") or [{}])[0].get("token") == t2,
          "the lock is still held at the renewed token", got)
    rel = await client.locks.release(n, token=t2, slot=first.get("slot"))
    check(rel.get("released") is True, "release with the current token is accepted", rel)

    # The handle: its renew() moves lock.token.
    lock = client.lock(n, ttl_seconds=30, auto_renew=False)
    check(await lock.acquire(), "the handle acquires the released lock")
    before = lock.token
    check(before is not None and before > t2, "tokens keep rising across a release", before)
    check(await lock.renew(), "the handle's renew is accepted")
    check(lock.token is not None and lock.token > before, "the handle holds the renewed, higher token", (before, lock.token))
    check(await lock.release(), "the handle releases")

    # The handle's own background renew (every third of a 3 s lifetime) moves
    # the token, and a guard sent afterwards follows it.
    auto = client.lock(name("autorenew"), ttl_seconds=3)
    check(await auto.acquire(), "the auto-renewing handle acquires")
    first_token = auto.token

    async def renewed_in_background() -> Any:
        return auto.token if auto.token is not None and auto.token != first_token else None

    moved = await wait_until("the background renew to move the token", renewed_in_background)
    check(moved > first_token and auto.held and not auto.lost.is_set(), "the background renew kept the lock, at a higher token", moved)
    q = name("autorenew-q")
    res = await client.transaction().guard(auto).queue(q).push([{"data": {"renewed": True}}]).commit()
    check(res.get("success") is True, "a guard after a background renew commits", res)
    check(await auto.release(), "the auto-renewing handle releases")


async def case_lock_guard(client: Queen) -> None:
    """A guarded transaction commits its push and timer while the lock is held;
    once another holder took the lock over, the old handle's guarded
    transaction commits nothing and answers kv_precondition."""
    n = name("guard")
    q = name("guarded")
    holder = client.lock(n, ttl_seconds=60, auto_renew=False)
    check(await holder.acquire(), "the holder acquires")

    async def guarded(step: int, txid: str, key: str) -> Dict[str, Any]:
        """The holder's guarded transaction of a step: a push with txid and a
        timer key, both to q."""
        return await (
            client.transaction()
            .guard(holder)
            .queue(q).push([{"data": {"step": step}, "transactionId": txid}])
            .timer(q).key(key).payload({"step": f"timer-{step}"}).after_ms(200).schedule()
            .commit()
        )

    ok_txid = f"ok-{RUN}"
    res = await guarded(1, ok_txid, "while-held")
    check(res.get("success") is True and bool(res), "a guarded transaction commits while the lock is held", res)
    kinds = sorted(r.get("type") for r in res.get("results") or [])
    check("push" in kinds and "timer" in kinds, "its results carry the push and the timer", res)
    got = [r["transactionId"] for r in await records(client, q)]
    check(ok_txid in got, "the guarded push is in the queue", got)
    timer_res = next(r for r in res["results"] if r.get("type") == "timer")
    fired = await wait_until("the guarded timer to fire",
                             lambda: _with_txn(client, q, timer_res.get("txn")))
    check(fired[0]["payload"] == {"step": "timer-1"}, "the guarded timer delivered its payload", fired)

    # Taken over: the permit is released behind the handle's back (as an
    # expiry would) and another holder acquires it. The old handle still
    # believes it holds the lock, with a token that is no longer the row's.
    stale_token = holder.token
    rel = await client.locks.release(n, token=stale_token, slot=holder.slot)
    check(rel.get("released") is True, "the permit is released behind the handle", rel)
    other = client.lock(n, ttl_seconds=60, auto_renew=False)
    check(await other.acquire(), "another holder takes the lock over")
    check(other.token is not None and other.token != stale_token, "the new holder has another token", other.token)
    check(holder.held, "the old handle still believes it holds the lock (its lifetime has not passed)")

    stale_txid = f"stale-{RUN}"
    res = await guarded(2, stale_txid, "after-takeover")
    check(res.get("success") is False and not res, "a transaction guarded by a taken-over lock does not commit", res)
    check(res.get("reason") == "kv_precondition", "its reason is kv_precondition", res)
    check(holder.lost.is_set() and not holder.held,
          "the client reports the old handle's lock lost (failedIndex names its guard)", res)
    got = [r["transactionId"] for r in await records(client, q)]
    check(stale_txid not in got, "the refused transaction pushed nothing", got)
    peek = await client.timers.peek(q, "after-takeover")
    check(peek.get("found") is False, "the refused transaction scheduled no timer", peek)

    new_txid = f"new-{RUN}"
    res = await client.transaction().guard(other).queue(q).push([{"data": {"step": 3}, "transactionId": new_txid}]).commit()
    check(res.get("success") is True, "the new holder's guarded transaction commits", res)
    got = [r["transactionId"] for r in await records(client, q)]
    check(new_txid in got and stale_txid not in got, "the new holder's push is in the queue, the stale one's is not", got)
    check(await other.release(), "the new holder releases")


async def case_semaphore(client: Queen) -> None:
    """A semaphore of N grants N permits, distinct slots and tokens, and
    refuses the next holder until one is given back."""
    n = name("sem")
    limit = 3
    handles = [client.semaphore(n, limit, ttl_seconds=30, auto_renew=False) for _ in range(limit + 1)]
    for i, h in enumerate(handles[:limit]):
        check(await h.acquire(), f"permit {i + 1} of {limit} is granted")
    slots = sorted(h.slot for h in handles[:limit])
    check(slots == list(range(limit)), f"the {limit} permits hold slots 0..{limit - 1}", slots)
    tokens = {h.token for h in handles[:limit]}
    check(len(tokens) == limit, "each permit has its own token", tokens)
    last = handles[limit]
    check(not await last.acquire(), f"holder {limit + 1} is refused while {limit} permits are held", last.slot)
    got = await client.locks.get(n)
    check(got.get("held") is True and len(got.get("holders") or []) == limit, f"get lists {limit} holders", got)

    freed = handles[1].slot
    check(await handles[1].release(), "one permit is given back")
    check(await last.acquire(), "the waiting holder then gets a permit")
    check(last.slot == freed, "it gets the slot that was freed", (last.slot, freed))
    for h in handles:
        if h.held:
            check(await h.release(), "each holder releases its permit")
    got = await client.locks.get(n)
    check(got.get("held") is False, "a semaphore with every permit back is held by nobody", got)


# ---------------------------------------------------------------------------
# Timers
# ---------------------------------------------------------------------------


async def _with_txn(client: Queen, queue: str, txn: Any) -> List[Dict[str, Any]]:
    return [r for r in await records(client, queue) if r.get("transactionId") == txn]


async def case_timer_fires(client: Queen) -> None:
    """A timer with a short delay fires exactly one message, with the timer's
    txn as its transactionId, not before deliverAt."""
    q = name("fire")
    delay_ms = 2000
    payload = {"kind": "reminder", "run": RUN, "n": 42.5}
    sent = time.monotonic()
    res = await client.timer(q).key("reminder/1").payload(payload).after_ms(delay_ms).schedule()
    check(res.get("ok") is True and bool(res), "the schedule is accepted", res)
    check(res.get("status") == "scheduled", "a new timer answers status scheduled", res)
    check(res.get("queue") == q and res.get("timerKey") == "reminder/1", "the answer names the queue and key", res)
    txn, deliver_at = res.get("txn"), stamp(res.get("deliverAt"))
    check(isinstance(txn, str) and txn, "the answer carries the timer's txn", res)
    check(isinstance(res.get("messageId"), str) and res.get("messageId"), "the answer promises a messageId", res)

    peek = await client.timers.peek(q, "reminder/1")
    check(peek.get("found") is True and peek.get("txn") == txn, "the pending timer can be peeked", peek)
    check(stamp(peek.get("deliverAt")) == deliver_at, "peek shows the same deliverAt", peek)

    fired = await wait_until("the timer's message in the queue", lambda: _with_txn(client, q, txn))
    seen = time.monotonic()
    check(seen - sent >= delay_ms / 1000, f"the message was not readable before its {delay_ms} ms delay", seen - sent)
    rec = fired[0]
    check(stamp(rec.get("ts")) >= deliver_at, "the message was appended no earlier than deliverAt", (rec.get("ts"), res.get("deliverAt")))
    check(rec.get("payload") == payload, "the message carries the timer's payload", rec)

    # The fire deletes the timer in the entry that appends its message; once
    # it is gone nothing can fire it again.
    await wait_until("the fired timer to leave the pending set",
                     lambda: _peek_missing(client, q, "reminder/1"))
    all_recs = await records(client, q)
    check(len(all_recs) == 1 and all_recs[0].get("transactionId") == txn,
          "the timer fired exactly one message", [(r.get("offset"), r.get("transactionId")) for r in all_recs])

    # Consumed by a consumer group, through the client's pop and ack.
    group = f"g-{RUN}"
    consumer = client.queue(q).group(group).subscription_mode("all").batch(10).wait(False)
    msgs = await wait_until("the consumer group's pop of the fired message", consumer.pop)
    check(len(msgs) == 1 and msgs[0].get("transactionId") == txn, "the group pops exactly the fired message", msgs)
    check(msgs[0].get("data") == payload, "the popped message carries the payload", msgs[0])
    ack = await client.ack(msgs[0], True, {"group": group})
    check(ack.get("success") is True, "the fired message is acked", ack)
    again = await consumer.pop()
    check(again == [], "nothing is left to pop after the ack", again)


async def _peek_missing(client: Queen, queue: str, key: str) -> bool:
    return (await client.timers.peek(queue, key)).get("found") is False


async def case_timer_cancel(client: Queen) -> None:
    """A cancelled pending timer answers cancelled and never fires. "Never" is
    judged by a control timer due after it: once the control has fired, the
    cancelled one was due too."""
    q = name("cancel")
    res = await client.timers.schedule(q, "doomed", {"doomed": True}, delay_ms=2500)
    check(res.get("ok") is True and res.get("status") == "scheduled", "the doomed timer is scheduled", res)
    doomed_txn = res.get("txn")
    ctl = await client.timers.schedule(q, "control", {"control": True}, delay_ms=3000)
    check(ctl.get("ok") is True, "the control timer is scheduled", ctl)
    check(stamp(ctl.get("deliverAt")) > stamp(res.get("deliverAt")), "the control is due after the doomed timer", (ctl, res))

    cancelled = await client.timers.cancel(q, "doomed", txn=doomed_txn)
    check(cancelled.get("ok") is True and bool(cancelled), "cancel of a pending timer is ok", cancelled)
    check(cancelled.get("status") == "cancelled", "cancel of a pending timer answers cancelled", cancelled)
    check(cancelled.get("txn") == doomed_txn, "the cancel echoes the timer's txn", cancelled)
    peek = await client.timers.peek(q, "doomed")
    check(peek.get("found") is False and not peek, "a cancelled timer is no longer pending", peek)

    again = await client.timer(q).key("doomed").txn(doomed_txn).cancel()
    check(again.get("ok") is False and again.get("status") == "absent" and not again,
          "a second cancel answers absent, ok:false", again)

    await wait_until("the control timer to fire", lambda: _with_txn(client, q, ctl.get("txn")))
    txns = [r.get("transactionId") for r in await records(client, q)]
    check(doomed_txn not in txns, "the cancelled timer never fired", txns)
    check(txns == [ctl.get("txn")], "the queue holds only the control's message", txns)


async def case_timer_peek_list(client: Queen) -> None:
    """peek and list show the pending timers, a reschedule replaces one, and
    the list pages by key."""
    q = name("pending")
    keys = ["a/1", "b/2", "c/3"]
    answers = {}
    for i, k in enumerate(keys):
        answers[k] = await client.timers.schedule(q, k, {"k": k}, delay_ms=600_000 + i)
        check(answers[k].get("ok") is True and answers[k].get("status") == "scheduled", f"timer {k} is scheduled", answers[k])

    peek = await client.timers.peek(q, "b/2")
    check(peek.get("found") is True and bool(peek), "peek finds a pending timer", peek)
    check(peek.get("queue") == q and peek.get("timerKey") == "b/2" and peek.get("txn") == answers["b/2"].get("txn"),
          "peek names the queue, key and txn", peek)
    check(peek.get("messageId") == answers["b/2"].get("messageId"), "peek shows the promised messageId", peek)
    check(stamp(peek.get("deliverAt")) == stamp(answers["b/2"].get("deliverAt")), "peek shows deliverAt", peek)
    check(json.loads(base64.b64decode(peek.get("payload") or "")) == {"k": "b/2"}, "peek shows the payload as stored (base64 of the JSON)", peek)
    miss = await client.timers.peek(q, "nope")
    check(miss.get("found") is False, "peek of an unknown key answers found:false", miss)

    page = await client.timers.list(q)
    check([r.get("timerKey") for r in page.get("rows") or []] == keys, "list shows the pending timers in key order", page)
    check(page.get("truncated") is False, "a complete list is not truncated", page)
    first = await client.timers.list(q, limit=2)
    check([r.get("timerKey") for r in first.get("rows") or []] == keys[:2] and first.get("truncated") is True,
          "a list of limit 2 answers two rows, truncated", first)
    rest = await client.timers.list(q, after=first.get("nextAfter"))
    check([r.get("timerKey") for r in rest.get("rows") or []] == keys[2:], "the next page starts after nextAfter", rest)
    walked = await client.timers.list_all(q, limit=1)
    check([r.get("timerKey") for r in walked] == keys, "list_all walks every page", walked)

    moved = await client.timers.reschedule(q, "a/1", {"k": "a/1", "v": 2}, delay_ms=700_000)
    check(moved.get("ok") is True and moved.get("status") == "rescheduled", "reschedule of a pending timer answers rescheduled", moved)
    peek = await client.timers.peek(q, "a/1")
    check(peek.get("txn") == moved.get("txn") and peek.get("txn") != answers["a/1"].get("txn"), "peek shows the rescheduled timer's txn", peek)
    check(stamp(peek.get("deliverAt")) > stamp(answers["a/1"].get("deliverAt")), "the rescheduled timer is due later", peek)

    for k in keys:
        c = await client.timers.cancel(q, k)
        check(c.get("status") == "cancelled", f"timer {k} is cancelled", c)
    page = await client.timers.list(q)
    check(page.get("rows") == [], "once cancelled, list shows no pending timer", page)


async def case_txn_push_timer(client: Queen) -> None:
    """One transaction with a push and a timer commits both."""
    q, tq = name("txn-push"), name("txn-timer")
    txid = f"txn-push-{RUN}"
    res = await (
        client.transaction()
        .queue(q).push([{"data": {"order": 7}, "transactionId": txid}])
        .timer(tq).key("expire/7").payload({"expire": 7}).after_ms(500).schedule()
        .commit()
    )
    check(res.get("success") is True and bool(res), "the transaction commits", res)
    results = res.get("results") or []
    check(len(results) == 2, "it answers one result per push item and per timer", res)
    push = next((r for r in results if r.get("type") == "push"), {})
    timer = next((r for r in results if r.get("type") == "timer"), {})
    check(push.get("success") is True and push.get("index") == 0, "the push is result 0, successful", res)
    check(timer.get("index") == 1 and timer.get("opIndex") == 0, "the timer is result 1, op 0 of the rider", res)
    check(timer.get("ok") is True and timer.get("status") == "scheduled" and timer.get("txn"), "the timer is scheduled", res)
    got = await records(client, q)
    check([r.get("transactionId") for r in got] == [txid] and got[0].get("payload") == {"order": 7},
          "the pushed message is in its queue", got)
    fired = await wait_until("the transaction's timer to fire", lambda: _with_txn(client, tq, timer.get("txn")))
    check(fired[0].get("payload") == {"expire": 7}, "the timer delivered its payload", fired)
    check(stamp(fired[0].get("ts")) >= stamp(timer.get("deliverAt")), "not before its deliverAt", (fired, timer))


# ---------------------------------------------------------------------------
# Consuming: the client's spellings
# ---------------------------------------------------------------------------


async def case_consume_spellings(client: Queen) -> None:
    """subscription_mode("from_beginning") reads what was pushed before the
    group existed; renew (the client sends {} to the extend route) extends
    a live lease by its own length and reports a released one."""
    q = name("consume")
    await client.queue(q).push([{"data": {"n": 1}}, {"data": {"n": 2}}])
    group = f"g-{RUN}"
    consumer = client.queue(q).group(group).subscription_mode("from_beginning").batch(10).wait(False)
    msgs = await wait_until("the group's first pop", consumer.pop)
    check([m.get("data") for m in msgs] == [{"n": 1}, {"n": 2}],
          "from_beginning reads the messages pushed before the group", [m.get("data") for m in msgs])
    renewed = await client.renew(msgs[0])
    check(renewed.get("success") is True, "renew extends the live lease", renewed)
    for m in msgs:
        ack = await client.ack(m, True, {"group": group})
        check(ack.get("success") is True, "the message is acked", ack)
    gone = await client.renew(msgs[0])
    check(gone.get("success") is False, "renew of a released lease says so", gone)


CASES: Dict[str, Callable[[Queen], Awaitable[None]]] = {
    "lock_exclusive": case_lock_exclusive,
    "lock_renew": case_lock_renew,
    "lock_guard": case_lock_guard,
    "semaphore": case_semaphore,
    "timer_fires": case_timer_fires,
    "timer_cancel": case_timer_cancel,
    "timer_peek_list": case_timer_peek_list,
    "txn_push_timer": case_txn_push_timer,
    "consume_spellings": case_consume_spellings,
}


# ---------------------------------------------------------------------------
# Lies: a transport that falsifies one kind of broker answer, to prove the
# case that checks it fails. Each rewrites (method, path, request JSON,
# answer JSON) into a new answer, or None to leave it alone.
# ---------------------------------------------------------------------------


def _lock_results(req: Any, ans: Any, op: str, fix: Callable[[Dict[str, Any], Dict[str, Any]], None]) -> Any:
    if not isinstance(ans, dict) or not isinstance(req, dict):
        return None
    for o, r in zip(req.get("operations") or [], ans.get("results") or []):
        if o.get("op") == op:
            fix(o, r)
    return ans


def lie_acquire_always(method: str, path: str, req: Any, ans: Any) -> Any:
    """Every acquire is granted, as if the lock were never held."""
    def fix(o: Dict[str, Any], r: Dict[str, Any]) -> None:
        if not r.get("acquired"):
            r.update(acquired=True, slot=0, token=1 << 40, owner=o.get("owner"),
                     guard={"op": "check", "ns": "queen-locks", "key": f"{o['name']}#0", "expect": 1 << 40, "required": True})
            r.pop("reason", None)
    return _lock_results(req, ans, "acquire", fix) if path == "/api/v1/locks" else None


def lie_renew_same_token(method: str, path: str, req: Any, ans: Any) -> Any:
    """A renew answers the token it was given."""
    def fix(o: Dict[str, Any], r: Dict[str, Any]) -> None:
        if r.get("renewed"):
            r["token"] = o["token"]
            r.setdefault("guard", {})["expect"] = o["token"]
    return _lock_results(req, ans, "renew", fix) if path == "/api/v1/locks" else None


def lie_guard_ignored(method: str, path: str, req: Any, ans: Any) -> Any:
    """A transaction refused on its precondition is reported committed."""
    if path == "/api/v1/transaction" and isinstance(ans, dict) and ans.get("success") is False:
        return {"transactionId": ans.get("transactionId"), "success": True, "results": []}
    return None


def lie_semaphore_extra(method: str, path: str, req: Any, ans: Any) -> Any:
    """A semaphore grants one permit more than its limit."""
    def fix(o: Dict[str, Any], r: Dict[str, Any]) -> None:
        if o.get("limit") and not r.get("acquired"):
            slot = o["limit"]
            r.update(acquired=True, slot=slot, token=1 << 40, owner=o.get("owner"),
                     guard={"op": "check", "ns": "queen-locks", "key": f"{o['name']}#{slot}", "expect": 1 << 40, "required": True})
            r.pop("reason", None)
    return _lock_results(req, ans, "acquire", fix) if path == "/api/v1/locks" else None


def lie_fired_early(method: str, path: str, req: Any, ans: Any) -> Any:
    """Fetched records say they were appended in the year 2000."""
    if path != "/api/v1/fetch" or not isinstance(ans, dict):
        return None
    for e in ans.get("entries") or []:
        for r in e.get("records") or []:
            r["ts"] = "2000-01-01T00:00:00.000000Z"
    return ans


def lie_fired_twice(method: str, path: str, req: Any, ans: Any) -> Any:
    """Every fetched record appears twice (a second fire)."""
    if path != "/api/v1/fetch" or not isinstance(ans, dict):
        return None
    for e in ans.get("entries") or []:
        recs = e.get("records") or []
        if recs:
            extra = dict(recs[-1], offset=recs[-1]["offset"] + 1)
            e["records"] = recs + [extra]
            e["highWatermark"] = extra["offset"] + 1
    return ans


def lie_list_drops_row(method: str, path: str, req: Any, ans: Any) -> Any:
    """A list of pending timers leaves out its last row."""
    if method == "GET" and path.count("/") == 4 and path.startswith("/api/v1/timers/") and isinstance(ans, dict):
        if ans.get("rows"):
            ans["rows"] = ans["rows"][:-1]
        return ans
    return None


class Liar(httpx.AsyncBaseTransport):
    """Forwards every request to the broker and lets one lie rewrite the
    answer. Two lies change what is SENT: ``cancel_ignored`` keeps a timer
    DELETE from the broker and answers it, and later peeks of that timer, as
    if the cancel had worked; ``txn_timer_dropped`` strips a transaction's
    ``timers`` and answers the timers scheduled."""

    def __init__(self, lie: str) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._lie = lie
        self._cancelled: Dict[str, Dict[str, Any]] = {}

    async def aclose(self) -> None:
        await self._inner.aclose()

    @staticmethod
    def _answer(status: int, body: Any) -> httpx.Response:
        return httpx.Response(status, json=body)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if self._lie == "cancel_ignored" and path.startswith("/api/v1/timers/"):
            if request.method == "DELETE" and path in self._cancelled:
                c = self._cancelled[path]
                return self._answer(200, dict(c, ok=False, status="absent"))
            if request.method == "DELETE":
                # /api/v1/timers/<queue>/<timerKey>, each part percent-encoded.
                _, _, _, _, queue, key = request.url.raw_path.decode().split("?")[0].split("/", 5)
                self._cancelled[path] = {"ok": True, "status": "cancelled", "queue": unquote(queue),
                                         "timerKey": unquote(key), "txn": request.url.params.get("txn", "")}
                return self._answer(200, self._cancelled[path])
            if request.method == "GET" and path in self._cancelled:
                c = self._cancelled[path]
                return self._answer(200, {"found": False, "queue": c["queue"], "timerKey": c["timerKey"]})
        dropped: List[Dict[str, Any]] = []
        if self._lie == "txn_timer_dropped" and path == "/api/v1/transaction" and request.method == "POST":
            body = json.loads(request.content)
            dropped = body.pop("timers", None) or []
            headers = [(k, v) for k, v in request.headers.items() if k.lower() != "content-length"]
            request = httpx.Request("POST", request.url, headers=headers, content=json.dumps(body).encode())
        resp = await self._inner.handle_async_request(request)
        if dropped:
            raw = await resp.aread()
            await resp.aclose()
            ans = json.loads(raw)
            results = ans.get("results") or []
            for i, t in enumerate(dropped):
                when = datetime.now(timezone.utc) + timedelta(milliseconds=t.get("delayMs", 0))
                results.append({"index": len(results), "type": "timer", "opIndex": i, "ok": True, "status": "scheduled",
                                "queue": t["queue"], "timerKey": t["timerKey"], "txn": t["txn"],
                                "messageId": str(uuid.uuid4()), "deliverAt": when.isoformat().replace("+00:00", "Z")})
            ans["results"] = results
            return self._answer(resp.status_code, ans)
        raw = await resp.aread()
        await resp.aclose()
        headers = [(k, v) for k, v in resp.headers.items() if k.lower() not in ("content-length", "transfer-encoding")]
        rewrite = LIES.get(self._lie)
        if rewrite is not None and raw and "content-encoding" not in resp.headers:
            try:
                req_json = json.loads(request.content) if request.content else None
                ans_json = json.loads(raw)
            except ValueError:
                req_json = ans_json = None
            if ans_json is not None:
                new = rewrite(request.method, path, req_json, ans_json)
                if new is not None:
                    return self._answer(resp.status_code, new)
        return httpx.Response(resp.status_code, headers=headers, content=raw)


LIES: Dict[str, Callable[[str, str, Any, Any], Any]] = {
    "acquire_always": lie_acquire_always,
    "renew_same_token": lie_renew_same_token,
    "guard_ignored": lie_guard_ignored,
    "semaphore_extra": lie_semaphore_extra,
    "fired_early": lie_fired_early,
    "fired_twice": lie_fired_twice,
    "list_drops_row": lie_list_drops_row,
}
LIE_NAMES = sorted(list(LIES) + ["cancel_ignored", "txn_timer_dropped"])


async def main() -> int:
    global DEADLINE
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True, help="the broker, e.g. http://127.0.0.1:6632")
    p.add_argument("--case", action="append", choices=sorted(CASES), help="run only this case (repeatable)")
    p.add_argument("--lie", choices=LIE_NAMES, help="falsify one kind of broker answer (the case it targets must fail)")
    p.add_argument("--deadline", type=float, default=DEADLINE, help="seconds any one wait may take")
    args = p.parse_args()
    DEADLINE = args.deadline

    options: Dict[str, Any] = {}
    if args.lie:
        options["transport"] = Liar(args.lie)
    return await run_cases(Queen(args.url, **options), CASES, args.case or list(CASES))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
