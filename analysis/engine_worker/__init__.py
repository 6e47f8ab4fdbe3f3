"""The engine worker: a Celery app without Django, for the engine's queue
(``settings.ANALYSIS_QUEUE``), started as ``python -m analysis.engine_worker --queues
analysis --pool solo ...`` (Celery's worker options; ``manage.py runclub`` and
docker-compose.yml; docs/operations.md, "Footprint").

It holds the engine's networks and nothing of Django (a third of a Django worker's
memory): its tasks receive plain JSON and answer, by task name, to the Django side's
queue, which keeps the database. Configured from the environment that ``runclub`` and
compose give it: ``CELERY_BROKER_URL``, ``CELERY_BROKER_TRANSPORT`` (the filesystem
broker's, ``web.broker``) and ``CELERY_BROKER_TRANSPORT_OPTIONS`` (JSON), as
config/settings.py computes them.

Its tasks are the modules of ``TASK_MODULES``: a module of Django-free tasks
(``celery.shared_task``, answering with ``current_app.send_task``) joins by one line
there.
"""

import contextlib
import gc
import json
import os
import signal
import sys
from collections.abc import Iterator

# kombu's JSON encoder imports Django when it is installed, for Django's lazy strings,
# which this worker never sends: left out, so that no Django module loads here (a
# process that has Django already, a test's, keeps it).
sys.modules.setdefault("django", None)  # type: ignore[arg-type]

from celery import Celery, signals  # noqa: E402

TASK_MODULES = [
    "analysis.judging",  # a match's or a chouette game's analysis, a slice a task
    "analysis.robot_engine",  # the practice robot's moves (docs/practice.md)
]


def engine_app() -> Celery:
    """The app, from the environment; without the Django fixup, which Celery installs
    whenever ``DJANGO_SETTINGS_MODULE`` is set (as runclub's environment has it). Its
    worker makes it the current app; elsewhere (a test's process) it leaves that alone."""
    app = Celery("engine", include=TASK_MODULES, fixups=[], set_as_current=False)
    app.conf.update(
        broker_url=os.environ.get("CELERY_BROKER_URL", "filesystem://localhost/"),
        broker_transport=os.environ.get("CELERY_BROKER_TRANSPORT") or None,
        broker_transport_options=json.loads(
            os.environ.get("CELERY_BROKER_TRANSPORT_OPTIONS", "{}")
        ),
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        # One task at a time, none reserved behind it: a robot's move waits at most
        # for the game being judged.
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
    )
    return app


app = engine_app()


@signals.worker_ready.connect
def _freeze_what_the_worker_loaded(**_: object) -> None:
    """What the worker loaded lives as long as it: out of the collector's sight, as the
    Django processes' (config/celery.py)."""
    gc.freeze()


def give_way_as_a_group() -> None:
    """The scheduling group of this process at Linux's lowest weight (an autogroup's
    nice 19), when the group is its own: a process that leads its session, as runclub's
    supervisor starts each of its services. The engine's games already run in the idle
    class (``analysis.judging``), but a class counts only inside the group: against the
    web's and the database's groups, the engine's took an equal share, and the web's
    p99 rose twice as much while analyses ran (bench/README.md, "The way to issue 23's
    targets"). Started from a shell, the session is the shell's and is left alone; without
    autogroups (another kernel, a cgroup's processes) nothing changes: compose gives the
    container a low ``cpu_shares`` instead."""
    if os.getsid(0) != os.getpid():
        return
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
        group.write("19")


@contextlib.contextmanager
def hard_limit(seconds: float) -> Iterator[None]:
    """The process ends after ``seconds`` (more than 0) if the block has not: SIGALRM at its default
    disposition, which the kernel applies even inside the engine's C++ code. The
    supervisor starts the worker again; the Django side's sweep gives the run its second
    start or fails it (``analysis.services.analysis_sweep``)."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
