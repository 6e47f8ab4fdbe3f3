"""Structured logs: one ``key=value`` line per request and per Celery task."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from celery import Task, signals
from django.db import connection
from django.http import HttpRequest, HttpResponse

request_log = logging.getLogger("club.request")
task_log = logging.getLogger("club.task")


def _quote(value: object) -> str:
    text = str(value)
    if not text or any(c in text for c in ' "='):
        return '"' + text.replace('"', '\\"') + '"'
    return text


class KeyValueFormatter(logging.Formatter):
    """``at=... level=... logger=... msg=... key=value...`` from a record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        parts = {
            "at": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        parts.update(getattr(record, "fields", {}))
        line = " ".join(f"{key}={_quote(value)}" for key, value in parts.items())
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class _QueryTimer:
    """Counts a request's queries and the time they took, lock waits included."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        started = time.monotonic()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.monotonic() - started
            self.count += 1


class RequestLogMiddleware:
    """Logs method, path, status, duration and user of every request, and where the time
    went: ``cpu_ms`` this thread computing, ``db_ms`` (``queries``) waiting on the
    database. What is left of ``ms`` is waiting for the interpreter (the other threads of
    the process holding it) or for a connection of the pool."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.monotonic()
        cpu_started = time.thread_time()
        queries = _QueryTimer()
        with connection.execute_wrapper(queries):
            response = self.get_response(request)
        user = getattr(request, "user", None)
        request_log.info(
            "request",
            extra={
                "fields": {
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "ms": round((time.monotonic() - started) * 1000, 1),
                    "cpu_ms": round((time.thread_time() - cpu_started) * 1000, 1),
                    "db_ms": round(queries.seconds * 1000, 1),
                    "queries": queries.count,
                    "user": user.get_username() if user and user.is_authenticated else "-",
                }
            },
        )
        return response


_task_started: dict[str, float] = {}


@signals.task_prerun.connect
def _task_prerun(task_id: str, task: Task[Any, Any] | None = None, **_: Any) -> None:
    _task_started[task_id] = time.monotonic()


@signals.task_postrun.connect
def _task_postrun(
    task_id: str, task: Task[Any, Any] | None = None, state: str | None = None, **_: Any
) -> None:
    started = _task_started.pop(task_id, None)
    task_log.info(
        "task",
        extra={
            "fields": {
                "task": task.name if task else "-",
                "id": task_id,
                "state": state,
                "ms": round((time.monotonic() - started) * 1000, 1) if started else "-",
            }
        },
    )
