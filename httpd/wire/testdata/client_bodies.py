"""Writes the binary bodies the official client (queen-mq 2.6.0) encodes,
for wire's tests (client_test.go reads them). Rerun after a client upgrade:

    .cache/client-venv/bin/python httpd/wire/testdata/client_bodies.py httpd/wire/testdata

(zstandard must be installed there on Python < 3.14; make client-venv does).
"""

import sys

from queen.http.push_binary import (
    PushBatch,
    binary_push_body,
    encode_push_binary,
    encode_push_frames,
    encode_transaction_frames,
    transaction_frames,
)

out = sys.argv[1]
items = [
    {"queue": "orders", "partition": "eu", "payload": {"id": 1, "name": "é ☃"}, "transactionId": "t-1"},
    {"queue": "orders", "partition": "eu", "payload": [1, 2.5, None, True]},
    {"queue": "orders", "payload": "text"},
    {"queue": "audit", "partition": "p", "payload": None, "transactionId": "t-4"},
]
bodies = {
    "push_plain.bin": binary_push_body(items, False),
    "push_frames.bin": binary_push_body(items, True),
    "push_zstd_counts.bin": encode_push_binary(
        [PushBatch("orders", "Default", [b'{"a":1}', b'"x"'])], compress=True, counts=True
    ),
    "push_frames_counts.bin": encode_push_frames(
        [PushBatch("q", "p", [b"1", b"2", b"3"], ["a", "", "c"])], counts=True
    ),
}
txn, _ = transaction_frames(
    {
        "operations": [
            {"type": "ack", "transactionId": "m-1", "partitionId": "7", "status": "completed"},
            {"type": "push", "items": items[:2]},
            {"type": "push", "queue": "audit", "payload": {"k": "v"}},
        ],
        "requiredLeases": ["lease-1"],
    }
)
bodies["txn.bin"] = txn
bodies["txn_counts.bin"] = encode_transaction_frames(
    None, [PushBatch("q", "Default", [b"{}"], ["x"])], counts=True
)
for name, body in bodies.items():
    with open(f"{out}/{name}", "wb") as f:
        f.write(body)
