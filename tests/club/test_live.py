"""The live channel (club/live.py, GET /api/live/): a held request answers as soon as its
topic moves past the client's version, or after the wait with the same version; a client
that was away catches up at once; unknown topics, bad input and watchers not allowed are
4xx JSON errors."""

import threading
import time

import pytest

from club import live

pytestmark = pytest.mark.django_db


class Versions:
    """A kind of topic backed by a dict (the matches app's tables are tested with it)."""

    def __init__(self, **versions: int):
        self.versions = dict(versions)
        self.reads: list[list[str]] = []
        self.lock = threading.Lock()

    def __call__(self, keys):
        with self.lock:
            self.reads.append(sorted(keys))
            return {key: self.versions[key] for key in keys if key in self.versions}

    def bump_later(self, key: str, seconds: float) -> threading.Thread:
        def bump():
            time.sleep(seconds)
            with self.lock:
                self.versions[key] += 1

        thread = threading.Thread(target=bump)
        thread.start()
        return thread


@pytest.fixture
def board():
    """Topics ``board:a`` (version 3) and ``board:b`` (version 7); ``board:secret``
    exists but nobody may watch it."""
    versions = Versions(a=3, b=7, secret=1)
    live.topic_register(
        name="board", versions=versions, may_watch=lambda key, user: key != "secret"
    )
    yield versions
    live.topic_unregister(name="board")


# The watcher --------------------------------------------------------------------------


def test_a_waiter_wakes_when_its_topic_moves_and_not_before():
    versions = Versions(a=3)
    watcher = live.Watcher(lambda topics: {t: versions([t[2:]])[t[2:]] for t in topics}, 0.01)
    bump = versions.bump_later("a", 0.2)
    started = time.monotonic()
    assert watcher.wait("t:a", since=3, known=3, timeout=30) == 4
    took = time.monotonic() - started
    bump.join()
    assert 0.2 <= took < 10  # woken by the move, long before its timeout


def test_a_waiter_answers_the_same_version_after_its_timeout():
    watcher = live.Watcher(lambda topics: dict.fromkeys(topics, 3), 0.01)
    started = time.monotonic()
    assert watcher.wait("t:a", since=3, known=3, timeout=0.2) == 3
    assert 0.2 <= time.monotonic() - started < 10


def test_one_read_a_tick_for_every_topic_waited_on_however_many_wait():
    reads = []

    def read(topics):
        reads.append(sorted(topics))
        return dict.fromkeys(topics, 1)

    watcher = live.Watcher(read, 0.05)
    waiters = [
        threading.Thread(
            target=watcher.wait, args=(topic,), kwargs=dict(since=1, known=1, timeout=0.5)
        )
        for topic in ["t:a"] * 20 + ["t:b"] * 20
    ]
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join()
    assert (
        2 <= len(reads) <= 14
    )  # about 0.5 s / 0.05 s (fewer on a busy machine), not 40 waiters' worth
    assert reads[len(reads) // 2] == ["t:a", "t:b"]


def test_a_failed_read_is_logged_and_the_next_tick_reads_again(caplog):
    calls = []

    def read(topics):
        calls.append(topics)
        if len(calls) == 1:
            raise RuntimeError("database went away")
        return dict.fromkeys(topics, 2)

    watcher = live.Watcher(read, 0.01)
    assert watcher.wait("t:a", since=1, known=1, timeout=2) == 2
    assert "reading the versions of 1 topics failed" in caplog.text


# The endpoint -------------------------------------------------------------------------


@pytest.fixture
def member_api(api, make_player):
    return api.as_user(make_player("alice").user)


def get_live(client, **params):
    started = time.monotonic()
    response = client.get("/api/live/", params)
    return response, time.monotonic() - started


def test_without_since_the_current_version_at_once(member_api, board):
    response, took = get_live(member_api, topic="board:a")
    assert response.status_code == 200
    assert response.json() == {"topic": "board:a", "version": 3}
    assert took < 10  # not held for the default wait


def test_a_client_that_was_away_catches_up_at_once(member_api, board):
    response, took = get_live(member_api, topic="board:b", since=2, wait=20)
    assert response.json() == {"topic": "board:b", "version": 7} and took < 10


def test_held_until_the_topic_moves_then_answered_within_a_tick(member_api, board):
    bump = board.bump_later("a", 0.3)
    response, took = get_live(member_api, topic="board:a", since=3, wait=10)
    bump.join()
    assert response.json() == {"topic": "board:a", "version": 4}
    assert 0.3 <= took < 5  # answered by the move, not at the wait of 10 s


def test_held_for_the_wait_then_the_same_version(member_api, board):
    response, took = get_live(member_api, topic="board:a", since=3, wait=0.3)
    assert response.status_code == 200 and response.json()["version"] == 3
    assert 0.3 <= took


@pytest.mark.parametrize("topic", ["board:zzz", "nothing:1", "board:", "board", ""])
def test_an_unknown_topic_is_404(member_api, board, topic):
    response, _ = get_live(member_api, topic=topic, since=0, wait=5)
    expected = 400 if topic == "" else 404  # an empty topic is no topic at all
    assert response.status_code == expected
    assert response.json()["error"] == ("invalid" if topic == "" else "not_found")


def test_a_topic_the_member_may_not_watch_is_403(member_api, board):
    response, _ = get_live(member_api, topic="board:secret")
    assert response.status_code == 403 and response.json()["error"] == "forbidden"


@pytest.mark.parametrize(
    "params",
    [
        {"since": "-1"},
        {"since": "two"},
        {"wait": "26"},
        {"wait": "-1"},
        {"wait": "soon"},
    ],
)
def test_bad_since_or_wait_is_400(member_api, board, params):
    response, _ = get_live(member_api, topic="board:a", **params)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert next(iter(params)) in response.json()["fields"]


def test_only_members_listen(api, board):
    response, _ = get_live(api, topic="board:a")
    assert response.status_code == 401 and response.json()["error"] == "not_authenticated"


def test_the_endpoint_is_in_the_schema_with_its_errors(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/live/"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"topic", "since", "wait"}
    assert {"200", "400", "401", "403", "404"} <= set(operation["responses"])
