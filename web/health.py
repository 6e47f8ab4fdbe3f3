"""What ``/healthz`` checks: the database and the Celery broker answer, and none of the
processes ``runclub`` supervises is down."""

import math
import time
from datetime import UTC, datetime

from celery import current_app
from django.conf import settings
from django.db import connection

from web.supervision import status_read


def problems() -> list[str]:
    """What is wrong, one line each; none when all is well."""
    found = [problem for problem in (database_problem(), broker_problem()) if problem]
    return found + supervised_problems()


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


def supervised_problems() -> list[str]:
    """The children of ``runclub`` that are down, as its status file says (nothing
    when ``runclub`` is not the supervisor): ``clock: down since 2026-12-06 06:41:02
    UTC (signal SIGKILL), restarting in 4 s``."""
    now = time.time()
    found = []
    for name, down in sorted(status_read(settings.VAR_DIR).items()):
        since = datetime.fromtimestamp(down.since, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        wait = math.ceil(down.restarts_at - now)
        restarting = f"restarting in {wait} s" if wait > 0 else "restarting now"
        found.append(f"{name}: down since {since} ({down.ended}), {restarting}")
    return found
