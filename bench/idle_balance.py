"""Do the ordinary class's threads wait longer for each other beside an idle-class one?
Four processes of bursts (2 ms of CPU after a sleep of 6 ms on average: about a core
between them, as the web's threads, the database and the workers at a peak) and the
time they wait on a run queue for each millisecond of their CPU (``/proc/self/schedstat``),
alone, beside a process spinning in the idle class as runclub starts the engine worker
(a session, so a scheduling group, of its own at the lowest weight), beside the same
spinner napping ``NAP_US`` microseconds every ``NAP_EVERY_US``, and beside it stopped
(``SIGSTOP``) while any burst runs, by the bursts themselves: the engine worker's
governor without its hop.

    .venv/bin/python bench/idle_balance.py [--rounds 3] [--seconds 8]

How it can: Linux pulls a waiting thread onto another core the moment that core has
nothing of the fair class left to run ("newly idle" balancing). An idle-class thread is
of the fair class, so a core that runs one beside its ordinary work never has nothing:
a burst queued behind another on the first core waits for it, or for the second core's
next balancing tick (4 ms at HZ 250), rather than moving at once. A nap empties the
core's queue for a moment, and the balancing runs; a stopped spinner leaves it empty.

The naps are a POSIX timer aimed at the spinner's thread whose signal's handler is
libc's ``usleep`` (called with the signal's number: signal 40 naps 40 µs), because a
Python handler runs only between two bytecodes, never inside an engine's C++ call.
Linux only; no root. bench/README.md ("The idle class and newly idle balancing") has the
figures.
"""

import argparse
import ctypes
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.busy_core import cpu_seconds
from bench.scheduling_group import SPAWNED, spinning

BURSTS = 4
BURST_S = 0.002
ASLEEP_MEAN_S = 0.006
NAP_EVERY_US = 1000
NAP_US = 40  # a real-time signal's number: usleep's argument
SIDES = ("nothing", "a spinner", "a napping spinner", "a held spinner")
CLOCK_MONOTONIC = 1
SIGEV_THREAD_ID = 4


class _SigEvent(ctypes.Structure):
    """glibc's ``struct sigevent`` (64 bytes), its thread id where SIGEV_THREAD_ID reads it."""

    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("thread_id", ctypes.c_int),
        ("padding", ctypes.c_byte * 44),
    ]


class _TimeSpec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


class _TimerSpec(ctypes.Structure):
    _fields_ = [("interval", _TimeSpec), ("first", _TimeSpec)]


def napping(every_us: int, nap_us: int) -> None:
    """This thread naps ``nap_us`` microseconds every ``every_us`` from now on."""
    assert signal.SIGRTMIN <= nap_us <= signal.SIGRTMAX, "the nap is a real-time signal's number"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.signal(nap_us, ctypes.cast(libc.usleep, ctypes.c_void_p))
    event = _SigEvent(signo=nap_us, notify=SIGEV_THREAD_ID, thread_id=libc.gettid())
    timer = ctypes.c_void_p()
    if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)):
        raise OSError(ctypes.get_errno(), "timer_create")
    period = _TimeSpec(0, every_us * 1000)
    libc.timer_settime(timer, 0, ctypes.byref(_TimerSpec(period, period)), None)


def napping_spinner(stop: Any) -> None:
    """``scheduling_group.spinning`` apart, on any core, napping."""
    napping(NAP_EVERY_US, NAP_US)
    spinning(stop, None, apart=True)


def bursts(seconds: float, seed: int, waits: Any, holding: Any, held_pid: int) -> None:
    """Bursts for ``seconds``; then this process' (run, wait) nanoseconds into ``waits``.
    With ``held_pid``, the spinner is stopped while any burst runs (``holding``: the
    count of bursts running, shared), by the bursts themselves: a governor without its
    hop."""
    chance = random.Random(seed)
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        time.sleep(chance.expovariate(1 / ASLEEP_MEAN_S))
        if held_pid:
            _count(holding, +1, held_pid)
        busy_until = time.thread_time() + BURST_S
        while time.thread_time() < busy_until:
            pass
        if held_pid:
            _count(holding, -1, held_pid)
    run, wait, _ = map(int, Path("/proc/self/schedstat").read_text().split())
    waits.put((run, wait))


def _count(holding: Any, step: int, held_pid: int) -> None:
    """One burst more (``step`` 1) or less (-1) running; the spinner stopped as the first
    starts, continued as the last ends."""
    with holding.get_lock():
        holding.value += step
        if step > 0 and holding.value == 1:
            os.kill(held_pid, signal.SIGSTOP)
        elif holding.value == 0:
            os.kill(held_pid, signal.SIGCONT)


def measured(beside: str, seconds: float, seed: int) -> tuple[float, float]:
    """The bursts' run-queue wait per millisecond of their CPU beside ``beside`` (one of
    ``SIDES``), and the cores the spinner had meanwhile."""
    stop, spinner = SPAWNED.Event(), None
    if beside != "nothing":
        if beside == "a napping spinner":
            spinner = SPAWNED.Process(target=napping_spinner, args=(stop,))
        else:
            spinner = SPAWNED.Process(target=spinning, args=(stop, None, True))
        spinner.start()
        time.sleep(0.5)
    waits, holding = SPAWNED.Queue(), SPAWNED.Value("i", 0)
    held_pid = spinner.pid if spinner is not None and beside == "a held spinner" else 0
    workers = [
        SPAWNED.Process(target=bursts, args=(seconds, seed + n, waits, holding, held_pid))
        for n in range(BURSTS)
    ]
    spun_before, started = _cpu(spinner), time.monotonic()
    try:
        for worker in workers:
            worker.start()
        ran = [waits.get(timeout=seconds + 30) for _ in workers]
        spun = (_cpu(spinner) - spun_before) / (time.monotonic() - started)
    finally:
        for worker in workers:
            worker.join()
        stop.set()
        if spinner is not None:
            os.kill(spinner.pid, signal.SIGCONT)
            spinner.join()
    return sum(wait for _, wait in ran) / sum(run for run, _ in ran), spun


def _cpu(process: Any) -> float:
    """The CPU seconds ``process`` (a started one, or None: 0) has spent."""
    return 0.0 if process is None else cpu_seconds(process.pid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="default 3")
    parser.add_argument("--seconds", type=float, default=8.0, help="each part (default 8)")
    args = parser.parse_args()
    print(
        f"{BURSTS} processes of {BURST_S * 1e3:g} ms bursts, {ASLEEP_MEAN_S * 1e3:g} ms asleep "
        f"on average, {args.seconds:g} s a part; naps of {NAP_US} µs every {NAP_EVERY_US} µs.\n"
        "Their run-queue wait per ms of their CPU (and the cores the spinner had), beside:"
    )
    print("round  " + "".join(f"{side:>20}" for side in SIDES))
    for round_ in range(1, args.rounds + 1):
        cells = []
        for side in SIDES:
            wait, spun = measured(side, args.seconds, seed=round_ * 10)
            cells.append(f"{wait:.2f}" + (f" ({spun:.2f})" if spun else ""))
        print(f"{round_:5}  " + "".join(f"{cell:>20}" for cell in cells), flush=True)


if __name__ == "__main__":
    main()
