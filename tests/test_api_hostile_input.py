"""Beside the contract test (tests/test_api_contract.py): input an attacker sends on
purpose, which the fuzzer's schema-shaped cases do not reach. Each answers a 4xx JSON
saying what was wrong, changes nothing, and is never a 5xx or an HTML page."""

import pytest

from club.models import MatchResult, Transaction
from matches.models import Match
from web.api_parsers import MAX_JSON_DEPTH

pytestmark = pytest.mark.django_db

DEEP = "[" * 1_000 + "1" + "]" * 1_000
TOO_DEEP = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
TOO_LARGE = '{"memo": "' + "x" * (1024 * 1024) + '"}'

# (method, path, body or None, as staff, status, error code)
HOSTILE = [
    ("post", "/api/auth/token/", DEEP, False, 400, "malformed"),
    ("post", "/api/auth/token/", TOO_DEEP, False, 400, "malformed"),
    ("post", "/api/matches/", DEEP, True, 400, "malformed"),
    ("post", "/api/ledger/payments/", DEEP, True, 400, "malformed"),
    ("post", "/api/auth/token/", TOO_LARGE, False, 413, "too_large"),
    ("post", "/api/ledger/payments/", TOO_LARGE, True, 413, "too_large"),
    ("get", "/api/matches/?open=maybe", None, True, 400, "invalid"),
    ("get", "/api/matches/?player=" + "a" * 10_000, None, True, 400, "invalid"),
    (
        "post",
        "/api/results/",
        '{"winner": "alice", "loser": "bob", "length": 5, "played_at": "0001-01-01T00:00:00Z"}',
        True,
        400,
        "invalid",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "as_staff", "status", "error"), HOSTILE)
def test_hostile_input_is_a_4xx_json_that_changes_nothing(
    api, staff, make_player, method, path, body, as_staff, status, error
):
    for name in ("alice", "bob"):
        make_player(name)
    client = api.as_user(staff.user) if as_staff else api
    send = getattr(client, method)
    response = send(path, body, content_type="application/json") if body else send(path)
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == error
    assert response.json()["detail"]
    assert not (Transaction.objects.exists() or MatchResult.objects.exists())
    assert not Match.objects.exists()
