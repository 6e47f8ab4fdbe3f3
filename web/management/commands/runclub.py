"""Run the whole service: web server, Celery worker with beat, the analysis worker when
it has work, kept running.

What ``make run`` starts, in the foreground or detached (a service manager, ``setsid``,
``nohup``: docs/operations.md). The command reads the settings, then becomes the
supervisor (``web.supervision.main``, by ``exec``: the same process, without Django's
memory). A child that ends is started again after a wait that grows while it keeps
crashing (``web.supervision.RestartBackoff``), the others serving meanwhile; ``/healthz``
names it while it is down (the status file, ``web.supervision``). SIGTERM, SIGINT
(Ctrl-C) or SIGHUP stops them all, in order, and nothing else does (SIGHUP not when it
was ignored at the start, as ``nohup`` asks).
"""

import json
import os
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from web.actions_in_flight import FIFO_ENV


def service_commands(bind: str, *, beat_apart: bool = False) -> dict[str, list[str]]:
    """The three processes, the commands ``docker-compose.yml`` runs too (docs/operations.md,
    "Footprint", says why this layout); with ``beat_apart``, the layout of several workers
    (compose, several hosts): the worker without beat, and beat a fourth process, of
    which there is one:

    - ``web``: gunicorn, one process of 1,024 threads (``WEB_CONCURRENCY`` processes when
      set): threads, not processes, hold the live channel's waiting requests
      (docs/live.md); 2,048 connections, so that 1,024 more than the threads stay open
      between a page's requests (keep-alive: with no more connections than threads,
      gunicorn keeps none and warns at every start); its ``gthread`` worker with the
      loop's cost of each request held taken out (``web.gthread``);
    - ``worker``: the timeouts at their deadlines, the sweeps and the tournaments' tasks,
      on 8 threads (a timeout mostly waits on the database; each thread reserves one task
      at a time, so a timeout never waits behind another task), with beat on a thread of
      its own (``--beat-thread``, web.beat);
    - ``analysis``: the engine worker (``analysis.engine_worker``), without Django: the
      engine's queue alone, one game at a time in its one process (its hard time limit
      kills it; this supervisor starts it again), never in the way of a timeout; the
      database side of its runs is the worker's (``settings.ANALYSIS_DJANGO_QUEUE``). It
      reads the broker from the environment (``engine_environment``). It judges the match
      analyses and chooses the practice robot's moves (``analysis.robot_engine``,
      docs/practice.md).
    """
    python = sys.executable
    queues = dict.fromkeys(
        [settings.MATCHES_TIMEOUT_QUEUE or "celery", "celery", settings.ANALYSIS_DJANGO_QUEUE]
    )
    schedule = ["--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME]
    beat_thread = [] if beat_apart else ["--beat-thread", *schedule]
    commands = {
        "web": [
            python, "-m", "gunicorn", "config.wsgi", "--bind", bind,
            "--worker-class", "web.gthread.ThreadWorker", "--threads", "1024",
            "--worker-connections", "2048", "--limit-request-line", "8190",
        ],
        "worker": [
            python, "-m", "celery", "-A", "config.worker", "worker", "--loglevel", "INFO",
            "--queues", ",".join(queues), "--pool", "threads", "--concurrency", "8",
            "--hostname", "worker@%h", *beat_thread,
        ],
        "analysis": [
            python, "-m", "analysis.engine_worker", "--loglevel", "INFO",
            "--queues", settings.ANALYSIS_QUEUE, "--pool", "solo", "--concurrency", "1",
            "--hostname", "analysis@%h",
        ],
    }  # fmt: skip
    if beat_apart:
        commands["beat"] = [
            python, "-m", "celery", "-A", "config.worker", "beat", "--loglevel", "INFO", *schedule,
        ]  # fmt: skip
    return commands


def engine_environment() -> dict[str, str]:
    """The broker as the settings compute it, for the engine worker, which reads no
    settings (``analysis.engine_worker``): its URL, its transport and the transport's
    options; and the FIFO of the web's actions (``analysis.engine_governor``)."""
    return {
        FIFO_ENV: settings.WEB_ACTIONS_FIFO,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_BROKER_TRANSPORT": getattr(settings, "CELERY_BROKER_TRANSPORT", ""),
        "CELERY_BROKER_TRANSPORT_OPTIONS": json.dumps(
            getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
        ),
    }


def analysis_work() -> dict[str, str] | None:
    """Where the supervisor sees analyses waiting, so that it starts the analysis worker
    only then (``web.supervision.queued``); None, on another broker: always running."""
    broker = settings.CELERY_BROKER_URL
    if broker.startswith("filesystem://"):
        return {"queue": settings.ANALYSIS_QUEUE, "folder": str(settings.BROKER_DIR)}
    if broker.startswith(("redis://", "rediss://")):
        return {"queue": settings.ANALYSIS_QUEUE, "redis": broker}
    return None


class Command(BaseCommand):
    help = (
        "Start the web server, the Celery worker with beat and, when analyses wait, the "
        "analysis worker; restart any of them that crashes; stop them all on SIGTERM, "
        "SIGINT (Ctrl-C) or SIGHUP."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")

    def handle(self, *args: Any, bind: str, **options: Any) -> None:
        work = {"analysis": analysis_work()}
        plan = {
            "var_dir": str(settings.VAR_DIR),
            "serving": f"Serving on http://{bind}/ with the Celery worker and beat.",
            "children": [
                {"name": name, "command": command, "work": work.get(name)}
                for name, command in service_commands(bind).items()
            ],
        }
        os.environ.update(engine_environment())  # the supervisor's children inherit it
        sys.stdout.flush()
        sys.stderr.flush()
        os.chdir(settings.BASE_DIR)  # where ``-m web.supervision`` and the children's apps are
        # glibc gives each thread that allocates an arena of its own, up to 8 a core, and
        # seldom hands their free pages back: gunicorn's 1,024 threads grew the web
        # process by a third through a club night. Two arenas a process, unless the
        # environment says otherwise (docs/operations.md, "Footprint").
        os.environ.setdefault("MALLOC_ARENA_MAX", "2")
        os.execv(sys.executable, [sys.executable, "-m", "web.supervision", json.dumps(plan)])
