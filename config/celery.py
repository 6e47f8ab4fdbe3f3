"""The Celery app: one per project, configured from Django's settings (``CELERY_*``)."""

import gc
import os

from celery import Celery, signals

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
