"""The live channel as a stream (GET /api/live/stream/, server-sent events): the current
state at once for a client behind, then an event for each new version with its state, a
comment in each silence, the end after its time; a reconnecting browser's Last-Event-ID
taken as its version; the stream holds no database connection and makes no query of its
own while it follows; errors are the API's JSON errors, checked before the stream starts."""

import json
import threading

import pytest
from django.db import connection

from tests.club.test_live import States, Versions
from tests.waiting import PATIENCE
from web import live

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def streams_to_follow(monkeypatch):
    """A comment after 0.05 s of silence, not 15 s; streams that outlast any test that
    does not read them to their end (those shorten them), not 5 minutes."""
    monkeypatch.setattr(live, "HEARTBEAT", 0.05)
    monkeypatch.setattr(live, "STREAM_FOR", PATIENCE)


@pytest.fixture
def short_streams(monkeypatch):
    """Streams of one second: twenty heartbeats long, read to their end."""
    monkeypatch.setattr(live, "STREAM_FOR", 1.0)


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


def parse(chunk):
    """One chunk of the stream: an event's id and data, ``("comment", None)`` or
    ``("retry", milliseconds)``."""
    text = chunk.decode()
    assert text.endswith("\n\n")  # one whole event per chunk
    if text.startswith(":"):
        return "comment", None
    if text.startswith("retry:"):
        return "retry", int(text.split()[1])
    lines = dict(line.split(": ", 1) for line in text.strip().split("\n"))
    return int(lines["id"]), json.loads(lines["data"])


def read_to_the_end(response):
    """Every chunk of the stream, read in a thread of its own: a stream that did not end
    fails the test at the patience's end instead of holding it."""
    events = []
    reader = threading.Thread(
        target=lambda: events.extend(parse(chunk) for chunk in response.streaming_content)
    )
    reader.start()
    reader.join(PATIENCE)
    assert not reader.is_alive(), "the stream did not end"
    return events


def next_event(chunks):
    """The next event with an id, past the comments of the silences before it."""
    for event_id, data in map(parse, chunks):
        if event_id != "comment":
            return event_id, data
    raise AssertionError("the stream ended without the event")


def test_a_client_without_since_gets_the_state_at_once_then_comments_till_the_end(
    member_api, shown, short_streams
):
    response = open_stream(member_api, topic="shown:a")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    events = read_to_the_end(response)
    assert events[0] == ("retry", 2000)  # how long a browser waits to open it again
    state = {"key": "a", "version": 3}
    # At once: before the first silence's comment.
    assert events[1] == (3, {"topic": "shown:a", "version": 3, "state": state})
    assert events[2:] and all(event == ("comment", None) for event in events[2:])


def test_each_move_is_an_event_with_its_state_in_order(member_api, shown):
    chunks = iter(open_stream(member_api, topic="shown:a", since=3).streaming_content)
    assert parse(next(chunks))[0] == "retry"
    assert parse(next(chunks)) == ("comment", None)  # nothing at once: the client had 3
    for version in (4, 5):
        with shown.lock:
            shown.versions["a"] = version
        state = {"key": "a", "version": version}
        assert next_event(chunks) == (
            version,
            {"topic": "shown:a", "version": version, "state": state},
        )  # each move once, as it comes, long before the stream's end


def test_a_client_behind_catches_up_at_once_and_one_at_the_version_waits(
    member_api, shown, short_streams
):
    behind = read_to_the_end(open_stream(member_api, topic="shown:a", since=1))
    assert behind[1][0] == 3  # at once: before the first silence's comment
    current = read_to_the_end(open_stream(member_api, topic="shown:a", since=3))
    assert current[1:] and all(event == ("comment", None) for event in current[1:])


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
    response = open_stream(member_api, {"Last-Event-ID": last_event_id}, **params)
    chunks = iter(response.streaming_content)
    assert parse(next(chunks))[0] == "retry"
    assert parse(next(chunks))[0] == first
    response.close()


@pytest.mark.django_db(transaction=True)  # outside a test's transaction, as served
def test_the_stream_holds_no_connection_and_makes_no_query_while_it_follows(member_api, shown):
    """The request reads the topic's version once; then the process's watcher reads for
    every follower, and the request's own connection is closed."""
    response = open_stream(member_api, topic="shown:a", since=3)
    chunks = iter(response.streaming_content)
    next(chunks)  # retry
    assert connection.connection is None  # given back before the stream started
    with shown.lock:
        shown.versions["a"] = 4
    assert next_event(chunks)[0] == 4
    response.close()
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
