"""Match analysis: the candidate engines' bare calls on the same 7-point matches, side by side.

    .venv/bin/python bench/analysis.py                 # 3 matches, 0-ply and 1-ply
    .venv/bin/python bench/analysis.py --deep          # and 2-ply (gnubg: minutes)

The matches are played by bgsage against itself through the rules core (the best play,
one time in ten the second best: a few errors to find) with seeded dice, exported with
``backgammon.matfile``. Then each candidate analyses each match on one thread:

- gnubg: ``import mat`` then ``analyse match`` (checker play and cube at the same plies),
  its own output sent to /dev/null;
- bgsage: ``analysis.engine.analyse_match``, every checker play and cube decision, the
  module the club's worker runs.

Plies are GNU Backgammon's numbering (0: the network alone); bgsage and eXtreme Gammon
call the same depths 1-ply, 2-ply, 3-ply. Times are the process's CPU seconds (the
machine is shared: wall time there measures the neighbours). Figures and the choice:
docs/analysis.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.engine import Engine, analyse_match
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import MatchRecord, export_mat


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Send what C code prints on stdout to /dev/null (gnubg's commands chat there)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def gnubg_timer(plies: int) -> Callable[[MatchRecord, str], float]:
    import gnubg

    with quiet():
        gnubg.command("set threads 1")  # 0 hangs
        for part in ("chequerplay", "cubedecision"):
            gnubg.command(f"set analysis {part} evaluation plies {plies}")

    def run(record: MatchRecord, path: str) -> float:
        with quiet():
            gnubg.command(f"import mat {path}")
            started = time.process_time()
            gnubg.command("analyse match")
            return time.process_time() - started

    return run


def bgsage_timer(plies: int) -> Callable[[MatchRecord, str], float]:
    engine = Engine(plies)

    def run(record: MatchRecord, path: str) -> float:
        started = time.process_time()
        analyse_match(engine, record)
        return time.process_time() - started

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deep", action="store_true", help="time 2-ply too")
    args = parser.parse_args()

    print(f"playing {args.matches} 7-point matches...", file=sys.stderr)
    player = Engine(0)
    records = [
        play_match(player, (Player("alice", human), Player("bob", human)), 7, args.seed + i)
        for i in range(args.matches)
    ]
    folder = tempfile.mkdtemp(prefix="bench-analysis-")
    paths = []
    for i, record in enumerate(records):
        path = os.path.join(folder, f"match{i}.mat")
        Path(path).write_text(export_mat(record))
        paths.append(path)
    decisions = [sum(len(g) for g in analyse_match(player, r)) for r in records]
    sizes = zip(records, decisions, strict=True)
    print("matches: " + ", ".join(f"{len(r.games)} games {d} decisions" for r, d in sizes))

    depths = [0, 1, 2] if args.deep else [0, 1]
    print(
        f"{'engine':<8} {'plies (gnubg)':>13} "
        + " ".join(f"{'match ' + str(i + 1):>9}" for i in range(len(records)))
        + f" {'mean s':>8} {'ms/decision':>12}"
    )
    for plies in depths:
        for name, timer in (("gnubg", gnubg_timer), ("bgsage", bgsage_timer)):
            print(f"timing {name} at {plies}-ply...", file=sys.stderr)
            run = timer(plies)
            times = [run(r, p) for r, p in zip(records, paths, strict=True)]
            mean = sum(times) / len(times)
            per = 1000 * sum(times) / sum(decisions)
            cells = " ".join(f"{t:9.3f}" for t in times)
            print(f"{name:<8} {plies:>13} {cells} {mean:8.3f} {per:12.2f}", flush=True)


if __name__ == "__main__":
    main()
