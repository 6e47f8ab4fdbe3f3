"""A real Celery worker applies a timeout at its deadline: on the embedded filesystem
broker of ``make run``, and on Redis when CI's second run sets ``CELERY_BROKER_URL``.

The one place the tests wait for real time: a worker only acts when the deadline comes.
"""

import glob
import os
import time

import pytest
from django.db import connection

from matches import services
from matches.models import Action, Match
from tests.integration.worker import worker_process
from tests.matches.conftest import on_turn
from tests.processes import with_argument
from tests.waiting import wait_until


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_applies_a_timeout_at_its_deadline(alice, bob, settings):
    with worker_process(test_database=True) as queue:
        settings.MATCHES_TIMEOUT_QUEUE = queue
        match = services.match_create(
            creator=alice,
            opponent=bob,
            options=services.MatchOptions(length=3, clock={"delay": 1, "reserve": 1}),
        )
        match = services.match_accept(match=match, player=bob)
        late = on_turn(match, alice, bob)
        deadline = match.table.deadline

        def finished():
            match.refresh_from_db()
            return match.status == Match.Status.FINISHED

        assert wait_until(finished, timeout=60, every=0.1)
    assert match.ended_by == "timeout" and match.winner != late
    forfeit = Action.objects.get(table=match.table, kind="forfeit")
    assert forfeit.at >= deadline
    assert forfeit.by_server and forfeit.actor is None


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_keeps_its_database_connection_between_tasks(alice, bob, settings):
    """config/worker.py: a connection opened afresh took 1.3-2.8 ms of each task. Once the
    timeout is applied, the worker still holds its connection to the test's database."""
    with worker_process(test_database=True) as queue:
        settings.MATCHES_TIMEOUT_QUEUE = queue
        worker = _the_worker(queue)
        assert not _connections_of(worker)
        _lost_on_time(alice, bob)
        time.sleep(1)  # the task long over
        assert _connections_of(worker)


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_replaces_a_kept_connection_the_database_dropped(alice, bob, settings):
    """The database restarted between two tasks: the next task finds its thread's kept
    connection dead before its first query, and opens another (CONN_HEALTH_CHECKS)."""
    with worker_process(test_database=True) as queue:
        settings.MATCHES_TIMEOUT_QUEUE = queue
        worker = _the_worker(queue)
        _lost_on_time(alice, bob)
        assert wait_until(lambda: _connections_of(worker))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        assert wait_until(lambda: not _connections_of(worker))
        _lost_on_time(alice, bob)


def _lost_on_time(alice, bob) -> None:
    """A 1-point match on a 1-second clock, lost on time by the real worker."""
    match = services.match_create(
        creator=alice,
        opponent=bob,
        options=services.MatchOptions(length=1, clock={"delay": 1, "reserve": 0}),
    )
    match = services.match_accept(match=match, player=bob)

    def finished():
        match.refresh_from_db()
        return match.status == Match.Status.FINISHED

    assert wait_until(finished, timeout=60, every=0.1)
    assert match.ended_by == "timeout"


def _the_worker(queue: str) -> int:
    """The worker's process once it runs its own program: a child just forked shows its
    parent's command line (pytest's) until it has exec'd."""
    assert wait_until(lambda: with_argument(queue))
    [worker] = with_argument(queue)
    return worker


def _connections_of(worker: int) -> int:
    """The worker's connections to the test's database: SQLite's file open in it, or
    PostgreSQL's sessions on the database other than this test's."""
    if connection.vendor == "sqlite":
        name = str(connection.settings_dict["NAME"])
        return sum(os.path.realpath(fd) == name for fd in glob.glob(f"/proc/{worker}/fd/*"))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]
