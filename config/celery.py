"""The Celery app: one per project, configured from Django's settings (``CELERY_*``)."""

import gc
import os

from celery import Celery, signals
from django.db import reset_queries

import web.logging  # noqa: F401  (connects the one-line-per-task log)
from web.beat import beat_thread_install

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("club")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
beat_thread_install(app)


@signals.worker_ready.connect
def _freeze_what_the_worker_loaded(**_: object) -> None:
    """What the worker loaded (Django, the apps, the tasks) lives as long as it: out of
    the collector's sight, as the web's (config/wsgi.py), so that a full collection,
    which stopped a task for 50-70 ms, scans only what tasks made since."""
    gc.freeze()


@signals.task_postrun.connect
def _forget_the_tasks_queries(**_: object) -> None:
    """With ``DEBUG`` on (``make run``), Django keeps each connection's last 9,000 queries
    for its debug tools; a web request starts with an empty list (Django empties it on
    ``request_started``), a task did not: each of the worker's threads kept thousands, MB
    that grew through a club night (bench/README.md, "Footprint")."""
    reset_queries()
