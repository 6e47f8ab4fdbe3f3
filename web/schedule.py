"""Tasks sent to run at a moment to come: the clocks' timeouts, a round's deadline."""

from __future__ import annotations

from datetime import datetime

from celery import current_app


def send_at(name: str, *, args: list[int], eta: datetime, queue: str | None) -> None:
    """Send the task ``name`` to run at ``eta`` on ``queue``, its result never awaited.

    Without ``ignore_result`` Celery's Redis result backend subscribes the sending
    process to the task's result channel at each send and unsubscribes it when the result
    object is dropped: two more round trips per action, on the one connection that all
    the web process's threads share, for a result nobody reads."""
    current_app.send_task(name, args=args, eta=eta, queue=queue, ignore_result=True)
