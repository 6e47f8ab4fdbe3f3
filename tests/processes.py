"""Processes as /proc shows them, for the tests of what the service starts and stops,
and a port for them to serve on."""

import contextlib
import os
import signal
import socket
import uuid
from pathlib import Path


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def runclub_environment(var_dir: Path) -> dict[str, str]:
    """The environment ``make run`` gives ``manage.py runclub`` (the real settings, DEBUG
    on, no secret key), its files under ``var_dir``; its analysis queue of its own, which
    the analyses other tests leave in a shared broker (CI's Redis) do not fill, so its
    analysis worker rests until work comes, as on a club's first start."""
    env = {
        **os.environ,
        "DEBUG": "1",
        "VAR_DIR": str(var_dir),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # Unique to the run: a test's folder is named after the test, alike in every run.
        "ANALYSIS_QUEUE": f"analysis-{uuid.uuid4().hex[:12]}",
    }
    env.pop("SECRET_KEY", None)
    return env


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def in_group(pgid: int) -> set[int]:
    """The processes of the process group ``pgid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    found.add(int(entry))
            except ProcessLookupError:
                continue
    return found


def state(pid: int) -> str | None:
    """The state Linux gives ``pid`` (R, S, T stopped, Z a zombie...); None once gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def time_slice(pid: int) -> int | None:
    """The time slice Linux gives ``pid``, nanoseconds (its scheduler's ``se.slice``);
    None from a kernel that shows none (before 6.6)."""
    with open(f"/proc/{pid}/sched") as sched:
        for line in sched:
            name, _, value = line.partition(":")
            if name.strip() == "se.slice":
                return int(value)
    return None


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    return state(pid) not in (None, "Z")


def command_line(pid: int) -> list[str]:
    """The arguments ``pid`` was started with (none once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return [arg.decode() for arg in cmdline.read().split(b"\0") if arg]
    except OSError:
        return []


def supervised_tree(supervisor: int) -> set[int]:
    """A supervisor and every process of its children's groups (a worker's pool too)."""
    return {supervisor}.union(*(in_group(child) for child in children_of(supervisor)))


def tree_kill(supervisor: int) -> None:
    """``kill -9`` a supervisor and all it started: a failed test leaves nothing running."""
    for pid in supervised_tree(supervisor):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def with_argument(text: str) -> list[int]:
    """The processes one of whose arguments holds ``text``."""
    pids = (int(entry) for entry in os.listdir("/proc") if entry.isdigit())
    return [pid for pid in pids if any(text in argument for argument in command_line(pid))]
