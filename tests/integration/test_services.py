"""The services a run asked for are the ones in use, and a real Celery worker runs tasks.

`.ci/run` runs the suite twice: on the embedded defaults (SQLite, filesystem broker) and
with ``DATABASE_URL`` on PostgreSQL and ``CELERY_BROKER_URL`` on Redis. Whatever the run
asked for must really be there: these tests fail, never skip, when it is not.
"""

import os
from datetime import datetime, timedelta

import pytest
from celery import current_app
from django.conf import settings
from django.db import connection
from django.utils import timezone

from club.tasks import ping
from tests.integration.worker import worker_process
from web import health
from web.schedule import send_at


@pytest.mark.django_db
def test_the_database_asked_for_is_the_one_in_use():
    asked = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if asked.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected
    assert health.database_problem() is None


def test_the_broker_asked_for_is_reachable():
    asked = os.environ.get("CELERY_BROKER_URL", "filesystem://localhost/")
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


@pytest.mark.postgresql
def test_a_task_sent_for_later_subscribes_the_sender_to_no_result():
    """On the Redis result backend (this run's), a plain ``send_task`` subscribes the
    web process to the task's result channel; ``send_at`` (the clocks' timeouts, a
    round's deadline) must not: nobody reads those results."""
    queue = "test-send-at"
    consumer = current_app.backend.result_consumer
    awaited = current_app.send_task("club.ping", countdown=3600, queue=queue)
    assert consumer.subscribed_to, "the check sees a subscription when there is one"
    consumer.cancel_for(awaited.id)
    send_at("club.ping", args=[], eta=timezone.now() + timedelta(hours=1), queue=queue)
    assert not consumer.subscribed_to
    with current_app.connection_for_write() as broker:
        assert broker.default_channel.queue_purge(queue) == 2
