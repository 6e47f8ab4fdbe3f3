"""Keeping ``runclub``'s children running: when a crashed one starts again, when the
analysis worker starts and stops with its work, and the status file through which
``/healthz``, served by another process, learns which are down.

``manage.py runclub`` computes the children's commands from the settings, then becomes
this module's ``main`` (``exec``, the same process): the supervisor imports neither
Django nor the apps, and holds a tenth of the memory a Django process does
(bench/README.md, "Footprint"). It alone writes the status file (under ``VAR_DIR``,
replaced whole, never half written); without it (docker compose, the tests) there is
nothing to report."""

import contextlib
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

STATUS_FILE = "runclub-status.json"
# A child stopped (SIGSTOP) this long has lost whoever stopped it: the analysis worker's
# governor holds it a quarter second at a time (analysis.engine_governor), and a
# governor killed during a hold would leave it stopped for good.
STOPPED_AT_MOST = 5.0


@dataclass(frozen=True)
class RestartBackoff:
    """How long a crashed child waits before it starts again: ``first`` seconds, doubled
    at each crash in a row up to ``longest``, so that a child that cannot start does not
    spin; one that had run ``steady`` seconds before crashing waits ``first`` again."""

    first: float = 1.0
    longest: float = 30.0
    steady: float = 60.0

    def next_delay(self, previous: float | None, ran_for: float) -> float:
        """The wait before the next start of a child that crashed after running
        ``ran_for`` seconds; ``previous``: the wait before its last start, None if it had
        not crashed before."""
        if previous is None or ran_for >= self.steady:
            return self.first
        return min(previous * 2, self.longest)


@dataclass(frozen=True)
class Down:
    """A child that ended and waits to start again (times in seconds since the epoch:
    the file is read by other processes)."""

    since: float
    restarts_at: float
    ended: str  # how it ended: "exit code 1", "signal SIGKILL"


def status_write(var_dir: Path, *, supervisor: int, down: dict[str, Down]) -> None:
    """Replace the status file by one naming the children that are ``down``, atomically:
    a reader sees the old file or the new one, never a part."""
    content = json.dumps(
        {"supervisor": supervisor, "down": {name: asdict(d) for name, d in down.items()}}
    )
    handle, temporary = tempfile.mkstemp(dir=var_dir, prefix=f".{STATUS_FILE}.")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(content)
        os.replace(temporary, var_dir / STATUS_FILE)
    except BaseException:
        os.unlink(temporary)
        raise


def status_remove(var_dir: Path) -> None:
    """No supervisor any more: nothing to report."""
    (var_dir / STATUS_FILE).unlink(missing_ok=True)


