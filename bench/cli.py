"""End to end: position ID in, every resulting position ID out, ours next to gnubg's binding.

    python bench/cli.py [--positions N] [--seed S] [--rounds R]

What a game request of the server does, and what ``python -m backgammon plays --jsonl``
does for a program that drives it: read a position ID and a roll, find every distinct
legal play, write the position ID each one reaches. Timed on the same positions as
bench/plays.py (its ``make_cases``), three ways:

- GNU Backgammon's Python binding (the ``gnubg`` package): ``positionfromid``, then
  ``findbestmoves`` (its only call that lists the plays, and it scores each with the
  0-ply net), each play's move applied to the board, ``positionid`` of each result;
- ours in the process: ``backgammon.gnubg_ids.result_ids``;
- ours through the command line: ``python -m backgammon plays --jsonl`` in a process of
  its own for the whole run, the lines written to its stdin through a pipe and its
  answers read back (JSON in, JSON out), a chunk at a time: the chunk's lines in one
  write, then its answers read. Both pipes are enlarged to 1 MiB (as any client may do
  on Linux): a chunk's answers fit, so the command never waits for the reader mid-chunk.
  Its start (Python, the imports, a first line) is timed apart, not in its rate.

The positions are taken in chunks of 1000, each chunk by the three in turn, and all of it
R times; a way's time is the sum over the chunks of its fastest time on each (as in
bench/plays.py), so a change in the load of the machine falls on the three alike and a
passing one is filtered out. CPU time is measured too, for each way over each whole
round (the command's from /proc, Linux): on a busy machine it moves far less than the
clock. The report gives both rates, the ratios to the binding's (the issue asks for at
least 1.0), each round's CPU ratio, and the agreement of the results. See bench/README.md.
"""

from __future__ import annotations

import argparse
import fcntl
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from peers import _c_stdout_to_stderr
from plays import make_cases

from backgammon.gnubg_ids import position_from_id, position_id, result_ids
from bench.busy_core import cpu_seconds

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


CHUNK = 1000  # positions timed at a stretch, by each way in turn
PIPE_BYTES = 1 << 20


class CommandLine:
    """``python -m backgammon plays --jsonl`` in a process of its own, for the whole run.

    It starts on one line, its answer awaited: ``start_up``, the seconds to that answer
    (Python, the imports, one position). Then ``run`` writes requests and reads their
    answers, as a driving program would.
    """

    def __init__(self, requests: list[Request]) -> None:
        self.lines = [
            (json.dumps({"position_id": text, "dice": list(dice)}) + "\n").encode()
            for text, dice in requests
        ]
        started = time.perf_counter()
        self.process = subprocess.Popen(
            COMMAND, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        # Pipes of 1 MiB (Linux's limit for a user; 64 KiB by default): a chunk's answers
        # fit, so the command writes them without waiting for the reader to drain the
        # pipe, and each chunk costs one wake-up of each side, not one every 64 KiB.
        for pipe in (self.stdin, self.stdout):
            fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.run(range(1))
        self.start_up = time.perf_counter() - started

    def run(self, chunk: range) -> list[bytes]:
        """The answer lines to the requests in ``chunk`` (a chunk's lines fit in the pipe)."""
        assert self.stdin is not None and self.stdout is not None
        self.stdin.write(b"".join(self.lines[i] for i in chunk))
        self.stdin.flush()
        readline = self.stdout.readline
        return [readline() for _ in chunk]

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)

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
    command = CommandLine(requests)
    runs: dict[str, Callable[[range], object]] = {
        "binding": lambda chunk: [binding(*requests[i]) for i in chunk],
        "function": lambda chunk: [result_ids(*requests[i]) for i in chunk],
        "command": command.run,
    }
    chunks = [range(i, min(i + CHUNK, n)) for i in range(0, n, CHUNK)]
    fastest = {way: [float("inf")] * len(chunks) for way in runs}
    cpu: dict[str, list[float]] = {way: [] for way in runs}
    rounds = max(1, args.rounds)
    gc.collect()
    gc.freeze()  # the positions and answers kept here: no collector walks over them
    for round_ in range(rounds):
        spent = dict.fromkeys(runs, 0.0)
        command_cpu = command.cpu()
        for c, chunk in enumerate(chunks):
            for way, run in runs.items():
                began, began_cpu = time.perf_counter(), time.process_time()
                run(chunk)
                fastest[way][c] = min(fastest[way][c], time.perf_counter() - began)
                spent[way] += time.process_time() - began_cpu
        spent["command"] = command.cpu() - command_cpu
        for way in runs:
            cpu[way].append(spent[way])
        print(f"\rround {round_ + 1} of {rounds}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    answers = [json.loads(line)["results"] for chunk in chunks for line in command.run(chunk)]
    if answers != ours:
        raise SystemExit("the command line's answers differ from result_ids'")
    command.close()

    print(
        f"End to end, position ID in, every resulting position ID out: {n} positions "
        f"(seed {args.seed}), {rounds} rounds, in turns by chunks of {CHUNK}"
    )
    wall = {way: n / sum(times) for way, times in fastest.items()}
    per_cpu = {way: n / min(seconds) for way, seconds in cpu.items()}
    for title, rate in (
        ("by the clock (best per chunk)", wall),
        ("in CPU time (best round)", per_cpu),
    ):
        print(f"\n{'positions per second, ' + title:<62}{'positions/s':>12}{'vs binding':>12}")
        for label, way in ROWS:
            print(f"{label:<62}{rate[way]:>12,.0f}{rate[way] / rate['binding']:>11.2f}x")
    for _, way in ROWS[1:]:
        ratios = [b / s for b, s in zip(cpu["binding"], cpu[way], strict=True)]
        each = ", ".join(f"{ratio:.2f}" for ratio in ratios)
        print(f"  {way}, CPU ratio of each round: {each} (median {statistics.median(ratios):.2f})")
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
    by_clock = wall["command"] / wall["binding"]
    by_cpu = per_cpu["command"] / per_cpu["binding"]
    verdict = "met" if min(by_clock, by_cpu) >= 1 else "NOT met"
    print(
        "Issue target, the command line at least as fast as the binding: "
        f"{verdict} ({by_clock:.2f}x by the clock, {by_cpu:.2f}x in CPU time)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
