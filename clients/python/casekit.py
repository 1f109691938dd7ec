"""What the client check scripts beside this file share (check_ephemeral.py,
check_jwt.py, test_locks_timers.py): the Failure a case raises, ``check``,
and the runner that prints ``PASS <case> (<s> s)`` or ``FAIL <case>: <what>``
for each case and one closing line ``N passed, N failed``.

A script run as ``python clients/python/<script>.py`` has this directory on
its path, so ``import casekit`` finds this file.
"""

from __future__ import annotations

import time
import traceback
from typing import Any, Awaitable, Callable, Iterable, Mapping


class Failure(AssertionError):
    """An assertion about the broker's behaviour that did not hold."""


def check(cond: Any, what: str, got: Any = None) -> None:
    """Raises a Failure naming ``what`` and what was got when cond is false."""
    if not cond:
        raise Failure(f"{what} (got {got!r})")


async def run_cases(client: Any, cases: Mapping[str, Callable[[Any], Awaitable[None]]], names: Iterable[str]) -> int:
    """Runs cases[name](client) for each of names in order, printing a PASS
    or FAIL line for each (a case that raised anything but a Failure fails
    with its traceback), closes the client, prints the closing count and
    answers the exit status: 1 when any case failed."""
    passed = failed = 0
    try:
        for case in names:
            started = time.monotonic()
            try:
                await cases[case](client)
            except Failure as f:
                failed += 1
                print(f"FAIL {case}: {f}", flush=True)
            except Exception:  # noqa: BLE001 - a crash is a failure with its traceback
                failed += 1
                print(f"FAIL {case}: raised\n{traceback.format_exc()}", flush=True)
            else:
                passed += 1
                print(f"PASS {case} ({time.monotonic() - started:.1f} s)", flush=True)
    finally:
        await client.close()
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0