def status_read(var_dir: Path) -> dict[str, Down]:
    """The children the supervisor says are down; none without a status file, or when the
    supervisor that wrote it is gone (killed before it could remove it)."""
    try:
        status = json.loads((var_dir / STATUS_FILE).read_text())
    except FileNotFoundError:
        return {}
    if not _running(status["supervisor"]):
        return {}
    return {name: Down(**down) for name, down in status["down"].items()}


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _stopped(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def how_it_ended(returncode: int) -> str:
    """``exit code 1``, ``signal SIGKILL`` (a negative return code: the signal's number)."""
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        return f"signal {signal.Signals(-returncode).name}"
    except ValueError:  # a real-time signal has no name
        return f"signal {-returncode}"


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


def queued(work: dict[str, str]) -> Callable[[], bool]:
    """Whether messages wait in a broker's queue, read without Celery: ``work`` names the
    queue and either the filesystem broker's folder (a file a message) or a Redis URL (a
    list a queue, and one a priority kombu adds). Only the plain message count: a
    message a worker took is its business."""
    queue = work["queue"]
    if "folder" in work:
        pattern = os.path.join(glob.escape(work["folder"]), f"*.{glob.escape(queue)}.msg")
        return lambda: bool(glob.glob(pattern))
    import redis  # only a supervisor on Redis pays for it

    client = redis.Redis.from_url(work["redis"])
    keys = [queue, *(f"{queue}\x06\x16{priority}" for priority in (3, 6, 9))]

    def waiting() -> bool:
        try:
            return any(client.llen(key) for key in keys)
        except redis.RedisError:  # the broker away: the worker, started, would wait too
            return False

    return waiting


class Child:
    """One of the service's processes: its command, the process while it runs (None while
    it waits to start again, or rests) and, after a crash, when it starts again.

    ``wanted``, for a child that runs only while it has work (the analysis worker, whose
    engine is rarely busy): it starts when ``wanted()`` says work waits, and is asked to
    stop (SIGTERM: Celery's warm shutdown, which lets the running task finish) once no
    work has waited for ``rests_after`` seconds."""

    def __init__(
        self,
        name: str,
        command: list[str],
        *,
        wanted: Callable[[], bool] | None = None,
        rests_after: float = 60.0,
    ) -> None:
        self.name = name
        self.command = command
        self.wanted = wanted
        self.rests_after = rests_after
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self.delay: float | None = None  # the wait before its last start, after a crash
        self.down: Down | None = None
        self.restarts_at = 0.0
        self.idle_since: float | None = None
        self.resting = False  # asked to stop for want of work
        self.stopped_since: float | None = None

    def start(self) -> None:
        # In its own session: a Ctrl-C reaches only the supervisor, which then stops the
        # children in order instead of them all dying mid-task at once.
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, start_new_session=True
        )
        self.started = time.monotonic()
        self.down = None
        self.idle_since = None

    def ended(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def restart_due(self) -> bool:
        if self.process is not None or time.monotonic() < self.restarts_at:
            return False
        if self.wanted is not None and not self.wanted():
            self.down = None  # nothing to do: resting, not down
            return False
        return True

    def rest_due(self) -> bool:
        """A child started for its work that has had none for ``rests_after`` seconds."""
        if self.wanted is None or self.process is None or self.resting:
            return False
        if self.wanted():
            self.idle_since = None
            return False
        now = time.monotonic()
        if self.idle_since is None:
            self.idle_since = now
        return now - self.idle_since >= self.rests_after

    def stopped_too_long(self) -> bool:
        """Seen stopped at each look for ``STOPPED_AT_MOST`` seconds (Linux's ``/proc``
        tells; elsewhere never)."""
        if self.process is None or not _stopped(self.process.pid):
            self.stopped_since = None
            return False
        now = time.monotonic()
        if self.stopped_since is None:
            self.stopped_since = now
        return now - self.stopped_since >= STOPPED_AT_MOST

    def go_on(self) -> str:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)
        self.stopped_since = None
        return f"{self.name} was stopped for {STOPPED_AT_MOST:g} s; it goes on."

    def rest(self) -> str:
        assert self.process is not None
        self.process.terminate()
        self.resting = True
        return f"{self.name}: no work for {self.rests_after:g} s; stopping it until there is."

    def rested(self) -> str:
        """The child asked to rest has stopped."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process = None
        self.resting = False
        return f"{self.name} stopped; it starts again when work waits."

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


def say(stream: TextIO, line: str) -> None:
    """One line of the log, dated, at once; a log gone (the terminal a detached service
    was started from, closed) does not stop the service."""
    moment = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    with contextlib.suppress(OSError):
        stream.write(f"{moment} {line}\n")
        stream.flush()


def status_publish(var_dir: Path, children: list[Child]) -> None:
    """Tell /healthz which children are down."""
    down = {child.name: child.down for child in children if child.down is not None}
    status_write(var_dir, supervisor=os.getpid(), down=down)


def supervise(children: list[Child], *, var_dir: Path, serving: str) -> None:
    """Start the children (those that wait for work, when it waits), restart any that
    crashes, until SIGTERM, SIGINT (Ctrl-C) or SIGHUP (not when it was ignored at the
    start, as ``nohup`` asks); then stop them all, in order."""
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # nohup asks to ignore it
        signal.signal(signal.SIGHUP, stop)
    try:  # whatever ends the supervisor, its children end with it
        for child in children:
            if child.wanted is None or child.wanted():
                child.start()
        status_publish(var_dir, children)
        say(sys.stdout, serving)
        say(sys.stdout, "Press Ctrl-C to stop.")
        backoff = RestartBackoff()
        while not stopping:
            changed = False
            for child in children:
                if child.ended() and child.resting:
                    say(sys.stderr, child.rested())
                elif child.ended():
                    say(sys.stderr, child.crashed(backoff))
                    changed = True
                elif child.restart_due():
                    child.start()
                    say(
                        sys.stderr,
                        f"{child.name} started."
                        if child.delay is None
                        else f"{child.name} restarted.",
                    )
                    changed = True
                elif child.rest_due():
                    say(sys.stderr, child.rest())
                elif child.stopped_too_long():
                    say(sys.stderr, child.go_on())
            if changed:
                status_publish(var_dir, children)
            time.sleep(0.5)
    finally:
        children_stop([child.process for child in children if child.process is not None])
        status_remove(var_dir)
    say(sys.stdout, "Stopped.")


def main(plan: dict[str, Any]) -> None:
    """The supervisor ``runclub`` becomes: ``plan`` holds ``VAR_DIR``, the line saying
    where it serves, and each child's name, command and, for one started with its work,
    the queue to watch (``queued``)."""
    children = [
        Child(
            entry["name"],
            entry["command"],
            wanted=queued(entry["work"]) if entry.get("work") else None,
        )
        for entry in plan["children"]
    ]
    supervise(children, var_dir=Path(plan["var_dir"]), serving=plan["serving"])


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
