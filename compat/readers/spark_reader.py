"""Spark: PySpark over s3a, Hive partition discovery from the paths.

One local[2] session per process, started on the first lake and reused for
every later one (the JVM's start is most of the cost). s3a needs three jars
that pyspark does not ship, fetched into .cache/compat-jars by the lane's
Makefile: hadoop-aws of pyspark's own Hadoop version, the AWS SDK v2 bundle
and the S3 analytics accelerator that hadoop-aws names as compile
dependencies (COMPAT_JARS overrides the folder). Without them the reader
reads the local files instead and says so.

Parquet: spark.read.parquet, basePath at the lake's prefix so that tenant,
queue, dt and hour are discovered from the keys (dt as DATE and hour as INT,
Spark's own inference). JSONL: spark.read.json with an explicit schema (ts
TIMESTAMP, payload STRING) for the typed columns; Spark renders a payload
read as STRING again, so the byte-for-byte check reads the same objects as
text lines and cuts the payload out of each line. Both go through Hadoop's
compression codecs, chosen by extension.
"""

from __future__ import annotations

import glob as _glob
import json
import os
import re
import tempfile
import time
from pathlib import Path

import warnings

with warnings.catch_warnings():
    # pyspark warns on import that it "does not yet fully support pandas >= 3"
    warnings.simplefilter("ignore", FutureWarning)
    import pyspark as _pyspark
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

try:
    from . import _checks as C
except ImportError:  # loaded by path, outside the package
    import _checks as C  # type: ignore[no-redef]

ENGINE = "Spark"

ROOT = Path(__file__).resolve().parents[2]
JARS_DIR = Path(os.environ.get("COMPAT_JARS") or ROOT / ".cache" / "compat-jars")
# The jars s3a needs beside pyspark's own, by file name prefix.
S3A_JARS = ("hadoop-aws-", "bundle-", "analyticsaccelerator-s3-")

JSONL_SCHEMA = "`partition` STRING, `offset` BIGINT, `transactionId` STRING, `ts` TIMESTAMP, `payload` STRING"
# The payload of a JSONL line, as written: the text after the fixed-format ts
# and before the closing brace. No unescaped '"' can stand inside a JSON
# string, so the first ,"ts":" is the field's own; (?s) because Java's '.'
# stops at U+0085, U+2028 and U+2029, which a payload may hold raw.
PAYLOAD_RX = r'(?s)^\{.*?,"ts":"[^"]*","payload":(.*)\}$'
TS_TEXT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'"

_spark: SparkSession | None = None
_s3: tuple | None = None  # the s3a settings the session has now
_started: float | None = None  # seconds the session took to start

LOG4J2 = """\
status = error
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def _hadoop_version() -> str:
    jars = Path(_pyspark.__file__).parent / "jars"
    for p in jars.glob("hadoop-client-api-*.jar"):
        return p.name[len("hadoop-client-api-"):-len(".jar")]
    return "?"


def version() -> str:
    return f"{_pyspark.__version__} (Hadoop {_hadoop_version()})"


def _jars() -> list[str] | None:
    """The s3a jars, or None when one is missing."""
    found = []
    for prefix in S3A_JARS:
        hits = sorted(_glob.glob(str(JARS_DIR / (prefix + "*.jar"))))
        if not hits:
            return None
        found.append(hits[-1])
    return found


def _session() -> SparkSession:
    global _spark, _started
    if _spark is not None:
        return _spark
    tmp = Path(tempfile.mkdtemp(prefix="compat-spark-"))
    (tmp / "log4j2.properties").write_text(LOG4J2)
    java_opts = f"-Dlog4j2.configurationFile=file:{tmp / 'log4j2.properties'} -Duser.timezone=UTC"
    b = (SparkSession.builder.master("local[2]").appName("queen-compat")
         .config("spark.driver.memory", "1g")
         .config("spark.driver.extraJavaOptions", java_opts)
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.local.dir", str(tmp))
         .config("spark.sql.warehouse.dir", str(tmp / "warehouse")))
    jars = _jars()
    if jars:
        b = b.config("spark.jars", ",".join(jars))
    t = time.monotonic()
    _spark = b.getOrCreate()
    _spark.sparkContext.setLogLevel("ERROR")
    _started = time.monotonic() - t
    return _spark


def _use_s3(spark: SparkSession, cfg: dict) -> None:
    """Points s3a at cfg's endpoint; a change closes the cached filesystems."""
    global _s3
    host, scheme = C.s3_parts(cfg)
    want = (cfg["endpoint"], cfg["region"], cfg["access_key"], cfg["secret_key"], scheme)
    if want == _s3:
        return
    hc = spark.sparkContext._jsc.hadoopConfiguration()
    for k, v in {
        "fs.s3a.endpoint": cfg["endpoint"],
        "fs.s3a.endpoint.region": cfg["region"],
        "fs.s3a.access.key": cfg["access_key"],
        "fs.s3a.secret.key": cfg["secret_key"],
        "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "fs.s3a.path.style.access": "true",
        "fs.s3a.connection.ssl.enabled": "true" if scheme == "https" else "false",
        # a server that is down fails the lake in seconds, not minutes
        "fs.s3a.attempts.maximum": "2",
        "fs.s3a.retry.limit": "2",
        "fs.s3a.connection.establish.timeout": "5s",
    }.items():
        hc.set(k, v)
    if _s3 is not None:
        spark.sparkContext._jvm.org.apache.hadoop.fs.FileSystem.closeAll()
    _s3 = want


