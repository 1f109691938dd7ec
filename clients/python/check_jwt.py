#!/usr/bin/env python3
"""The official Python client (queen-mq as pinned in
clients/python/requirements.txt) against a broker with JWT auth on
(JWT_ENABLED=true): its ``bearer_token`` option is what the broker checks.
A small check, not the client test suite.

    .cache/client-venv/bin/python clients/python/check_jwt.py --url http://127.0.0.1:6632 \\
        --write-token <jwt> --rw-token <jwt> --ro-token <jwt> --sub <the write token's sub>

Each case prints ``PASS <case>`` or ``FAIL <case>: <what>``, then one closing
line ``N passed, N failed``; the exit status is 1 when any case failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import traceback
import uuid
from typing import Any, Awaitable, Callable, Dict

import httpx

from casekit import Failure, check
from queen import Queen

RUN = uuid.uuid4().hex[:10]


async def refused(call: Awaitable[Any], status: int, what: str) -> None:
    try:
        got = await call
    except httpx.HTTPStatusError as e:
        check(e.response.status_code == status, f"{what}: status {status}", e.response.status_code)
        return
    raise Failure(f"{what} was not refused (answered {got!r})")


async def case_push_stamps_sub(a: argparse.Namespace) -> None:
    q = f"jwt-py-{RUN}"
    async with Queen(a.url, bearer_token=a.write_token) as writer, Queen(a.url, bearer_token=a.rw_token) as reader:
        res = await writer.queue(q).push([{"data": {"n": 1}, "producerSub": "mallory"}])
        check(isinstance(res, list) and res and res[0].get("status") == "queued", "the write-only token pushes", res)
        msgs = await reader.queue(q).batch(1).wait(False).pop()
        check(len(msgs) == 1 and msgs[0].get("data") == {"n": 1}, "the read-write token pops the message", msgs)
        check(msgs[0].get("producerSub") == a.sub, "producerSub is the pushing token's sub", msgs[0].get("producerSub"))


async def case_read_only_cannot_push(a: argparse.Namespace) -> None:
    async with Queen(a.url, bearer_token=a.ro_token) as c:
        await refused(c.queue(f"jwt-py-ro-{RUN}").push([{"data": 1}]), 403, "a read-only token's push")


async def case_no_token(a: argparse.Namespace) -> None:
    async with Queen(a.url) as c:
        await refused(c.queue(f"jwt-py-none-{RUN}").push([{"data": 1}]), 401, "a push without a token")


CASES: Dict[str, Callable[[argparse.Namespace], Awaitable[None]]] = {
    "push_stamps_sub": case_push_stamps_sub,
    "read_only_cannot_push": case_read_only_cannot_push,
    "no_token": case_no_token,
}


async def main() -> int:
    p = argparse.ArgumentParser()
    for flag in ("--url", "--write-token", "--rw-token", "--ro-token", "--sub"):
        p.add_argument(flag, required=True)
    a = p.parse_args()
    passed = failed = 0
    for name, case in CASES.items():
        try:
            await asyncio.wait_for(case(a), 60)
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}")
        except Exception:  # noqa: BLE001 - reported with its traceback
            failed += 1
            print(f"FAIL {name}: raised\n{traceback.format_exc()}")
        else:
            passed += 1
            print(f"PASS {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
