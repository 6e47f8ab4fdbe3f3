"""The services a run asked for are the ones in use, and a real Celery worker runs tasks.

`.ci/run` runs the suite twice: on the embedded defaults (SQLite, filesystem broker) and
with ``DATABASE_URL`` on PostgreSQL and ``CELERY_BROKER_URL`` on Redis. Whatever the run
asked for must really be there: these tests fail, never skip, when it is not.
"""

import os
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from club import health
from club.tasks import ping
from tests.integration.worker import worker_process


@pytest.mark.django_db
def test_the_database_asked_for_is_the_one_in_use():
    asked = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if asked.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected
    assert health.database_problem() is None


def test_the_broker_asked_for_is_reachable():
    asked = os.environ.get("CELERY_BROKER_URL", "filesystem://")
    assert settings.CELERY_BROKER_URL == asked
    assert health.broker_problem() is None


@pytest.fixture
def celery_worker_process():
    """A real worker process (the command make run and docker-compose use) on its own queue."""
    with worker_process() as queue:
        yield queue


@pytest.mark.integration
def test_a_real_worker_runs_a_task_scheduled_two_seconds_ahead(celery_worker_process):
    scheduled_at = timezone.now()
    result = ping.apply_async(countdown=2, queue=celery_worker_process)
    ran_at = datetime.fromisoformat(result.get(timeout=60))
    assert ran_at >= scheduled_at + timedelta(seconds=2)
    assert ran_at < scheduled_at + timedelta(seconds=60)
