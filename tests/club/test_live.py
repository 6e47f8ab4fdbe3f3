"""The live channel (web/live.py, GET /api/live/): a held request answers as soon as its
topic moves past the client's version, with the topic's state where its kind has one, or
after the wait with the same version and no state; a client that was away catches up at
once, state included; the watcher reads the states of the topics that moved once a tick
for all their waiters; a re-poll takes the version the watcher has just read instead of
reading it (never one too old, never losing a move); unknown topics, bad input and
watchers not allowed are 4xx JSON errors."""

import threading
import time

import pytest
from django.db import connection, connections

from tests.waiting import NEVER, PATIENCE, wait_until
from web import live

pytestmark = pytest.mark.django_db


class Versions:
    """A kind of topic backed by a dict (the matches app's tables are tested with it)."""

    def __init__(self, **versions: int):
        self.versions = dict(versions)
        self.reads: list[list[str]] = []
        self.readers: list[str] = []  # the thread of each read
        self.lock = threading.Lock()

    def __call__(self, keys):
        with self.lock:
            self.reads.append(sorted(keys))
            self.readers.append(threading.current_thread().name)
            return {key: self.versions[key] for key in keys if key in self.versions}

    def bump_when(self, key: str, condition) -> threading.Thread:
        """Move ``key`` to its next version in a thread of its own once ``condition()``
        holds (a waiter is waiting)."""

        def bump():
            assert wait_until(condition)
            with self.lock:
                self.versions[key] += 1

        thread = threading.Thread(target=bump)
        thread.start()
        return thread


class States:
    """A kind's states backed by a ``Versions``: each key's version and a body naming it;
    counts its calls."""

    def __init__(self, versions: Versions):
        self.versions = versions
        self.calls: list[list[str]] = []

    def __call__(self, keys):
        self.calls.append(sorted(keys))
        return {
            key: (version, {"key": key, "version": version})
            for key, version in self.versions(keys).items()
        }


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


@pytest.fixture
def shown():
    """Topics ``shown:a`` (version 3) and ``shown:b`` (version 7), a kind with states."""
    versions = Versions(a=3, b=7)
    states = States(versions)
    live.topic_register(name="shown", versions=versions, states=states)
    yield versions
    live.topic_unregister(name="shown")


# The watcher --------------------------------------------------------------------------


def waiting(watcher, topic, **kwargs):
    """``watcher.wait(topic, **kwargs)`` in a thread of its own; its answer is appended to
    the list returned with the thread."""
    answers: list[live.Answer] = []
    thread = threading.Thread(
        target=lambda: answers.append(watcher.wait(topic, **kwargs)), daemon=True
    )
    thread.start()
    return thread, answers


def answered(thread) -> bool:
    """The waiter has its answer within the patience (its own timeout is far later)."""
    thread.join(PATIENCE)
    return not thread.is_alive()


def test_a_waiter_wakes_when_its_topic_moves_and_not_before():
    versions = Versions(a=3)
    watcher = live.Watcher(lambda topics: {t: versions([t[2:]])[t[2:]] for t in topics}, 0.01)
    waiter, answers = waiting(watcher, "t:a", since=3, known=3, timeout=NEVER)
    assert wait_until(lambda: len(versions.reads) >= 2)  # ticks read 3: nothing to answer
    assert waiter.is_alive() and answers == []
    with versions.lock:
        versions.versions["a"] = 4
    assert answered(waiter)  # woken by the move, not by its timeout
    assert answers == [live.Answer(4)]


def test_a_waiter_answers_the_same_version_after_its_timeout():
    watcher = live.Watcher(lambda topics: dict.fromkeys(topics, 3), 0.01)
    assert watcher.wait("t:a", since=3, known=3, timeout=0.2) == live.Answer(3)


