"""How fast are the tavli games' plays, next to backgammon's, on positions met in play?

    python bench/tavli.py [--positions N] [--seed S] [--rounds R]

For backgammon (``backgammon.moves.legal_plays``) and each of portes, plakoto, fevga,
gul bara and acey-deucey (``backgammon.tavli.plays.stage_plays``), N positions with their
dice are taken from random games played from the start (a random legal play each turn,
the dice of each stage as the game gives them: gul bara's run and acey-deucey's named
doubles included). Every generator is then timed on its own positions, in chunks taken
in turn, best of R passes per chunk, and the report gives positions per second, plays per
position and each game's time per position against backgammon's: the issue's target is
no game more than twice as slow. See bench/README.md.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backgammon.moves import legal_plays
from backgammon.position import Position
from backgammon.tavli.board import TavliBoard
from backgammon.tavli.plays import stage_plays
from backgammon.tavli.rules import GAMES, TavliRules
from backgammon.tavli.turns import play_turn
from backgammon.variants import START

CHUNK = 250
TARGET = 2.0  # the most times backgammon's time per position a game may take
Timed = Callable[[], object]


def backgammon_cases(count: int, rng: random.Random) -> list[tuple[Position, tuple[int, int]]]:
    """(position, roll) met in random games of backgammon from the start."""
    cases: list[tuple[Position, tuple[int, int]]] = []
    while len(cases) < count:
        position = START
        while any(position.player) and any(position.opponent) and len(cases) < count:
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            cases.append((position, roll))
            plays = legal_plays(position, roll)
            position = (rng.choice(plays).result if plays else position).mirror()
    return cases


def tavli_cases(
    rules: TavliRules, count: int, rng: random.Random
) -> list[tuple[TavliBoard, tuple[int, ...]]]:
    """(board, stage dice) met in random games of ``rules``, every stage of every turn."""
    cases: list[tuple[TavliBoard, tuple[int, ...]]] = []
    while len(cases) < count:
        board = rules.start_board()
        while len(cases) < count and board.mine.left and board.opponent.left:
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            board, stages = play_turn(rules, board, roll, rng.choice, lambda: rng.randint(1, 6))
            cases += stages
            board = board.mirror()
    return cases[:count]


def time_chunks(jobs: dict[str, list[Timed]], rounds: int) -> dict[str, float]:
    """Each job's total time: per chunk the best of ``rounds`` passes, the jobs taken in
    turn chunk by chunk so that a change in the machine's load falls on all alike."""
    best = {name: [float("inf")] * len(chunks) for name, chunks in jobs.items()}
    for _ in range(rounds):
        for index in range(max(len(chunks) for chunks in jobs.values())):
            for name, chunks in jobs.items():
                if index < len(chunks):
                    start = time.perf_counter()
                    chunks[index]()
                    best[name][index] = min(best[name][index], time.perf_counter() - start)
    return {name: sum(times) for name, times in best.items()}


def _chunks(run: Callable[[Sequence[object]], object], cases: Sequence[object]) -> list[Timed]:
    return [(lambda part=cases[i : i + CHUNK]: run(part)) for i in range(0, len(cases), CHUNK)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=3000, help="positions per game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5, help="timed passes, best kept")
    args = parser.parse_args(argv)

    print("making positions...", file=sys.stderr)
    rng = random.Random(args.seed)
    bg = backgammon_cases(args.positions, rng)
    games = {name: tavli_cases(rules, args.positions, rng) for name, rules in GAMES.items()}
    plays = {"backgammon": sum(len(legal_plays(p, d)) for p, d in bg) / len(bg)}
    for name, cases in games.items():
        plays[name] = sum(len(stage_plays(GAMES[name], b, d)) for b, d in cases) / len(cases)

    def run_backgammon(part: Sequence[object]) -> None:
        for position, roll in part:  # type: ignore[misc]
            legal_plays(position, roll)

    def run_game(rules: TavliRules) -> Callable[[Sequence[object]], None]:
        def run(part: Sequence[object]) -> None:
            for board, dice in part:  # type: ignore[misc]
                stage_plays(rules, board, dice)

        return run

    jobs = {"backgammon": _chunks(run_backgammon, bg)}
    for name, cases in games.items():
        jobs[name] = _chunks(run_game(GAMES[name]), cases)
    gc.collect()
    gc.freeze()
    print("timing...", file=sys.stderr)
    totals = time_chunks(jobs, args.rounds)

    reference = totals["backgammon"] / len(bg)
    print(
        f"Plays of each game on {args.positions} positions met in random play "
        f"(seed {args.seed}), best of {args.rounds} passes"
    )
    print(f"{'game':<14}{'positions/s':>12}{'plays/position':>16}{'time vs backgammon':>20}")
    worst = 0.0
    for name, total in totals.items():
        count = len(bg) if name == "backgammon" else len(games[name])
        ratio = total / count / reference
        if name != "backgammon":
            worst = max(worst, ratio)
        print(f"{name:<14}{count / total:>12,.0f}{plays[name]:>16.1f}{ratio:>19.2f}x")
    verdict = "met" if worst <= TARGET else "NOT met"
    print(f"\nTarget: no game more than {TARGET:g}x backgammon's time per position: {verdict}")
    print(f"(slowest {worst:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
