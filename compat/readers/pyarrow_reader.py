"""PyArrow: pyarrow.dataset over pyarrow.fs.S3FileSystem, Hive partitioning.

The objects are listed with the S3 filesystem and matched against the lake's
glob segment by segment (pyarrow has no globbing), then opened as one
dataset with flavor="hive" partitioning, so tenant, queue, dt and hour come
from the path. Parquet is the dataset's own format. JSONL goes through
pyarrow.json, which gives each column one Arrow type: the payload becomes a
struct (re-rendered, absent keys as null) when every payload is an object,
and the read is refused when payloads mix JSON types. pyarrow.dataset opens
.jsonl and .jsonl.gz but not .jsonl.zst; zstd objects are decompressed with
pyarrow's own codec and read one by one, Hive keys parsed by HivePartitioning.
"""

from __future__ import annotations

import io
import re

import pyarrow as _pa
import pyarrow.compute as _pc
import pyarrow.dataset as _ds
import pyarrow.fs as _pfs
import pyarrow.json as _pj

try:
    from . import _checks as C
except ImportError:  # loaded by path, outside the package
    import _checks as C  # type: ignore[no-redef]

ENGINE = "PyArrow"

TS = _pa.timestamp("us", tz="UTC")
JSONL_SCHEMA = _pa.schema([("partition", _pa.string()), ("offset", _pa.int64()),
                           ("transactionId", _pa.string()), ("ts", TS)])


def version() -> str:
    return _pa.__version__


def _fs(cfg: dict):
    host, scheme = C.s3_parts(cfg)
    return _pfs.S3FileSystem(access_key=cfg["access_key"], secret_key=cfg["secret_key"], region=cfg["region"],
                             endpoint_override=host, scheme=scheme, allow_bucket_creation=False,
                             allow_bucket_deletion=False)


def _list(fs, lake: dict) -> tuple[list[str], str]:
    pattern = C.bucket_key_glob(lake)
    base = C.glob_base(pattern)
    rx = C.glob_regex(pattern)
    infos = fs.get_file_info(_pfs.FileSelector(base, recursive=True, allow_not_found=True))
    return sorted(i.path for i in infos if i.type == _pfs.FileType.File and rx.match(i.path)), base


def _hive_schema(lake: dict) -> _pa.Schema:
    """The Hive keys as pyarrow infers them from the paths: strings, and hour an int32."""
    fields = [("tenant", _pa.string()), ("queue", _pa.string()), ("dt", _pa.string())]
    if lake["align"] == "hour":
        fields.append(("hour", _pa.int32()))
    return _pa.schema(fields)


def _mixed_payload(e: BaseException) -> bool:
    return "changed from" in str(e) and "payload" in str(e)


def _changed(e: BaseException) -> str:
    """The parse error without its row number, so that every lake that
    meets it shares one reason in the matrix."""
    m = re.search(r"Column\(([^)]*)\) changed from \w+ to \w+", str(e))
    return "JSON parse error: " + m.group(0) if m else C.err_text(e, 200)


