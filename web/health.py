"""Reachability checks for ``/healthz``: the database and the Celery broker."""

from celery import current_app
from django.conf import settings
from django.db import connection


def database_problem() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:
        return f"database: {exc}"
    return None


def broker_problem() -> str | None:
    try:
        with current_app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return f"broker: {exc}"
    return None
