"""Does a busy core slow the work on another one? The same piece of Python work (about
what a web action's thread spends: 8 ms of building dicts and lists) timed alone, then
beside a process spinning in Linux's idle scheduling class (as the engine's games are
judged), part after part, and the wake-up delay of a thread sleeping 2 ms timed the
same ways.

    .venv/bin/python bench/busy_core.py              # 4 rounds of 10 s a part
    .venv/bin/python bench/busy_core.py --rounds 2 --seconds 5

The idle class gives the spinner no CPU a runnable thread of the ordinary class wants,
so the wake-up delay should not move; if the work's own CPU time grows beside it, the
cores share something beneath the scheduler (caches, memory bandwidth, a hypervisor's
physical cores) and no priority brings the web's speed back while the engine computes:
only the engine not computing while an action runs (the engine worker's governor,
docs/analysis.md, "The web while analyses run").
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from pathlib import Path
from typing import Any


def cpu_seconds(pid: int) -> float:
    """The CPU seconds (user and system) process ``pid`` has spent (Linux: /proc/PID/stat,
    in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spun(stop: Any) -> None:
    """A core kept busy in the idle class until ``stop`` (an event), as the engine's
    games are judged, doing nothing of the service's (``analysis.py --beside-web
    --spinner`` runs it beside the web too)."""
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    while not stop.is_set():
        sum(range(100_000))


def work() -> int:
    rows = {str(i): [i, i * 2] for i in range(20_000)}
    return sum(len(row) for row in rows.values())


def part(seconds: float) -> tuple[list[float], list[float], list[float]]:
    """The work's wall and CPU times and the 2 ms sleeps' delays over ``seconds``."""
    wall, cpu, late = [], [], []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        started = time.perf_counter()
        time.sleep(0.002)
        late.append(time.perf_counter() - started - 0.002)
        started, used = time.perf_counter(), time.thread_time()
        work()
        cpu.append(time.thread_time() - used)
        wall.append(time.perf_counter() - started)
    return wall, cpu, late


def line(name: str, wall: list[float], cpu: list[float], late: list[float]) -> str:
    def ms(values: list[float]) -> str:
        cuts = statistics.quantiles(values, n=100)
        return f"{1000 * cuts[49]:5.2f} / {1000 * cuts[98]:5.2f}"

    return f"  {name:<30} {ms(wall)}   {ms(cpu)}   {ms(late)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    spawned = multiprocessing.get_context("spawn")
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"  {'ms, p50 / p99':<30} {'work, wall':<15} {'work, CPU':<15} wake-up delay")
    for number in range(1, args.rounds + 1):
        print(f"round {number}")
        print(line("alone", *part(args.seconds)))
        stop = spawned.Event()
        spinner = spawned.Process(target=spun, args=(stop,))
        spinner.start()
        try:
            time.sleep(0.5)
            print(line("beside an idle-class spinner", *part(args.seconds)))
        finally:
            stop.set()
            spinner.join()


if __name__ == "__main__":
    main()
