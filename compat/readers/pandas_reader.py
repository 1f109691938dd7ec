"""pandas: read_parquet and read_json on s3:// URLs, through s3fs (fsspec).

Parquet: read_parquet of the lake's prefix (it takes one path, not a glob);
pyarrow, pandas' engine, discovers the Hive keys and skips _queen/, whose
name starts with "_", and applies filters= to the partitions. The reader
hands pandas an s3fs filesystem that counts the objects opened, to show the
pruning. JSONL: pandas has neither globbing nor Hive partitioning for JSON,
so the objects come from s3fs.glob, each is read with read_json(lines=True)
and the Hive keys are cut out of its key; payloads come back parsed (dicts,
lists, numbers: 42.00 is 42.0) and are compared as JSON. pandas decompresses
zstd only through the optional zstandard package, which the lane installs
(compat/requirements.txt) and the matrix notes.
"""

from __future__ import annotations

import io
import math
import re

import pandas as _pd

try:
    from . import _checks as C
except ImportError:  # loaded by path, outside the package
    import _checks as C  # type: ignore[no-redef]

ENGINE = "pandas"


def version() -> str:
    return _pd.__version__


def _fs_class():
    import s3fs

    class CountingS3(s3fs.S3FileSystem):
        """s3fs that remembers the objects it opened."""

        cachable = False

        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.opened: set[str] = set()

        def _open(self, path, mode="rb", *a, **kw):
            if "r" in mode:
                self.opened.add(self._strip_protocol(path))
            return super()._open(path, mode, *a, **kw)

    return CountingS3


def _storage_options(cfg: dict) -> dict:
    _, scheme = C.s3_parts(cfg)
    return {"key": cfg["access_key"], "secret": cfg["secret_key"], "use_ssl": scheme == "https",
            "client_kwargs": {"endpoint_url": cfg["endpoint"], "region_name": cfg["region"]},
            "config_kwargs": {"s3": {"addressing_style": "path"}}}


def _none(v):
    """NaN and pandas' missing markers as None."""
    if v is None or v is _pd.NA or v is _pd.NaT:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def read(lake: dict, cfg: dict) -> dict:
    try:
        fs_cls = _fs_class()
    except ImportError:
        return C.cannot_read("pandas reaches s3:// only through s3fs, which is not installed", "s3")
    via = "s3"
    chk = C.Check(lake, cfg)
    so = _storage_options(cfg)
    hour = lake["align"] == "hour"
    if lake["format"] == "parquet":
        return _parquet(lake, cfg, chk, fs_cls, so, hour)
    return _jsonl(lake, cfg, chk, fs_cls, so, hour)


def _parquet(lake, cfg, chk, fs_cls, so, hour) -> dict:
    via = "s3"
    base = C.glob_base(C.bucket_key_glob(lake))
    chk.note("read_parquet of the lake's prefix (it takes no glob): pyarrow discovers the Hive keys and skips "
             "_queen/ (a name starting with _)")
    try:
        fs = fs_cls(**so)
        df = _pd.read_parquet(base + "/", filesystem=fs, engine="pyarrow")
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(C.err_text(e), via, "; ".join(chk.notes))
    total = len(fs.opened)
    dtypes = {c: str(t) for c, t in df.dtypes.items()}
    _types(chk, dtypes, hour)
    df = df.rename(columns={"transaction_id": "transactionId"})
    chk.records(_rows(df, hour), C.TEXT)

    dt = cfg["dt_values"][0]
    try:
        fs2 = fs_cls(**so)
        sub = _pd.read_parquet(base + "/", filesystem=fs2, engine="pyarrow", filters=[("dt", "=", dt)])
        chk.dt_filter(dt, zip(sub["tenant"].astype(str), sub["queue"].astype(str), sub["partition"], sub["offset"]))
        chk.pruning(dt, len(fs2.opened), total, "objects opened through s3fs (filters= handed to pyarrow)",
                    len(C.objects(lake, dt)))
    except Exception as e:  # noqa: BLE001
        chk.fail(f"filters=[('dt', '=', {dt!r})]: {C.err_text(e)}")

    key = C.jsonpath_key(cfg)
    try:
        # pandas has no JSON path function: the object payloads go through read_json
        texts = list(df["payload"])
        idx = [i for i, t in enumerate(texts) if isinstance(t, str) and t.lstrip().startswith("{")]
        nd = "\n".join(re.sub(r"[\r\n]", " ", texts[i]) for i in idx) + "\n"
        obj = _pd.read_json(io.StringIO(nd), lines=True, dtype=False)
        vals = [None] * len(texts)
        if key in obj.columns:
            for i, v in zip(idx, obj[key]):
                vals[i] = _none(v)
        chk.jsonpath(key, dict(zip(_keys(df), vals)), f"read_json(lines=True) of the object payloads, column {key!r}")
    except Exception as e:  # noqa: BLE001
        chk.fail(f"JSON path {key!r}: {C.err_text(e)}")
    return chk.result(via)


