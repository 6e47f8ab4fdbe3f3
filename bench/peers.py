"""The other implementations bench/plays.py times next to ours, each behind an adapter.

Every adapter converts our cases, ``(Position, roll)``, into the library's own board and
dice before the clock starts (so only the library's generator is timed, as with gnubg's
C generator), and says how to compare its answer with ours:

- ``run(i)`` generates the plays of case ``i`` with the library;
- ``agrees(i, ref)`` tells whether the library's answer for case ``i`` matches ours,
  ``ref`` (the distinct resulting positions, and the most dice any play uses).

A library that is not installed raises ``ImportError`` from its builder; bench/plays.py
reports it as missing. See bench/README.md for each library's board, what is compared and
the differences found.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import importlib.util
import os
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backgammon.position import Board, Position

Dice = tuple[int, int]
Case = tuple[Position, Dice]
Result = tuple[Board, Board]  # (player, opponent), seen by the side that moved
CHECKERS = 15

C, CPP, PYTHON = "C", "C++", "pure Python"


@dataclass(frozen=True, slots=True)
class Reference:
    """What our generator says about one case: the agreement checks compare with it."""

    results: frozenset[Result]  # the distinct resulting positions
    dice: int  # the most dice a play uses; 0 when no die can be played


@dataclass(slots=True)
class Peer:
    """One generator to time: ``run(i)`` handles case ``i``."""

    name: str
    kind: str  # C, C++ or pure Python
    run: Callable[[int], object]
    agrees: Callable[[int, Reference], bool] | None  # None: not on our positions
    compares: str  # what the agreement check compares
    own_cases: int | None = None  # cases of its own instead of ours (OpenSpiel)


@dataclass(frozen=True, slots=True)
class Library:
    """A library that may hold peers: its builder and how to install it."""

    name: str
    kind: str
    build: Callable[[Sequence[Case], int], list[Peer]]
    install: str


def _result(player: Sequence[int], opponent: Sequence[int]) -> Result:
    return tuple(player), tuple(opponent)


@contextlib.contextmanager
def _c_stdout_to_stderr() -> Iterator[None]:
    """Send what C code prints on stdout to stderr (gnubg's commands chat there)."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        ctypes.CDLL(None).fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


# --- GNU Backgammon (C): its generator through ctypes, and the binding's public call ------


def gnubg_peers(cases: Sequence[Case], seed: int) -> list[Peer]:
    """GnuBG's C generator alone (``GenerateMoves`` via ctypes) and ``findbestmoves``."""
    import gnubg

    from tests.gnubg_engine import MoveList, generate_moves, gnubg_board

    with _c_stdout_to_stderr():
        gnubg.command("set threads 1")
        # Its evaluation cache would answer repeated passes over the same positions from
        # memory (four times faster here): findbestmoves is timed without it.
        gnubg.command("set cache 0")
    boards = [gnubg_board(pos) for pos, _ in cases]
    move_list = MoveList()

    def c_generator(i: int) -> int:
        dice = cases[i][1]
        return generate_moves(ctypes.byref(move_list), boards[i], dice[0], dice[1], 0)

    tuples = [(pos.opponent, pos.player) for pos, _ in cases]
    cube = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)

    def public(i: int) -> list[Any]:
        return gnubg.findbestmoves(tuples[i], cube, context, cases[i][1])

    return [
        Peer(
            "gnubg GenerateMoves (via ctypes)",
            C,
            c_generator,
            lambda i, ref: c_generator(i) == len(ref.results),
            "number of distinct plays",
        ),
        Peer(
            "gnubg.findbestmoves (+ 0-ply eval)",
            C,
            public,
            lambda i, ref: len(public(i)) == len(ref.results),
            "number of distinct plays",
        ),
    ]


# --- bgsage (C++): the Open Sage engine's generator -------------------------------------


