"""The checks every reader of the compat lane makes, on rows it has read.

A reader loads a lake with its engine and hands the rows here, normalized to
plain Python values: one dict per record with the keys tenant, queue,
partition, offset, transactionId, ts, dt, hour (None for align=day) and
payload. ts may be an aware datetime or µs since the epoch. payload is
whatever the engine gave: text, None, or a parsed JSON value (for an engine
that turns the payload into a struct or a Python object).

Check collects problems (each one makes the status "fail") and notes (what
the engine did that is worth knowing but is not a failure), and result()
turns them into the dict read() returns.

The contract (written by compat-gen, handed over by compat/run.py):

lake (one entry of lakes.json "lakes"):
    id, tenant (the one tenant whose records the lake holds), source
    ("env": the default tenant's lake, by the environment's sink; "cp": a
    control-plane tenant's, by the sink PUT through /api/cp), expected
    (that tenant's expected*.jsonl), format ("jsonl" | "parquet"), codec
    ("zstd" | "gzip" | "none" | "snappy"), layout ("merged" |
    "per-partition"), align ("hour" | "day"), prefix, ext, files_glob,
    s3_glob, objects (data objects in the lake)

cfg (one per lake: run.py gives read() the lake's own):
    endpoint ("http://127.0.0.1:PORT"), endpoint_host ("127.0.0.1:PORT"),
    use_ssl (False), url_style ("path"), region, access_key, secret_key,
    bucket, s3dir (the bucket's directory is s3dir/bucket), tenant (the
    lake's), expected (the records of the lake's tenant, below),
    expected_path (the lake's expected), dt_values (sorted, the same for
    every lake), hour_boundary (ISO), jars_dir (Spark's extra jars),
    tmp_dir (this reader's scratch folder, empty at the start of the run),
    lakes_json

expected record (one line of a tenant's expected*.jsonl):
    tenant, queue, partition, offset (int), transactionId, ts (ISO, six
    digits, Z), ts_us (int, microseconds since the epoch, UTC), dt
    ("YYYY-MM-DD"), hour ("HH", the path's text), payload_raw (the stored
    text, as pushed), payload_jsonl (the payload's text in a JSONL line:
    raw line breaks as spaces; None when the stored payload is empty),
    payload_parquet (the Parquet column's value: the stored text; None when
    empty). A JSON null payload is the text "null" in both: a JSON reader
    turns the JSONL one into a SQL NULL, which json_equal("null", None)
    accepts.
"""

from __future__ import annotations

import datetime as _dt
import glob as _glob
import json
import math
import re
from collections import Counter
from typing import Any, Iterable

EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)

# The keys of a row a reader hands over, in the order the SQL readers select
# its columns.
ROW_COLUMNS = ["tenant", "queue", "partition", "offset", "transactionId", "ts", "dt", "hour", "payload"]

# How an engine hands back the payload.
TEXT = "text"  # the stored text, byte for byte
TEXT_UNWRAPS_STRINGS = "text-unwraps-strings"  # text, except a JSON string comes back as its value
JSON_TEXT = "json-text"  # JSON text, re-rendered (42.00 -> 42.0): compared JSON-equal
JSON_TEXT_UNWRAPS_STRINGS = "json-text-unwraps-strings"  # re-rendered, and JSON strings unquoted
VALUE = "value"  # a parsed value (dict, list, number, ...): compared JSON-equal
STRUCT = "struct"  # a struct: absent keys come back as null; compared JSON-equal without nulls in objects


def load_expected(path: str) -> list[dict]:
    """The records of expected.jsonl, in (queue, partition, offset) order."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def key_of(r: dict) -> tuple:
    return (r["tenant"], r["queue"], r["partition"], int(r["offset"]))


def expected_payload(lake: dict, e: dict):
    """The payload text the lake holds for expected record e (None: null in Parquet)."""
    return e["payload_parquet"] if lake["format"] == "parquet" else e["payload_jsonl"]


def ts_us(v) -> int | None:
    """µs since the epoch of v (an aware datetime, an int, or a pandas/numpy stamp)."""
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError("ts is a bool")
    if isinstance(v, int):
        return v
    if hasattr(v, "to_pydatetime") and hasattr(v, "value") and hasattr(v, "unit"):
        # pandas.Timestamp: .value is nanoseconds whatever its unit
        if v.tzinfo is None:
            raise ValueError(f"ts {v!r} has no time zone")
        return v.value // 1000
    if isinstance(v, _dt.datetime):
        if v.tzinfo is None:
            raise ValueError(f"ts {v!r} has no time zone")
        return (v - EPOCH) // _dt.timedelta(microseconds=1)
    raise TypeError(f"ts {v!r} is a {type(v).__name__}")


def norm_dt(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()[:10]
    return str(v)


def norm_hour(v) -> str | None:
    if v is None:
        return None
    s = str(v)
    if re.fullmatch(r"\d{1,2}", s):
        return s.rjust(2, "0")
    return s


def _strip_nulls(v):
    if isinstance(v, dict):
        return {k: _strip_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_nulls(x) for x in v]
    return v


def json_equal(a, b) -> bool:
    """Equality of two parsed JSON values, numbers compared by value (1 == 1.0)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return False
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _loads(text):
    return json.loads(text)


