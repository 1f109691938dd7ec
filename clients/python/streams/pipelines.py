#!/usr/bin/env python3
"""Streaming pipelines of the official client's SDK (queen-mq, ``queen.streams``)
run against a real broker, for queen/e2e/streams_test.go.

    .cache/client-venv/bin/python clients/python/streams/pipelines.py window \\
        --url http://127.0.0.1:6632 --urls http://127.0.0.1:6632 \\
        --source events --sink sums --query sums-1

It uses only the client's public API: ``Queen(urls=...)``, ``queue(name)``,
``Stream.from_(...)`` with ``.filter``, ``.map``, ``.key_by``,
``.window_tumbling``, ``.reduce``, ``.gate(token_bucket_gate(...))`` and
``.to(...)``, then ``Stream.run(query_id=..., url=...)``, ``Runner.metrics()``
and ``Runner.stop()``. ``--urls`` is what the pops go through (every node of a
cluster); ``--url`` is the one node the SDK sends its /streams/v1 calls to.

The pipelines (the test pushes the input and checks the sink):

stateless
    data {"n": i}: keep n % 3 != 0, emit {"n": n, "sq": n*n}.
window
    data {"key": k, "ts": ms, "v": int}: per key, tumbling windows of
    --window-seconds on the event time data.ts, late records included, the
    sum of v; each closed window emits {"key", "windowStart", "sum"}. The idle
    flush is off (idle_flush_ms=0): a window closes only when a later record of
    its partition moves the watermark past its end, so the test closes the last
    windows with one sentinel record per partition far later in event time
    (whose own window stays open). Off, because the flush reads the SDK's
    in-memory watermark, which a failed cycle has already advanced: it could
    emit a window whose unacked records are about to come again.
gate
    a token bucket (--capacity, --refill-per-sec) per source partition in
    front of the sink: every message passes once, in order, at the rate the
    bucket allows; a denied tail waits for its lease to end.

The pipeline runs until SIGTERM or until --stop-file exists, then stops the
runner. It prints, one line each: ``started {json}`` once the query is
registered (with startedAtMs, the wall clock before the first pop),
``metrics {json}`` whenever the runner's counters change (checked every
--report-ms), ``error {json}`` for each error the runner reports, and
``stopped {json}`` with the last metrics. Exit 0 after a stop, 1 when the
pipeline could not start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from typing import Any, Dict

from queen import Queen, Stream, token_bucket_gate


def say(kind: str, body: Dict[str, Any]) -> None:
    print(f"{kind} {json.dumps(body, sort_keys=True, default=str)}", flush=True)


def stateless(q: Queen, a: argparse.Namespace) -> Stream:
    # Pre-reducer stages see the Queen message (its payload under "data").
    return (
        Stream.from_(q.queue(a.source))
        .filter(lambda m, _ctx=None: m["data"]["n"] % 3 != 0)
        .map(lambda m, _ctx=None: {"n": m["data"]["n"], "sq": m["data"]["n"] * m["data"]["n"]})
        .to(q.queue(a.sink))
    )


def window(q: Queen, a: argparse.Namespace) -> Stream:
    # key_by and event_time see the Queen message, the reducer its payload,
    # the post-reducer map the window's sum and the window's context.
    return (
        Stream.from_(q.queue(a.source))
        .key_by(lambda m: m["data"]["key"])
        .window_tumbling(
            seconds=a.window_seconds,
            event_time=lambda m: m["data"]["ts"],
            on_late="include",
            idle_flush_ms=0,
        )
        .reduce(lambda acc, v: acc + v["v"], 0)
        .map(lambda acc, ctx: {"key": ctx["key"], "windowStart": ctx["windowStart"], "sum": acc})
        .to(q.queue(a.sink))
    )


def gate(q: Queen, a: argparse.Namespace) -> Stream:
    return (
        Stream.from_(q.queue(a.source))
        .gate(token_bucket_gate(capacity=a.capacity, refill_per_sec=a.refill_per_sec))
        .to(q.queue(a.sink))
    )


PIPELINES = {"stateless": stateless, "window": window, "gate": gate}


async def run(a: argparse.Namespace) -> int:
    urls = [u for u in a.urls.split(",") if u] if a.urls else [a.url]
    stop = asyncio.Event()
    async with Queen(urls=urls) as q:
        # After Queen(), which installs handlers of its own: a stop is ours.
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)

        def on_error(err: Exception, ctx: Dict[str, Any]) -> None:
            say("error", {**ctx, "error": f"{type(err).__name__}: {err}", "atMs": int(time.time() * 1000)})

        stream = PIPELINES[a.pipeline](q, a)
        started_at = int(time.time() * 1000)
        try:
            runner = await stream.run(
                query_id=a.query,
                url=a.url,
                batch_size=a.batch_size,
                max_wait_millis=a.max_wait_ms,
                # From the queue's first message whenever the group's first
                # pop comes (a broker's default may be "new").
                subscription_mode="all",
                on_error=on_error,
            )
        except Exception as err:  # the registration failed: nothing ran
            say("error", {"phase": "start", "error": f"{type(err).__name__}: {err}"})
            return 1
        say("started", {"pipeline": a.pipeline, "query": a.query, "startedAtMs": started_at,
                        "serverQueryId": runner.metrics().get("serverQueryId"), "pid": os.getpid()})

        last: Dict[str, Any] = {}
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=a.report_ms / 1000.0)
            except asyncio.TimeoutError:
                pass
            if a.stop_file and os.path.exists(a.stop_file):
                stop.set()
            m = runner.metrics()
            counters = {k: v for k, v in m.items() if k not in ("lastCycleAt", "lastFlushAt")}
            if counters != last:
                say("metrics", m)
                last = counters
        await runner.stop()
        say("stopped", runner.metrics())
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pipeline", choices=sorted(PIPELINES))
    p.add_argument("--url", required=True, help="the node the SDK's /streams/v1 calls go to")
    p.add_argument("--urls", default="", help="comma-separated nodes the pops go through (default --url)")
    p.add_argument("--source", required=True)
    p.add_argument("--sink", required=True)
    p.add_argument("--query", required=True, help="the query id (its name on the broker)")
    p.add_argument("--stop-file", default="", help="stop once this file exists")
    p.add_argument("--batch-size", type=int, default=200)
    p.add_argument("--max-wait-ms", type=int, default=1000)
    p.add_argument("--report-ms", type=int, default=500)
    p.add_argument("--window-seconds", type=float, default=1.0)
    p.add_argument("--capacity", type=float, default=10.0)
    p.add_argument("--refill-per-sec", type=float, default=4.0)
    return asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
