"""DuckDB: read_parquet / read_json with hive_partitioning over the S3 API.

S3: DuckDB's own httpfs extension, with a secret naming the endpoint, path
style and no TLS. DuckDB fetches httpfs from its own server at INSTALL,
which this machine cannot reach, so the lane installs it from PyPI
(duckdb-extension-httpfs: DuckDB's binary of the same version, which DuckDB
loads only because its signature checks out) and loads it by path. Without
it, s3fs registered as an fsspec filesystem, the Python client's other way
to read s3:// URLs; without either, the files. The notes say which.
"""

from __future__ import annotations

import re

import duckdb as _duckdb

try:
    from . import _checks as C
except ImportError:  # loaded by path, outside the package
    import _checks as C  # type: ignore[no-redef]

ENGINE = "DuckDB"

JSONL_COLUMNS = "{'partition': 'VARCHAR', 'offset': 'BIGINT', 'transactionId': 'VARCHAR', 'ts': 'TIMESTAMPTZ', 'payload': 'JSON'}"


def version() -> str:
    return _duckdb.__version__


def _q(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _load_httpfs(con) -> None:
    """LOAD httpfs: installed in DuckDB's extension folder, else the binary
    the duckdb-extension-httpfs package carries for this DuckDB version."""
    try:
        con.execute("LOAD httpfs")
        return
    except _duckdb.Error:
        pass
    import glob
    import os

    import duckdb_extension_httpfs as pkg  # raises ImportError when not installed

    want = f"v{_duckdb.__version__}"
    paths = glob.glob(os.path.join(os.path.dirname(pkg.__file__), "extensions", want, "httpfs.duckdb_extension"))
    if not paths:
        raise _duckdb.IOException(f"duckdb-extension-httpfs has no httpfs for DuckDB {want}: not found")
    con.execute(f"LOAD {_q(paths[0])}")


def _connect(lake: dict, cfg: dict):
    """A connection that reads the lake, the glob it reads, via and a note."""
    con = _duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    host, scheme = C.s3_parts(cfg)
    try:
        _load_httpfs(con)
        con.execute(
            "CREATE SECRET lake (TYPE s3, KEY_ID ?, SECRET ?, REGION ?, ENDPOINT ?, URL_STYLE 'path', USE_SSL ?)",
            [cfg["access_key"], cfg["secret_key"], cfg["region"], host, scheme == "https"],
        )
        return con, lake["s3_glob"], "s3", "httpfs (signed, from the duckdb-extension-httpfs package), a CREATE SECRET of TYPE s3"
    except (_duckdb.Error, ImportError) as e:
        why = "not installed" if "not found" in str(e) or isinstance(e, ImportError) else C.err_text(e, 120)
    try:
        import s3fs

        fs = s3fs.S3FileSystem(
            key=cfg["access_key"], secret=cfg["secret_key"], use_ssl=scheme == "https",
            client_kwargs={"endpoint_url": cfg["endpoint"], "region_name": cfg["region"]},
            config_kwargs={"s3": {"addressing_style": "path"}},
        )
        con.register_filesystem(fs)
        return con, lake["s3_glob"], "s3", f"S3 through s3fs {s3fs.__version__} registered as an fsspec filesystem (httpfs not loadable: {why})"
    except ImportError:
        return con, lake["files_glob"], "files", f"files: neither httpfs ({why}) nor s3fs"


def _escaped_keys(lake: dict, cfg: dict, chk) -> str | None:
    """A list of the lake's s3:// URLs, when a key holds a %-escape (the
    per-partition keys of "eu west/1" and "zürich"); None otherwise.

    DuckDB's glob lists with ListObjectsV2 encoding-type=url and decodes
    every key it gets back. versitygw 1.8.0 ignores encoding-type and sends
    the keys as they are, so DuckDB decodes z%C3%BCrich to zürich (and
    eu%20west%2F1 to a path the glob no longer matches) and GETs keys that do
    not exist. An S3 server that honours encoding-type (AWS S3 does) sends
    z%25C3%25BCrich, which decodes right. DuckDB reads those keys fine when
    given them, so the reader lists them and hands DuckDB the list, Hive
    partitioning and all."""
    base = f"{cfg['s3dir']}/{cfg['bucket']}/"
    keys = [p[len(base):] for p in C.objects(lake)]
    if not any("%" in k for k in keys):
        return None
    chk.caveat("the glob is replaced by the list of keys: versitygw 1.8.0 ignores the encoding-type=url that "
               "DuckDB's S3 glob asks for and decodes, so DuckDB turns the %-escapes of the partitions `eu west/1` "
               "and `zürich` into other keys (404); given the keys, DuckDB reads them (a server that honours "
               "encoding-type, as AWS S3 does, needs no workaround)")
    return "[" + ", ".join(_q(f"s3://{cfg['bucket']}/{k}") for k in keys) + "]"


def read(lake: dict, cfg: dict) -> dict:
    via = "s3"
    try:
        con, glob, via, how = _connect(lake, cfg)
    except Exception as e:  # noqa: BLE001 - any failure to set up is the answer
        return C.cannot_read(f"cannot set up S3: {C.err_text(e)}", via)
    chk = C.Check(lake, cfg)
    chk.note(how)
    align_hour = lake["align"] == "hour"
    src_files = _q(glob)
    if how.startswith("httpfs"):
        src_files = _escaped_keys(lake, cfg, chk) or src_files
    if lake["format"] == "parquet":
        src = f"read_parquet({src_files}, hive_partitioning = true)"
        txid = "transaction_id"
        mode = C.TEXT
    else:
        src = (f"read_json({src_files}, format = 'newline_delimited', hive_partitioning = true, "
               f"columns = {JSONL_COLUMNS})")
        txid = '"transactionId"'
        mode = C.JSON_TEXT
        chk.note("read_json with explicit columns (ts TIMESTAMPTZ, payload JSON): the JSON type re-renders payloads")
    hour = "hour" if align_hour else "NULL AS hour"
    sel = f'SELECT tenant, queue, "partition", "offset", {txid} AS "transactionId", ts, dt, {hour}, payload FROM {src}'
    try:
        rel = con.sql(sel)
        types = dict(zip(rel.columns, (str(t) for t in rel.types)))
        data = rel.fetchall()
    except _duckdb.Error as e:
        return C.cannot_read(C.err_text(e), via, chk.notes and "; ".join(chk.notes) or "")
    rows = [dict(zip(C.ROW_COLUMNS, r)) for r in data]

    # types
    C.exact_types(chk, types, "TIMESTAMP WITH TIME ZONE", "BIGINT", align_hour)
    chk.records(rows, mode)

    # the dt filter, and DuckDB's own count of the files it scanned
    dt = cfg["dt_values"][0]
    try:
        keys = con.execute(f'SELECT tenant, queue, "partition", "offset" FROM {src} WHERE dt = ?', [dt]).fetchall()
        chk.dt_filter(dt, keys)
        plan = con.sql(f"EXPLAIN ANALYZE SELECT count(*) FROM {src} WHERE dt = {_q(dt)}").fetchall()
        text = "\n".join(str(r[-1]) for r in plan)
        m = re.search(r"Scanning Files:\s*(\d+)\s*/\s*(\d+)", text)
        want = len(C.objects(lake, dt))
        if m:
            chk.pruning(dt, int(m.group(1)), int(m.group(2)), "EXPLAIN ANALYZE Scanning Files", want)
        else:
            m = re.search(r"Total Files Read:\s*(\d+)", text)
            total = len(C.objects(lake))
            if m:
                chk.pruning(dt, int(m.group(1)), total, "EXPLAIN ANALYZE Total Files Read", want)
            else:
                chk.pruning(dt, None, total, "EXPLAIN ANALYZE names no file count")
    except _duckdb.Error as e:
        chk.fail(f"filter on dt: {C.err_text(e)}")

    # a JSON path on the payload
    key = C.jsonpath_key(cfg)
    path = "$." + (key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else '"' + key.replace('"', '\\"') + '"')
    try:
        got = con.execute(f'SELECT tenant, queue, "partition", "offset", json_extract_string(payload, ?) FROM {src}',
                          [path]).fetchall()
        chk.jsonpath(key, {(t, q, p, int(o)): v for t, q, p, o, v in got}, f"json_extract_string(payload, '{path}')")
    except _duckdb.Error as e:
        chk.fail(f"json_extract_string(payload, '{path}'): {C.err_text(e)}")
    return chk.result(via)