def _java_error(e: BaseException) -> str:
    """The error's class and the message of its root cause, on one line."""
    jt = getattr(e, "java_exception", None) or getattr(e, "_origin", None)
    if jt is None:
        return C.err_text(e)
    try:
        top = jt.getClass().getSimpleName()
        msgs = []
        cur, seen = jt, 0
        while cur is not None and seen < 20:
            m = cur.getMessage()
            if m:
                msgs.append(f"{cur.getClass().getName()}: {m}")
            cur, seen = cur.getCause(), seen + 1
        if not msgs:
            return top
        root = msgs[-1]
        first = msgs[0].split("\n")[0]
        s = root if len(msgs) == 1 else f"{first} ... caused by {root}"
        return re.sub(r"\s+", " ", s)[:600]
    except Exception:  # noqa: BLE001 - the gateway may be gone
        return C.err_text(e)


def _scan_metrics(df) -> dict:
    """The scan node's metrics of an executed df (its query execution)."""
    out = {}
    plan = df._jdf.queryExecution().executedPlan()
    stack = [plan]
    while stack:
        node = stack.pop()
        name = node.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            stack.append(node.executedPlan())
            continue
        if name == "FileSourceScanExec":
            it = node.metrics().iterator()
            while it.hasNext():
                kv = it.next()
                out[kv._1()] = kv._2().value()
            return out
        ch = node.children()
        for i in range(ch.size()):
            stack.append(ch.apply(i))
    return out


def _rows(df, lake: dict, txid: str):
    align_hour = lake["align"] == "hour"
    cols = [F.col("tenant"), F.col("queue"), F.col("partition"), F.col("offset"),
            F.col(txid).alias("transactionId"), F.unix_micros("ts").alias("ts"),
            F.date_format("ts", TS_TEXT).alias("ts_text"), F.col("dt"),
            (F.col("hour") if align_hour else F.lit(None)).alias("hour"), F.col("payload")]
    return [r.asDict() for r in df.select(*cols).collect()]


def _check_types(chk: C.Check, spark: SparkSession, df, lake: dict) -> None:
    types = {f.name: f.dataType for f in df.schema.fields}
    if not isinstance(types.get("ts"), T.TimestampType):
        chk.fail(f"ts is {types.get('ts')}, not TimestampType (with the session zone)")
    if not isinstance(types.get("offset"), T.LongType):
        chk.fail(f"offset is {types.get('offset')}, not LongType")
    tz = spark.conf.get("spark.sql.session.timeZone")
    if tz != "UTC":
        chk.fail(f"session time zone is {tz}, not UTC")
    hive = ["tenant", "queue", "dt"] + (["hour"] if lake["align"] == "hour" else [])
    missing = [k for k in hive if k not in types]
    if missing:
        chk.fail(f"partition discovery gave no {', '.join(missing)} column")
    chk.note(f"types: ts {types.get('ts', '?').simpleString() if 'ts' in types else '?'}, offset "
             f"{types['offset'].simpleString() if 'offset' in types else '?'}, "
             + ", ".join(f"{k} {types[k].simpleString()}" for k in hive if k in types)
             + f"; session zone {tz}")


def _check_ts_text(chk: C.Check, rows: list[dict], cfg: dict) -> None:
    """ts rendered by the session zone reads as the expected UTC text."""
    exp = {C.key_of(e): e["ts"] for e in cfg["expected"]}
    bad = [(C.key_of(r), r["ts_text"], exp[C.key_of(r)]) for r in rows
           if C.key_of(r) in exp and r["ts_text"] != exp[C.key_of(r)]]
    if bad:
        k, g, w = bad[0]
        chk.fail(f"ts rendered in the session zone wrong in {len(bad)} records, e.g. {C.short(k, 70)}: got {g}, want {w}")


