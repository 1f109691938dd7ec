"""bench_streams.py: the tumbling-window sum pipeline of the official
client's streaming SDK (queen-mq, `from queen import Queen, Stream`) against
running queen nodes, timed. tools/bench-streams.sh runs it on 1 and 3 nodes.

It pre-loads RECORDS records {"key", "ts", "v"} over KEYS keys into
PARTITIONS partitions of a fresh source queue (key k always in partition
k % PARTITIONS, event times increasing), then one sentinel record per
partition far enough ahead in event time to close every window that holds a
record. Then it starts the clock, runs

    key_by(key) -> window_tumbling(event_time=ts) -> reduce(sum of v)
        -> map({key, windowStart, sum}) -> to(sink)

with the given batch_size and max_partitions, and reads the sink (fetch by
offset, no consumer group) until it holds a result for every window; the
clock stops there. The sentinels are the last records of their partitions,
so by then every record went through a committed cycle. Every result is
checked against the sums computed here: a missing, extra, duplicated or
wrong one fails the run (exit 1).

Prints one line of figures, `name value` pairs for tools/cluster.sh's num:

    cycles 412 cycles/s 98.1 records 20004 records/s 4763 elapsed s 4.20 windows 320 ...
"""

import argparse
import asyncio
import os
import sys
import time
import uuid

from queen import Queen, Stream


def cpu_seconds(pids):
    """utime+stime of these processes, in seconds (None without /proc)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat(5)
    return total / os.sysconf("SC_CLK_TCK")


def records(n, keys, partitions, step_ms):
    """The pre-loaded records by partition, and the sums they must give by
    (partition, key, windowStart)."""
    by_partition = {f"p{p}": [] for p in range(partitions)}
    want = {}
    for i in range(n):
        k = i % keys
        rec = {"key": f"k{k}", "ts": i * step_ms, "v": (i * 7919) % 1000}
        part = f"p{k % partitions}"
        by_partition[part].append(rec)
        window = rec["ts"] // WINDOW_MS * WINDOW_MS
        want[(part, rec["key"], window)] = want.get((part, rec["key"], window), 0) + rec["v"]
    # One sentinel per partition, two windows past the last record: its
    # watermark closes every window above; its own window never closes.
    end = n * step_ms + 2 * WINDOW_MS
    for recs in by_partition.values():
        recs.append({"key": "sentinel", "ts": end, "v": 0})
    return by_partition, want


WINDOW_MS = 10_000


async def main(a):
    urls = a.urls.split(",")
    by_partition, want = records(a.records, a.keys, a.partitions, a.step_ms)
    pushed = sum(len(r) for r in by_partition.values())
    tag = uuid.uuid4().hex[:8]
    source, sink = f"bench-src-{tag}", f"bench-sums-{tag}"
    pids = [int(p) for p in a.pids.split(",") if p]

    async with Queen(urls) as queen:
        await queen.queue(source).create()
        await queen.queue(sink).create()
        for part, recs in by_partition.items():
            for i in range(0, len(recs), 500):
                await queen.queue(source).partition(part).push([{"data": r} for r in recs[i:i + 500]])

        got, offsets = {}, {}
        dupes = []
        broker0, self0 = cpu_seconds(pids), time.process_time()
        t0 = time.monotonic()
        runner = await (
            Stream.from_(queen.queue(source))
            .key_by(lambda m: m["data"]["key"])
            .window_tumbling(seconds=WINDOW_MS // 1000, event_time=lambda m: m["data"]["ts"])
            .reduce(lambda acc, v: acc + v["v"], 0)
            .map(lambda acc, ctx: {"key": ctx["key"], "windowStart": ctx["windowStart"], "sum": acc})
            .to(queen.queue(sink))
            .run(f"bench-{tag}", urls[0], batch_size=a.batch_size, max_partitions=a.max_partitions,
                 subscription_mode="all")
        )
        deadline = t0 + a.timeout
        while len(got) < len(want) and time.monotonic() < deadline:
            read = await queen.queue(sink).fetch(list(by_partition), offsets=offsets)
            for part, fp in read.items():
                offsets[part] = fp["nextOffset"]
                for r in fp["records"]:
                    p = r["payload"]
                    k = (part, p["key"], p["windowStart"])
                    if k in got:
                        dupes.append(k)
                    got[k] = p["sum"]
            if len(got) < len(want):
                await asyncio.sleep(0.02)  # the next read of the condition, not a wait for it
        elapsed = time.monotonic() - t0
        broker1, self1 = cpu_seconds(pids), time.process_time()
        m = runner.metrics()
        await runner.stop()

    bad = []
    if dupes:
        bad.append(f"{len(dupes)} duplicated results, e.g. {dupes[:3]}")
    missing = [k for k in want if k not in got]
    if missing:
        bad.append(f"{len(missing)} of {len(want)} windows have no result after {a.timeout}s, e.g. {missing[:3]}")
    extra = [k for k in got if k not in want]
    if extra:
        bad.append(f"{len(extra)} results for no window, e.g. {extra[:3]}")
    wrong = [(k, got[k], want[k]) for k in want if k in got and got[k] != want[k]]
    if wrong:
        bad.append(f"{len(wrong)} wrong sums (window, got, want), e.g. {wrong[:3]}")
    if m.get("errorsTotal"):
        bad.append(f"{m['errorsTotal']} runner errors, the last: {m.get('lastError')}")
    if bad:
        print("FAIL: " + "; ".join(bad), file=sys.stderr)
        return 1

    broker = f" broker CPU s/s {(broker1 - broker0) / elapsed:.2f}" if broker0 is not None and broker1 is not None else ""
    print(f"cycles {m['cyclesTotal']} cycles/s {m['cyclesTotal'] / elapsed:.1f} records {pushed} "
          f"records/s {pushed / elapsed:.0f} elapsed s {elapsed:.2f} windows {len(want)} "
          f"records/cycle {m['messagesTotal'] / max(1, m['cyclesTotal']):.1f} "
          f"idle flushes {m['flushCyclesTotal']} driver CPU s/s {(self1 - self0) / elapsed:.2f}{broker}")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--urls", required=True, help="comma-separated node URLs; the SDK's streams calls go to the first")
    ap.add_argument("--records", type=int, default=100000)
    ap.add_argument("--keys", type=int, default=16)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--step-ms", type=int, default=10, help="event time between two consecutive records")
    ap.add_argument("--batch-size", type=int, default=200)
    ap.add_argument("--max-partitions", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=120, help="seconds to wait for every window's result")
    ap.add_argument("--pids", default="", help="comma-separated broker pids, for their CPU time")
    sys.exit(asyncio.run(main(ap.parse_args())))
