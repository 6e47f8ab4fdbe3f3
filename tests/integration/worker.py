"""A real Celery worker process for a test: the command ``make run`` and docker-compose
use, on a queue of its own (so it takes only the test's tasks)."""

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from web.management.commands.runclub import service_commands


def database_url_for_processes(*, host: str | None = None, port: int | None = None) -> str:
    """``DATABASE_URL`` of the test's database, for a process the test starts; on
    PostgreSQL reached at ``host``:``port`` if given (a proxy the test can cut)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    login = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{login}@{host or db['HOST']}:{port or db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def worker_process(*, test_database: bool = False, kind: str = "analysis") -> Iterator[str]:
    """Start a worker; yield its queue's name. ``test_database``: the worker uses the
    test's database (a test with ``transaction=True``, whose rows the worker must see).
    ``kind``: ``analysis`` (the engine's worker, one task at a time) or ``worker`` (the
    ordinary one, without beat: the tasks the engine answers with)."""
    queue = f"test-{uuid.uuid4().hex[:12]}"
    command = service_commands("127.0.0.1:0", beat_apart=True)[kind] + ["--queues", queue]
    if kind == "analysis":
        command += ["--pool", "solo"]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    if test_database:
        env["DATABASE_URL"] = database_url_for_processes()
    worker = subprocess.Popen(
        command,
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield queue
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
