"""The live channel: a page asks "has this topic moved past the version I have?" and the
answer is held until it has (long polling; docs/live.md says why and how it measured).

A topic is ``<kind>:<key>`` (``table:12``). Each app registers its kinds
(``topic_register``) with a function reading the current version of many keys at once,
and who may watch them. The database is the truth: a version is bumped in the same
transaction as every change, whichever process made it (a web request, the Celery
worker's timeout), so reading it is all the channel needs, on SQLite as on PostgreSQL,
with one web process or many.

``live_wait`` reads the topic's version in the request (permissions and existence,
and the answer at once when the client is behind: a client back from sleep catches up
with one request). Otherwise the request waits on its process's ``Watcher``: one thread
that reads the versions of every topic some request of the process waits on, one query
per kind every ``TICK`` seconds, and wakes the requests whose topic moved. So the
queries a process makes do not grow with the number of requests held, and a held
request gives its database connection back while it waits.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection
from django.utils.translation import gettext as _

from club.errors import Forbidden, NotFound

log = logging.getLogger("club.live")

MAX_WAIT = 25.0  # seconds: under the usual 30 s idle timeout of proxies and browsers
TICK = 0.1  # seconds between two reads of the versions waited on, per process

VersionsOf = Callable[[Collection[str]], Mapping[str, int]]
MayWatch = Callable[[str, AbstractBaseUser | AnonymousUser], bool]


def _anyone(key: str, user: AbstractBaseUser | AnonymousUser) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class TopicKind:
    """A kind of topic: ``versions(keys)`` gives the current version of each key that
    exists (unknown keys are left out); ``may_watch(key, user)`` says who may watch."""

    name: str
    versions: VersionsOf
    may_watch: MayWatch = _anyone


_KINDS: dict[str, TopicKind] = {}


def topic_register(*, name: str, versions: VersionsOf, may_watch: MayWatch = _anyone) -> None:
    """Make topics ``<name>:<key>`` known (an app calls it from its ``AppConfig.ready``)."""
    _KINDS[name] = TopicKind(name, versions, may_watch)


def topic_unregister(*, name: str) -> None:
    """Forget a kind of topic (tests register kinds of their own)."""
    _KINDS.pop(name, None)


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
    if not kind.may_watch(key, user):
        raise Forbidden(_("You may not watch %(topic)s.") % {"topic": topic})
    return version


def read_versions(topics: Collection[str]) -> dict[str, int]:
    """The current version of each topic that still exists: one call per kind."""
    keys: dict[str, list[str]] = {}
    for topic in topics:
        name, _colon, key = topic.partition(":")
        if name in _KINDS and key:
            keys.setdefault(name, []).append(key)
    found = {}
    for name, names_keys in keys.items():
        for key, version in _KINDS[name].versions(names_keys).items():
            found[f"{name}:{key}"] = version
    return found


class Watcher:
    """Reads the versions of the topics waited on in this process and wakes the waiters.

    ``read`` is ``read_versions`` (tests give another). Its thread starts with the first
    wait and sleeps on a condition while nobody waits, so an idle process makes no
    queries. A failed read is logged and retried at the next tick, with a new database
    connection.
    """

    def __init__(self, read: Callable[[Collection[str]], Mapping[str, int]], tick: float = TICK):
        self._read = read
        self._tick = tick
        self._lock = threading.Lock()
        self._someone_waits = threading.Condition(self._lock)
        self._moved: dict[str, threading.Condition] = {}
        self._waiting: Counter[str] = Counter()
        self._versions: dict[str, int] = {}
        self._thread: threading.Thread | None = None

    def wait(self, topic: str, *, since: int, known: int, timeout: float) -> int:
        """The topic's version once it is past ``since``, or after ``timeout`` seconds
        the latest read (``known``: the version the request itself read)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._waiting[topic] += 1
            moved = self._moved.setdefault(topic, threading.Condition(self._lock))
            self._versions[topic] = max(known, self._versions.get(topic, known))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="live-watcher", daemon=True)
                self._thread.start()
            self._someone_waits.notify()
            try:
                while True:
                    version = self._versions[topic]
                    left = deadline - time.monotonic()
                    if version > since or left <= 0:
                        return version
                    moved.wait(left)
            finally:
                self._waiting[topic] -= 1
                if not self._waiting[topic]:
                    del self._waiting[topic], self._moved[topic], self._versions[topic]

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    self._someone_waits.wait()
                topics = list(self._waiting)
            try:
                versions = self._read(topics)
            except Exception:
                log.exception("live: reading the versions of %d topics failed", len(topics))
                connection.close()
                versions = {}
            with self._lock:
                for topic, version in versions.items():
                    if topic in self._waiting and version > self._versions[topic]:
                        self._versions[topic] = version
                        self._moved[topic].notify_all()
            time.sleep(self._tick)


_WATCHER = Watcher(read_versions)


def live_wait(
    *, topic: str, since: int | None, wait: float, user: AbstractBaseUser | AnonymousUser
) -> int:
    """The topic's version as soon as it is past ``since``, else after ``wait`` seconds
    (at most ``MAX_WAIT``) the same version; at once without ``since`` or when the
    client is behind. ``NotFound`` / ``Forbidden`` as ``topic_version``."""
    version = topic_version(topic=topic, user=user)
    if since is None or version > since or wait <= 0:
        return version
    if not connection.in_atomic_block:
        # Nothing more to read in this request: its connection is free for others
        # while it waits (a test's transaction keeps it).
        connection.close()
    return _WATCHER.wait(topic, since=since, known=version, timeout=min(wait, MAX_WAIT))
