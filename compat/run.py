#!/usr/bin/env python3
"""The compat lane's runner: every reader against every lake, then MATRIX.md.

    python compat/run.py --lakes .cache/compat-out/lakes.json \
        --versitygw .cache/bin/versitygw --matrix compat/MATRIX.md

It reads lakes.json (written by compat-gen), serves the lakes' directory
with versitygw on a free port of 127.0.0.1, and runs each reader module of
compat/readers/ (every *.py but _*.py) in a subprocess of its own over all
the lakes, two readers at a time. Each lake is read with a cfg of its own
tenant and that tenant's records: lakes.json names both for every lake (the
default tenant's lakes and a control-plane tenant's). A reader's exception,
crash or timeout on a lake is a fail of that lake, and the rest go on in a
new subprocess. It writes MATRIX.md and exits 1 when any cell is a fail (or
no reader ran).

Standard library only; the readers run under --python (default: this one),
which must have their engines (make compat installs them into
.cache/compat-venv).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as _dt
import importlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STATUSES = ("pass", "fail", "cannot-read")

# Processes this runner started, stopped by their id when it ends.
_children: set[subprocess.Popen] = set()
_children_lock = threading.Lock()


def log(msg: str) -> None:
    print(f"compat/run.py {time.monotonic() - _T0:6.1f}s: {msg}", file=sys.stderr, flush=True)


_T0 = time.monotonic()


def _track(p: subprocess.Popen) -> subprocess.Popen:
    with _children_lock:
        _children.add(p)
    return p


def _stop(p: subprocess.Popen, group: bool, sig: int = signal.SIGTERM, grace: float = 10) -> None:
    """Stop p (and its process group when group: a reader's JVM with it), by id."""
    try:
        if p.poll() is None:
            if group:
                os.killpg(p.pid, sig)
            else:
                p.send_signal(sig)
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                if group:
                    os.killpg(p.pid, signal.SIGKILL)
                else:
                    p.kill()
                p.wait()
        elif group:
            # the child is gone; a grandchild (a JVM) may still hold the group
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    except ProcessLookupError:
        pass
    with _children_lock:
        _children.discard(p)


# --- versitygw -----------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_versitygw(binary: str, lakes: dict, log_path: str) -> tuple[subprocess.Popen, str]:
    """versitygw serving lakes["s3dir"] (posix: the bucket is a folder of it)."""
    last = ""
    for _ in range(3):  # a free port can be taken between the probe and the bind
        addr = f"127.0.0.1:{free_port()}"
        logf = open(log_path, "ab")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": lakes["s3dir"], "TMPDIR": tempfile.gettempdir()}
        p = _track(subprocess.Popen(
            [binary, "--port", addr, "--access", lakes["access_key"], "--secret", lakes["secret_key"],
             "--region", lakes["region"], "--quiet", "posix", lakes["s3dir"]],
            stdout=logf, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL))
        logf.close()
        deadline = time.monotonic() + 20
        while p.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(addr.split(":"), timeout=1).close()
                return p, "http://" + addr
            except OSError:
                time.sleep(0.02)
        _stop(p, group=False)
        with open(log_path, errors="replace") as f:
            last = f.read()[-2000:]
        if "address already in use" not in last:
            break
    raise SystemExit(f"compat/run.py: versitygw did not start:\n{last}")


# --- one reader ------------------------------------------------------------

def discover(readers_dir: str, only: list[str] | None) -> list[str]:
    names = sorted(f[:-3] for f in os.listdir(readers_dir) if f.endswith(".py") and not f.startswith("_"))
    if only:
        unknown = set(only) - set(names)
        if unknown:
            raise SystemExit(f"compat/run.py: no reader {', '.join(sorted(unknown))} in {readers_dir} (have {', '.join(names)})")
        names = [n for n in names if n in only]
    return names


def run_reader(name: str, args, cfg_path: str, lake_ids: list[str], logs: str) -> dict:
    """Runs reader name over lake_ids, one subprocess at a time: a lake whose
    read crashes or times out is a fail, and the next subprocess goes on from
    the lake after it. Returns {"engine", "version", "results": {id: result},
    "seconds"}."""
    t0 = time.monotonic()
    engine, version = name, "?"
    results: dict[str, dict] = {}
    todo = list(lake_ids)
    log_path = os.path.join(logs, f"reader-{name}.log")
    open(log_path, "w").close()
    attempt = 0
    while todo:
        attempt += 1
        res_path = os.path.join(logs, f"reader-{name}.{attempt}.results")
        if os.path.exists(res_path):
            os.remove(res_path)
        cmd = [args.python, os.path.abspath(__file__), "--worker", name, "--cfg", cfg_path,
               "--results", res_path, "--worker-lakes", ",".join(todo), "--readers", os.path.abspath(args.readers)]
        with open(log_path, "ab") as logf:
            logf.write(f"=== {' '.join(cmd)}\n".encode())
            logf.flush()
            p = _track(subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True, cwd=args.readers))
        current, started, pos = None, time.monotonic(), 0
        killed_for = None
        while True:
            done = p.poll() is not None
            # read the lines the worker appended
            try:
                with open(res_path, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
            except FileNotFoundError:
                chunk = b""
            complete = chunk[: chunk.rfind(b"\n") + 1]
            pos += len(complete)
            for line in complete.decode("utf-8").splitlines():
                msg = json.loads(line)
                if msg["type"] == "engine":
                    engine, version = msg["engine"], msg["version"]
                elif msg["type"] == "start":
                    current, started = msg["lake"], time.monotonic()
                elif msg["type"] == "result":
                    results[msg["lake"]] = msg["result"] if msg.get("raised") else check_result(msg["result"])
                    todo.remove(msg["lake"])
                    log(f"{name} {msg['lake']}: {results[msg['lake']]['status']} "
                        f"({time.monotonic() - started:.1f} s)")
                    current = None
                elif msg["type"] == "fatal":  # the module did not load: every lake fails
                    for lake in todo:
                        results[lake] = {"status": "fail", "reason": msg["reason"], "notes": "", "via": "-"}
                    todo = []
            if done:
                break
            limit = args.timeout + (args.startup if len(results) == 0 and attempt == 1 else 0)
            if current is not None and time.monotonic() - started > limit:
                killed_for = current
                _stop(p, group=True, sig=signal.SIGKILL)
                break
            time.sleep(0.2)
        _stop(p, group=True)  # whatever it left in its group
        if not todo:
            break
        lake = killed_for or current or todo[0]
        if killed_for:
            reason = f"timeout: no answer within {limit:.0f} s, the reader was killed"
        else:
            reason = f"the reader's process ended (exit code {p.returncode}) while it read this lake: {tail(log_path)}"
        results[lake] = {"status": "fail", "reason": reason, "notes": "", "via": "-"}
        log(f"{name} {lake}: fail ({reason[:120]})")
        todo.remove(lake)
    return {"engine": engine, "version": version, "results": results, "seconds": time.monotonic() - t0}


def tail(path: str, n: int = 300) -> str:
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip() and not l.startswith("===")]
    except OSError:
        return ""
    s = " | ".join(lines[-3:])
    return s[-n:]


