"""Celery beat on a thread of a worker (``celery worker --beat-thread``), not in a process
of its own: Celery's ``--beat`` forks one, a copy of the worker's memory for a loop that
only sends a few tasks a minute (bench/README.md, "Footprint")."""

from typing import Any

import click
from celery import Celery, bootsteps
from celery.beat import EmbeddedService


class ThreadedBeat(bootsteps.StartStopStep):
    """Beat's service started and stopped with the worker, on a thread."""

    label = "ThreadedBeat"
    conditional = True

    def __init__(self, worker: Any, beat_thread: bool = False, **kwargs: Any) -> None:
        self.enabled = beat_thread
        super().__init__(worker, **kwargs)

    def create(self, worker: Any) -> Any:
        return EmbeddedService(
            worker.app,
            thread=True,
            schedule_filename=worker.schedule_filename,
            scheduler_cls=worker.scheduler,
        )


def beat_thread_install(app: Celery) -> None:
    """Give ``app``'s workers the ``--beat-thread`` option."""
    app.user_options["worker"].add(
        click.Option(["--beat-thread"], is_flag=True, default=False, help="Run beat on a thread.")
    )
    app.steps["worker"].add(ThreadedBeat)