def test_one_read_a_tick_for_every_topic_waited_on_however_many_wait():
    """Forty waiters of two topics: each tick is one read of both topics, made by the
    watcher's thread, not one read a waiter."""
    versions = Versions(a=1, b=1)
    watcher = live.Watcher(
        lambda topics: {f"t:{k}": v for k, v in versions([t[2:] for t in topics]).items()}, 0.01
    )
    waiters = [
        waiting(watcher, topic, since=1, known=1, timeout=NEVER)[0]
        for topic in ["t:a"] * 20 + ["t:b"] * 20
    ]
    assert wait_until(lambda: sum(watcher._waiting.values()) == 40)
    reads_before = len(versions.reads)
    assert wait_until(lambda: len(versions.reads) >= reads_before + 2)  # ticks with all 40
    with versions.lock:
        versions.versions.update(a=2, b=2)
    assert all(answered(waiter) for waiter in waiters)
    assert set(versions.readers) == {"live-watcher"}
    assert versions.reads[reads_before:][0] == ["a", "b"]
    assert all(read in (["a", "b"], ["a"], ["b"]) for read in versions.reads)


def test_a_failed_read_is_logged_and_the_next_tick_reads_again(caplog):
    calls = []

    def read(topics):
        calls.append(topics)
        if len(calls) == 1:
            raise RuntimeError("database went away")
        return dict.fromkeys(topics, 2)

    watcher = live.Watcher(read, 0.01)
    assert watcher.wait("t:a", since=1, known=1, timeout=2) == live.Answer(2)
    assert "reading the versions of 1 topics failed" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_the_watcher_keeps_no_queries_all_night_with_debug_on(settings):
    """With DEBUG on (make run), Django keeps a connection's last 9,000 queries; a
    request starts with none, the watcher's thread reads a tick all night: it keeps none
    from one tick to the next."""
    settings.DEBUG = True
    kept = []

    def read(topics):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        kept.append(len(connection.queries_log))
        return dict.fromkeys(topics, 1)

    watcher = live.Watcher(read, 0.01)
    assert watcher.wait("t:a", since=1, known=1, timeout=0.3) == live.Answer(1)
    assert len(kept) >= 3 and set(kept) == {1}


def test_a_later_waiter_that_read_the_new_version_itself_does_not_hide_it_from_the_others():
    """A waits at version 1; the topic moves to 2; B, whose own read saw 2, starts to wait
    before the watcher's next read. That read must still wake A (B's version is no news
    the watcher may keep to itself), or A waits for the next move or its timeout."""
    b_waits = threading.Event()
    reads = []

    def read(topics):
        reads.append(sorted(topics))
        if len(reads) > 1:
            b_waits.wait(PATIENCE)
            return dict.fromkeys(topics, 2)
        return dict.fromkeys(topics, 1)

    watcher = live.Watcher(read, 0.01)
    a, a_answers = waiting(watcher, "t:a", since=1, known=1, timeout=NEVER)
    assert wait_until(lambda: len(reads) >= 2)  # the read that will see 2 has begun
    b, _ = waiting(watcher, "t:a", since=2, known=2, timeout=0.5)
    assert wait_until(lambda: watcher._waiting["t:a"] == 2)  # B's own read saw version 2
    b_waits.set()
    assert answered(a)  # by that read, not by its timeout
    assert a_answers == [live.Answer(2)]
    b.join()


@pytest.mark.django_db(transaction=True)
def test_an_idle_watcher_gives_its_database_connection_back():
    """The watcher's thread reads through its own connection; once nobody waits it closes
    it, so an idle web process holds none (and a test database can be dropped)."""
    used = []
    version = [1]

    def read(topics):
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
        used.append(connections["default"])
        return dict.fromkeys(topics, version[0])

    watcher = live.Watcher(read, 0.01)
    waiter, answers = waiting(watcher, "t:a", since=1, known=1, timeout=NEVER)
    assert wait_until(lambda: used)
    version[0] = 2  # the waiter is answered: nobody waits any more
    assert answered(waiter) and answers == [live.Answer(2)]
    assert wait_until(lambda: used[-1].connection is None)
    assert used[-1] is not connections["default"]  # the watcher's own, not the test's