def read(lake: dict, cfg: dict) -> dict:
    via = "s3"
    chk = C.Check(lake, cfg)
    try:
        fs = _fs(cfg)
        paths, base = _list(fs, lake)
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(f"S3 listing: {C.err_text(e)}", via)
    if not paths:
        return C.failed(f"no object matches {lake['s3_glob']}", via)
    hive = _ds.partitioning(flavor="hive")
    zstd_files = False
    try:
        if lake["format"] == "parquet":
            dset = _ds.dataset(paths, filesystem=fs, format="parquet", partitioning=hive, partition_base_dir=base)
            txid, mode = "transaction_id", C.TEXT
        elif lake["codec"] == "zstd":
            dset = None
            table = _read_zstd_jsonl(fs, paths, base, lake)
            txid, mode = "transactionId", C.STRUCT
            zstd_files = True
            chk.note("pyarrow.dataset cannot open .jsonl.zst (it decompresses .gz only): each object read through "
                     "open_input_stream(compression='zstd') and pyarrow.json.read_json, Hive keys by HivePartitioning.parse")
        else:
            fmt = _ds.JsonFileFormat(parse_options=_pj.ParseOptions(explicit_schema=JSONL_SCHEMA,
                                                                   unexpected_field_behavior="infer"))
            dset = _ds.dataset(paths, filesystem=fs, format=fmt, partitioning=hive, partition_base_dir=base)
            # The dataset takes its schema from the first object, and drops payload keys that object lacks:
            # unify every object's schema. It also infers ts as a string whatever the parse options say; a
            # schema with ts a timestamp makes its JSON reader parse it.
            sch = _pa.unify_schemas([f.physical_schema for f in dset.get_fragments()] + [dset.partitioning.schema],
                                    promote_options="permissive")
            sch = sch.set(sch.get_field_index("ts"), _pa.field("ts", TS))
            chk.note("pyarrow.dataset's JSON schema comes from the first object (payload keys absent there are "
                     "dropped): the reader unifies every object's physical_schema")
            dset = _ds.dataset(paths, filesystem=fs, format=fmt, partitioning=hive, partition_base_dir=base, schema=sch)
            txid, mode = "transactionId", C.STRUCT
        if dset is not None:
            table = dset.to_table()
    except _pa.ArrowInvalid as e:
        if _mixed_payload(e):
            return C.cannot_read("pyarrow.json gives every column and nested field one Arrow type and has no raw-JSON "
                                 "type, so payloads whose values differ in JSON type at one path (an object here, a "
                                 f"string there) cannot be read: {_changed(e)}", via)
        return C.cannot_read(C.err_text(e), via, "; ".join(chk.notes))
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(C.err_text(e), via, "; ".join(chk.notes))

    sch = table.schema
    if lake["format"] == "jsonl":
        chk.note(f"payload read as {sch.field('payload').type}: re-rendered, absent keys come back null")
    if sch.field("ts").type != TS:
        chk.fail(f"ts is {sch.field('ts').type}, not timestamp[us, tz=UTC]")
    if sch.field("offset").type != _pa.int64():
        chk.fail(f"offset is {sch.field('offset').type}, not int64")
    C.types_note(chk, {f.name: str(f.type) for f in sch}, "hour" in sch.names)
    hour = "hour" in sch.names
    cols = {"tenant": "tenant", "queue": "queue", "partition": "partition", "offset": "offset",
            "transactionId": txid, "ts": "ts", "dt": "dt", "payload": "payload"}
    data = {k: table.column(v).to_pylist() for k, v in cols.items()}
    data["hour"] = table.column("hour").to_pylist() if hour else [None] * table.num_rows
    rows = [dict(zip(data, vals)) for vals in zip(*data.values())]
    chk.records(rows, mode)

    # the dt filter; the fragments the dataset keeps under it are what it opens
    dt = cfg["dt_values"][0]
    expr = _ds.field("dt") == dt
    try:
        if zstd_files:
            sub = table.filter(expr)
            chk.pruning(dt, None, len(paths), "no dataset for .jsonl.zst, so the filter runs on the table read whole")
        else:
            sub = dset.to_table(filter=expr, columns=["tenant", "queue", "partition", "offset"])
            kept = len(list(dset.get_fragments(filter=expr)))
            chk.pruning(dt, kept, len(list(dset.get_fragments())), "fragments kept by get_fragments(filter=dt)",
                        len(C.objects(lake, dt)))
        chk.dt_filter(dt, zip(*(sub.column(c).to_pylist() for c in ("tenant", "queue", "partition", "offset"))))
    except Exception as e:  # noqa: BLE001
        chk.fail(f"filter on dt: {C.err_text(e)}")

    # a JSON path: a struct field for JSONL; for Parquet, pyarrow.compute has no JSON function, so the
    # payload column itself goes through pyarrow.json
    key = C.jsonpath_key(cfg)
    keys = list(zip(*(table.column(c).to_pylist() for c in ("tenant", "queue", "partition", "offset"))))
    try:
        if lake["format"] == "jsonl":
            how = f"pc.struct_field(payload, {key!r})"
            pt = table.column("payload").type
            if _pa.types.is_struct(pt) and pt.get_field_index(key) >= 0:
                vals = _pc.struct_field(table.column("payload"), key).to_pylist()
            else:
                vals = [None] * table.num_rows
        else:
            how = f"pyarrow.json.read_json of the payload column, explicit schema {{{key!r}}}"
            vals = _extract_from_text(table.column("payload").to_pylist(), key)
        chk.jsonpath(key, dict(zip(keys, vals)), how)
    except Exception as e:  # noqa: BLE001
        chk.fail(f"JSON path {key!r}: {C.err_text(e)}")
    return chk.result(via)


def _read_zstd_jsonl(fs, paths: list[str], base: str, lake: dict) -> _pa.Table:
    hive = _ds.HivePartitioning(_hive_schema(lake))
    tables = []
    for p in paths:
        with fs.open_input_stream(p, compression="zstd") as f:
            data = f.read()
        t = _pj.read_json(io.BytesIO(data), parse_options=_pj.ParseOptions(explicit_schema=JSONL_SCHEMA,
                                                                          unexpected_field_behavior="infer"))
        keys = _ds.get_partition_keys(hive.parse(p[len(base):]))
        for f in _hive_schema(lake):
            t = t.append_column(f, _pa.array([keys.get(f.name)] * t.num_rows, f.type))
        tables.append(t)
    return _pa.concat_tables(tables, promote_options="permissive")


def _extract_from_text(texts: list, key: str) -> list:
    """payload.<key> of each JSON text: objects go through pyarrow.json as one
    NDJSON buffer (line breaks, whitespace in valid JSON, become spaces)."""
    idx, lines = [], []
    for i, t in enumerate(texts):
        if t is not None and t.lstrip().startswith("{"):
            idx.append(i)
            lines.append(re.sub(r"[\r\n]", " ", t))
    out = [None] * len(texts)
    if not lines:
        return out
    buf = ("\n".join(lines) + "\n").encode()
    err = None
    # one explicit field, the others ignored (so payloads may differ elsewhere); its type is the first
    # that parses every value
    for ty in (_pa.int64(), _pa.float64(), _pa.string(), _pa.bool_()):
        try:
            tab = _pj.read_json(io.BytesIO(buf), parse_options=_pj.ParseOptions(
                explicit_schema=_pa.schema([(key, ty)]), unexpected_field_behavior="ignore"))
        except _pa.ArrowInvalid as e:
            err = e
            continue
        for i, v in zip(idx, tab.column(key).to_pylist()):
            out[i] = v
        return out
    raise err
