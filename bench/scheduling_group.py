"""Where the engine worker's idle-class games may sit beside the web: what an idle-class
spinner takes from a Python loop that keeps one core busy two thirds of the time (8 ms on,
4 ms asleep, as the web's threads are at a peak), both on the same core, with the spinner
in a scheduling group of its own at the lowest weight ("apart": runclub's layout, the
engine worker leading a session of its own, its autogroup at nice 19), in the loop's own
group ("together": the web and the engine worker in one session, tried on 7 December
2026 and not kept), and without a spinner. What is counted is the loop's gaps over
0.3 ms: the time a core was taken from it.

    .venv/bin/python bench/scheduling_group.py [--seconds 10]

Linux only, with autogroups (``/proc/sys/kernel/sched_autogroup_enabled``); no root.
bench/README.md ("The engine worker in the web's scheduling group") has the figures.
"""

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.busy_core import spun

SPAWNED = multiprocessing.get_context("spawn")

CORE = 1
GAP_NS = 300_000
BUSY_NS = 8_000_000
ASLEEP_S = 0.004


def spinning(stop: Any, core: int | None, apart: bool) -> None:
    """``busy_core.spun`` on ``core`` (None: any); ``apart``: in a session, so a group,
    of its own at the lowest weight, as runclub starts the engine worker."""
    if core is not None:
        os.sched_setaffinity(0, {core})
    if apart:
        os.setsid()
        Path("/proc/self/autogroup").write_text("19")
    spun(stop)


def gaps(seconds: float) -> list[int]:
    """The loop's gaps over GAP_NS while it runs for ``seconds``, in nanoseconds."""
    found = []
    end = time.monotonic_ns() + int(seconds * 1e9)
    last = time.monotonic_ns()
    while last < end:
        busy_until = last + BUSY_NS
        while last < busy_until:
            now = time.monotonic_ns()
            if now - last > GAP_NS:
                found.append(now - last)
            last = now
        time.sleep(ASLEEP_S)
        last = time.monotonic_ns()
    return found


def measured(where: str, seconds: float) -> str:
    """One line: the loop's gaps beside a spinner ``where`` ("apart", "together") or
    none ("alone")."""
    spinner, stop = None, SPAWNED.Event()
    if where != "alone":
        spinner = SPAWNED.Process(target=spinning, args=(stop, CORE, where == "apart"))
        spinner.start()
        time.sleep(0.5)
    try:
        found = gaps(seconds)
    finally:
        stop.set()
        if spinner is not None:
            spinner.join()
    taken = sum(found) / 1e6
    longest = max(found, default=0) / 1e6
    return f"{where:9} {len(found):6} {taken:9.1f} {taken / seconds / 10:8.2f} {longest:10.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each part (default 10)")
    args = parser.parse_args()
    if os.getsid(0) != os.getpid():
        # The loop leads a session, so a group, of its own: the spinner "together" joins it.
        os.execvp("setsid", ["setsid", "--wait", sys.executable, *sys.argv])
    os.sched_setaffinity(0, {CORE})
    print(
        f"A loop on core {CORE}, {BUSY_NS / 1e6:g} ms on, {ASLEEP_S * 1e3:g} ms asleep, "
        f"{args.seconds:g} s a part; its gaps over {GAP_NS / 1e6:g} ms:"
    )
    print("spinner     gaps  taken ms  % of time  longest ms")
    for where in ("alone", "apart", "together"):
        print(measured(where, args.seconds), flush=True)


if __name__ == "__main__":
    main()