def test_one_states_read_a_tick_for_many_waiters_of_many_topics_that_moved():
    versions = Versions(**{key: 1 for key in "abcd"})
    states = States(versions)
    watcher = live.Watcher(
        lambda topics: {f"t:{k}": v for k, v in versions([t[2:] for t in topics]).items()},
        0.05,
        read_states=lambda topics: {
            f"t:{k}": answer for k, answer in states([t[2:] for t in topics]).items()
        },
    )
    followers = [
        waiting(watcher, f"t:{key}", since=1, known=1, timeout=NEVER) for key in "abcd" * 10
    ]
    assert wait_until(lambda: sum(watcher._waiting.values()) == 40)
    reads_before = len(versions.reads)
    assert wait_until(lambda: len(versions.reads) >= reads_before + 2)
    assert states.calls == []  # every waiter is waiting: the ticks read versions only
    with versions.lock:
        for key in "abcd":
            versions.versions[key] = 2
    assert all(answered(waiter) for waiter, _ in followers)
    answers = [answer for _, answers in followers for answer in answers]
    assert states.calls == [["a", "b", "c", "d"]]  # one read for the 40 waiters of 4 topics
    assert sorted(answer.state["key"] for answer in answers) == sorted("abcd" * 10)
    assert all(
        answer == live.Answer(2, {"key": answer.state["key"], "version": 2}) for answer in answers
    )
    by_topic = {answer.state["key"]: answer.state for answer in answers}
    assert all(answer.state is by_topic[answer.state["key"]] for answer in answers)  # shared


def test_the_answered_version_is_the_states_own():
    """A move between the versions read and the states read: the state's version wins."""
    watcher = live.Watcher(
        lambda topics: dict.fromkeys(topics, 2),
        0.01,
        read_states=lambda topics: {topic: (3, {"version": 3}) for topic in topics},
    )
    assert watcher.wait("t:a", since=1, known=1, timeout=5) == live.Answer(3, {"version": 3})


def test_a_failed_states_read_is_logged_and_the_next_tick_reads_again(caplog):
    calls = []

    def read_states(topics):
        calls.append(topics)
        if len(calls) == 1:
            raise RuntimeError("database went away")
        return {topic: (2, {"version": 2}) for topic in topics}

    watcher = live.Watcher(lambda topics: dict.fromkeys(topics, 2), 0.01, read_states)
    assert watcher.wait("t:a", since=1, known=1, timeout=5) == live.Answer(2, {"version": 2})
    assert len(calls) == 2
    assert "reading the states of 1 topics failed" in caplog.text


# The endpoint -------------------------------------------------------------------------


@pytest.fixture
def member_api(api, make_player):
    return api.as_user(make_player("alice").user)


@pytest.fixture
def held(monkeypatch):
    """The waits requests hand to their process's watcher, as (topic, since, timeout):
    a request answered at once hands none. Each wait is still made. (That a wait is
    answered by the move, not by its timeout, the watcher's own tests above prove.)"""
    waits = []
    wait = live._WATCHER.wait

    def handed(topic, **kwargs):
        waits.append((topic, kwargs["since"], kwargs["timeout"]))
        return wait(topic, **kwargs)

    monkeypatch.setattr(live._WATCHER, "wait", handed)
    return waits


def get_live(client, **params):
    return client.get("/api/live/", params)


def test_without_since_the_current_version_at_once(member_api, board, held):
    response = get_live(member_api, topic="board:a")
    assert response.status_code == 200
    assert response.json() == {"topic": "board:a", "version": 3, "state": None}
    assert held == []  # not held for the default wait


def test_a_client_that_was_away_catches_up_at_once(member_api, board, held):
    response = get_live(member_api, topic="board:b", since=2, wait=20)
    assert response.json() == {"topic": "board:b", "version": 7, "state": None}
    assert held == []


def test_held_until_the_topic_moves_then_answered_with_it(member_api, board, held):
    bump = board.bump_when("a", lambda: held)  # once the request waits at version 3
    response = get_live(member_api, topic="board:a", since=3, wait=25)
    bump.join()
    assert response.json() == {"topic": "board:a", "version": 4, "state": None}


def test_held_for_the_wait_then_the_same_version(member_api, board, held):
    response = get_live(member_api, topic="board:a", since=3, wait=0.3)
    assert response.json() == {"topic": "board:a", "version": 3, "state": None}
    assert held == [("board:a", 3, 0.3)]


