"""The suite's fixtures: the broker URLs, a client per test, unique names,
polling with a deadline, and a record of every HTTP exchange a test made.

The broker comes from ``QUEEN_URLS`` (comma-separated) or ``--queen-urls``.
Tests marked ``three_nodes`` run only when three URLs are given; every other
test talks to the first URL.

    QUEEN_URLS=http://127.0.0.1:6632 .cache/client-venv/bin/python -m pytest clients/python/suite

The client is the published one, driven only through its public API. The one
thing added between it and the broker is a transport (the client's own
``transport=`` option) that forwards every request unchanged and keeps the
exchange, so that a failing test's report shows what was sent and what the
broker answered (the ``wire`` section).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Dict, List, Optional

import httpx
import pytest
import pytest_asyncio

from queen import Queen

# QUEEN_CLIENT_WIRE names client options every client of the suite is
# made with, comma-separated: binary_push, push_compression, framed_pop. The
# suite then runs over the client's binary push, binary transaction and
# framed pop instead of JSON (queen/e2e TestClientSuite runs it both ways).
WIRE_OPTIONS: Dict[str, Any] = {
    o.strip(): True for o in os.environ.get("QUEEN_CLIENT_WIRE", "").split(",") if o.strip()
}

# Seconds one wait for a condition may take (a lease to expire, a timer to
# fire, a follower to apply). Every wait is a poll of the condition.
DEADLINE = float(os.environ.get("QUEEN_SUITE_DEADLINE", "20"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--queen-urls", default=None, help="comma-separated broker URLs (else $QUEEN_URLS)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "three_nodes: needs three broker URLs (a 3-node cluster)")


def _urls(config: pytest.Config) -> List[str]:
    raw = config.getoption("--queen-urls") or os.environ.get("QUEEN_URLS", "")
    return [u.strip().rstrip("/") for u in raw.split(",") if u.strip()]


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    urls = _urls(config)
    if not urls:
        raise pytest.UsageError("no broker: set QUEEN_URLS or pass --queen-urls")
    if len(urls) >= 3:
        return
    skip = pytest.mark.skip(reason=f"needs 3 broker URLs, {len(urls)} given")
    for item in items:
        if "three_nodes" in item.keywords:
            item.add_marker(skip)


# ---------------------------------------------------------------------------
# The wire record
# ---------------------------------------------------------------------------

_MAX_BODY = 1500


def _clip(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= _MAX_BODY else text[:_MAX_BODY] + f"... ({len(text)} bytes)"


class Recorder(httpx.AsyncBaseTransport):
    """Forwards each request to the broker as it is and keeps
    (method, url, request body, status, answer body)."""

    def __init__(self, log: List[Dict[str, Any]]) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = request.content if request.content else b""
        entry: Dict[str, Any] = {"method": request.method, "url": str(request.url), "body": _clip(sent)}
        self.log.append(entry)
        try:
            resp = await self._inner.handle_async_request(request)
        except Exception as error:  # noqa: BLE001 - recorded, then raised as it was
            entry["status"] = f"transport error: {error!r}"
            raise
        raw = await resp.aread()
        await resp.aclose()
        entry["status"] = resp.status_code
        entry["answer"] = _clip(raw)
        headers = [(k, v) for k, v in resp.headers.items() if k.lower() not in ("content-length", "transfer-encoding")]
        return httpx.Response(resp.status_code, headers=headers, content=raw, request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    report = outcome.get_result()
    log = getattr(item, "_queen_wire", None)
    if report.when == "call" and report.failed and log:
        lines = []
        for e in log[-40:]:
            lines.append(f"> {e['method']} {e['url']}")
            if e.get("body"):
                lines.append(f">   {e['body']}")
            lines.append(f"< {e.get('status')} {e.get('answer', '')}")
        report.sections.append(("wire", "\n".join(lines)))
        path = os.environ.get("QUEEN_SUITE_WIRE")
        if path:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"test": item.nodeid, "error": str(call.excinfo.value)[:2000] if call.excinfo else "",
                                    "wire": log[-40:]}) + "\n")


# ---------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def urls(pytestconfig: pytest.Config) -> List[str]:
    return _urls(pytestconfig)


@pytest.fixture
def wire(request: pytest.FixtureRequest) -> List[Dict[str, Any]]:
    log: List[Dict[str, Any]] = []
    request.node._queen_wire = log
    return log


@pytest_asyncio.fixture
async def make_client(urls: List[str], wire: List[Dict[str, Any]]) -> Any:
    """make_client(url_or_urls=None, **options): a Queen client over the
    recorder, closed at the end of the test."""
    made: List[Queen] = []

    def make(target: Any = None, **options: Any) -> Queen:
        c = Queen(target if target is not None else urls[0], transport=Recorder(wire), **{**WIRE_OPTIONS, **options})
        made.append(c)
        return c

    try:
        yield make
    finally:
        for c in made:
            await c.close()


@pytest_asyncio.fixture
async def client(urls: List[str], wire: List[Dict[str, Any]]) -> Any:
    c = Queen(urls[0], transport=Recorder(wire), **WIRE_OPTIONS)
    try:
        yield c
    finally:
        await c.close()


@pytest_asyncio.fixture
async def clients(urls: List[str], wire: List[Dict[str, Any]]) -> Any:
    """One single-URL client per node (three_nodes tests)."""
    cs = [Queen(u, transport=Recorder(wire), **WIRE_OPTIONS) for u in urls[:3]]
    try:
        yield cs
    finally:
        for c in cs:
            await c.close()


@pytest.fixture
def name() -> Callable[[str], str]:
    """name(kind): a queue, group or key name no other test (or run) uses."""
    run = uuid.uuid4().hex[:8]

    def make(kind: str) -> str:
        return f"cs-{kind}-{run}-{uuid.uuid4().hex[:6]}"

    return make


# ---------------------------------------------------------------------------
# Helpers the tests import
# ---------------------------------------------------------------------------


async def wait_until(what: str, probe: Callable[[], Awaitable[Any]], timeout: Optional[float] = None) -> Any:
    """Polls probe() until it answers something truthy, and returns that;
    fails naming ``what`` and the last answer when the deadline passes."""
    limit = DEADLINE if timeout is None else timeout
    deadline = time.monotonic() + limit
    last: Any = None
    while True:
        last = await probe()
        if last:
            return last
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {limit:.0f} s waiting for {what} (last {last!r})")
        await asyncio.sleep(0.05)


def stamp(s: Any) -> datetime:
    assert isinstance(s, str) and s, f"a broker timestamp is an ISO-8601 string, got {s!r}"
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def mentions(obj: Any, value: Any) -> bool:
    """Whether ``value`` appears anywhere in a decoded JSON answer (as a value
    or a key): for answers whose exact shape the client does not read."""
    if obj == value:
        return True
    if isinstance(obj, dict):
        return any(k == value or mentions(v, value) for k, v in obj.items())
    if isinstance(obj, list):
        return any(mentions(v, value) for v in obj)
    return False


async def records(client: Queen, queue: str, partition: str = "Default") -> List[Dict[str, Any]]:
    read = await client.queue(queue).fetch(partition)
    return read[partition]["records"]


async def push_many(client: Queen, queue: str, payloads: List[Any], partition: Optional[str] = None) -> List[Dict[str, Any]]:
    """Pushes one message per payload, in one call; answers the broker's items."""
    q = client.queue(queue)
    if partition is not None:
        q = q.partition(partition)
    res = await q.push([{"data": p} for p in payloads])
    assert isinstance(res, list) and len(res) == len(payloads), f"push answers one item per message: {res!r}"
    assert all(r.get("status") == "queued" for r in res), f"every item is queued: {res!r}"
    return res


def pop_of(client: Queen, queue: str, group: Optional[str] = None, batch: int = 10, partition: Optional[str] = None) -> Any:
    """A non-waiting pop builder reading the whole history."""
    q = client.queue(queue)
    if partition is not None:
        q = q.partition(partition)
    if group is not None:
        q = q.group(group).subscription_mode("all")
    return q.batch(batch).wait(False)


def datas(msgs: List[Dict[str, Any]]) -> List[Any]:
    return [m.get("data") for m in msgs]


def gather(into: List[Any]) -> Callable[[Any], Awaitable[None]]:
    """A consume handler that adds to ``into`` the data of what it is given:
    one message or a batch of them."""

    async def handler(msgs: Any) -> None:
        into.extend(datas(msgs if isinstance(msgs, list) else [msgs]))

    return handler


def txids(msgs: List[Dict[str, Any]]) -> List[Any]:
    return [m.get("transactionId") for m in msgs]