def check_result(r) -> dict:
    """A reader's answer, or a fail that says what was wrong with it."""
    if not isinstance(r, dict) or r.get("status") not in STATUSES or not isinstance(r.get("reason", ""), str) \
            or r.get("via") not in ("s3", "files"):
        return {"status": "fail", "reason": f"the reader answered {str(r)[:200]}, which is not a result", "notes": "",
                "via": "-"}
    out = {"status": r["status"], "reason": r.get("reason") or "", "notes": r.get("notes") or "", "via": r["via"],
           "caveat": (str(r.get("caveat") or "") if r["status"] == "pass" else "")}
    if out["status"] != "pass" and not out["reason"]:
        out["reason"] = "(no reason given)"
    return out


# --- the worker: one reader module in its own process ---------------------

def lake_cfg(cfg: dict, lake: dict, expected: dict) -> dict:
    """The cfg a reader gets for lake: the run's, with the lake's tenant and
    that tenant's expected records (expected: the records by file)."""
    return dict(cfg, tenant=lake["tenant"], expected_path=lake["expected"], expected=expected[lake["expected"]])


def worker(args) -> int:
    out = open(args.results, "a", encoding="utf-8")

    def emit(msg: dict) -> None:
        out.write(json.dumps(msg, ensure_ascii=False) + "\n")
        out.flush()

    with open(args.cfg, encoding="utf-8") as f:
        cfg = json.load(f)
    lakes = {l["id"]: l for l in cfg.pop("lakes")}
    sys.path.insert(0, os.path.join(HERE, "readers"))  # _checks
    sys.path.insert(0, os.path.abspath(args.readers))
    import _checks  # noqa: E402 - the readers' helpers, beside them

    # each tenant's records, for the lakes of that tenant
    expected = {p: _checks.load_expected(p) for p in sorted({l["expected"] for l in lakes.values()})}
    try:
        mod = importlib.import_module(args.worker)
        engine = str(mod.ENGINE)
    except BaseException as e:  # noqa: BLE001 - a module that does not load fails every lake
        traceback.print_exc()
        emit({"type": "fatal", "reason": f"the reader module did not load: {type(e).__name__}: {e}"[:400]})
        return 1
    try:
        version = str(mod.version())
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        version = f"unknown ({type(e).__name__}: {e})"[:100]
    emit({"type": "engine", "engine": engine, "version": version})
    for lake_id in args.worker_lakes.split(","):
        emit({"type": "start", "lake": lake_id})
        print(f"=== {args.worker} {lake_id}", flush=True)
        try:
            r = mod.read(lakes[lake_id], lake_cfg(cfg, lakes[lake_id], expected))
        except Exception as e:  # noqa: BLE001 - the reader's exception is the lake's fail
            traceback.print_exc()
            r = {"status": "fail", "reason": f"exception: {type(e).__name__}: {e}"[:600], "notes": "", "via": "-"}
            emit({"type": "result", "lake": lake_id, "result": r, "raised": True})
            continue
        emit({"type": "result", "lake": lake_id, "result": r})
    return 0