def test_with_states_the_current_state_at_once_without_since_or_behind(member_api, shown, held):
    for params in ({}, {"since": 2, "wait": 20}):
        response = get_live(member_api, topic="shown:a", **params)
        state = {"key": "a", "version": 3}
        assert response.json() == {"topic": "shown:a", "version": 3, "state": state}
    assert held == []


def test_with_states_a_held_request_answers_the_new_state(member_api, shown, held):
    bump = shown.bump_when("b", lambda: held)
    response = get_live(member_api, topic="shown:b", since=7, wait=25)
    bump.join()
    state = {"key": "b", "version": 8}
    assert response.json() == {"topic": "shown:b", "version": 8, "state": state}


def test_with_states_no_move_answers_no_state(member_api, shown, held):
    response = get_live(member_api, topic="shown:a", since=3, wait=0.3)
    assert response.json() == {"topic": "shown:a", "version": 3, "state": None}
    assert held == [("shown:a", 3, 0.3)]
    response = get_live(member_api, topic="shown:a", since=3, wait=0)
    assert response.json() == {"topic": "shown:a", "version": 3, "state": None}
    assert len(held) == 1  # wait=0: answered at once


@pytest.mark.parametrize("topic", ["board:zzz", "nothing:1", "board:", "board", ""])
def test_an_unknown_topic_is_404(member_api, board, topic):
    response = get_live(member_api, topic=topic, since=0, wait=5)
    expected = 400 if topic == "" else 404  # an empty topic is no topic at all
    assert response.status_code == expected
    assert response.json()["error"] == ("invalid" if topic == "" else "not_found")


def test_a_topic_the_member_may_not_watch_is_403(member_api, board):
    response = get_live(member_api, topic="board:secret")
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
    response = get_live(member_api, topic="board:a", **params)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert next(iter(params)) in response.json()["fields"]


@pytest.mark.parametrize(
    "query",
    [
        "topic=board:a",
        "topic=board:a&since=3&wait=0",
        "topic=board:a&since=0&wait=25",
        "topic=board:a&since=3&since=4&wait=1.5",
        "topic=&since=&wait=",
        "since=3",
        "topic=" + "x" * 101,
        "topic=board:a&since=-1&wait=26",
        "topic=board:a&since=1.5&wait=nan",
        "topic=board:a&since=" + "9" * 1001,
        "topic=board:a&wait=inf",
        "topic=board:a&wait=-0.1&since=two",
        "topic=%00",
    ],
)
def test_the_view_reads_the_query_exactly_as_its_serializer(query):
    """The view validates ``LiveQuery``'s fields without building a serializer per
    request: the same values, the same errors (messages and codes) as the serializer."""
    from django.http import QueryDict
    from rest_framework import serializers

    from club import api

    params = QueryDict(query)
    serializer = api.LiveQuery(data=params)
    try:
        read = api._live_query(params)
    except serializers.ValidationError as exc:
        assert not serializer.is_valid()
        assert exc.detail == serializer.errors
        assert {name: [error.code for error in errors] for name, errors in exc.detail.items()} == {
            name: [error.code for error in errors] for name, errors in serializer.errors.items()
        }
    else:
        assert serializer.is_valid(), serializer.errors
        assert read == serializer.validated_data


def test_only_members_listen(api, board):
    response = get_live(api, topic="board:a")
    assert response.status_code == 401 and response.json()["error"] == "not_authenticated"