def bgsage_peers(cases: Sequence[Case], seed: int) -> list[Peer]:
    """``bgbot_cpp.possible_moves``: the distinct boards after each legal play.

    Its board is 26 ints seen by the side on roll: [1..24] own point i (positive: own
    checkers, negative: the opponent's), [25] own bar, [0] the opponent's bar.
    """
    import bgbot_cpp  # bgsage's C++ core; importing bgsage itself also loads its nets

    def board(pos: Position) -> list[int]:
        points = [pos.player[i] - pos.opponent[23 - i] for i in range(24)]
        return [pos.opponent[24], *points, pos.player[24]]

    def result(b: Sequence[int]) -> Result:
        player = [max(b[i + 1], 0) for i in range(24)] + [b[25]]
        opponent = [max(-b[24 - j], 0) for j in range(24)] + [b[0]]
        return _result(player, opponent)

    boards = [board(pos) for pos, _ in cases]
    possible_moves = bgbot_cpp.possible_moves

    def run(i: int) -> list[list[int]]:
        dice = cases[i][1]
        return possible_moves(boards[i], dice[0], dice[1])

    def agrees(i: int, ref: Reference) -> bool:
        after = run(i)
        if after == [boards[i]]:  # no legal play: it returns the board unchanged
            after = []
        return {result(b) for b in after} == ref.results

    return [Peer("bgsage possible_moves", CPP, run, agrees, "the resulting positions")]


# --- OpenSpiel (C++): its own games ------------------------------------------------------


def openspiel_peers(cases: Sequence[Case], seed: int) -> list[Peer]:
    """OpenSpiel's ``legal_actions`` on as many decision points of its own random games.

    OpenSpiel cannot be set to an arbitrary board, so it gets its own positions from the
    same kind of random self-play; a double is two decisions there, not one.
    """
    import pyspiel

    n = len(cases)
    rng = random.Random(seed)
    game = pyspiel.load_game("backgammon")
    states: list[Any] = []
    while len(states) < n:
        state = game.new_initial_state()
        while not state.is_terminal() and len(states) < n:
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                states.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    return [
        Peer(
            "OpenSpiel legal_actions (own games)",
            CPP,
            lambda i: states[i].legal_actions(),
            None,
            "not comparable: its own positions, half-turns for doubles",
            own_cases=n,
        )
    ]


# --- gym-backgammon (pure Python) ---------------------------------------------------------


