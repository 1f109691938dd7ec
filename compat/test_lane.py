"""Tests of the compat lane itself: the checks fail a reader that disagrees
with the data, and run.py turns that into a fail cell and exit status 1.

    python -m unittest compat/test_lane.py        (make compat runs it first)

The checks' tests need nothing but the standard library. The runner's test
needs a generated lake (COMPAT_LAKES, default .cache/compat-out/lakes.json)
and versitygw (COMPAT_VERSITYGW, default .cache/bin/versitygw); it runs
run.py over that lake with two readers of its own: readers/_example.py,
which reads the JSONL files honestly, and a liar built on it.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "readers"))

import _checks as C  # noqa: E402

sys.path.insert(0, HERE)
import run  # noqa: E402 - the runner's own functions

UTC = dt.timezone.utc


def expected_rec(queue: str, partition: str, offset: int, ts_us: int, payload: str | None, jsonl: str | None = None):
    t = dt.datetime.fromtimestamp(ts_us / 1e6, UTC)
    return {"tenant": "t-1", "queue": queue, "partition": partition, "offset": offset, "transactionId": f"tx-{offset}",
            "ts": t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "ts_us": ts_us, "dt": t.strftime("%Y-%m-%d"),
            "hour": t.strftime("%H"), "payload_raw": payload or "", "payload_jsonl": jsonl if jsonl else payload,
            "payload_parquet": payload}


# 2026-11-30T23:59:59.5Z and 2026-12-01T00:00:00.25Z: two dates, two hours.
BEFORE, AFTER = 1796083199_500000, 1796083200_250000
EXPECTED = [
    expected_rec("orders", "p-0", 0, BEFORE, '{"total":42.00}'),
    expected_rec("orders", "p-0", 1, BEFORE + 1, '{\n "pretty": 1\n}', jsonl='{  "pretty": 1 }'),
    expected_rec("orders", "zürich", 0, AFTER, '"café"'),
    expected_rec("audit", "p-0", 0, AFTER + 7, None),
]
LAKE = {"id": "parquet-zstd-merged-hour", "format": "parquet", "codec": "zstd", "layout": "merged", "align": "hour"}


def honest_rows(lake: dict) -> list[dict]:
    """What a perfect engine gives back: the expected values, text kept."""
    return [{"tenant": e["tenant"], "queue": e["queue"], "partition": e["partition"], "offset": e["offset"],
             "transactionId": e["transactionId"], "ts": dt.datetime.fromtimestamp(e["ts_us"] / 1e6, UTC)
             .replace(microsecond=e["ts_us"] % 1_000_000), "dt": dt.date.fromisoformat(e["dt"]), "hour": int(e["hour"]),
             "payload": C.expected_payload(lake, e)} for e in EXPECTED]


def check(rows: list[dict], lake: dict = LAKE, mode: str = C.TEXT) -> dict:
    chk = C.Check(lake, {"expected": EXPECTED})
    chk.records(rows, mode)
    return chk.result("s3")


class ChecksTest(unittest.TestCase):
    def test_the_data_as_written_passes(self):
        self.assertEqual(check(honest_rows(LAKE))["status"], "pass")
        jsonl = dict(LAKE, format="jsonl")
        self.assertEqual(check(honest_rows(jsonl), jsonl)["status"], "pass")

    def test_re_rendered_payloads_pass_as_json_and_fail_as_text(self):
        rows = honest_rows(LAKE)
        rows[0]["payload"] = '{"total": 42.0}'
        self.assertEqual(check(rows, mode=C.JSON_TEXT)["status"], "pass")
        got = check(rows, mode=C.TEXT)
        self.assertEqual(got["status"], "fail")
        self.assertIn("payload wrong in 1 records", got["reason"])

    def test_every_disagreement_fails_and_is_named(self):
        def tamper(fn):
            rows = honest_rows(LAKE)
            fn(rows)
            return check(rows)

        cases = {
            "expected records missing": lambda r: r.pop(),
            "read more than once": lambda r: r.append(copy.deepcopy(r[0])),
            "records that are not expected": lambda r: r.append(dict(copy.deepcopy(r[0]), offset=99)),
            "payload wrong": lambda r: r[0].update(payload='{"total":42}'),
            "ts wrong": lambda r: r[1].update(ts=r[1]["ts"] + dt.timedelta(microseconds=1)),
            "dt wrong": lambda r: r[2].update(dt=dt.date(2026, 11, 30)),
            "hour wrong": lambda r: r[2].update(hour=23),
            "transactionId wrong": lambda r: r[3].update(transactionId="tx-other"),
        }
        for want, fn in cases.items():
            with self.subTest(want):
                got = tamper(fn)
                self.assertEqual(got["status"], "fail")
                self.assertIn(want, got["reason"])

    def test_a_naive_timestamp_is_not_utc(self):
        rows = honest_rows(LAKE)
        rows[0]["ts"] = rows[0]["ts"].replace(tzinfo=None)
        got = check(rows)
        self.assertEqual(got["status"], "fail")
        self.assertIn("no time zone", got["reason"])

    def test_an_empty_payload_is_null_not_text(self):
        rows = honest_rows(LAKE)
        rows[3]["payload"] = ""
        self.assertEqual(check(rows)["status"], "fail")

    def test_caveats_ride_on_a_pass(self):
        chk = C.Check(LAKE, {"expected": EXPECTED})
        chk.records(honest_rows(LAKE), C.TEXT)
        chk.caveat("an engine defect")
        self.assertEqual(chk.result("s3"), {"status": "pass", "reason": "", "notes": "", "via": "s3",
                                            "caveat": "an engine defect"})


def lakes_doc() -> dict:
    """A lakes.json of two lakes, the default tenant's and a control-plane tenant's."""
    cp = dict(LAKE, id="cp-parquet-zstd-merged-hour", tenant="t-2", source="cp", expected="/x/expected-t-2.jsonl")
    return {"generatedAt": "2026-11-30T00:00:00Z", "queues": ["orders", "audit"], "dt_values": ["2026-11-30", "2026-12-01"],
            "hour_boundary": "2026-12-01T00:00:00.000000Z",
            "tenants": [{"id": "t-1", "source": "env", "expected": "/x/expected.jsonl", "records": 4},
                        {"id": "t-2", "source": "cp", "cluster": "c-2", "expected": "/x/expected-t-2.jsonl", "records": 4}],
            "lakes": [dict(LAKE, tenant="t-1", source="env", expected="/x/expected.jsonl"), cp]}


class PerLakeTest(unittest.TestCase):
    def test_each_lake_is_checked_against_its_tenants_records(self):
        doc = lakes_doc()
        cp_expected = [dict(e, tenant="t-2") for e in EXPECTED]
        expected = {"/x/expected.jsonl": EXPECTED, "/x/expected-t-2.jsonl": cp_expected}
        base = {"bucket": "lake", "dt_values": doc["dt_values"]}
        default, cp = (run.lake_cfg(base, lake, expected) for lake in doc["lakes"])
        self.assertEqual((default["tenant"], default["expected"]), ("t-1", EXPECTED))
        self.assertEqual((cp["tenant"], cp["expected_path"], cp["expected"]), ("t-2", "/x/expected-t-2.jsonl", cp_expected))
        self.assertNotIn("tenant", base)
        cp_rows = [dict(r, tenant="t-2") for r in honest_rows(LAKE)]
        for cfg, rows, want in ((cp, cp_rows, "pass"), (default, cp_rows, "fail"), (cp, honest_rows(LAKE), "fail")):
            chk = C.Check(doc["lakes"][1], cfg)
            chk.records(rows, C.TEXT)
            self.assertEqual(chk.result("s3")["status"], want)

    def test_the_matrix_says_which_lakes_are_a_control_plane_tenants(self):
        doc = lakes_doc()
        runs = [{"engine": "E", "version": "1", "seconds": 1,
                 "results": {l["id"]: {"status": "pass", "reason": "", "notes": "a note", "via": "s3"} for l in doc["lakes"]}}]
        text = run.render(doc, runs, "2026-11-30", 1)
        self.assertNotIn("later issue", text)
        self.assertIn("control-plane tenant `t-2`", text)
        self.assertIn("`PUT /api/cp/clusters/c-2/s3`", text)
        self.assertIn("| parquet | zstd | merged | hour | default | pass |", text)
        self.assertIn("| parquet | zstd | merged | hour | control plane | pass |", text)
        self.assertEqual(run.where({"cp-parquet-zstd-merged-hour"}, doc["lakes"]), "source=cp")


LIAR = '''
import _checks as C
import example

ENGINE = "Liar"
version = example.version


def read(lake, cfg):
    if lake["format"] != "jsonl" or lake["codec"] not in ("gzip", "none"):
        return example.read(lake, cfg)
    rows = example.rows(lake)
    rows.pop()                       # one record lost
    rows.append(dict(rows[0]))       # one twice
    rows[1]["payload"] = {"tampered": True}
    chk = C.Check(lake, cfg)
    chk.records(rows, C.VALUE)
    return chk.result("files")
'''


class RunnerTest(unittest.TestCase):
    def test_a_reader_that_disagrees_fails_the_lane(self):
        lakes = os.environ.get("COMPAT_LAKES", os.path.join(ROOT, ".cache", "compat-out", "lakes.json"))
        vgw = os.environ.get("COMPAT_VERSITYGW", os.path.join(ROOT, ".cache", "bin", "versitygw"))
        for path, how in ((lakes, "compat-gen writes it (make compat)"), (vgw, "make tools installs it")):
            if not os.path.exists(path):
                self.fail(f"{path} is missing: {how}")
        with tempfile.TemporaryDirectory() as tmp:
            readers = os.path.join(tmp, "readers")
            os.mkdir(readers)
            shutil.copy(os.path.join(HERE, "readers", "_example.py"), os.path.join(readers, "example.py"))
            with open(os.path.join(readers, "liar.py"), "w") as f:
                f.write(LIAR)
            with open(lakes, encoding="utf-8") as f:
                cfg = json.load(f)
            with open(os.path.join(tmp, "lakes.json"), "w", encoding="utf-8") as f:
                json.dump(cfg, f)  # run.py keeps its state beside lakes.json: here, not in the real lane's folder
            matrix = os.path.join(tmp, "MATRIX.md")
            p = subprocess.run([sys.executable, os.path.join(HERE, "run.py"), "--lakes", os.path.join(tmp, "lakes.json"),
                                "--versitygw", vgw, "--matrix", matrix, "--readers", readers],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 1, p.stderr)
            with open(matrix, encoding="utf-8") as f:
                text = f.read()
        jsonl_plain = [l for l in cfg["lakes"] if l["format"] == "jsonl" and l["codec"] in ("gzip", "none")]
        # a control-plane tenant's lake among them: the example passes it only
        # when run.py checks it against that tenant's own records
        self.assertIn("cp", {l["source"] for l in jsonl_plain})
        for lake in jsonl_plain:
            line = next(l for l in text.splitlines()
                        if l.startswith(f"| jsonl | {lake['codec']} | {lake['layout']} | {lake['align']} | "
                                        f"{run.TENANT_CELL[lake['source']]} |"))
            example_cell, liar_cell = [c.strip() for c in line.strip("|").split(" | ")[5:7]]
            self.assertEqual(example_cell, "pass (files)", line)
            self.assertTrue(liar_cell.startswith("**fail** (files)"), line)
            self.assertIn(f"FAIL Liar {lake['id']}", p.stderr)
        for want in ("expected records missing", "read more than once", "payload wrong in 1 records"):
            self.assertIn(want, text)
        self.assertIn("**cannot-read** (files): the standard library has no parquet zstd reader", text)


if __name__ == "__main__":
    unittest.main()
