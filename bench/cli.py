"""End to end: position ID in, every resulting position ID out, ours next to gnubg's binding.

    python bench/cli.py [--positions N] [--seed S] [--rounds R]

What a game request of the server does, and what ``python -m backgammon plays --jsonl``
does for a program that drives it: read a position ID and a roll, find every distinct
legal play, write the position ID each one reaches. Timed on the same positions as
bench/plays.py (its ``make_cases``), three ways, in turns:

- GNU Backgammon's Python binding (the ``gnubg`` package): ``positionfromid``, then
  ``findbestmoves`` (its only call that lists the plays, and it scores each with the
  0-ply net), each play's move applied to the board, ``positionid`` of each result;
- ours in the process: ``backgammon.gnubg_ids.result_ids``;
- ours through the command line: ``python -m backgammon plays --jsonl`` in a process of
  its own, the lines written to its stdin through a pipe and its answers read back
  (JSON in, JSON out). Its start (Python and the imports, about a tenth of a second) is
  timed apart: the rate counts from the first line written to the last answer read.

Each of the R rounds times the three in turn on all the positions (the command line in a
fresh process each round); a way's rate is its best round, so a change in the machine's
load falls on all three alike and a passing one is filtered out. The report gives the
rates, the ratios of ours to the binding's (the issue asks for at least 1.0), each
round's ratio, and the agreement of the results. See bench/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from peers import _c_stdout_to_stderr
from plays import make_cases

from backgammon.gnubg_ids import position_from_id, position_id, result_ids

ROOT = Path(__file__).resolve().parent.parent
Request = tuple[str, tuple[int, int]]
COMMAND = [sys.executable, "-m", "backgammon", "plays", "--jsonl"]


def binding_result_ids() -> Callable[[str, tuple[int, int]], list[str]]:
    """The binding's end-to-end path, as tight as its API allows.

    ``findbestmoves`` gives each play as its moves, 1-based (25: the bar, 0: off), cut
    after the first checker borne off (so ``6/off 5/off`` shows as ``6``): applied as
    given, such a play reaches another position than the real one, which the agreement
    line counts.
    """
    import gnubg

    with _c_stdout_to_stderr():
        gnubg.command("set threads 1")
        # Its evaluation cache would answer the repeated rounds from memory.
        gnubg.command("set cache 0")
    cube = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    from_id, to_id, find = gnubg.positionfromid, gnubg.positionid, gnubg.findbestmoves

    def run(text: str, dice: tuple[int, int]) -> list[str]:
        board = from_id(text)  # (side not on roll, side on roll)
        theirs, mine = board
        ids = []
        for play in find(board, cube, context, dice):
            move = play["move"]
            me, them = list(mine), theirs
            for k in range(0, len(move), 2):
                me[move[k] - 1] -= 1
                to = move[k + 1] if k + 1 < len(move) else 0
                if to:
                    me[to - 1] += 1
                    if them[24 - to] == 1:  # a blot hit: to the bar
                        them = list(them)
                        them[24 - to] = 0
                        them[24] += 1
            ids.append(to_id((them, me)))
        ids.sort()
        return ids or [text]

    return run


class Clock:
    """Wall-clock and CPU seconds of a stretch of work, added to per-round lists."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def add(self, wall: float, cpu: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)


def time_in_process(
    run: Callable[[str, tuple[int, int]], list[str]], requests: list[Request], clock: Clock
) -> None:
    began, began_cpu = time.perf_counter(), time.process_time()
    for text, dice in requests:
        run(text, dice)
    clock.add(time.perf_counter() - began, time.process_time() - began_cpu)