# --- MATRIX.md -------------------------------------------------------------

def md(s: str) -> str:
    """Text for a table cell: one line, pipes escaped."""
    return " ".join(str(s).split()).replace("|", "\\|")


def split_notes(notes: str) -> list[str]:
    return [n.strip() for n in notes.split("; ") if n.strip()]


ATTRS = ("format", "codec", "layout", "align", "source")


def where(ids: set[str], lakes: list[dict]) -> str:
    """The lakes of ids in few words: "every lake", "jsonl", "parquet day",
    ..., the fewest attributes and groups that make up exactly that set."""
    if set(ids) == {l["id"] for l in lakes}:
        return "every lake"
    best, best_attrs = None, ()
    for n in range(1, len(ATTRS) + 1):
        for attrs in itertools.combinations(ATTRS, n):
            groups: dict[tuple, set[str]] = {}
            for l in lakes:
                groups.setdefault(tuple(l[a] for a in attrs), set()).add(l["id"])
            chosen = [k for k, g in groups.items() if g <= ids]
            if set().union(*(groups[k] for k in chosen)) == ids if chosen else not ids:
                if best is None or len(chosen) < len(best):
                    best, best_attrs = chosen, attrs
        if best is not None:
            break
    if not best:
        return ", ".join(sorted(ids))
    return "; ".join(" ".join(f"{a}={v}" for a, v in zip(best_attrs, k)) for k in best)


