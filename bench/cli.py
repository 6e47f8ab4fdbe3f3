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


def time_in_process(
    run: Callable[[str, tuple[int, int]], list[str]], requests: list[Request]
) -> float:
    began = time.perf_counter()
    for text, dice in requests:
        run(text, dice)
    return time.perf_counter() - began


def time_command_line(requests: list[Request]) -> tuple[float, float, list[list[str]]]:
    """Seconds from the first line written to the last answer read, the seconds the
    command took to answer a first line (its start), and its answers."""
    lines = "".join(
        json.dumps({"position_id": text, "dice": list(dice)}) + "\n" for text, dice in requests
    ).encode()
    started = time.perf_counter()
    process = subprocess.Popen(COMMAND, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(lines[: lines.index(b"\n") + 1])  # the first line, untimed
    process.stdin.flush()
    process.stdout.readline()
    start_up = time.perf_counter() - started

    def write() -> None:
        assert process.stdin is not None
        process.stdin.write(lines)
        process.stdin.close()

    writer = threading.Thread(target=write)
    began = time.perf_counter()
    writer.start()
    out = process.stdout.read()
    seconds = time.perf_counter() - began
    writer.join()
    if process.wait():
        raise SystemExit(f"{' '.join(COMMAND)} exited with status {process.returncode}")
    answers = [json.loads(line)["results"] for line in out.splitlines()]
    return seconds, start_up, answers


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
    times: dict[str, list[float]] = {"binding": [], "function": [], "command": []}
    starts = []
    for round_ in range(max(1, args.rounds)):
        times["binding"].append(time_in_process(binding, requests))
        times["function"].append(time_in_process(result_ids, requests))
        seconds, start_up, answers = time_command_line(requests)
        times["command"].append(seconds)
        starts.append(start_up)
        if answers != ours:
            raise SystemExit("the command line's answers differ from result_ids'")
        print(f"\rround {round_ + 1} of {args.rounds}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rate = {way: n / min(seconds) for way, seconds in times.items()}
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    bearing_off = sum(not any(position_from_id(requests[i][0]).player[6:]) for i in differ)

    print(
        f"End to end, position ID in, every resulting position ID out: {n} positions "
        f"(seed {args.seed}), best of {len(starts)} rounds, in turns"
    )
    print(f"{'path':<62}{'positions/s':>12}{'vs binding':>12}")
    rows = [
        ("gnubg binding: positionfromid, findbestmoves, positionid", "binding"),
        ("ours, in the process: result_ids", "function"),
        ("ours, the command line: python -m backgammon plays --jsonl", "command"),
    ]
    for label, way in rows:
        print(f"{label:<62}{rate[way]:>12,.0f}{rate[way] / rate['binding']:>11.2f}x")
    for _, way in rows[1:]:
        ratios = [b / s for b, s in zip(times["binding"], times[way], strict=True)]
        each = ", ".join(f"{ratio:.2f}" for ratio in ratios)
        print(f"  {way}: each round's ratio {each} (median {statistics.median(ratios):.2f})")
    print(
        f"  the command line's start, not in its rate: {statistics.median(starts) * 1000:.0f} ms"
        " (median, to the first answer)"
    )
    print(
        f"Agreement: the binding reaches the same positions as ours on {n - len(differ)} of "
        f"{n} ({100 * (n - len(differ)) / n:.1f}%); of the {len(differ)} others, {bearing_off} "
        "are bear-offs, where findbestmoves cuts a play after its first checker off"
    )
    verdict = "met" if rate["command"] >= rate["binding"] else "NOT met"
    print(
        f"Issue target, the command line at least as fast as the binding: {verdict} "
        f"({rate['command'] / rate['binding']:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
