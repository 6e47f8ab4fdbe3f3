"""The Celery app as the service's worker and beat load it (``celery -A config.worker``;
``manage.py runclub`` and docker-compose.yml): the project's app
(``config.celery``), in a process that leaves out the modules the club never uses
(``config.lean``) and keeps its database connections, before Django sets up.

A worker's threads are few (runclub's 8), unlike the web's thousand: each keeps its
connection ``WORKER_CONN_MAX_AGE`` seconds between tasks (``DATABASE_CONN_MAX_AGE`` when
set), where a connection opened afresh for each task took 1.3-2.8 ms of it, SQLite's file
opened and its pragmas set (a fifth of an analysis' store: bench/README.md, "The worker's
connections kept"). With ``DATABASE_POOL`` the pool keeps them instead.
"""

import os

from config.lean import leave_out_unused

WORKER_CONN_MAX_AGE = 600

leave_out_unused()
if not os.environ.get("DATABASE_CONN_MAX_AGE", "").strip():  # unset or empty, as env_int
    os.environ["DATABASE_CONN_MAX_AGE"] = str(WORKER_CONN_MAX_AGE)

from config.celery import app  # noqa: E402

__all__ = ["app"]