TENANT_CELL = {"env": "default", "cp": "control plane"}


def tenants_text(lakes: dict) -> str:
    """Which lakes are whose: the default tenant's from the environment's
    sink, a control-plane tenant's from the sink PUT through /api/cp."""
    count = {t["id"]: sum(1 for l in lakes["lakes"] if l["tenant"] == t["id"]) for t in lakes["tenants"]}
    parts = []
    for t in lakes["tenants"]:
        n = f"{count[t['id']]} lake{'' if count[t['id']] == 1 else 's'}"
        if t["source"] == "env":
            parts.append(f"The lakes whose tenant column says {TENANT_CELL['env']} ({n}) hold the default tenant "
                         f"`{t['id']}`, pushed to without `x-queen-tenant` and mirrored by the environment's sink "
                         f"(`QUEEN_S3_*`).")
        else:
            c = t.get("cluster") or "?"
            parts.append(f"The lakes whose tenant column says {TENANT_CELL['cp']} ({n}) hold the control-plane "
                         f"tenant `{t['id']}`: the broker tenant of the cluster `{c}` (made with "
                         f"`POST /api/cp/tenants` and `PUT /api/cp/clusters/{c}`), pushed to with "
                         f"`x-queen-tenant: {t['id']}`, and mirrored by the cluster's own sink, set with "
                         f"`PUT /api/cp/clusters/{c}/s3` (its secret sealed with `QUEEN_ENCRYPTION_KEY`) on a node "
                         f"with no `QUEEN_S3_QUEUES`.")
    parts.append("Each lake holds its own tenant's records only, with that tenant's stamps and offsets, and every "
                 "reader checks it against that tenant's records.")
    return " ".join(parts) + "\n"


