"""Run the whole service in the foreground: web server, Celery workers and Celery beat.

What ``make run`` starts. One command for a club night: Ctrl-C or SIGTERM stops them
all; if any of them dies, the others are stopped too, so a service manager sees it.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser


def service_commands(bind: str) -> dict[str, list[str]]:
    """The four processes, the same commands ``docker-compose.yml`` runs: the web server,
    the worker of the ordinary tasks (the sweeps), the clock worker that only applies
    the timeouts at their deadlines (their own queue: never behind another task; threads,
    since a timeout mostly waits on the database: eight wait at once where two processes
    held two), and beat (README, "Operations")."""
    python = sys.executable
    return {
        "web": [
            # Threads, not processes, hold the live channel's waiting requests (docs/live.md).
            python, "-m", "gunicorn", "config.wsgi", "--bind", bind, "--workers", "2",
            "--worker-class", "gthread", "--threads", "512", "--limit-request-line", "8190",
        ],
        "worker": [
            python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
            "--concurrency", "1", "--hostname", "worker@%h",
        ],
        "clock": [
            python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
            "--queues", settings.MATCHES_TIMEOUT_QUEUE or "celery", "--pool", "threads",
            "--concurrency", "8", "--hostname", "clock@%h",
        ],
        "beat": [
            python, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
            "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME,
        ],
    }  # fmt: skip


def children_stop(children: list[subprocess.Popen[bytes]], *, grace: float = 15) -> None:
    """SIGTERM to each child, then, after ``grace`` seconds, SIGKILL to whatever is left
    of each child's process group (each runs in its own session): its own children too,
    such as gunicorn's workers, which a live stream keeps busy for minutes and which
    would otherwise outlive their master, holding the port."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + grace
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        with contextlib.suppress(ProcessLookupError):  # the whole group is gone
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


class Command(BaseCommand):
    help = "Start the web server, the Celery workers and Celery beat; stop them all on Ctrl-C."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")

    def handle(self, *args: Any, bind: str, **options: Any) -> None:
        stopping = False

        def stop(signum: int, frame: FrameType | None) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGHUP, stop)
        parent = os.getppid()
        # Each child in its own session: a Ctrl-C reaches only this supervisor, which
        # then stops the children in order instead of them all dying mid-task at once.
        children = {
            name: subprocess.Popen(command, stdin=subprocess.DEVNULL, start_new_session=True)
            for name, command in service_commands(bind).items()
        }
        self.stdout.write(f"Serving on http://{bind}/ with the Celery workers and beat.")
        self.stdout.write("Press Ctrl-C to stop.")
        exit_code = 0
        while not stopping:
            if os.getppid() != parent:
                self.stderr.write("The parent process (make) is gone; stopping.")
                stopping = True
            for name, child in children.items():
                if child.poll() is not None:
                    self.stderr.write(f"{name} exited with code {child.returncode}; stopping.")
                    exit_code = child.returncode or 1
                    stopping = True
            time.sleep(0.5)
        children_stop(list(children.values()))
        self.stdout.write("Stopped.")
        if exit_code:
            sys.exit(exit_code)
