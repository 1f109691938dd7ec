#!/usr/bin/env python3
"""The official Python client's ephemeral surface (``client.ephemeral``,
queen-mq as pinned in clients/python/requirements.txt) against one real
broker: a small check that its requests work unchanged and that what it
reads means what it expects. Not the client test suite.

    .cache/client-venv/bin/python clients/python/check_ephemeral.py --url http://127.0.0.1:6632

Each case prints ``PASS <case>`` or ``FAIL <case>: <what>``, then one closing
line ``N passed, N failed``; the exit status is 1 when any case failed. Every
wait is the broker's own long poll, never a sleep.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from typing import Any, Awaitable, Callable, Dict, List

from casekit import Failure, check, run_cases
from queen import Queen
from queen.ephemeral import EPHEMERAL_QUEUE_NOT_FOUND
from queen.errors import EphemeralError, EphemeralQueueNotFoundError

RUN = uuid.uuid4().hex[:10]


def name(kind: str) -> str:
    return f"eph-{kind}-{RUN}"


def payloads(messages: List[Dict[str, Any]]) -> List[Any]:
    return [(m["payload"], m["attempts"]) for m in messages]


async def case_push_pop_ack(client: Queen) -> None:
    eph, q = client.ephemeral, name("inbox")
    got = await eph.push(q, [{"n": 1}, {"payload": {"n": 2}}, "three"])
    check(got.get("pushed") == 3, "push answers pushed 3", got)
    first = await eph.pop(q, group="workers", batch=2)
    check(first["queue"] == q and payloads(first["messages"]) == [({"n": 1}, 1), ({"n": 2}, 1)], "the first pop", first)
    check(all(m["partition"] == "Default" and isinstance(m["id"], str) for m in first["messages"]), "ids and partitions", first)
    acked = await eph.ack(q, [first["messages"][0], {"id": first["messages"][1]["id"], "status": "retry"}], group="workers")
    check([r["outcome"] for r in acked["results"]] == ["acked", "redelivered"], "ack outcomes", acked)
    second = await eph.pop(q, group="workers", batch=5)
    check(payloads(second["messages"]) == [({"n": 2}, 2), ("three", 1)], "the retried message comes back first", second)
    again = await eph.ack(q, second["messages"] + first["messages"][:1], group="workers", status=True)
    check([r["outcome"] for r in again["results"]] == ["acked", "acked", "unknown"], "an ack twice is unknown", again)
    empty = await eph.pop(q, group="workers")
    check(empty == {"queue": q, "messages": []}, "an empty pop is an empty list", empty)


async def case_fan_out(client: Queen) -> None:
    eph, q = client.ephemeral, name("fan")
    for g in ("a", "b"):
        await eph.pop(q, group=g)
    await eph.push(q, ["x"], partition="room-7")
    for g in ("a", "b"):
        got = await eph.pop(q, group=g, batch=5, commit_on_delivery=True)
        check(payloads(got["messages"]) == [("x", 1)] and got["messages"][0]["partition"] == "room-7", f"group {g} gets it", got)


async def case_long_poll(client: Queen) -> None:
    eph, q = client.ephemeral, name("poll")
    waiting = asyncio.create_task(eph.pop(q, wait=True, timeout=20000, batch=1))
    await eph.push(q, [{"late": True}])
    got = await waiting
    check(payloads(got["messages"]) == [({"late": True}, 1)], "a waiting pop gets a later push", got)


async def case_configure_depth(client: Queen) -> None:
    eph, q = client.ephemeral, name("declared")
    got = await eph.configure(q, max_length=2, policy="drop_oldest", lease_seconds=5, retry_limit=1,
                              window_buffer={"ms": 10, "count": 2})
    opts = got.get("options", {})
    check(got.get("configured") is True and opts.get("maxLength") == 2 and opts.get("policy") == "drop_oldest"
          and opts.get("leaseSeconds") == 5 and opts.get("windowBuffer") == {"ms": 10, "count": 2}, "configure", got)
    for n in (1, 2, 3):
        await eph.push(q, n)
    depth = await eph.depth(q)
    check(depth.get("messages") == 2 and depth.get("declared") is True, "drop_oldest keeps the newest two", depth)
    listed = await eph.queues()
    check(any(e.get("queue") == q and e.get("messages") == 2 for e in listed.get("queues", [])), "queues lists it", listed)
    got = await eph.pop(q, batch=5, commit_on_delivery=True)
    check(payloads(got["messages"]) == [(2, 1), (3, 1)], "the oldest was dropped", got)


async def case_reset_delete_missing(client: Queen) -> None:
    eph, q = client.ephemeral, name("reset")
    await eph.push(q, ["a", "b"])
    leased = await eph.pop(q)
    reset = await eph.reset(q)
    check(reset.get("dropped") == 2, "reset answers dropped", reset)
    stale = await eph.ack(q, leased["messages"])
    check(stale["results"][0]["outcome"] == "stale", "an ack from before the reset is stale", stale)
    deleted = await eph.delete(q)
    check(deleted.get("deleted") is True, "delete", deleted)
    again = await eph.delete(q)
    check(again.get("deleted") is False, "a second delete", again)
    try:
        await eph.depth(q)
    except EphemeralQueueNotFoundError as e:
        check(e.code == EPHEMERAL_QUEUE_NOT_FOUND, "the missing queue's code", e.code)
    else:
        raise Failure("depth of a deleted queue did not raise EphemeralQueueNotFoundError")


async def case_refusal(client: Queen) -> None:
    eph, q = client.ephemeral, name("bad")
    try:
        await eph.pop(q, batch=0)
    except EphemeralError as e:
        check(e.status == 400 and "batch" in str(e), "batch 0 is a 400 naming batch", str(e))
    else:
        raise Failure("batch 0 was accepted")


CASES: Dict[str, Callable[[Queen], Awaitable[None]]] = {
    "push_pop_ack": case_push_pop_ack,
    "fan_out": case_fan_out,
    "long_poll": case_long_poll,
    "configure_depth": case_configure_depth,
    "reset_delete_missing": case_reset_delete_missing,
    "refusal": case_refusal,
}


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True, help="the broker, e.g. http://127.0.0.1:6632")
    args = p.parse_args()
    return await run_cases(Queen(args.url), CASES, CASES)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