def payload_matches(mode: str, lake: dict, e: dict, got) -> bool:
    """Whether the engine's payload got agrees with expected record e under mode."""
    want_text = expected_payload(lake, e)
    if lake["format"] == "parquet":
        if want_text is None:  # an empty payload: a null value
            return got is None
        if got is None:
            return False
        want = _loads(want_text)
    else:
        # JSONL writes an empty payload (want_text None) and a JSON null alike: null, which a reader
        # may give as None or as the text null
        want = None if want_text is None else _loads(want_text)
        if want is None:
            return got is None or (mode != VALUE and mode != STRUCT and got == "null")
        if got is None:
            return False
        want_text = want_text if want_text is not None else "null"
    if mode == TEXT:
        return got == want_text
    if mode == TEXT_UNWRAPS_STRINGS:
        return got == want if isinstance(want, str) else got == want_text
    if mode == JSON_TEXT:
        return isinstance(got, str) and _json_text_equal(got, want)
    if mode == JSON_TEXT_UNWRAPS_STRINGS:
        if isinstance(want, str):
            return got == want
        return isinstance(got, str) and _json_text_equal(got, want)
    if mode == VALUE:
        return json_equal(got, want)
    if mode == STRUCT:
        return json_equal(_strip_nulls(got), _strip_nulls(want))
    raise ValueError(f"unknown payload mode {mode}")


def _json_text_equal(text: str, want) -> bool:
    try:
        return json_equal(_loads(text), want)
    except ValueError:
        return False


def jsonpath_key(cfg: dict) -> str:
    """The top-level key the JSON-path check extracts: order, else n, else the
    most common key whose values are numbers or strings."""
    counts: Counter = Counter()
    for e in cfg["expected"]:
        v = _payload_value(e)
        if isinstance(v, dict):
            for k, x in v.items():
                if isinstance(x, (int, float, str)) and not isinstance(x, bool):
                    counts[k] += 1
    for k in ("order", "n"):
        if counts[k]:
            return k
    if not counts:
        return "order"
    return counts.most_common(1)[0][0]


def jsonpath_expected(cfg: dict, key: str) -> dict:
    """{record key: the value of payload.key, or None}, from the JSONL text."""
    out = {}
    for e in cfg["expected"]:
        p = _payload_value(e)
        out[key_of(e)] = p.get(key) if isinstance(p, dict) else None
    return out


def _payload_value(e: dict):
    """The payload of expected record e as a parsed JSON value (None when
    empty or null; a str when the stored text was not JSON)."""
    text = e.get("payload_jsonl")
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _scalar_equal(got, want) -> bool:
    """An extracted value against the expected one: numbers by value (the
    engine may give text), strings as they are, objects and arrays JSON-equal."""
    if want is None:
        return got is None or got == "null"
    if got is None:
        return False
    if isinstance(want, bool):
        return got is want or str(got).lower() == str(want).lower()
    if isinstance(want, (int, float)):
        try:
            g = float(got) if not isinstance(got, (int, float)) else got
        except (TypeError, ValueError):
            return False
        return g == want
    if isinstance(want, str):
        return got == want or got == json.dumps(want, ensure_ascii=False)
    if isinstance(got, str):
        return _json_text_equal(got, want)
    return json_equal(got, want)


def objects(lake: dict, dt: str | None = None) -> list[str]:
    """The lake's data objects on disk (files_glob), optionally one dt only."""
    paths = sorted(_glob.glob(lake["files_glob"]))
    if dt is not None:
        paths = [p for p in paths if f"/dt={dt}/" in p]
    return paths


