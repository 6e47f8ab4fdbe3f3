"""The engine worker's governor: a small process of its own, the engine worker's child,
that stops the engine worker (SIGSTOP) while the web of the same machine has an action
in flight, and lets it go on (SIGCONT) ``LINGER`` seconds after the last has ended.

Why: on a small machine a core kept busy beside the web slows the web's actions, even
when the busy work runs in the idle scheduling class and gives way at once; only work
that does not run while an action runs leaves the action's time as it was
(docs/analysis.md, "The web while analyses run", says how it was measured). A hold
lasts at most ``HOLD`` seconds, and the next may begin ``HOLD`` seconds after it at the
earliest: under a web that is never idle the engine still has half of its time.

The web tells it of its actions through the FIFO ``web.actions_in_flight`` writes,
named by the environment's ``WEB_ACTIONS_FIFO`` (runclub's environment has it; without
it, no governor). The whole process stops, the robot's moves with the games judged:
for an action's few milliseconds and ``LINGER`` after. Started by ``start`` (the engine
worker's ``__main__``), it ends when its parent does.

    python -m analysis.engine_governor FIFO ENGINE_PID
"""

import contextlib
import ctypes
import math
import os
import platform
import select
import signal
import struct
import subprocess
import sys
import time

from web.actions_in_flight import FIFO_ENV, InFlight, is_fifo

HOLD = 0.25
# Seconds the engine stays held after the web's last action ended: the live channel's
# answers follow an action, and at a club's peak the next action often comes within
# them. On a 2-core VM it halved the rise of the web's p99 beside an engine that never
# rests (to about 3 ms), and took a third of the engine's time there (bench/README.md,
# "The web stopping the engine itself, a hold that lingers").
LINGER = 0.02
# Seconds between two looks at whether the engine worker is still there, when nothing
# else wakes the governor.
LOOK_EVERY = 1.0
# The governor's time slice, nanoseconds: Linux's shortest. The web's write to the FIFO
# wakes the governor on the writer's core, behind the action's own thread; with the
# ordinary slice it waited there, the engine computing, until that thread blocked or the
# next tick (p99 4.5 ms from an action's start to the engine held, while analyses ran); a
# task that wakes with a shorter slice than the running one's takes the core at once
# (p99 2 ms; 1.0-1.4 with the engine idle; bench/README.md, "The governor's short slice").
SLICE_NS = 100_000
# sched_setattr(2)'s number on the machines Linux runs the service on; its struct
# sched_attr, first version: size, policy, flags, nice, priority, runtime (an ordinary
# task's slice since Linux 6.12), deadline, period, utilization bounds.
SCHED_SETATTR = {"x86_64": 314, "aarch64": 274}
SCHED_ATTR = struct.Struct("IIQiIQQQII")


class Governor:
    """When to hold the engine: while an action is in flight and ``LINGER`` seconds
    after, ``HOLD`` seconds at most, then as long free."""

    def __init__(self) -> None:
        self.in_flight = InFlight()
        self._held_since: float | None = None
        self._free_until = 0.0
        self._busy = False
        self._busy_until = -math.inf

    def hold(self, now: float) -> bool:
        """Whether the engine should be held at ``now`` (monotonic)."""
        busy = self.in_flight.any(now)
        if busy or self._busy:  # in flight, or seen now to have ended
            self._busy_until = now + LINGER
        self._busy = busy
        if now < self._free_until or now >= self._busy_until:
            self._held_since = None
            return False
        if self._held_since is None:
            self._held_since = now
        if now - self._held_since >= HOLD:
            self._held_since = None
            self._free_until = now + HOLD
            return False
        return True

    def wake_in(self, now: float) -> float:
        """Seconds until ``hold`` may change without a line read: the end of a hold
        (its ``LINGER`` or its ``HOLD``) or of a free spell."""
        if self._held_since is not None:
            until = self._held_since + HOLD
            if not self._busy:
                until = min(until, self._busy_until)
            return max(0.0, until - now)
        if now < self._free_until:
            return self._free_until - now
        return LOOK_EVERY


def take_a_short_slice() -> None:
    """This process in the ordinary class at nice 0 with a ``SLICE_NS`` slice: a kernel
    before 6.12 takes the call and keeps its own slice; elsewhere nothing changes."""
    number = SCHED_SETATTR.get(platform.machine())
    if number is None or sys.platform != "linux":
        return
    attr = ctypes.create_string_buffer(
        SCHED_ATTR.pack(SCHED_ATTR.size, os.SCHED_OTHER, 0, 0, 0, SLICE_NS, 0, 0, 0, 0)
    )
    ctypes.CDLL(None).syscall(number, 0, attr, 0)


def govern(path: str, engine_pid: int) -> None:
    """Hold the process ``engine_pid`` while the web's actions told through the FIFO
    ``path`` are in flight (``Governor``), until that process, this one's parent, has
    ended."""
    with contextlib.suppress(FileExistsError):
        os.mkfifo(path, 0o600)
    reading = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not is_fifo(reading):
        raise SystemExit(f"{path} is not a FIFO: the engine is never held")
    # A writer of its own: with none, the FIFO would read as ended between two of the
    # web's processes.
    keep_open = os.open(path, os.O_WRONLY)
    take_a_short_slice()
    governor = Governor()
    held = False
    try:
        while os.getppid() == engine_pid:
            timeout = min(LOOK_EVERY, governor.wake_in(time.monotonic()))
            ready, _, _ = select.select([reading], [], [], timeout)
            if ready:
                governor.in_flight.read(os.read(reading, 65536), time.monotonic())
            hold = governor.hold(time.monotonic())
            if hold != held:
                os.kill(engine_pid, signal.SIGSTOP if hold else signal.SIGCONT)
                held = hold
    finally:
        if held:
            with contextlib.suppress(ProcessLookupError):
                os.kill(engine_pid, signal.SIGCONT)
        os.close(keep_open)
        os.close(reading)


def start() -> subprocess.Popen[bytes] | None:
    """The governor of this process, when the environment names the web's FIFO; in a
    session of its own, so in a scheduling group of its own at the ordinary weight: in
    the engine worker's, at the lowest (``give_way_as_a_group``), told of an action it
    waited up to 9 ms for a core, the engine computing meanwhile (bench/README.md, "The
    governor in a session of its own"). Outside the engine worker's process group, it
    is not in the kills aimed at that group; it ends within ``LOOK_EVERY`` of it."""
    path = os.environ.get(FIFO_ENV)
    if not path:
        return None
    command = [sys.executable, "-m", "analysis.engine_governor", path, str(os.getpid())]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, start_new_session=True)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # the finally above runs
    govern(sys.argv[1], int(sys.argv[2]))