def render(lakes: dict, runs: list[dict], run_date: str, seconds: float) -> str:
    reasons: dict[str, int] = {}

    def ref(text: str) -> int:
        if text not in reasons:
            reasons[text] = len(reasons) + 1
        return reasons[text]

    out = []
    out.append("# Reader compatibility matrix\n")
    out.append(f"Rendered by `make compat` ([`run.py`](run.py)) on {run_date}; do not edit by hand. "
               f"`compat-gen` wrote the lakes through the real embedded sink into versitygw at "
               f"{lakes['generatedAt']}, and each engine read them back and checked them against what was "
               f"pushed.\n")
    tenants = lakes["tenants"]
    per = {t["id"]: t["records"] for t in tenants}
    records = f"{next(iter(per.values()))} records" if len(set(per.values())) == 1 else "records"
    out.append(f"The data set: {records} pushed over HTTP to each of {len(tenants)} tenants in the same rounds, to "
               f"{len(lakes['queues'])} queues ({', '.join(lakes['queues'])}) of 12 partitions each (one named "
               f"`eu west/1`, one `zürich`), on both sides of midnight UTC of the broker's clock "
               f"({lakes['hour_boundary']}: dt {' and '.join(lakes['dt_values'])}), with payloads that hold decimals "
               f"such as `42.00`, nested objects and arrays, unicode, pretty-printed JSON with LF and CRLF line breaks, "
               f"a JSON `null`, a JSON string with escapes, a bare number and `true`. An empty payload cannot be pushed "
               f"over HTTP (the field is required); the lake writes `null` for one, as it does for the `null` payload.\n")
    out.append(tenants_text(lakes))
    out.append("Each reader checks, not just loads: every record present once; column names and types "
               "(`ts` a UTC timestamp with microseconds, `offset` 64-bit); tenant, queue, dt and hour come back "
               "as Hive columns from a glob of `tenant=*/queue=*/dt=*/hour=*/*` (`dt=*/*` for day alignment), "
               "so the `_queen/` sidecars are never read, and filtering on dt prunes; the payload equals what "
               "was pushed byte for byte where the engine keeps text, or as parsed JSON where it re-renders "
               "(the notes say which); a JSON path on the payload works.\n")

    out.append("| engine | version | reads via | seconds |")
    out.append("|---|---|---|---:|")
    for run in runs:
        vias = sorted({r["via"] for r in run["results"].values() if r["via"] in ("s3", "files")})
        out.append(f"| {md(run['engine'])} | {md(run['version'])} | {' and '.join(vias) or '-'} | {run['seconds']:.0f} |")
    out.append("")
    out.append("`s3`: through the S3 API of versitygw (the endpoint, path-style URLs, the lake's keys); `files`: "
               "the bucket's files on disk, where the engine has no way to the S3 API here (its notes say why). "
               "A cell read from the files says so.\n")

    out.append("## The matrix\n")
    out.append("| format | codec | layout | align | tenant | " + " | ".join(md(f"{r['engine']} {r['version']}") for r in runs) + " |")
    out.append("|---|---|---|---|---|" + "---|" * len(runs))
    for lake in lakes["lakes"]:
        cells = []
        for run in runs:
            r = run["results"].get(lake["id"])
            if r is None:
                cells.append("-")
                continue
            via = " (files)" if r["via"] == "files" else ""
            if r["status"] == "pass" and r.get("caveat"):
                cells.append(f"pass{via}, with a caveat: see [{ref(r['caveat'])}](#reasons-and-caveats)")
            elif r["status"] == "pass":
                cells.append("pass" + via)
            elif len(r["reason"]) <= 100:
                cells.append(f"**{r['status']}**{via}: {md(r['reason'])}")
            else:
                cells.append(f"**{r['status']}**{via}: see [{ref(r['reason'])}](#reasons-and-caveats)")
        out.append(f"| {lake['format']} | {lake['codec']} | {lake['layout']} | {lake['align']} | "
                   f"{TENANT_CELL[lake['source']]} | " + " | ".join(cells) + " |")
    out.append("")
    total = sum(len(r["results"]) for r in runs)
    counts = {s: sum(1 for r in runs for x in r["results"].values() if x["status"] == s) for s in STATUSES}
    caveats = sum(1 for r in runs for x in r["results"].values() if x["status"] == "pass" and x.get("caveat"))
    out.append(f"{total} cells: {counts['pass']} pass ({caveats} with a caveat), {counts['fail']} fail, "
               f"{counts['cannot-read']} cannot-read; the readers took {seconds:.0f} s, two at a time. A fail means "
               f"the engine read the lake and disagreed with the data, and fails `make compat`; cannot-read means "
               f"it could not open the lake; a caveat is a defect that a user of that engine meets on this data "
               f"(the engine's, or versitygw's where it says so), which the reader worked around to compare the "
               f"values.\n")
    if reasons:
        out.append("## Reasons and caveats\n")
        for text, n in reasons.items():
            out.append(f"{n}. {md(text)}")
        out.append("")

    out.append("## Notes\n")
    out.append("What each reader saw beside its verdict, and on which lakes.\n")
    for run in runs:
        by_note: dict[str, set[str]] = {}
        for lake_id, r in run["results"].items():
            for n in split_notes(r["notes"]):
                by_note.setdefault(n, set()).add(lake_id)
        out.append(f"### {md(run['engine'])} {md(run['version'])}\n")
        if not by_note:
            out.append("No notes.\n")
            continue
        for n, ids in by_note.items():
            out.append(f"- {md(n)} ({where(ids, lakes['lakes'])})")
        out.append("")
    return "\n".join(out)


