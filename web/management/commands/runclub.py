"""Run the whole service: web server, Celery workers and Celery beat, kept running.

What ``make run`` starts, in the foreground or detached (a service manager, ``setsid``,
``nohup``: docs/operations.md). A child that ends is started again after a wait that
grows while it keeps crashing (``web.supervision.RestartBackoff``), the others serving
meanwhile; ``/healthz`` names it while it is down (the status file, ``web.supervision``).
SIGTERM, SIGINT (Ctrl-C) or SIGHUP stops them all, in order, and nothing else does
(SIGHUP not when it was ignored at the start, as ``nohup`` asks).
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser, OutputWrapper

from web.supervision import Down, RestartBackoff, status_remove, status_write


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
            "--queues", f"celery,{settings.ANALYSIS_QUEUE}",
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


def how_it_ended(returncode: int) -> str:
    """``exit code 1``, ``signal SIGKILL`` (a negative return code: the signal's number)."""
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        return f"signal {signal.Signals(-returncode).name}"
    except ValueError:  # a real-time signal has no name
        return f"signal {-returncode}"


class Child:
    """One of the service's processes: its command, the process while it runs (None while
    it waits to start again) and, after a crash, when it starts again."""

    def __init__(self, name: str, command: list[str]) -> None:
        self.name = name
        self.command = command
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self.delay: float | None = None  # the wait before its last start, after a crash
        self.down: Down | None = None
        self.restarts_at = 0.0

    def start(self) -> None:
        # In its own session: a Ctrl-C reaches only the supervisor, which then stops the
        # children in order instead of them all dying mid-task at once.
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, start_new_session=True
        )
        self.started = time.monotonic()
        self.down = None

    def ended(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def restart_due(self) -> bool:
        return self.process is None and time.monotonic() >= self.restarts_at

    def crashed(self, backoff: RestartBackoff) -> str:
        """Note that the process ended, kill what is left of its group (a gunicorn
        master's workers still holding the port, a Celery worker's pool) and set when it
        starts again; the line for the log."""
        assert self.process is not None and self.process.returncode is not None
        with contextlib.suppress(ProcessLookupError):  # nothing left of the group
            os.killpg(self.process.pid, signal.SIGKILL)
        ended = how_it_ended(self.process.returncode)
        ran = time.monotonic() - self.started
        self.delay = backoff.next_delay(self.delay, ran)
        self.restarts_at = time.monotonic() + self.delay
        now = time.time()
        self.down = Down(since=now, restarts_at=now + self.delay, ended=ended)
        self.process = None
        return f"{self.name} ended ({ended}) after {ran:.0f} s; restarting it in {self.delay:g} s."


class Command(BaseCommand):
    help = (
        "Start the web server, the Celery workers and Celery beat, restart any of them that "
        "crashes; stop them all on SIGTERM, SIGINT (Ctrl-C) or SIGHUP."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")

    def handle(self, *args: Any, bind: str, **options: Any) -> None:
        stopping = False

        def stop(signum: int, frame: FrameType | None) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # nohup asks to ignore it
            signal.signal(signal.SIGHUP, stop)
        children = [Child(name, command) for name, command in service_commands(bind).items()]
        try:  # whatever ends the supervisor, its children end with it
            for child in children:
                child.start()
            self.status_publish(children)
            self.say(self.stdout, f"Serving on http://{bind}/ with the Celery workers and beat.")
            self.say(self.stdout, "Press Ctrl-C to stop.")
            backoff = RestartBackoff()
            while not stopping:
                changed = False
                for child in children:
                    if child.ended():
                        self.say(self.stderr, child.crashed(backoff))
                        changed = True
                    elif child.restart_due():
                        child.start()
                        self.say(self.stderr, f"{child.name} restarted.")
                        changed = True
                if changed:
                    self.status_publish(children)
                time.sleep(0.5)
        finally:
            children_stop([child.process for child in children if child.process is not None])
            status_remove(settings.VAR_DIR)
        self.say(self.stdout, "Stopped.")

    @staticmethod
    def status_publish(children: list[Child]) -> None:
        """Tell /healthz which children are down."""
        down = {child.name: child.down for child in children if child.down is not None}
        status_write(settings.VAR_DIR, supervisor=os.getpid(), down=down)

    @staticmethod
    def say(stream: OutputWrapper, line: str) -> None:
        """One line of the log, dated, at once; a log gone (the terminal a detached
        service was started from, closed) does not stop the service."""
        moment = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        with contextlib.suppress(OSError):
            stream.write(f"{moment} {line}")
            stream.flush()