def _dt_filter(chk: C.Check, df, lake: dict, cfg: dict) -> None:
    """dt = <first day>: that day's records only, and the scan prunes on dt."""
    dt = cfg["dt_values"][0]
    f = df.filter(F.col("dt") == F.lit(dt)).select("tenant", "queue", "partition", "offset")
    rows = f.collect()
    chk.dt_filter(dt, [(r["tenant"], r["queue"], r["partition"], r["offset"]) for r in rows])
    plan = f._jdf.queryExecution().executedPlan().toString()
    m = re.search(r"PartitionFilters: \[([^\]]*)\]", plan)
    if not m or "dt#" not in m.group(1):
        chk.fail(f"filter on dt: no PartitionFilters on dt in the physical plan ({C.short(m.group(0) if m else plan, 200)})")
        return
    pf = re.sub(r"#\d+", "", m.group(1))
    try:
        metrics = _scan_metrics(f)
    except Exception as e:  # noqa: BLE001 - the plan's shape is Spark's business
        metrics = {}
        chk.note(f"scan metrics not read: {C.err_text(e, 120)}")
    total = len(C.objects(lake)) or None
    want = len(C.objects(lake, dt))
    if "numFiles" in metrics:
        chk.pruning(dt, int(metrics["numFiles"]), total,
                    f"PartitionFilters [{pf}], FileScan number of files read (objects of that day: {want})")
    else:
        chk.pruning(dt, None, total, f"PartitionFilters [{pf}] in the physical plan, no file count")


def _jsonpath(chk: C.Check, df, cfg: dict, what: str) -> None:
    key = C.jsonpath_key(cfg)
    path = "$." + key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else "$['" + key.replace("'", "\\'") + "']"
    how = f"get_json_object({what}, '{path}')"
    try:
        got = df.select("tenant", "queue", "partition", "offset",
                        F.get_json_object("payload", path).alias("v")).collect()
    except Exception as e:  # noqa: BLE001
        chk.fail(f"{how}: {_java_error(e)}")
        return
    chk.jsonpath(key, {(r["tenant"], r["queue"], r["partition"], int(r["offset"])): r["v"] for r in got}, how)


def _read_parquet(spark, chk: C.Check, lake: dict, cfg: dict, base: str, path: str, via: str) -> dict | None:
    try:
        df = spark.read.option("basePath", base).parquet(path)
        rows = _rows(df, lake, "transaction_id")
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(_java_error(e), via, "; ".join(chk.notes))
    _check_types(chk, spark, df, lake)
    chk.records(rows, C.TEXT)
    _check_ts_text(chk, rows, cfg)
    _dt_filter(chk, df, lake, cfg)
    _jsonpath(chk, df, cfg, "payload")
    return None


def _read_jsonl(spark, chk: C.Check, lake: dict, cfg: dict, base: str, path: str, via: str) -> dict | None:
    try:
        df = spark.read.schema(JSONL_SCHEMA).option("basePath", base).option("mode", "FAILFAST").json(path)
        rows = _rows(df, lake, "transactionId")
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(f"spark.read.json: {_java_error(e)}", via, "; ".join(chk.notes))
    chk.note("spark.read.json with an explicit schema (ts TIMESTAMP, payload STRING); "
             "payload byte for byte from spark.read.text lines")
    if lake["codec"] == "zstd":
        chk.note(_zstd_how(spark))
    # the payload as written, from the text lines
    try:
        tdf = spark.read.option("basePath", base).text(path)
        keys = F.from_json("value", "`partition` STRING, `offset` BIGINT")
        lines = tdf.select("tenant", "queue", keys["partition"].alias("partition"), keys["offset"].alias("offset"),
                           F.regexp_extract("value", PAYLOAD_RX, 1).alias("payload")).collect()
    except Exception as e:  # noqa: BLE001
        return C.cannot_read(f"spark.read.text: {_java_error(e)}", via, "; ".join(chk.notes))
    raw: dict = {}
    for r in lines:
        k = (r["tenant"], r["queue"], r["partition"], r["offset"])
        raw.setdefault(k, []).append(r["payload"])
    if len(lines) != len(rows):
        chk.fail(f"spark.read.text gave {len(lines)} lines, spark.read.json {len(rows)} rows")
    _check_types(chk, spark, df, lake)
    rendered = {}
    text_rows = []
    for r in rows:
        k = (r["tenant"], r["queue"], r["partition"], r["offset"])
        rendered[k] = r["payload"]
        t = dict(r)
        got = raw.get(k) or [None]
        t["payload"] = None if got[0] == "null" else got[0]  # the line's null: no payload
        text_rows.append(t)
    chk.records(text_rows, C.TEXT)
    _check_ts_text(chk, rows, cfg)
    _note_rendering(chk, lake, cfg, rendered)
    _dt_filter(chk, df, lake, cfg)
    _jsonpath(chk, df, cfg, "payload")
    return None


