"""Real Celery worker processes for a test: the commands ``make run`` and docker-compose
use, each on a queue of its own (so it takes only the test's tasks)."""

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from web.management.commands.runclub import engine_environment, service_commands


def database_url_for_processes(*, host: str | None = None, port: int | None = None) -> str:
    """``DATABASE_URL`` of the test's database, for a process the test starts; on
    PostgreSQL reached at ``host``:``port`` if given (a proxy the test can cut)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    login = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{login}@{host or db['HOST']}:{port or db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def worker_process(
    *, test_database: bool = False, engine_queue: str | None = None
) -> Iterator[str]:
    """Start a Django worker (make run's, without beat); yield its queue's name, which is
    also its analyses' (``ANALYSIS_DJANGO_QUEUE``). ``test_database``: the worker uses the
    test's database (a test with ``transaction=True``, whose rows the worker must see);
    ``engine_queue``: the engine worker's queue it sends the analyses to."""
    queue = f"test-{uuid.uuid4().hex[:12]}"
    command = service_commands("127.0.0.1:0", beat_apart=True)["worker"]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    env["ANALYSIS_DJANGO_QUEUE"] = queue
    if engine_queue is not None:
        env["ANALYSIS_QUEUE"] = engine_queue
    if test_database:
        env["DATABASE_URL"] = database_url_for_processes()
    with _running([*command, "--queues", queue, "--pool", "solo"], queue, env):
        yield queue


@contextmanager
def engine_worker_process() -> Iterator[str]:
    """Start the engine worker (make run's, without Django); yield its queue's name."""
    queue = f"test-engine-{uuid.uuid4().hex[:12]}"
    command = [*service_commands("127.0.0.1:0")["analysis"], "--queues", queue]
    with _running(command, queue, {**os.environ, **engine_environment()}):
        yield queue


@contextmanager
def _running(command: list[str], queue: str, env: dict[str, str]) -> Iterator[None]:
    worker = subprocess.Popen(
        [*command, "--hostname", f"{queue}@%h"],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