def hive_from_path(path: str) -> dict:
    """tenant, queue, dt and hour from a key's Hive segments (undecoded, as the path has them)."""
    out = {}
    for seg in path.split("/"):
        k, sep, v = seg.partition("=")
        if sep and k in ("tenant", "queue", "dt", "hour"):
            out[k] = v
    return out


def short(v, n=90) -> str:
    s = repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


class Check:
    """Problems and notes about one lake read by one engine."""

    def __init__(self, lake: dict, cfg: dict):
        self.lake = lake
        self.cfg = cfg
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.caveats: list[str] = []

    def fail(self, msg: str) -> None:
        self.problems.append(msg)

    def note(self, msg: str) -> None:
        if msg not in self.notes:
            self.notes.append(msg)

    def caveat(self, msg: str) -> None:
        """What a user of the engine must know about a lake that passed: an
        engine defect the reader worked around to compare values (the matrix
        shows the cell as a pass with this caveat beside it)."""
        if msg not in self.caveats:
            self.caveats.append(msg)

    # --- the checks ---------------------------------------------------

    def records(self, rows: Iterable[dict], payload_mode: str) -> None:
        """Every expected record once and nothing else, and each field right."""
        lake, cfg = self.lake, self.cfg
        rows = list(rows)
        exp = {key_of(e): e for e in cfg["expected"]}
        try:
            got = Counter(key_of(r) for r in rows)
        except (KeyError, TypeError, ValueError) as err:
            self.fail(f"rows lack a key column: {err}")
            return
        missing = [k for k in exp if k not in got]
        dups = [k for k, n in got.items() if n > 1]
        extra = [k for k in got if k not in exp]
        if missing:
            self.fail(f"{len(missing)} of {len(exp)} expected records missing, e.g. {short(missing[0])}")
        if dups:
            self.fail(f"{len(dups)} records read more than once, e.g. {short(dups[0])} x{got[dups[0]]}")
        if extra:
            self.fail(f"{len(extra)} records that are not expected, e.g. {short(extra[0])}")
        bad: Counter = Counter()
        first: dict = {}
        payload_diff = []

        def wrong(field, k, g, w):
            bad[field] += 1
            first.setdefault(field, f"{short(k, 70)}: got {short(g, 80)}, want {short(w, 80)}")

        for r in rows:
            k = key_of(r)
            e = exp.get(k)
            if e is None:
                continue
            if r.get("transactionId") != e["transactionId"]:
                wrong("transactionId", k, r.get("transactionId"), e["transactionId"])
            try:
                t = ts_us(r.get("ts"))
            except (TypeError, ValueError) as err:
                wrong("ts", k, str(err), e["ts"])
            else:
                if t != e["ts_us"]:
                    wrong("ts", k, t, e["ts_us"])
            if norm_dt(r.get("dt")) != e["dt"]:
                wrong("dt", k, r.get("dt"), e["dt"])
            if lake["align"] == "hour" and norm_hour(r.get("hour")) != e["hour"]:
                wrong("hour", k, r.get("hour"), e["hour"])
            want = expected_payload(lake, e)
            if not payload_matches(payload_mode, lake, e, r.get("payload")):
                g = r.get("payload")
                field = "payload"
                if payload_mode in (JSON_TEXT, JSON_TEXT_UNWRAPS_STRINGS) and isinstance(g, str):
                    try:
                        json.loads(g)
                    except ValueError:
                        field = "payload (not valid JSON)"
                wrong(field, k, g, want)
            elif payload_mode != TEXT and r.get("payload") != want and want is not None and r.get("payload") is not None:
                payload_diff.append((want, r.get("payload")))
        for field, n in bad.items():
            self.fail(f"{field} wrong in {n} records, e.g. {first[field]}")
        if payload_diff:
            # show a number that changed if there is one (42.00 -> 42.0), else the first difference
            payload_diff.sort(key=lambda d: (not re.search(r"[1-9]\.\d*0\b", d[0]), len(d[0]), d[0]))
            w, g = payload_diff[0]
            self.note(f"payload not byte for byte, compared JSON-equal: e.g. {short(w, 60)} came back as {short(g, 60)}")

    def dt_filter(self, dt: str, keys: Iterable[tuple]) -> None:
        """A filter on dt returned that day's records and no other."""
        want = {key_of(e) for e in self.cfg["expected"] if e["dt"] == dt}
        got = Counter(tuple(k[:3]) + (int(k[3]),) for k in keys)
        if set(got) != want or any(n > 1 for n in got.values()):
            miss = len(want - set(got))
            extra = len(set(got) - want)
            self.fail(f"filter dt={dt}: {sum(got.values())} rows, want {len(want)} ({miss} missing, {extra} from other days)")

    def pruning(self, dt: str, read: int | None, total: int | None, what: str, want: int | None = None) -> None:
        """The engine's own count of what it read under the dt filter (read of
        total; want is that day's share, when known)."""
        if read is None:
            self.note(f"pruning on dt not shown: {what}")
            return
        if total is not None and read >= total and total > 0:
            self.fail(f"dt={dt} did not prune: {what} {read} of {total}")
        elif want is not None and read != want:
            self.note(f"dt={dt} prunes in part: {what} {read} of {total}, that day has {want}")
        elif want is not None:
            # the same text for every lake, so the matrix can say it once per engine
            self.note(f"a dt filter prunes to that day's share: {what}")
        else:
            self.note(f"dt={dt} prunes: {what} {read} of {total}")

    def jsonpath(self, key: str, got: dict, how: str) -> None:
        """got maps record keys to the engine's extraction of payload.<key>."""
        want = jsonpath_expected(self.cfg, key)
        wrongs = [(k, got.get(k), w) for k, w in want.items() if not _scalar_equal(got.get(k), w)]
        hits = sum(1 for w in want.values() if w is not None)
        if wrongs:
            k, g, w = wrongs[0]
            self.fail(f"JSON path {how} wrong in {len(wrongs)} records, e.g. {short(k, 70)}: got {short(g)}, want {short(w)}")
        elif hits == 0:
            self.note(f"JSON path {how}: no payload has {key!r}")

    # --- the answer ---------------------------------------------------

    def result(self, via: str) -> dict:
        if self.problems:
            return {"status": "fail", "reason": "; ".join(self.problems), "notes": "; ".join(self.notes), "via": via}
        return {"status": "pass", "reason": "", "notes": "; ".join(self.notes), "via": via,
                "caveat": "; ".join(self.caveats)}


