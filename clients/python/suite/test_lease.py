"""renew: the client posts {} to /api/v1/lease/:leaseId/extend, which
extends the lease by its own length; a released or unknown lease answers
success false."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from conftest import pop_of, push_many, stamp


async def _leased(client, name, lease_time):
    q, g = name("lease"), name("g")
    await client.queue(q).config({"lease_time": lease_time}).create()
    await push_many(client, q, ["m1", "m2"])
    msgs = await pop_of(client, q, group=g).pop()
    assert len(msgs) == 2, msgs
    return q, g, msgs


async def test_renew_extends_by_lease_length(client, name):
    q, g, msgs = await _leased(client, name, 120)
    before = datetime.now(timezone.utc)
    res = await client.renew(msgs[0])
    assert res.get("success") is True and res.get("leaseId") == msgs[0]["leaseId"], res
    until = stamp(res.get("newExpiresAt"))
    # {} extends by the lease's own length (120 s), counted from now.
    assert before + timedelta(seconds=100) <= until <= before + timedelta(seconds=140), (before, res)


async def test_renew_list_dedupes_the_lease(client, name):
    q, g, msgs = await _leased(client, name, 60)
    res = await client.renew(msgs)
    assert isinstance(res, list) and len(res) == 1, "both messages share one lease: one renew"
    assert res[0].get("success") is True and res[0].get("newExpiresAt"), res


async def test_renew_by_lease_id_string(client, name):
    q, g, msgs = await _leased(client, name, 60)
    res = await client.renew(msgs[0]["leaseId"])
    assert res.get("success") is True, res
    assert isinstance(res.get("renewed"), int) and res["renewed"] >= 1, f"renewed counts what it extended: {res!r}"


async def test_renew_after_ack_reports_gone(client, name):
    q, g, msgs = await _leased(client, name, 60)
    assert (await client.ack(msgs, True, {"group": g}))["success"] is True
    res = await client.renew(msgs[0])
    assert res.get("success") is False and res.get("error"), res
    assert res.get("renewed", 0) == 0, res


async def test_renew_unknown_lease(client):
    res = await client.renew("00000000-0000-4000-8000-000000000000")
    assert res.get("success") is False and res.get("error"), res


async def test_renew_without_lease(client):
    res = await client.renew({"transactionId": "x"})
    assert res == {"success": False, "error": "No valid lease IDs found for renewal"}, res
