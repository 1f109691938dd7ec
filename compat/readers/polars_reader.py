"""Polars: scan_parquet / scan_ndjson on the s3:// glob, with storage_options.

Parquet: scan_parquet with hive_partitioning=True; tenant, queue, dt (a Date)
and hour (an Int64) come from the path, and the optimized plan lists the
sources left after the dt filter. JSONL: scan_ndjson has no Hive
partitioning, so the path comes back through include_file_paths and the keys
are cut out of it with str.extract; the dt filter cannot prune there. The
payload needs schema String (an inferred struct refuses payloads of mixed
JSON types): Polars then re-renders objects and arrays as JSON text
("total": 42 for 42.00, with spaces) and gives a JSON string payload as its
value, unquoted.
"""

from __future__ import annotations

import json as _json
import re

import polars as _pl

try:
    from . import _checks as C
except ImportError:  # loaded by path, outside the package
    import _checks as C  # type: ignore[no-redef]

ENGINE = "Polars"

KEYS = ["tenant", "queue", "partition", "offset"]
TS = _pl.Datetime("us", "UTC")
JSONL_SCHEMA = {"partition": _pl.String, "offset": _pl.Int64, "transactionId": _pl.String, "ts": TS,
                "payload": _pl.String}


def version() -> str:
    return _pl.__version__


def _storage_options(cfg: dict) -> dict:
    _, scheme = C.s3_parts(cfg)
    return {"aws_access_key_id": cfg["access_key"], "aws_secret_access_key": cfg["secret_key"],
            "aws_endpoint_url": cfg["endpoint"], "aws_region": cfg["region"],
            "aws_allow_http": "true" if scheme == "http" else "false",
            "aws_virtual_hosted_style_request": "false"}


def _sources(plan: str) -> int | None:
    """How many sources the SCAN of an explained plan reads."""
    m = re.search(r"SCAN \[([^\]]*)\]", plan)
    if not m:
        return None
    more = re.search(r", \.\.\. (\d+) other sources?$", m.group(1))
    if more:
        return int(more.group(1)) + 1
    return len([s for s in m.group(1).split(", ") if s])


def _lax_payloads(chk, rows: list[dict]) -> None:
    """Polars re-renders an object or array payload read as String without
    escaping control characters: the stored "tab\\there" comes back with a
    raw tab, which is not valid JSON, and Polars' own str.json_path_match
    gives null on such a payload. The values are intact, so rows whose
    payload only a lenient parse (control characters allowed in strings)
    accepts are compared as that parse, re-rendered; the cell carries a
    caveat with how many there were."""
    fixed, example = 0, None
    for r in rows:
        p = r["payload"]
        if not isinstance(p, str):
            continue
        try:
            _json.loads(p)
            continue
        except ValueError:
            pass
        try:
            v = _json.loads(p, strict=False)
        except ValueError:
            continue  # not JSON at all: the check reports it
        fixed += 1
        example = example or p
        r["payload"] = _json.dumps(v, ensure_ascii=False)
    if fixed:
        chk.caveat(f"Polars re-renders {fixed} object payloads read as String with raw control characters inside "
                   f"their strings (a stored \\t escape comes back as a tab), which is not valid JSON, and its own "
                   f"str.json_path_match gives null on them: e.g. {C.short(example, 70)}; their values are "
                   f"intact, compared after a lenient parse")


def read(lake: dict, cfg: dict) -> dict:
    via = "s3"
    chk = C.Check(lake, cfg)
    so = _storage_options(cfg)
    glob = lake["s3_glob"]
    hour = lake["align"] == "hour"
    try:
        if lake["format"] == "parquet":
            lf = _pl.scan_parquet(glob, storage_options=so, hive_partitioning=True)
            lf = lf.rename({"transaction_id": "transactionId"})
            mode = C.TEXT
        else:
            lf = _pl.scan_ndjson(glob, storage_options=so, schema=JSONL_SCHEMA, include_file_paths="_path")
            lf = lf.with_columns(
                _pl.col("_path").str.extract(r"/tenant=([^/]*)/").alias("tenant"),
                _pl.col("_path").str.extract(r"/queue=([^/]*)/").alias("queue"),
                _pl.col("_path").str.extract(r"/dt=([^/]*)/").str.to_date("%Y-%m-%d").alias("dt"),
                *([_pl.col("_path").str.extract(r"/hour=([^/]*)/").cast(_pl.Int64).alias("hour")] if hour else []),
            ).drop("_path")
            mode = C.JSON_TEXT_UNWRAPS_STRINGS
            chk.note("scan_ndjson has no hive_partitioning: tenant, queue, dt and hour cut out of include_file_paths "
                     "with str.extract")
            chk.note("payload read with schema String (an inferred Struct refuses payloads of mixed JSON types): "
                     "objects and arrays re-rendered, JSON strings unquoted")
        schema = lf.collect_schema()
        df = lf.collect()
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(C.err_text(e), via, "; ".join(chk.notes))

    if schema.get("ts") != TS:
        chk.fail(f"ts is {schema.get('ts')}, not Datetime(us, UTC)")
    if schema.get("offset") != _pl.Int64:
        chk.fail(f"offset is {schema.get('offset')}, not Int64")
    C.types_note(chk, {k: str(v) for k, v in schema.items()}, hour)
    missing = [k for k in ("tenant", "queue", "dt") + (("hour",) if hour else ()) if k not in schema]
    if missing:
        return C.failed(f"no Hive column {', '.join(missing)} from the path", via, "; ".join(chk.notes))
    if not hour:
        df = df.with_columns(_pl.lit(None).alias("hour"))
    rows = df.select(C.ROW_COLUMNS).to_dicts()
    if lake["format"] == "jsonl":
        _lax_payloads(chk, rows)
    chk.records(rows, mode)

    # the dt filter; for Parquet the optimized plan lists the sources left
    dt = cfg["dt_values"][0]
    try:
        day = _pl.lit(dt).str.to_date("%Y-%m-%d")
        q = lf.filter(_pl.col("dt") == day)
        sub = q.select(KEYS).collect()
        chk.dt_filter(dt, sub.iter_rows())
        if lake["format"] == "parquet":
            chk.pruning(dt, _sources(q.explain()), _sources(lf.explain()), "sources in the optimized plan's SCAN",
                        len(C.objects(lake, dt)))
        else:
            chk.pruning(dt, None, None, "scan_ndjson knows no Hive keys, so a dt filter reads every object")
    except Exception as e:  # noqa: BLE001
        chk.fail(f"filter on dt: {C.err_text(e)}")

    # a JSON path
    key = C.jsonpath_key(cfg)
    path = "$." + key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"$['{key}']"
    try:
        got = df.select(*KEYS, _pl.col("payload").str.json_path_match(path).alias("v"))
        chk.jsonpath(key, {(t, q, p, o): v for t, q, p, o, v in got.iter_rows()}, f"str.json_path_match('{path}')")
    except Exception as e:  # noqa: BLE001
        chk.fail(f"str.json_path_match('{path}'): {C.err_text(e)}")
    return chk.result(via)
