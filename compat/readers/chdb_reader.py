"""chDB (ClickHouse in process): the s3() table function on the endpoint URL.

The URL is the endpoint, bucket and key glob (path style), with
use_hive_partitioning=1 so tenant, queue, dt (a Date) and hour (an Int64)
come from the path. Parquet is read as it is; JSONL as JSONEachRow with an
explicit structure (ts DateTime64(6, 'UTC'), payload Nullable(String)): an
object, array or number payload then comes back as its own text, byte for
byte, but a JSON string payload as its value, unquoted. The query statistics
(rows read) show what a dt filter prunes.
"""

from __future__ import annotations

import json

import chdb as _chdb

try:
    from . import _checks as C
except ImportError:  # loaded by path, outside the package
    import _checks as C  # type: ignore[no-redef]

ENGINE = "chDB"

JSONL_STRUCTURE = ("partition String, offset Int64, transactionId String, ts DateTime64(6, 'UTC'), "
                   "payload Nullable(String)")
SETTINGS = "use_hive_partitioning = 1"
# ClickHouse pins each object to the ETag of its listing; an S3 server that gives none (versitygw for files
# put in its directory by hand) fails that, and this setting turns the pinning off.
NO_PIN = "query_plan_optimize_lazy_materialization_for_object_storage = 0"


def version() -> str:
    try:
        ch = _chdb.query("SELECT version()", "CSV").data().strip().strip('"')
    except Exception:  # noqa: BLE001
        ch = "?"
    return f"{_chdb.__version__} (ClickHouse {ch})"


def _lit(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


class _Q:
    """Runs queries with the lake's settings, dropping the ETag pinning once if the server needs it."""

    def __init__(self, chk: C.Check):
        self.settings = SETTINGS
        self.chk = chk

    def __call__(self, sql: str) -> dict:
        try:
            return self._run(sql)
        except Exception as e:  # noqa: BLE001
            if "ETag" not in str(e) and "S3_OBJECT_CHANGED_DURING_READ" not in str(e):
                raise
            self.settings += ", " + NO_PIN
            self.chk.note(f"the S3 server gave no ETag, so {NO_PIN} (ClickHouse pins objects to their ETag)")
            return self._run(sql)

    def _run(self, sql: str) -> dict:
        res = _chdb.query(f"{sql} SETTINGS {self.settings}", "JSONCompact")
        return json.loads(res.data())


def read(lake: dict, cfg: dict) -> dict:
    via = "s3"
    chk = C.Check(lake, cfg)
    url = cfg["endpoint"].rstrip("/") + "/" + C.bucket_key_glob(lake)
    creds = f"{_lit(cfg['access_key'])}, {_lit(cfg['secret_key'])}"
    if lake["format"] == "parquet":
        src = f"s3({_lit(url)}, {creds}, 'Parquet')"
        txid, mode = "transaction_id", C.TEXT
    else:
        src = f"s3({_lit(url)}, {creds}, 'JSONEachRow', {_lit(JSONL_STRUCTURE)})"
        txid, mode = "transactionId", C.TEXT_UNWRAPS_STRINGS
        chk.note("JSONEachRow with an explicit structure (ts DateTime64(6, 'UTC'), payload Nullable(String)): "
                 "object, array and number payloads keep their text, a JSON string payload comes back unquoted")
    hour = lake["align"] == "hour"
    q = _Q(chk)
    try:
        tcols = ["ts", "offset", "tenant", "queue", "dt"] + (["hour"] if hour else [])
        trow = q(f"SELECT {', '.join(f'toTypeName({c})' for c in tcols)} FROM {src} LIMIT 1")["data"]
        types = dict(zip(tcols, trow[0])) if trow else {}
        res = q(f"SELECT tenant, queue, partition, offset, {txid}, toUnixTimestamp64Micro(ts), toString(dt), "
                f"{'hour' if hour else 'NULL'}, payload FROM {src}")
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(C.err_text(e), via, "; ".join(chk.notes))
    rows = [dict(zip(C.ROW_COLUMNS, r)) for r in res["data"]]
    for r in rows:
        r["offset"] = int(r["offset"])  # JSON output quotes 64-bit integers
        r["ts"] = int(r["ts"])
    C.exact_types(chk, types, "DateTime64(6, 'UTC')", "Int64", hour)
    chk.records(rows, mode)
    total_read = res.get("statistics", {}).get("rows_read")

    # the dt filter; the rows ClickHouse read under it show the objects it skipped
    dt = cfg["dt_values"][0]
    try:
        sub = q(f"SELECT tenant, queue, partition, offset FROM {src} WHERE dt = {_lit(dt)}")
        chk.dt_filter(dt, sub["data"])
        want = sum(1 for e in cfg["expected"] if e["dt"] == dt)
        chk.pruning(dt, sub.get("statistics", {}).get("rows_read"), total_read, "rows read (query statistics)", want)
    except Exception as e:  # noqa: BLE001
        chk.fail(f"filter on dt: {C.err_text(e)}")

    # a JSON path
    key = C.jsonpath_key(cfg)
    path = "$." + key
    try:
        got = q(f"SELECT tenant, queue, partition, offset, JSON_VALUE(payload, {_lit(path)}) FROM {src}")["data"]
        # JSON_VALUE gives '' for a path that is not there (and for a payload that is not JSON)
        chk.jsonpath(key, {(t, qq, p, int(o)): (None if v == "" else v) for t, qq, p, o, v in got},
                     f"JSON_VALUE(payload, '{path}'), '' read as absent")
    except Exception as e:  # noqa: BLE001
        chk.fail(f"JSON_VALUE(payload, '{path}'): {C.err_text(e)}")
    return chk.result(via)