def cannot_read(reason: str, via: str, notes: str = "") -> dict:
    return {"status": "cannot-read", "reason": reason, "notes": notes, "via": via}


def failed(reason: str, via: str, notes: str = "") -> dict:
    return {"status": "fail", "reason": reason, "notes": notes, "via": via}


def err_text(e: BaseException, n: int = 300) -> str:
    s = f"{type(e).__name__}: {e}".strip().replace("\n", " ")
    s = re.sub(r"\s+", " ", s)
    return s if len(s) <= n else s[: n - 3] + "..."


def s3_parts(cfg: dict) -> tuple[str, str]:
    """host:port and scheme of cfg's endpoint."""
    ep = cfg["endpoint"]
    m = re.match(r"^(https?)://([^/]+)/?$", ep)
    if not m:
        raise ValueError(f"endpoint {ep!r} is not http(s)://host:port")
    return m.group(2), m.group(1)


def bucket_key_glob(lake: dict) -> str:
    """'<bucket>/<prefix>/tenant=*/...' from s3_glob, without the scheme."""
    g = lake["s3_glob"]
    assert g.startswith("s3://")
    return g[len("s3://"):]


def glob_regex(pattern: str) -> "re.Pattern[str]":
    """A glob as a regex where * and ? stay within one path segment."""
    out = []
    for ch in pattern:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out) + r"\Z")


def glob_base(pattern: str) -> str:
    """The longest leading part of a glob without a wildcard, up to a '/'."""
    head = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    return head.rsplit("/", 1)[0]


def exact_types(chk: "Check", types: dict, ts: str, offset: str, hour: bool) -> None:
    """Fails ts and offset unless the engine's type names for them are ts and
    offset, then notes the types (types_note)."""
    if types.get("ts") != ts:
        chk.fail(f"ts is {types.get('ts')}, not {ts}")
    if types.get("offset") != offset:
        chk.fail(f"offset is {types.get('offset')}, not {offset}")
    types_note(chk, types, hour)


def types_note(chk: "Check", types: dict, hour: bool) -> None:
    """The engine's types as notes: one for the columns every lake has, one for hour."""
    chk.note("types: " + ", ".join(f"{k} {types.get(k)}" for k in ("ts", "offset", "tenant", "queue", "dt")))
    if hour:
        chk.note(f"hour {types.get('hour')}")
