"""Keeping ``runclub``'s children running: when a crashed one starts again, and the status
file through which ``/healthz``, served by another process, learns which are down.

``runclub`` alone writes the file (under ``VAR_DIR``, replaced whole, never half
written); without it (docker compose, the tests) there is nothing to report."""

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

STATUS_FILE = "runclub-status.json"


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
