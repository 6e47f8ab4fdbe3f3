"""T1 through the HTTP API: twenty identical requests sent at once (each its own client,
connection and token) apply once; the nineteen others are 409 ``stale_turn``; one row in
the action log. Run on SQLite (``make test``: the conditional update holds there) and on
PostgreSQL (CI's run with ``DATABASE_URL``: the row lock holds too)."""

import pytest

from matches.models import Action, Match
from tests.matches.api_helpers import client_for, path, start_match
from tests.matches.test_concurrency import REQUESTS, at_once


@pytest.mark.django_db(transaction=True)
def test_t1_twenty_identical_moves_sent_at_once_apply_once(alice, bob):
    _clients, match = start_match(alice, bob)
    mover = alice if match["game"]["turn"] == "alice" else bob
    body = {"turn_no": match["game"]["turn_no"], "play": match["game"]["legal_plays"][0]}
    table = Match.objects.get(pk=match["id"]).table
    logged = Action.objects.filter(table=table).count()
    client_for(mover.user)  # the token exists before the threads read it

    responses = at_once(
        lambda: client_for(mover.user).post(path(match["id"], "move"), body, format="json")
    )

    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200] + [409] * (REQUESTS - 1)
    assert {r.json()["error"] for r in responses if r.status_code == 409} == {"stale_turn"}
    assert Action.objects.filter(table=table).count() == logged + 1
    (applied,) = [r.json() for r in responses if r.status_code == 200]
    after = client_for(mover.user).get(path(match["id"])).json()
    assert after["version"] == applied["version"] == match["version"] + 1
    assert after["game"]["turn_no"] == body["turn_no"] + 1
