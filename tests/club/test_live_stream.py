"""The live channel as a stream (GET /api/live/stream/, server-sent events): the current
state at once for a client behind, then an event for each new version with its state, a
comment in each silence, the end after its time; a reconnecting browser's Last-Event-ID
taken as its version; the stream holds no database connection and makes no query of its
own while it follows; errors are the API's JSON errors, checked before the stream starts."""

import json
import threading
import time

import pytest
from django.db import connection

from tests.club.test_live import States, Versions
from web import live

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def short_streams(monkeypatch):
    """Streams of 1.5 s with a comment after 0.4 s of silence, not 5 minutes and 15 s."""
    monkeypatch.setattr(live, "STREAM_FOR", 1.5)
    monkeypatch.setattr(live, "HEARTBEAT", 0.4)


@pytest.fixture
def member_api(api, make_player):
    return api.as_user(make_player("alice").user)


@pytest.fixture
def shown():
    """Topics ``shown:a`` (version 3) and ``shown:secret``, a kind with states that
    nobody may watch the secret of."""
    versions = Versions(a=3, secret=1)
    live.topic_register(
        name="shown",
        versions=versions,
        states=States(versions),
        may_watch=lambda key, user: key != "secret",
    )
    yield versions
    live.topic_unregister(name="shown")


def open_stream(client, headers=None, **params):
    return client.get(
        "/api/live/stream/", params, HTTP_ACCEPT="text/event-stream", headers=headers or {}
    )


def read_events(response):
    """The stream read to its end: each event's id and data, ``"comment"`` for each
    comment, and the seconds from the start each came at."""
    started, events = time.monotonic(), []
    for chunk in response.streaming_content:
        took = time.monotonic() - started
        text = chunk.decode()
        assert text.endswith("\n\n")  # one whole event per chunk
        if text.startswith(":"):
            events.append(("comment", None, took))
        elif text.startswith("retry:"):
            events.append(("retry", int(text.split()[1]), took))
        else:
            lines = dict(line.split(": ", 1) for line in text.strip().split("\n"))
            events.append((int(lines["id"]), json.loads(lines["data"]), took))
    return events


def test_a_client_without_since_gets_the_state_at_once_then_comments_till_the_end(
    member_api, shown
):
    started = time.monotonic()
    response = open_stream(member_api, topic="shown:a")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    events = read_events(response)
    took = time.monotonic() - started
    assert events[0][:2] == ("retry", 2000)  # how long a browser waits to open it again
    state = {"key": "a", "version": 3}
    assert events[1][:2] == (3, {"topic": "shown:a", "version": 3, "state": state})
    assert events[1][2] < 1  # at once
    comments = [event for event in events[2:] if event[0] == "comment"]
    assert len(comments) == len(events) - 2 >= 2  # nothing but comments after
    assert 1.5 <= took < 10  # then it ended, after its time


def test_each_move_is_an_event_with_its_state_in_order(member_api, shown):
    def bump_twice():
        time.sleep(0.3)
        shown.versions["a"] = 4
        time.sleep(0.3)
        shown.versions["a"] = 5

    mover = threading.Thread(target=bump_twice)
    mover.start()
    events = read_events(open_stream(member_api, topic="shown:a", since=3))
    mover.join()
    moves = [(event_id, data) for event_id, data, _took in events if isinstance(event_id, int)]
    assert moves == [
        (4, {"topic": "shown:a", "version": 4, "state": {"key": "a", "version": 4}}),
        (5, {"topic": "shown:a", "version": 5, "state": {"key": "a", "version": 5}}),
    ]  # nothing at once (the client had 3), then each move once
    assert all(took < 1.5 for event_id, _data, took in events if event_id == 4)


def test_a_client_behind_catches_up_at_once_and_one_at_the_version_waits(member_api, shown):
    behind = read_events(open_stream(member_api, topic="shown:a", since=1))
    assert behind[1][0] == 3 and behind[1][2] < 1
    current = read_events(open_stream(member_api, topic="shown:a", since=3))
    assert [event[0] for event in current[1:]] == ["comment"] * (len(current) - 1)


@pytest.mark.parametrize(
    ("since", "last_event_id", "first"),
    [(None, "2", 3), (None, "3", "comment"), ("1", "3", "comment"), ("3", "1", "comment")],
)
def test_a_reconnecting_browsers_last_event_id_is_its_version(
    member_api, shown, since, last_event_id, first
):
    """EventSource opens the same address again (its since as it was) and sends the id of
    the last event it had: the later of the two is what the client has."""
    params = {"topic": "shown:a"} | ({} if since is None else {"since": since})
    events = read_events(open_stream(member_api, {"Last-Event-ID": last_event_id}, **params))
    assert events[1][0] == first


@pytest.mark.django_db(transaction=True)  # outside a test's transaction, as served
def test_the_stream_holds_no_connection_and_makes_no_query_while_it_follows(member_api, shown):
    """The request reads the topic's version once; then the process's watcher reads for
    every follower, and the request's own connection is closed."""

    def bump():
        time.sleep(0.3)
        shown.versions["a"] = 4

    mover = threading.Thread(target=bump)
    mover.start()
    response = open_stream(member_api, topic="shown:a", since=3)
    events = iter(response.streaming_content)
    next(events)  # retry
    assert connection.connection is None  # given back before the stream started
    rest = [chunk for chunk in events]
    mover.join()
    assert any(chunk.startswith(b"id: 4\n") for chunk in rest)
    by_requests = [name for name in shown.readers if name != "live-watcher"]
    assert len(by_requests) == 1  # the stream's first read, no other


@pytest.mark.parametrize(
    ("params", "headers", "status", "error"),
    [
        ({"topic": "shown:zzz"}, {}, 404, "not_found"),
        ({"topic": "nothing:1"}, {}, 404, "not_found"),
        ({"topic": "shown:secret"}, {}, 403, "forbidden"),
        ({"topic": "shown:a", "since": "-1"}, {}, 400, "invalid"),
        ({"topic": "shown:a", "since": "two"}, {}, 400, "invalid"),
        ({}, {}, 400, "invalid"),
        ({"topic": "shown:a"}, {"Last-Event-ID": "x"}, 400, "invalid"),
        ({"topic": "shown:a"}, {"Last-Event-ID": "-3"}, 400, "invalid"),
        ({"topic": "shown:a"}, {"Last-Event-ID": "9" * 5000}, 400, "invalid"),
    ],
)
def test_bad_requests_are_json_errors_before_any_stream(
    member_api, shown, params, headers, status, error
):
    response = open_stream(member_api, headers, **params)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert not response.streaming
    assert response.json()["error"] == error and response.json()["detail"]


def test_only_members_follow(api, shown):
    response = open_stream(api, topic="shown:a")
    assert response.status_code == 401 and response.json()["error"] == "not_authenticated"


def test_the_stream_is_in_the_schema_with_its_errors(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/live/stream/"]["get"]
    assert {(p["name"], p["in"]) for p in operation["parameters"]} == {
        ("topic", "query"),
        ("since", "query"),
        ("Last-Event-ID", "header"),
    }
    assert {"200", "400", "401", "403", "404"} <= set(operation["responses"])
    assert set(operation["responses"]["200"]["content"]) == {"text/event-stream"}
    assert set(operation["responses"]["404"]["content"]) == {"application/json"}