def test_the_endpoint_is_in_the_schema_with_its_errors(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/live/"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"topic", "since", "wait"}
    assert {"200", "400", "401", "403", "404"} <= set(operation["responses"])
    answer = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    fields = schema["components"]["schemas"][answer.rsplit("/", 1)[1]]["properties"]
    assert set(fields) == {"topic", "version", "state"}
    assert fields["state"]["nullable"] and "the match's own GET" in fields["state"]["description"]


# The re-poll: the version the watcher has just read ----------------------------------


def request_reads(versions: Versions) -> int:
    """The reads of the versions made by requests (not by the watcher's thread)."""
    return sum(1 for name in versions.readers if name != "live-watcher")


@pytest.fixture
def seen_for_long(monkeypatch):
    """The versions seen stay usable for the patience, not two ticks: the tests below
    put a version in the watcher's memory and must not lose it to a busy machine's
    pauses."""
    monkeypatch.setattr(live._WATCHER, "_seen_for", PATIENCE)


def test_a_repoll_right_after_its_wake_reads_no_version(member_api, board, seen_for_long, held):
    bump = board.bump_when("a", lambda: held)
    response = get_live(member_api, topic="board:a", since=3, wait=25)
    bump.join()
    assert response.json()["version"] == 4
    before = request_reads(board)
    assert before == 1  # the first request's own read
    # The client sends its next request with the version it got: the watcher read it.
    response = get_live(member_api, topic="board:a", since=4, wait=0.3)
    assert response.json() == {"topic": "board:a", "version": 4, "state": None}
    assert held[1:] == [("board:a", 4, 0.3)]
    assert request_reads(board) == before  # no query of its own for the version


def test_a_move_after_the_version_seen_is_delivered_by_the_next_tick(
    member_api, board, seen_for_long
):
    """The watcher saw version 3; the topic has moved to 4 since. A re-poll at 3 takes
    the 3 it saw and waits: the next tick reads 4 and wakes it (no lost wake-up)."""
    live._WATCHER._remember({"board:a": 3}, time.monotonic())
    board.versions["a"] = 4
    response = get_live(member_api, topic="board:a", since=3, wait=25)
    assert response.json() == {"topic": "board:a", "version": 4, "state": None}
    assert request_reads(board) == 0


def test_a_client_ahead_of_the_version_seen_waits_for_the_move_after_its_own(
    member_api, board, seen_for_long, held
):
    """A mover's answer gave it version 4 while the watcher last saw 3: the re-poll at 4
    is not answered 3 (no going back) nor 4 again; it waits past 4."""
    live._WATCHER._remember({"board:a": 3}, time.monotonic())
    board.versions["a"] = 4
    response = get_live(member_api, topic="board:a", since=4, wait=0.3)
    assert response.json() == {"topic": "board:a", "version": 4, "state": None}
    assert held == [("board:a", 4, 0.3)]


def test_a_client_behind_the_version_seen_gets_the_state_at_once(
    member_api, shown, seen_for_long, held
):
    live._WATCHER._remember({"shown:a": 3}, time.monotonic())
    response = get_live(member_api, topic="shown:a", since=2, wait=20)
    assert response.json() == {
        "topic": "shown:a",
        "version": 3,
        "state": {"key": "a", "version": 3},
    }
    assert held == []


def test_a_version_seen_too_long_ago_is_not_used(member_api, board, held):
    """Older than two ticks: the request reads the version itself (3, past the old 2)."""
    live._WATCHER._remember({"board:a": 2}, time.monotonic() - 3 * live.TICK)
    response = get_live(member_api, topic="board:a", since=2, wait=25)
    assert response.json() == {"topic": "board:a", "version": 3, "state": None}
    assert held == [] and request_reads(board) == 1


def test_wait_0_reads_the_version_when_the_one_seen_is_not_past_since(
    member_api, board, seen_for_long
):
    """``wait=0`` with nothing new is a final answer, no tick corrects it: read."""
    live._WATCHER._remember({"board:a": 3}, time.monotonic())
    board.versions["a"] = 4
    response = get_live(member_api, topic="board:a", since=3, wait=0)
    assert response.json() == {"topic": "board:a", "version": 4, "state": None}
    assert request_reads(board) == 1


def test_who_may_watch_is_asked_with_a_version_seen(member_api, board, seen_for_long):
    live._WATCHER._remember({"board:secret": 1}, time.monotonic())
    response = get_live(member_api, topic="board:secret", since=1, wait=5)
    assert response.status_code == 403 and response.json()["error"] == "forbidden"
    assert request_reads(board) == 0


def test_the_versions_seen_are_forgotten_when_their_kind_is_registered_again(board):
    live._WATCHER._remember({"board:a": 3, "other:a": 1}, time.monotonic())
    live.topic_register(name="board", versions=board)
    assert live._WATCHER.version_seen("board:a") is None
    assert live._WATCHER.version_seen("other:a") == 1
