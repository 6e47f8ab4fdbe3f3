"""The practice robot's move time at each strength, 20 robot games at once.

    .venv/bin/python bench/robot.py                  # 20 games, 300 decisions a strength
    .venv/bin/python bench/robot.py --games 5 --decisions 100

The robot's requests are answered by one engine worker (the analysis worker: one task at
a time), so a request waits behind the other games' requests sent before it. The script
plays ``--games`` robot-against-robot money games side by side through the rules core
with seeded dice; at each round every game that waits for a decision sends its request
(the JSON ``analysis.robot_engine.decide`` takes, as the table engine builds it), and
the requests are answered one after the other, as the worker takes them. For each
request:

- ``cpu``: the CPU time of ``decide`` (the engine's own cost, one thread);
- ``wait+cpu``: the wall time from the round's start (all the games asking at once) to
  its answer: the move time a member sees when 20 robot games ask at the same moment,
  the worst case of 20 games at once, less the broker's hops and the answer's apply
  (an action's cost: bench/api_play.py).

The engines are loaded before the clock starts (a worker loads them once). Figures in
bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis import robot_engine
from analysis.engine import engine_at
from backgammon.game import Game, GameOptions, Phase
from backgammon.match import MatchState

MONEY = MatchState(options=GameOptions(jacoby=True, beavers=True))


@dataclass
class Table:
    """One robot game: its number, its game and its turn (the request's ``turn_no``)."""

    number: int
    game: Game
    rng: random.Random
    turn_no: int = 0


def _dice(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def _new_game(rng: random.Random) -> Game:
    while True:
        dice = _dice(rng)
        if dice[0] != dice[1]:
            return Game.start(MONEY.next_game_options(), [dice])


def _apply(table: Table, action: robot_engine.RobotAction) -> None:
    """The robot's action on the table's game (a roll from the table's dice), a new game
    once one is over."""
    game = table.game
    match action["act"]:
        case "roll":
            game = game.roll(_dice(table.rng))
        case "move":
            game = game.play(action["play"])
        case "double":
            game = game.double()
        case "take":
            game = game.take()
        case "pass":
            game = game.pass_()
        case "beaver":
            game = game.beaver()
    table.game = _server_steps(table, _new_game(table.rng) if game.over else game)
    table.turn_no += 1


def _server_steps(table: Table, game: Game) -> Game:
    """What the server does for the robot without asking it (``ROBOT_SETTINGS``): its
    roll when it cannot double, its forced plays."""
    while True:
        if game.phase is Phase.ROLL and not game.cube.can_offer(game.on_roll):
            game = game.roll(_dice(table.rng))
        elif game.phase is Phase.MOVE and len(game.legal_plays()) == 1:
            game = game.play(game.legal_plays()[0])
        else:
            return _new_game(table.rng) if game.over else game


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def run(strength: str, games: int, decisions: int) -> tuple[list[float], list[float]]:
    tables = [Table(n, _new_game(random.Random(n)), random.Random(1000 + n)) for n in range(games)]
    for table in tables:
        table.game = _server_steps(table, table.game)
    cpu: list[float] = []
    waited: list[float] = []
    while len(cpu) < decisions:
        requests = [
            {
                "table": table.number,
                "turn_no": table.turn_no,
                "strength": strength,
                "game": table.game.to_dict(),
                "match": MONEY.to_dict(),
            }
            for table in tables
        ]
        started = time.perf_counter()
        for table, request in zip(tables, requests, strict=True):
            cpu_before = time.process_time()
            action = robot_engine.decide(request)  # type: ignore[arg-type]
            cpu.append(time.process_time() - cpu_before)
            waited.append(time.perf_counter() - started)
            _apply(table, action)
    return cpu, waited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--decisions", type=int, default=300)
    args = parser.parse_args()
    for strength in robot_engine.STRENGTHS.values():
        engine_at(strength.plies)
    print(f"{args.games} robot games at once, {args.decisions} decisions a strength (ms)")
    print(f"{'strength':<13} {'plies':>5} {'cpu p50':>8} {'cpu p99':>8} {'wait+cpu p50':>13} "
          f"{'wait+cpu p99':>13} {'mean cpu':>9}")  # fmt: skip
    for name, strength in robot_engine.STRENGTHS.items():
        cpu, waited = run(name, args.games, args.decisions)
        row = [percentile(cpu, 0.5), percentile(cpu, 0.99)]
        row += [percentile(waited, 0.5), percentile(waited, 0.99), statistics.fmean(cpu)]
        widths = (8, 8, 13, 13, 9)
        cells = " ".join(f"{1000 * v:>{w}.1f}" for v, w in zip(row, widths, strict=True))
        print(f"{name:<13} {strength.plies:>5} {cells}")


if __name__ == "__main__":
    main()