# --- main ------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lakes", default=os.path.join(ROOT, ".cache", "compat-out", "lakes.json"))
    ap.add_argument("--versitygw", default=os.path.join(ROOT, ".cache", "bin", "versitygw"))
    ap.add_argument("--matrix", default=os.path.join(HERE, "MATRIX.md"))
    ap.add_argument("--readers", default=os.path.join(HERE, "readers"))
    ap.add_argument("--only", default="", help="comma-separated reader modules (default: all)")
    ap.add_argument("--jars", default=os.path.join(ROOT, ".cache", "compat-jars"), help="Spark's extra jars")
    ap.add_argument("--python", default=sys.executable, help="the Python of the readers (with their engines)")
    ap.add_argument("--jobs", type=int, default=2, help="readers at a time")
    ap.add_argument("--timeout", type=float, default=180, help="seconds one lake's read may take")
    ap.add_argument("--startup", type=float, default=120, help="more seconds for a reader's first lake")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--cfg", help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    ap.add_argument("--worker-lakes", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    with open(args.lakes, encoding="utf-8") as f:
        lakes = json.load(f)
    names = discover(args.readers, [n for n in args.only.split(",") if n] or None)
    if not names:
        log(f"no reader in {args.readers}: nothing would be checked")
        return 1
    out_dir = os.path.dirname(os.path.abspath(args.lakes))
    logs = os.path.join(out_dir, "logs")
    tmp = os.path.join(out_dir, "tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(logs, exist_ok=True)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    gw = None
    try:
        gw, endpoint = start_versitygw(args.versitygw, lakes, os.path.join(logs, "versitygw-readers.log"))
        log(f"versitygw at {endpoint} over {lakes['s3dir']}; readers: {', '.join(names)}")
        cfgs = {}
        for name in names:
            cfg = {"endpoint": endpoint, "endpoint_host": endpoint.split("://", 1)[1], "use_ssl": False,
                   "url_style": "path", "region": lakes["region"], "access_key": lakes["access_key"],
                   "secret_key": lakes["secret_key"], "bucket": lakes["bucket"], "s3dir": lakes["s3dir"],
                   "dt_values": lakes["dt_values"],
                   "hour_boundary": lakes["hour_boundary"], "jars_dir": os.path.abspath(args.jars),
                   "tmp_dir": os.path.join(tmp, name), "lakes_json": os.path.abspath(args.lakes),
                   "lakes": lakes["lakes"]}
            os.makedirs(cfg["tmp_dir"])
            cfgs[name] = os.path.join(tmp, f"{name}.cfg.json")
            with open(cfgs[name], "w", encoding="utf-8") as f:
                json.dump(cfg, f, ensure_ascii=False, indent=1)
        # the slowest reader of the last run first, so two at a time end together
        times_path = os.path.join(out_dir, "reader-seconds.json")
        try:
            with open(times_path) as f:
                last = json.load(f)
        except (OSError, ValueError):
            last = {}
        order = sorted(names, key=lambda n: -last.get(n, 0))
        ids = [l["id"] for l in lakes["lakes"]]
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futs = {n: pool.submit(run_reader, n, args, cfgs[n], ids, logs) for n in order}
            runs_by = {n: f.result() for n, f in futs.items()}
        seconds = time.monotonic() - t0
    except KeyboardInterrupt:
        log("interrupted: stopping the processes it started")
        return 130
    finally:
        with _children_lock:
            left = list(_children)
        for p in left:
            _stop(p, group=p is not gw)
    with open(times_path, "w") as f:
        json.dump({n: round(r["seconds"], 1) for n, r in runs_by.items()}, f)
    runs = sorted(runs_by.values(), key=lambda r: r["engine"].lower())
    run_date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d")
    text = render(lakes, runs, run_date, seconds)
    tmp_matrix = args.matrix + ".tmp"
    with open(tmp_matrix, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp_matrix, args.matrix)
    fails = [(r["engine"], lake, x["reason"]) for r in runs for lake, x in r["results"].items() if x["status"] == "fail"]
    counts = {s: sum(1 for r in runs for x in r["results"].values() if x["status"] == s) for s in STATUSES}
    log(f"wrote {args.matrix}: {counts['pass']} pass, {counts['fail']} fail, {counts['cannot-read']} cannot-read")
    for engine, lake, reason in fails:
        log(f"FAIL {engine} {lake}: {reason[:300]}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
