"""The Celery app: one per project, configured from Django's settings (``CELERY_*``)."""

import os

from celery import Celery

import web.logging  # noqa: F401  (connects the one-line-per-task log)
from web.beat import beat_thread_install

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("club")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
beat_thread_install(app)