def _load_file(package: str, relative: str, name: str) -> Any:
    """Load one module file of an installed package without running the package's
    ``__init__`` (gym_backgammon's imports gym and a pyglet renderer)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def gym_backgammon_peers(cases: Sequence[Case], seed: int) -> list[Peer]:
    """``Backgammon.get_valid_plays`` of gym-backgammon (dellalibera's environment).

    Its board is 24 ``(count, colour)`` pairs plus ``bar`` and ``off`` per colour. WHITE
    moves from index 23 down to 0 and gets its dice negated, so we put the side on roll
    as WHITE: own point p is index p - 1, the opponent's point p is index 24 - p.
    It returns move sequences, not de-duplicated by resulting position.
    """
    rules = _load_file("gym_backgammon", "envs/backgammon.py", "gym_backgammon_rules")
    white, black = rules.WHITE, rules.BLACK

    def game(pos: Position) -> Any:
        g = rules.Backgammon()
        board: list[tuple[int, int | None]] = [(0, None)] * 24
        for i in range(24):
            if pos.player[i]:
                board[i] = (pos.player[i], white)
            if pos.opponent[i]:
                board[23 - i] = (pos.opponent[i], black)
        g.board = board
        g.bar = [pos.player[24], pos.opponent[24]]
        g.off = [CHECKERS - sum(pos.player), CHECKERS - sum(pos.opponent)]
        g.players_positions = g.get_players_positions()
        return g

    games = [game(pos) for pos, _ in cases]
    rolls = [(-d1, -d2) for _, (d1, d2) in cases]

    def run(i: int) -> set[Any]:
        try:
            return games[i].get_valid_plays(white, rolls[i])
        except Exception:  # a crash is an answer too (a wrong one)
            return set()

    def agrees(i: int, ref: Reference) -> bool:
        g = games[i]
        saved = g.save_state()
        results = set()
        for play in g.get_valid_plays(white, rolls[i]):
            g.execute_play(white, play)
            player, opponent = [0] * 25, [0] * 25
            for index, (count, colour) in enumerate(g.board):
                if count and colour == white:
                    player[index] = count
                elif count and colour == black:
                    opponent[23 - index] = count
            player[24], opponent[24] = g.bar
            results.add(_result(player, opponent))
            g.restore_state(saved)
        return results == ref.results

    return [Peer("gym-backgammon get_valid_plays", PYTHON, run, agrees, "the resulting positions")]


# --- pygammon (pure Python): no generator, only how many dice must be played ---------------


def pygammon_peers(cases: Sequence[Case], seed: int) -> list[Peer]:
    """``Game.get_max_move_count`` of pygammon, the "engine core".

    pygammon has no play generator: it checks single checker moves as a player types
    them, and before each turn finds how many dice must be played by a depth-first
    search over copies of the game. That search is what is timed and compared (the most
    dice a play uses). Its board is 24 ``Point(side, count)``; Side.FIRST moves from index
    23 down to 0, so the side on roll is FIRST, own point p at index p - 1.
    """
    from pygammon.core import Game
    from pygammon.structures import Point, Side

    def game(pos: Position, dice: Dice) -> Any:
        g = Game(Side.FIRST)
        g.board = [Point() for _ in range(24)]
        for i in range(24):
            if pos.player[i]:
                g.board[i] = Point(Side.FIRST, pos.player[i])
            if pos.opponent[i]:
                g.board[23 - i] = Point(Side.SECOND, pos.opponent[i])
        first, second = g.players[Side.FIRST], g.players[Side.SECOND]
        first.hit, second.hit = pos.player[24], pos.opponent[24]
        first.borne = CHECKERS - sum(pos.player)
        second.borne = CHECKERS - sum(pos.opponent)
        g.dice = (dice[0],) * 4 if dice[0] == dice[1] else dice
        return g

    games = [game(*case) for case in cases]

    def run(i: int) -> int:
        try:
            return games[i].get_max_move_count()
        except Exception:  # a crash is an answer too (a wrong one)
            return -1

    return [
        Peer(
            "pygammon get_max_move_count",
            PYTHON,
            run,
            lambda i, ref: games[i].get_max_move_count() == ref.dice,
            "dice to play only (no generator)",
        )
    ]


# --- willse-backgammon (pure Python, optional) ----------------------------------------------


def willse_peers(cases: Sequence[Case], seed: int) -> list[Peer]:
    """``Board.returnMoveSequences`` of willse-backgammon (GillsSpace/Backgammon_AI).

    Its board is 28 ints: [0..23] the points, player 2's checkers positive and moving
    from index 23 down to 0, player 1's negative; [24]/[25] the bars of players 1/2,
    [26]/[27] their checkers off. The side on roll is player 2, own point p at index p - 1.
    """
    from willse_backgammon.Main_Files import Logic  # imports arcade (for its sprites)

    def board(pos: Position) -> Any:
        positions = [0] * 28
        for i in range(24):
            positions[i] += pos.player[i]
            positions[23 - i] -= pos.opponent[i]
        positions[24], positions[25] = pos.opponent[24], pos.player[24]
        positions[26] = CHECKERS - sum(pos.opponent)
        positions[27] = CHECKERS - sum(pos.player)
        b = Logic.Board(positions)
        b.updatePip()
        b.updateLastOccupiedPoint(1)
        b.updateLastOccupiedPoint(2)
        b.updateBearOffStatus()
        return b

    boards = [board(pos) for pos, _ in cases]

    def run(i: int) -> list[Any]:
        try:
            return boards[i].returnMoveSequences(2, cases[i][1])
        except Exception:  # a crash is an answer too (a wrong one)
            return []

    def agrees(i: int, ref: Reference) -> bool:
        results = set()
        for sequence in boards[i].returnMoveSequences(2, cases[i][1]):
            after = copy.deepcopy(boards[i])
            after.makeMoves(sequence, 2)
            p = after.positions
            player = [max(p[k], 0) for k in range(24)] + [p[25]]
            opponent = [max(-p[23 - k], 0) for k in range(24)] + [p[24]]
            results.add(_result(player, opponent))
        return results == ref.results

    return [
        Peer(
            "willse-backgammon returnMoveSequences",
            PYTHON,
            run,
            agrees,
            "the resulting positions",
        )
    ]


REQUIREMENTS = "pip install -r requirements/bench.txt"
LIBRARIES = [
    Library("gnubg", C, gnubg_peers, REQUIREMENTS),
    Library("bgsage", CPP, bgsage_peers, REQUIREMENTS),
    Library("OpenSpiel", CPP, openspiel_peers, REQUIREMENTS),
    Library("gym-backgammon", PYTHON, gym_backgammon_peers, REQUIREMENTS),
    Library("pygammon", PYTHON, pygammon_peers, REQUIREMENTS),
    Library(
        "willse-backgammon",
        PYTHON,
        willse_peers,
        "optional: pip install willse-backgammon==0.0.2",
    ),
]
