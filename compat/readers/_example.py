"""An example reader: the interface every module of compat/readers/ has.

run.py runs every readers/*.py whose name does not start with "_" (so not
this one), each in a subprocess of its own, with readers/ on sys.path (so
`import _checks` works). A module exposes:

    ENGINE: str                         the engine's name in the matrix
    version() -> str                    the engine's version
    read(lake: dict, cfg: dict) -> dict one lake, checked:
        {"status": "pass" | "fail" | "cannot-read",
         "reason": str,   # why, for fail and cannot-read ("" for pass)
         "notes": str,    # what is worth knowing: "; "-separated notes
         "via": "s3" | "files",
         "caveat": str}   # optional, for a pass: an engine defect worked around

read() is called once per lake, in one process, so a module may keep an
expensive session (a SparkSession) between calls. An exception out of read()
is a fail with the exception as the reason; a read() that runs past the
runner's timeout, or kills the process, is a fail too. "fail" means the
engine read the lake and disagreed with the data; "cannot-read" means the
engine cannot open it at all (an unsupported codec, say), with the reason.
See _checks.py for the lake and cfg dicts, the expected records and the
checks (_checks.Check) that turn rows into that answer.

This one reads the files with the standard library: JSONL without
compression or with gzip. The stdlib of Python 3.11 has no zstd and no
Parquet, so those lakes are cannot-read. compat/test_lane.py runs it (and a
reader that lies) through run.py; copy it to example.py to see it in the
matrix.
"""

from __future__ import annotations

import datetime
import glob
import gzip
import json
import platform

import _checks as C

ENGINE = "Example (Python stdlib)"


def version() -> str:
    return platform.python_version()


def rows(lake: dict) -> list[dict]:
    """The lake's records as _checks wants them, read from its files."""
    out = []
    for path in sorted(glob.glob(lake["files_glob"])):
        hive = C.hive_from_path(path)
        opener = gzip.open if lake["codec"] == "gzip" else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                ts = datetime.datetime.fromisoformat(rec["ts"].replace("Z", "+00:00"))
                out.append({"tenant": hive["tenant"], "queue": hive["queue"], "dt": hive["dt"], "hour": hive.get("hour"),
                            "partition": rec["partition"], "offset": rec["offset"],
                            "transactionId": rec["transactionId"], "ts": ts, "payload": rec["payload"]})
    return out


def read(lake: dict, cfg: dict) -> dict:
    if lake["format"] != "jsonl" or lake["codec"] not in ("gzip", "none"):
        return C.cannot_read(f"the standard library has no {lake['format']} {lake['codec']} reader", "files")
    chk = C.Check(lake, cfg)
    chk.note("reads the files (no S3 client in the standard library); payload parsed by json")
    chk.records(rows(lake), C.VALUE)
    return chk.result("files")
