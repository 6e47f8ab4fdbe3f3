"""Failures under ``/api/`` answer the API's JSON error, ``DEBUG`` on or off: what a
view raised unexpectedly (500), a database busy or unreachable (503 with
``Retry-After``, nothing changed), a body too large (413) or nested too deep (400)."""

import json

import pytest
from django.db import InterfaceError, OperationalError
from django.test import RequestFactory

from club import api as club_api
from club.models import Transaction
from web import api_errors
from web.api_parsers import MAX_JSON_DEPTH

pytestmark = pytest.mark.django_db


def _failing(exc: Exception):
    def fail(*args, **kwargs):
        raise exc

    return fail


@pytest.fixture(params=[True, False], ids=["debug", "no-debug"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def test_an_unexpected_error_under_api_is_a_json_500(client, monkeypatch, debug, caplog):
    monkeypatch.setattr(club_api, "authenticate", _failing(RuntimeError("a bug")))
    response = client.post(
        "/api/auth/token/", {"username": "alice", "password": "x"}, content_type="application/json"
    )
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "server_error"
    assert "a bug" not in response.json()["detail"]
    assert any("a bug" in str(record.exc_info) for record in caplog.records)


@pytest.mark.parametrize(
    "exc", [OperationalError("database is locked"), InterfaceError("connection already closed")]
)
def test_a_database_busy_or_unreachable_is_a_json_503_with_retry_after(
    client, monkeypatch, debug, exc
):
    monkeypatch.setattr(club_api, "authenticate", _failing(exc))
    response = client.post(
        "/api/auth/token/", {"username": "alice", "password": "x"}, content_type="application/json"
    )
    assert response.status_code == 503
    assert response.json()["error"] == "unavailable"
    assert response["Retry-After"] == str(api_errors.RETRY_AFTER_SECONDS)


def test_a_database_busy_on_a_page_is_a_plain_503_in_the_user_s_language(
    client, monkeypatch, debug
):
    monkeypatch.setattr(
        "django.contrib.auth.forms.authenticate",
        _failing(OperationalError("database is locked")),
    )
    response = client.post(
        "/login/", {"username": "alice", "password": "x"}, HTTP_ACCEPT_LANGUAGE="el"
    )
    assert response.status_code == 503
    assert response["Content-Type"].startswith("text/plain")
    assert "Δοκιμάστε ξανά" in response.content.decode()  # the user's language
    assert response["Retry-After"] == str(api_errors.RETRY_AFTER_SECONDS)


def test_the_500_handler_answers_json_under_api_and_the_page_elsewhere():
    factory = RequestFactory()
    api = api_errors.server_error(factory.get("/api/players/"))
    assert api.status_code == 500
    assert json.loads(api.content)["error"] == "server_error"
    page = api_errors.server_error(factory.get("/"))
    assert page.status_code == 500
    assert page["Content-Type"].startswith("text/html")


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


@pytest.mark.parametrize("path", ["/api/auth/token/", "/api/matches/", "/api/results/"])
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1_000, 100_000])
def test_a_body_nested_too_deep_is_malformed_even_anonymous(client, path, depth, debug):
    response = client.post(path, _nested(depth), content_type="application/json")
    assert response.status_code in (400, 401)  # 401: the endpoint asks who first
    if path == "/api/auth/token/":
        assert response.status_code == 400
        assert response.json()["error"] == "malformed"
        assert str(MAX_JSON_DEPTH) in response.json()["detail"]


def test_a_body_nested_too_deep_is_malformed_for_a_member(staff_api):
    response = staff_api.post(
        "/api/ledger/payments/", _nested(1_000), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"] == "malformed"
    assert not Transaction.objects.exists()


def test_a_body_at_the_depth_limit_is_read(client):
    """Nested exactly ``MAX_JSON_DEPTH`` levels: parsed, then refused as a bad login."""
    body = json.dumps({"username": "alice", "password": _nested(MAX_JSON_DEPTH - 1)})
    body = body.replace(f'"{_nested(MAX_JSON_DEPTH - 1)}"', _nested(MAX_JSON_DEPTH - 1))
    response = client.post("/api/auth/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid"


def test_a_body_too_large_is_a_json_413(client, settings, staff_api):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    big = json.dumps({"username": "alice", "password": "x" * 1_000})
    response = client.post("/api/auth/token/", big, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"] == "too_large"
    payment = {"payer": "director", "payee": "club", "amount": "1.00", "memo": "x" * 1_000}
    response = staff_api.post("/api/ledger/payments/", payment, format="json")
    assert response.status_code == 413
    assert not Transaction.objects.exists()
