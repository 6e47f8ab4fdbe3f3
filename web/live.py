"""The live channel: a client asks "has this topic moved past the version I have?" and the
answer is held until it has (``live_wait``, long polling), or it keeps one stream open
that carries each new version as it comes (``live_stream``, server-sent events: what
the pages use); docs/live.md says why and how it measured.

A topic is ``<kind>:<key>`` (``table:12``). Each app registers its kinds
(``topic_register``) with a function reading the current version of many keys at once,
who may watch them (a public kind, a public page's, also visitors not logged in) and,
for a kind whose followers redraw from one body (a match), a function reading the state
of many keys at once: the answer then carries the new state
and the client needs no fetch after it. The database is the truth: a version is bumped
in the same transaction as every change, whichever process made it (a web request, the
Celery worker's timeout), so reading it is all the channel needs, on SQLite as on
PostgreSQL, with one web process or many.

``live_wait`` reads the topic's version in the request (permissions and existence,
and the answer at once when the client is behind: a client back from sleep catches up
with one request), unless its process's watcher read it less than two ticks ago (a
re-poll right after its wake: ``Watcher.version_seen``). Otherwise the request waits
on its process's ``Watcher``: one thread that reads the versions of every topic some
request of the process waits on, one query per kind every ``TICK`` seconds, then the
states of the topics that moved, one query per kind, and wakes the requests whose
topic moved with that one state. So the queries a process makes do not grow with the
number of requests held, and a held request gives its database connection back while
it waits.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db import connection, reset_queries
from django.db.models import Field, Model
from django.utils.translation import gettext as _

from web.errors import Forbidden, NotFound

log = logging.getLogger("club.live")

MAX_WAIT = 25.0  # seconds: under the usual 30 s idle timeout of proxies and browsers
TICK = 0.1  # seconds between two reads of the versions waited on, per process
SHARED_FOR = 60  # seconds a state handed over by its writer stays in the cache
STREAM_FOR = 300.0  # seconds a stream lasts before the client opens the next one
HEARTBEAT = 15.0  # seconds of silence on a stream before a comment keeps it open

State = Mapping[str, Any]
VersionsOf = Callable[[Collection[str]], Mapping[str, int]]
StatesOf = Callable[[Collection[str]], Mapping[str, tuple[int, State]]]
MayWatch = Callable[[str, AbstractBaseUser | AnonymousUser], bool]


def _anyone(key: str, user: AbstractBaseUser | AnonymousUser) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class TopicKind:
    """A kind of topic: ``versions(keys)`` gives the current version of each key that
    exists (unknown keys are left out); ``may_watch(key, user)`` says who may watch;
    ``public``: visitors who are not logged in may watch too (the topic of a page anyone
    may read: its answers must say nothing the page does not); ``states(keys)``, if the
    kind has states, each key's current version and the state at that version, the same
    for every follower (a key left out has no state)."""

    name: str
    versions: VersionsOf
    may_watch: MayWatch = _anyone
    states: StatesOf | None = None
    public: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """A live answer: the topic's version and, when it moved past the client's and its
    kind has states, the state at that version (else None)."""

    version: int
    state: State | None = None


_KINDS: dict[str, TopicKind] = {}


def topic_register(
    *,
    name: str,
    versions: VersionsOf,
    may_watch: MayWatch = _anyone,
    states: StatesOf | None = None,
    public: bool = False,
) -> None:
    """Make topics ``<name>:<key>`` known (an app calls it from its ``AppConfig.ready``)."""
    _KINDS[name] = TopicKind(name, versions, may_watch, states, public)
    _WATCHER.forget(f"{name}:")


def topic_unregister(*, name: str) -> None:
    """Forget a kind of topic (tests register kinds of their own)."""
    _KINDS.pop(name, None)
    _WATCHER.forget(f"{name}:")


def versions_by_id(model: type[Model], ids: Collection[int]) -> dict[int, int]:
    """The ``version`` of each row of ``model`` whose primary key is in ``ids``, in one
    query (none for no ids): a kind's ``versions``, for a model with a ``version`` column.

    Written in SQL, the one the ORM writes for ``model.objects.filter(pk__in=ids)
    .values_list("pk", "version")``: it is the live channel's most frequent query (each
    watcher's tick, each live request that reads its version) and compiling it through
    the ORM cost 0.35 ms of CPU a call against 0.12 ms for the whole of this
    (bench/README.md, "A live request")."""
    ids = sorted(set(ids))
    if not ids:
        return {}
    meta = model._meta
    version = meta.get_field("version")
    assert isinstance(version, Field)  # a column, not a relation
    id_column, version_column = meta.pk.column, version.column
    assert id_column is not None and version_column is not None  # concrete fields
    quote = connection.ops.quote_name
    sql = "SELECT {id}, {version} FROM {table} WHERE {id} IN ({ids})".format(
        id=quote(id_column),
        version=quote(version_column),
        table=quote(meta.db_table),
        ids=", ".join(["%s"] * len(ids)),
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, ids)
        return {int(pk): int(version) for pk, version in cursor.fetchall()}


def _split(topic: str) -> tuple[TopicKind, str]:
    name, _colon, key = topic.partition(":")
    kind = _KINDS.get(name)
    if kind is None or not key:
        raise NotFound(_("There is no such topic: %(topic)s.") % {"topic": topic})
    return kind, key


def topic_version(*, topic: str, user: AbstractBaseUser | AnonymousUser) -> int:
    """The topic's current version; ``NotFound`` for an unknown topic, ``Forbidden``
    for one ``user`` may not watch."""
    kind, key = _split(topic)
    version = kind.versions([key]).get(key)
    if version is None:
        raise NotFound(_("There is no such topic: %(topic)s.") % {"topic": topic})
    _watch_allowed(kind, key, user)
    return version


def topic_public(topic: str) -> bool:
    """Visitors who are not logged in may watch ``topic`` (its kind is public)."""
    name, _colon, key = topic.partition(":")
    kind = _KINDS.get(name)
    return kind is not None and kind.public and bool(key)


def _watch_allowed(kind: TopicKind, key: str, user: AbstractBaseUser | AnonymousUser) -> None:
    if not (kind.public or user.is_authenticated) or not kind.may_watch(key, user):
        raise Forbidden(_("You may not watch %(topic)s.") % {"topic": f"{kind.name}:{key}"})


def _state_now(kind: TopicKind, key: str, version: int) -> Answer:
    """The answer to a client behind ``version``: with the key's state, if its kind has
    one (the one its writer handed over, else read)."""
    if kind.states is None:
        return Answer(version)
    topic = f"{kind.name}:{key}"
    read = states_at({topic: version}).get(topic)
    return Answer(version) if read is None else Answer(*read)


def _shared_key(topic: str, version: int) -> str:
    return f"live:{topic}:{version}"


def state_share(*, topic: str, version: int, state: State) -> None:
    """Hand the state a writer has just answered with, after its commit, to the watchers
    of every web process through Django's cache (``CACHE_URL``): their next read of the
    topic finds it instead of building it again (docs/live.md). The change is made
    already, so a cache that fails is logged, not raised: the watchers read it themselves."""
    try:
        cache.set(_shared_key(topic, version), dict(state), SHARED_FOR)
    except Exception:
        log.warning("live: handing over the state of %s failed", topic, exc_info=True)


def shared_states(versions: Mapping[str, int]) -> dict[str, tuple[int, State]]:
    """The states handed over (``state_share``) for these topics at these versions; none
    when the cache fails (logged: the caller reads them itself)."""
    keys = {_shared_key(topic, version): topic for topic, version in versions.items()}
    try:
        found = cache.get_many(list(keys))
    except Exception:
        log.warning("live: reading %d handed-over states failed", len(keys), exc_info=True)
        return {}
    return {keys[key]: (versions[keys[key]], state) for key, state in found.items()}


def _keys_by_kind(topics: Collection[str], *, with_states: bool) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for topic in topics:
        name, _colon, key = topic.partition(":")
        kind = _KINDS.get(name)
        if kind is not None and key and (not with_states or kind.states is not None):
            keys.setdefault(name, []).append(key)
    return keys


def read_versions(topics: Collection[str]) -> dict[str, int]:
    """The current version of each topic that still exists: one call per kind."""
    found = {}
    for name, names_keys in _keys_by_kind(topics, with_states=False).items():
        for key, version in _KINDS[name].versions(names_keys).items():
            found[f"{name}:{key}"] = version
    return found


def read_states(topics: Collection[str]) -> dict[str, tuple[int, State]]:
    """The current (version, state) of each topic whose kind has states: one call per
    kind (none for the topics of kinds without)."""
    found = {}
    for name, names_keys in _keys_by_kind(topics, with_states=True).items():
        states = _KINDS[name].states
        assert states is not None  # _keys_by_kind kept only kinds with states
        for key, read in states(names_keys).items():
            found[f"{name}:{key}"] = read
    return found


def states_at(versions: Mapping[str, int]) -> dict[str, tuple[int, State]]:
    """The (version, state) of each topic at the version given: the state its writer
    handed over (``state_share``), else the current one read (``read_states``)."""
    found = shared_states(versions)
    missing = [topic for topic in versions if topic not in found]
    if missing:
        found.update(read_states(missing))
    return found


class Watcher:
    """Reads the versions of the topics waited on in this process and wakes the waiters.

    ``read`` is ``read_versions``, ``read_states`` is ``states_at`` (tests give others).
    Each tick reads the versions only; for the topics that moved, their states (those
    their writers handed over from the cache, the others read), one call a tick, and every
    waiter of a topic gets the same state
    (its followers in this process cost one read, not one each). Its thread starts with
    the first wait and sleeps on a condition while nobody waits, so an idle process makes
    no queries and holds no connection. A failed read is logged and retried at the next
    tick, with a new database connection.
    """

    def __init__(
        self,
        read: Callable[[Collection[str]], Mapping[str, int]],
        tick: float = TICK,
        read_states: Callable[[Mapping[str, int]], Mapping[str, tuple[int, State]]] = states_at,
    ):
        self._read = read
        self._read_states = read_states
        self._tick = tick
        self._lock = threading.Lock()
        self._someone_waits = threading.Condition(self._lock)
        self._moved: dict[str, threading.Condition] = {}
        self._waiting: Counter[str] = Counter()
        self._answers: dict[str, Answer] = {}
        self._thread: threading.Thread | None = None
        # topic -> (version, monotonic time its read began): the versions of the last reads.
        self._seen: dict[str, tuple[int, float]] = {}
        self._seen_for = 2 * tick

    def version_seen(self, topic: str) -> int | None:
        """The topic's version as this watcher read it less than two ticks ago, else None.

        A re-poll takes it instead of reading the version again (``live_wait``): its
        client was woken by that read a moment before. It can be older than the truth by
        at most that age, which is safe both ways: a client behind it gets the state at
        once, as with a version read; a client at it (or past it: its own move's answer)
        waits, and the watcher's next read, at most a tick away, wakes it if the topic
        moved meanwhile (the waiter compares the versions read with its own ``since``,
        not with this one). The read proves the topic existed then (topics are not
        deleted while followed); who may watch is still asked."""
        with self._lock:
            seen = self._seen.get(topic)
        if seen is None or time.monotonic() - seen[1] >= self._seen_for:
            return None
        return seen[0]

    def forget(self, prefix: str = "") -> None:
        """Forget the versions seen of the topics starting with ``prefix`` (a kind
        registered again, a test's database rolled back)."""
        with self._lock:
            for topic in [topic for topic in self._seen if topic.startswith(prefix)]:
                del self._seen[topic]

    def _remember(self, versions: Mapping[str, int], read_at: float) -> None:
        """Keep the versions just read (from ``read_at``), drop those too old to be used."""
        with self._lock:
            old = read_at - self._seen_for
            self._seen = {topic: seen for topic, seen in self._seen.items() if seen[1] > old}
            for topic, version in versions.items():
                self._seen[topic] = (version, read_at)

    def wait(self, topic: str, *, since: int, known: int, timeout: float) -> Answer:
        """The topic's version and state once it is past ``since``, or after ``timeout``
        seconds the latest version read (``known``: the one the request itself read),
        without a state if it did not move past ``since``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._waiting[topic] += 1
            moved = self._moved.setdefault(topic, threading.Condition(self._lock))
            # A newer version the request read is left to the next tick, which reads its
            # state and wakes every waiter of the topic with it.
            self._answers.setdefault(topic, Answer(known))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="live-watcher", daemon=True)
                self._thread.start()
            self._someone_waits.notify()
            try:
                while True:
                    answer = self._answers[topic]
                    if answer.version > since:
                        return answer
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return Answer(answer.version)
                    moved.wait(left)
            finally:
                self._waiting[topic] -= 1
                if not self._waiting[topic]:
                    del self._waiting[topic], self._moved[topic], self._answers[topic]

    def _run(self) -> None:
        while True:
            with self._lock:
                idle = not self._waiting
            if idle:
                # An idle process holds no database connection (nor a test database open).
                connection.close()
            with self._lock:
                while not self._waiting:
                    self._someone_waits.wait()
                topics = list(self._waiting)
            self._wake(self._read_moved(topics))
            # With DEBUG on, Django keeps a connection's last 9,000 queries; a request
            # starts with none, this thread's reads would pile up all night.
            reset_queries()
            time.sleep(self._tick)

    def _read_moved(self, topics: list[str]) -> dict[str, Answer]:
        """The new answer of each topic that moved since the last read (none on a failure)."""
        read_at = time.monotonic()  # before the query: the versions are at least this recent
        try:
            versions = self._read(topics)
        except Exception:
            log.exception("live: reading the versions of %d topics failed", len(topics))
            connection.close()
            return {}
        self._remember(versions, read_at)
        with self._lock:
            moved = [
                topic
                for topic, version in versions.items()
                if topic in self._waiting and version > self._answers[topic].version
            ]
        if not moved:
            return {}
        try:
            states = self._read_states({topic: versions[topic] for topic in moved})
        except Exception:
            log.exception("live: reading the states of %d topics failed", len(moved))
            connection.close()
            return {}
        answers = {}
        for topic in moved:
            read = states.get(topic)
            answers[topic] = Answer(versions[topic]) if read is None else Answer(*read)
        return answers

    def _wake(self, answers: Mapping[str, Answer]) -> None:
        with self._lock:
            for topic, answer in answers.items():
                if topic in self._waiting and answer.version > self._answers[topic].version:
                    self._answers[topic] = answer
                    self._moved[topic].notify_all()


_WATCHER = Watcher(read_versions)


def live_wait(
    *, topic: str, since: int | None, wait: float, user: AbstractBaseUser | AnonymousUser
) -> Answer:
    """The topic's version and state as soon as it is past ``since``, else after
    ``wait`` seconds (at most ``MAX_WAIT``) the same version without a state; at once,
    with the state, without ``since`` or when the client is behind. ``NotFound`` /
    ``Forbidden`` as ``topic_version``.

    A re-poll of a topic this process's watcher read less than two ticks ago (the read
    that woke the client's previous request, or that of another follower waiting) takes
    that version and makes no query of its own (``Watcher.version_seen`` says why that
    is safe); who may watch is asked all the same. Not for ``wait=0`` with nothing new
    in it: that answer is final (no tick to correct it), so it reads the version."""
    kind, key = _split(topic)
    version = _WATCHER.version_seen(topic)
    if version is not None and (wait > 0 or since is None or version > since):
        _watch_allowed(kind, key, user)
    else:
        version = topic_version(topic=topic, user=user)
    if since is None or version > since:
        return _state_now(kind, key, version)
    if wait <= 0:
        return Answer(version)
    if not connection.in_atomic_block:
        # Nothing more to read in this request: its connection is free for others
        # while it waits (a test's transaction keeps it).
        connection.close()
    return _WATCHER.wait(topic, since=since, known=version, timeout=min(wait, MAX_WAIT))


def live_stream(
    *, topic: str, since: int | None, user: AbstractBaseUser | AnonymousUser
) -> Iterator[Answer | None]:
    """The topic's answers for ``STREAM_FOR`` seconds: at once the current one if the
    client is behind ``since`` (or gave none), then each new version as the process's
    watcher reads it, with its state; ``None`` after each ``HEARTBEAT`` of silence.

    ``NotFound`` / ``Forbidden`` as ``topic_version``, raised by this call, before the
    first answer: a stream starts only for a topic that exists and the user may watch
    (asked once: who may watch a topic does not change while it is followed). The
    request's database connection is given back before the stream starts, so a stream
    holds a thread, as a held request does, and nothing else; it makes no query of its
    own (the watcher's reads serve every follower of the process)."""
    first = live_wait(topic=topic, since=since, wait=0, user=user)
    if not connection.in_atomic_block:
        connection.close()
    return _stream(topic, since, first, time.monotonic() + STREAM_FOR)


def _stream(topic: str, since: int | None, first: Answer, until: float) -> Iterator[Answer | None]:
    if since is None or first.version > since:
        yield first
    last = first.version if since is None else max(since, first.version)
    known = first.version
    while (left := until - time.monotonic()) > 0:
        answer = _WATCHER.wait(topic, since=last, known=known, timeout=min(HEARTBEAT, left))
        known = answer.version
        if answer.version > last:
            last = answer.version
            yield answer
        elif time.monotonic() < until:
            yield None
