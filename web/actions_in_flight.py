"""The web's actions in flight, told through a FIFO to whoever on the same machine
wants to keep out of their way: the engine worker's governor
(``analysis.engine_governor``), which holds the engine still while an action
runs (docs/analysis.md, "The web while analyses run").

Plain Python, no Django: the web (``web.middleware.ActionsToldMiddleware``) writes,
the engine worker reads. A line a change, ``<pid>+`` as an action starts and ``<pid>-``
as it ends, each written whole (a pipe keeps a write of a few bytes in one piece). The
web never waits on it: with nobody reading, or the reader behind, a line is dropped.
"""

import math
import os
import stat
import threading
import time

# The environment variable that names the FIFO (settings.WEB_ACTIONS_FIFO): the engine
# worker reads no settings.
FIFO_ENV = "WEB_ACTIONS_FIFO"
# Seconds before a writer that found nobody reading looks again.
RETRY_AFTER = 5.0
# An action counted in flight longer than this ended unseen (its process killed, its
# end's line dropped): forgotten.
STALE_AFTER = 30.0


class ActionsTold:
    """The web process' side: ``tell`` as each action starts and ends. Thread-safe, one
    thread at a time: a thread that finds the reader gone closes the descriptor, and
    another thread about to write to it would write into whatever file took its number
    next (the database's, on SQLite). The hold is a few microseconds: no call waits."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._fd: int | None = None
        self._retry_at = 0.0
        self._lock = threading.Lock()

    def tell(self, *, starting: bool) -> None:
        with self._lock:
            fd = self._fd if self._fd is not None else self._open()
            if fd is None:
                return
            try:
                os.write(fd, b"%d%s\n" % (os.getpid(), b"+" if starting else b"-"))
            except BlockingIOError:
                pass  # the reader is behind: the line is dropped, the web goes on
            except OSError:  # the reader is gone
                os.close(fd)
                self._fd = None
                self._retry_at = time.monotonic() + RETRY_AFTER

    def _open(self) -> int | None:
        if time.monotonic() < self._retry_at:
            return None
        try:
            fd = os.open(self._path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no FIFO, or nobody reading it
            self._retry_at = time.monotonic() + RETRY_AFTER
            return None
        if not is_fifo(fd):  # a file of that name: never written to
            os.close(fd)
            self._retry_at = math.inf
            return None
        self._fd = fd
        return fd


def is_fifo(fd: int) -> bool:
    return stat.S_ISFIFO(os.fstat(fd).st_mode)


class InFlight:
    """The reader's tally of the lines ``ActionsTold`` writes: how many actions each web
    process has in flight, and since when."""

    def __init__(self) -> None:
        # A web process' pid: its actions in flight, and since when it has had any.
        self._in_flight: dict[bytes, tuple[int, float]] = {}
        self._partial = b""

    def read(self, data: bytes, now: float) -> None:
        """Count the lines in ``data`` (read from the FIFO at ``now``, monotonic)."""
        *lines, self._partial = (self._partial + data).split(b"\n")
        for line in lines:
            pid, sign = line[:-1], line[-1:]
            if sign not in (b"+", b"-"):
                continue  # not a line ActionsTold writes
            count, since = self._in_flight.get(pid, (0, now))
            count += 1 if sign == b"+" else -1
            if count > 0:
                self._in_flight[pid] = (count, since)
            else:  # no action left, or an end whose start was dropped: none
                self._in_flight.pop(pid, None)

    def any(self, now: float) -> bool:
        """Whether some action is in flight at ``now``; those older than STALE_AFTER
        are forgotten."""
        for pid, (_, since) in list(self._in_flight.items()):
            if now - since > STALE_AFTER:
                del self._in_flight[pid]
        return bool(self._in_flight)
