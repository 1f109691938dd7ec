"""Times pyarrow writing the rows of a lakeformat Parquet file, on one core,
with the settings lakeformat uses: zstd level 1 or snappy, dictionary on the
partition column only, statistics on all but payload, row groups of 100,000
rows, data page v1, format 2.6. Prints {codec: {version, seconds, bytes}}
as JSON, seconds being the median of the runs.

usage: python pyarrow_write.py ROWS.parquet RUNS
"""
import io
import json
import statistics
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq


def main():
    path, runs = sys.argv[1], int(sys.argv[2])
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    table = pq.read_table(path)
    out = {}
    for codec, level in (("zstd", 1), ("snappy", None)):
        secs, size = [], 0
        for _ in range(runs):
            sink = io.BytesIO()
            start = time.perf_counter()
            pq.write_table(
                table,
                sink,
                compression=codec,
                compression_level=level,
                use_dictionary=["partition"],
                write_statistics=["partition", "offset", "transaction_id", "ts"],
                row_group_size=100_000,
                data_page_version="1.0",
                version="2.6",
            )
            secs.append(time.perf_counter() - start)
            size = sink.tell()
        out[codec] = {"version": pa.__version__, "seconds": statistics.median(secs), "bytes": size}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