def _cpu_so_far(pid: int) -> float:
    """CPU seconds a running process has used (Linux: /proc/PID/stat, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CommandLine:
    """``python -m backgammon plays --jsonl`` in a process of its own, for all the rounds.

    It starts on one line, its answer awaited: ``start_up``, the seconds to that answer
    (Python, the imports, one position). Then each ``time_pass`` writes every request
    (from a thread, as a driving program would) and reads every answer back.
    """

    def __init__(self, requests: list[Request]) -> None:
        self.lines = "".join(
            json.dumps({"position_id": text, "dice": list(dice)}) + "\n" for text, dice in requests
        ).encode()
        self.n = len(requests)
        started = time.perf_counter()
        self.process = subprocess.Popen(
            COMMAND, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        assert self.stdin is not None and self.stdout is not None
        self.stdin.write(self.lines[: self.lines.index(b"\n") + 1])
        self.stdin.flush()
        self.stdout.readline()
        self.start_up = time.perf_counter() - started

    def time_pass(self, clock: Clock) -> list[list[str]]:
        """One pass over the requests into ``clock`` (from the first byte written to the
        last answer read; the command's CPU time meanwhile); the answers."""

        def write() -> None:
            assert self.stdin is not None
            self.stdin.write(self.lines)
            self.stdin.flush()

        assert self.stdout is not None
        writer = threading.Thread(target=write)
        cpu = _cpu_so_far(self.process.pid)
        began = time.perf_counter()
        writer.start()
        out = [self.stdout.readline() for _ in range(self.n)]
        clock.add(time.perf_counter() - began, _cpu_so_far(self.process.pid) - cpu)
        writer.join()
        return [json.loads(line)["results"] for line in out]

    def close(self) -> None:
        assert self.stdin is not None
        self.stdin.close()
        if self.process.wait():
            raise SystemExit(f"{' '.join(COMMAND)} exited with status {self.process.returncode}")


def bears_off(text: str, results: list[str]) -> bool:
    """Whether a play from the position ``text`` bears a checker off."""
    on_board = sum(position_from_id(text).player)
    return any(sum(position_from_id(result).player) < on_board for result in results)


ROWS = (
    ("gnubg binding: positionfromid, findbestmoves, positionid", "binding"),
    ("ours, in the process: result_ids", "function"),
    ("ours, the command line: python -m backgammon plays --jsonl", "command"),
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000, help="positions (default 3000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (default 5)")
    args = parser.parse_args(argv)

    requests = [(position_id(pos), dice) for pos, dice in make_cases(args.positions, args.seed)]
    n = len(requests)
    binding = binding_result_ids()
    ours = [result_ids(text, dice) for text, dice in requests]
    theirs = [binding(text, dice) for text, dice in requests]
    gc.collect()
    gc.freeze()  # the positions and answers kept here: no collector walks over them
    clocks = {way: Clock() for _, way in ROWS}
    rounds = max(1, args.rounds)
    command = CommandLine(requests)
    for round_ in range(rounds):
        time_in_process(binding, requests, clocks["binding"])
        time_in_process(result_ids, requests, clocks["function"])
        if command.time_pass(clocks["command"]) != ours:
            raise SystemExit("the command line's answers differ from result_ids'")
        print(f"\rround {round_ + 1} of {rounds}", end="", file=sys.stderr, flush=True)
    command.close()
    print(file=sys.stderr)

    print(
        f"End to end, position ID in, every resulting position ID out: {n} positions "
        f"(seed {args.seed}), best of {rounds} rounds, in turns"
    )
    for kind, seconds in (("wall-clock", "wall"), ("CPU", "cpu")):
        rate = {way: n / min(getattr(clock, seconds)) for way, clock in clocks.items()}
        print(f"\n{'positions per ' + kind + ' second':<62}{'positions/s':>12}{'vs binding':>12}")
        for label, way in ROWS:
            print(f"{label:<62}{rate[way]:>12,.0f}{rate[way] / rate['binding']:>11.2f}x")
        base = getattr(clocks["binding"], seconds)
        for _, way in ROWS[1:]:
            ratios = [b / s for b, s in zip(base, getattr(clocks[way], seconds), strict=True)]
            each = ", ".join(f"{ratio:.2f}" for ratio in ratios)
            print(f"  {way}, each round: {each} (median {statistics.median(ratios):.2f})")
    print(
        f"\nThe command line's start (Python, imports, first answer), not in its rates: "
        f"{command.start_up * 1000:.0f} ms"
    )
    differ = [i for i in range(n) if ours[i] != theirs[i]]
    cut = sum(bears_off(requests[i][0], ours[i]) for i in differ)
    print(
        f"Agreement: the binding reaches the same positions as ours on {n - len(differ)} of "
        f"{n} ({100 * (n - len(differ)) / n:.1f}%); of the {len(differ)} others, {cut} have a "
        "play that bears off, which findbestmoves cuts after its first checker off"
    )
    wall = min(clocks["binding"].wall) / min(clocks["command"].wall)
    cpu = min(clocks["binding"].cpu) / min(clocks["command"].cpu)
    verdict = "met" if min(wall, cpu) >= 1 else "NOT met"
    print(
        "Issue target, the command line at least as fast as the binding: "
        f"{verdict} ({wall:.2f}x by the clock, {cpu:.2f}x in CPU time)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