def _zstd_how(spark: SparkSession) -> str:
    """Which code opened the .zst objects."""
    jvm = spark.sparkContext._jvm
    try:
        native = jvm.org.apache.hadoop.io.compress.ZStandardCodec.isNativeCodeLoaded()
    except Exception:  # noqa: BLE001
        native = None
    try:
        jvm.java.lang.Class.forName("org.apache.spark.io.HadoopCodecStreams")
        own = True
    except Exception:  # noqa: BLE001
        own = False
    if native:
        return ".zst opened by Hadoop's ZStandardCodec (native libhadoop with zstd)"
    if own:
        return (".zst opened by Spark's own zstd-jni stream (org.apache.spark.io.HadoopCodecStreams); "
                "Hadoop's ZStandardCodec has no native zstd here")
    return ".zst: neither native Hadoop zstd nor Spark's HadoopCodecStreams"


def _note_rendering(chk: C.Check, lake: dict, cfg: dict, rendered: dict) -> None:
    """How spark.read.json's payload STRING differs from the line's text."""
    n, rerendered, unwrapped, unequal, sample = 0, 0, 0, 0, None
    for e in cfg["expected"]:
        k = C.key_of(e)
        if k not in rendered:
            continue
        n += 1
        want, got = e["payload_jsonl"], rendered[k]
        if got == want:
            continue
        value = None if want is None else json.loads(want)
        if value is None:
            if got is not None:
                unequal += 1
        elif isinstance(value, str):
            if got == value:
                unwrapped += 1
            else:
                unequal += 1
        elif C.payload_matches(C.JSON_TEXT, lake, e, got):
            rerendered += 1
            if sample is None or re.search(r"\d\.\d*0\b", want) and not re.search(r"\d\.\d*0\b", sample[0]):
                sample = (want, got)
        else:
            unequal += 1
    if not (rerendered or unwrapped or unequal):
        chk.note(f"spark.read.json payload STRING is the line's text in all {n} records")
        return
    parts = []
    if rerendered:
        parts.append(f"re-renders {rerendered} of {n} payloads ({C.short(sample[0], 60)} -> {C.short(sample[1], 60)})")
    else:
        parts.append("keeps objects, arrays, numbers and literals as written")
    if unwrapped:
        parts.append(f"gives the {unwrapped} JSON-string payloads unquoted (their value, not their text)")
    if unequal:
        parts.append(f"{unequal} payloads not even JSON-equal to the line's")
    chk.note("spark.read.json payload STRING " + ", ".join(parts))


def read(lake: dict, cfg: dict) -> dict:
    jars = _jars()
    via = "s3" if jars else "files"
    try:
        spark = _session()
        if via == "s3":
            _use_s3(spark, cfg)
    except Exception as e:  # noqa: BLE001 - any failure to start is the answer
        return C.cannot_read(f"Spark session: {_java_error(e)}", via)
    chk = C.Check(lake, cfg)
    if via == "s3":
        g = lake["s3_glob"]
        assert g.startswith("s3://")
        path = "s3a://" + g[len("s3://"):]
        base = path[:path.index("/tenant=")]
        chk.note("s3a, glob " + path[len(base) + 1:] + ", basePath the prefix")
    else:
        path = lake["files_glob"]
        base = path.split("/tenant=")[0]
        chk.note(f"files: the s3a jars ({', '.join(p + '*.jar' for p in S3A_JARS)}) are not all in {JARS_DIR}")
    if lake["format"] == "parquet":
        out = _read_parquet(spark, chk, lake, cfg, base, path, via)
    else:
        out = _read_jsonl(spark, chk, lake, cfg, base, path, via)
    if out is not None:
        return out
    return chk.result(via)


def close() -> None:
    """Stops the session (the runner may call it after the last lake)."""
    global _spark, _s3
    if _spark is not None:
        _spark.stop()
        _spark, _s3 = None, None