def _jsonl(lake, cfg, chk, fs_cls, so, hour) -> dict:
    via = "s3"
    chk.note("pandas has no glob and no Hive partitioning for JSON: objects listed with s3fs.glob, each read by "
             "read_json(lines=True), tenant, queue, dt and hour cut out of its key")
    chk.note("payload comes back parsed (dicts, lists, numbers, with 42.00 as 42.0): compared as JSON")
    try:
        fs = fs_cls(**so)
        paths = sorted(fs.glob(C.bucket_key_glob(lake)))
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(f"s3fs.glob: {C.err_text(e)}", via)
    if not paths:
        return C.failed(f"no object matches {lake['s3_glob']}", via)
    frames = []
    if lake["codec"] == "zstd":
        chk.note("zstd JSONL needs the optional zstandard package beside pandas (pip install zstandard)")
    try:
        for p in paths:
            f = _pd.read_json("s3://" + p, lines=True, storage_options=so, compression="infer",
                              dtype={"ts": str, "payload": object})
            h = C.hive_from_path(p)
            for k in ("tenant", "queue", "dt") + (("hour",) if hour else ()):
                f[k] = h.get(k)
            frames.append(f)
    except ImportError as e:
        return C.cannot_read(f"pandas decompresses zstd only through the optional zstandard package, which is not "
                             f"installed ({C.err_text(e, 120)})", via, "; ".join(chk.notes))
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(C.err_text(e), via, "; ".join(chk.notes))
    df = _pd.concat(frames, ignore_index=True)
    try:
        df["ts"] = _pd.to_datetime(df["ts"], utc=True, format="ISO8601")
        chk.note("ts is text in read_json: parsed by to_datetime(utc=True, format='ISO8601')")
    except Exception as e:  # noqa: BLE001
        chk.fail(f"ts does not parse as a UTC timestamp: {C.err_text(e)}")
    dtypes = {c: str(t) for c, t in df.dtypes.items()}
    _types(chk, dtypes, hour)
    chk.records(_rows(df, hour), C.VALUE)

    dt = cfg["dt_values"][0]
    sub = df[df["dt"] == dt]
    chk.dt_filter(dt, zip(sub["tenant"], sub["queue"], sub["partition"], sub["offset"]))
    chk.pruning(dt, None, len(paths), "read_json takes no filter, only picking the dt= objects by key would prune")

    key = C.jsonpath_key(cfg)
    try:
        pay = list(df["payload"])
        flat = _pd.json_normalize([p if isinstance(p, dict) else {} for p in pay], max_level=0)
        vals = [_none(v) for v in flat[key]] if key in flat.columns else [None] * len(pay)
        chk.jsonpath(key, dict(zip(_keys(df), vals)), f"json_normalize of the payloads, column {key!r}")
    except Exception as e:  # noqa: BLE001
        chk.fail(f"JSON path {key!r}: {C.err_text(e)}")
    return chk.result(via)


def _types(chk: C.Check, dtypes: dict, hour: bool) -> None:
    ts = dtypes.get("ts", "?")
    if not re.fullmatch(r"datetime64\[(us|ns), UTC\]", ts):
        chk.fail(f"ts is {ts}, not datetime64[us, UTC]")
    elif ts != "datetime64[us, UTC]":
        chk.note(f"ts is {ts}: finer than microseconds, values exact")
    if dtypes.get("offset") != "int64":
        chk.fail(f"offset is {dtypes.get('offset')}, not int64")
    C.types_note(chk, dtypes, hour)


def _keys(df) -> list[tuple]:
    return list(zip(df["tenant"].astype(str), df["queue"].astype(str), df["partition"], (int(o) for o in df["offset"])))


def _rows(df, hour: bool) -> list[dict]:
    cols = {"tenant": list(df["tenant"].astype(str)), "queue": list(df["queue"].astype(str)),
            "partition": list(df["partition"]), "offset": [int(o) for o in df["offset"]],
            "transactionId": list(df["transactionId"]), "ts": list(df["ts"]),
            "dt": [str(d) for d in df["dt"]], "hour": [_none(h) for h in df["hour"]] if hour else [None] * len(df),
            "payload": [_none(p) for p in df["payload"]]}
    return [dict(zip(cols, vals)) for vals in zip(*cols.values())]
