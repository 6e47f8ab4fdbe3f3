"""GNU Backgammon's judgement of a match's game, for the depths where bgsage is slow.

bgsage searches every roll of every candidate without pruning: a 7-point match takes it
4.8 s at 1-ply and a minute or two at 2-ply (gnubg's numbering; its own 2- and 3-ply),
where gnubg's pruned search takes 0.9 s and 9 s (docs/analysis.md, "Depth and engine").
gnubg's Python binding gives no cube decision for a position, so it analyses the game
as it would on a desktop (``import mat``, ``analyse game``) and the game saved as SGF is
read back: each play's candidates with their equities, each cube decision's cubeful
equities. ``GnubgGame`` answers the engine's questions (``checker``, ``cube``) from it,
in the game's order, so that ``analysis.engine.analyse_game`` walks the game and judges
it exactly as with bgsage.

Matches, and money sessions without beavers: gnubg knows one cube, not a chouette's.
Plain Python like the rest of the engine's side (no Django); gnubg is imported on the
first game judged, so the engine worker loads it only when the setting asks for it.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.engine import CheckerChoice, CubeChoice, TimeUp, may_double
from backgammon.cube import CubeContract
from backgammon.game import Game
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord, export_mat
from backgammon.moves import Play
from backgammon.position import BAR, POINTS, Position

ENGINE = "gnubg"
ENGINE_VERSION = importlib.metadata.version("gnubg")

# The deepest analysis that is bgsage's (its network alone, twice gnubg's speed there);
# deeper, gnubg judges a match's games, five times faster at 1-ply and ten at 2-ply
# (bench/analysis.py: a 7-point match 0.9 s against 4.8 at 1-ply, 9 s against 84).
BGSAGE_DEEPEST = 0

# gnubg's engine is one per process, not to be entered from two threads at once.
_LOCK = threading.Lock()

# gnubg's evaluation cache, in positions: its default (half a million) is slower than a
# small one that stays in the processor's caches (bench/analysis.py's matches: a sixth
# faster at 1-ply, 6% at 2-ply) and takes the engine worker 27 MB more (89 MB, not 62).
CACHE_POSITIONS = 16384


class GnubgError(RuntimeError):
    """gnubg's analysis does not follow the game the club recorded."""


@dataclass
class Node:
    """One move of an SGF game: who (``B`` or ``W``), what (dice and checkers, or a cube
    action), and gnubg's analysis of it (``A``: the plays; ``DA``: the cube)."""

    colour: str
    action: str
    properties: dict[str, list[str]]


_PROPERTY = re.compile(r"([A-Z]+)((?:\[(?:[^\]\\]|\\.)*\])+)")
_VALUE = re.compile(r"\[((?:[^\]\\]|\\.)*)\]")


def sgf_nodes(text: str) -> list[Node]:
    """The moves of the one game ``text`` holds (gnubg's ``save game``), in order."""
    nodes = []
    for chunk in _split_nodes(text):
        properties = {name: _VALUE.findall(values) for name, values in _PROPERTY.findall(chunk)}
        for colour in ("B", "W"):
            if colour in properties:
                nodes.append(Node(colour, properties[colour][0], properties))
    return nodes


def _split_nodes(text: str) -> Iterator[str]:
    """The text of each node: ``;`` outside a property's brackets starts one."""
    start, inside, escaped = 0, False, False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            inside = True
        elif char == "]":
            inside = False
        elif char == ";" and not inside:
            yield text[start:index]
            start = index + 1
    yield text[start:]


def _point(letter: str, white: bool) -> int:
    """A point of an SGF move as the mover's own point: 25 the bar, 0 off. gnubg writes
    both sides' moves in white's numbering, ``a`` its 1 point, ``y`` the bar, ``z`` off."""
    index = ord(letter) - ord("a")
    if index == 24:
        return BAR + 1
    if index == 25:
        return 0
    return index + 1 if white else POINTS - index


def _result(position: Position, letters: str, white: bool) -> Position:
    """The position, mover first, after the SGF move ``letters`` (pairs of points)."""
    player, opponent = list(position.player), list(position.opponent)
    for i in range(0, len(letters), 2):
        origin, destination = _point(letters[i], white), _point(letters[i + 1], white)
        player[origin - 1] -= 1
        if destination:
            player[destination - 1] += 1
            if opponent[POINTS - destination] == 1:
                opponent[POINTS - destination] = 0
                opponent[BAR] += 1
    return Position(tuple(player), tuple(opponent))


def _numbers(evaluation: str) -> list[str]:
    """The words of an SGF evaluation after its version (``E ver 3 ...``): a play's five
    chances and its equity, then the evaluation's settings; a cube's settings, then
    for no double and for double/take the five chances, the cubeless and the cubeful
    equity (a match winning chance in a match)."""
    words = evaluation.split()
    return words[words.index("ver") + 2 :]


class GnubgGame:
    """gnubg's analysis of one game, answering ``analysis.engine.analyse_game``'s
    questions in the game's order: the plays of each roll (``checker``) and the cube
    before it (``cube``), each read from the SGF node of that turn."""

    def __init__(self, nodes: list[Node], white_side: int) -> None:
        self._nodes = nodes
        self._next = 0
        self._white_side = white_side

    def checker(
        self, game: Game, state: MatchState, contract: CubeContract | None = None
    ) -> CheckerChoice:
        """The roll's legal plays, best first, with gnubg's equities; a play gnubg did
        not rank (it ranks the plays its filters keep, and the one made) after them."""
        node = self._turn(game)
        self._next += 1
        view = game.position_for(game.on_roll)
        assert isinstance(view, Position)
        plays = {p.result: p for p in game.legal_plays() if isinstance(p, Play)}
        if len(plays) == 1:
            return CheckerChoice(tuple(plays.values()), (0.0,))
        if "A" not in node.properties:
            raise GnubgError(f"gnubg did not judge the play {node.action}")
        white = game.on_roll == self._white_side
        ranked: dict[Position, float] = {}
        for candidate in node.properties["A"][1:]:
            letters, _, evaluation = candidate.partition(" ")
            after = _result(view, letters, white)
            if after not in plays:
                raise GnubgError(f"gnubg ranks a play the rules do not allow: {letters}")
            ranked.setdefault(after, float(_numbers(evaluation)[5]))
        order = sorted(ranked, key=ranked.__getitem__, reverse=True)
        worst = min(ranked.values())
        unranked = [p for p in plays if p not in ranked]
        return CheckerChoice(
            tuple(plays[p] for p in order + unranked),
            tuple(ranked[p] for p in order) + (worst,) * len(unranked),
        )

    def cube(
        self, game: Game, state: MatchState, contract: CubeContract | None = None
    ) -> CubeChoice | None:
        """The cube before the side on roll's roll, from the DA of its turn's first
        node (its move, or its double); None when it may not double, or gnubg did
        not judge it."""
        if not may_double(game, state, contract):
            return None
        node = self._turn(game)
        if "DA" not in node.properties:
            return None
        numbers = _numbers(node.properties["DA"][0])
        no_double, double_take = float(numbers[-8]), float(numbers[-1])
        if not state.money:
            no_double, double_take = (
                _normalised(mwc, game, state) for mwc in (no_double, double_take)
            )
        return CubeChoice(no_double, double_take, 1.0)

    def _turn(self, game: Game) -> Node:
        """The first node of the side on roll's turn not read yet: the answers to an
        earlier double (read by nobody) are passed over."""
        colour = "W" if game.on_roll == self._white_side else "B"
        while self._next < len(self._nodes):
            node = self._nodes[self._next]
            if node.colour == colour and node.action not in ("take", "drop", "beaver"):
                if node.action == "double" and game.dice is not None:
                    self._next += 1  # the double before this roll: its move comes next
                    continue
                return node
            self._next += 1
        raise GnubgError("gnubg's record of the game ends before the club's")


def _normalised(mwc: float, game: Game, state: MatchState) -> float:
    """A match winning chance of the side on roll as gnubg's normalised equity: -1 for
    losing the cube's value, +1 for winning it."""
    import gnubg

    side = game.on_roll
    info = gnubg.cubeinfo(
        game.cube.value,
        -1 if game.cube.owner is None else 0 if game.cube.owner == side else 1,
        0,
        state.length,
        (state.score[side], state.score[1 - side]),
        int(game.options.crawford),
        0,
    )
    win, lose = float(gnubg.eq2mwc(1.0, info)), float(gnubg.eq2mwc(-1.0, info))
    return 2 * (mwc - lose) / (win - lose) - 1


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """What C code prints on the process's standard output (gnubg's commands chat there)
    sent to /dev/null for the block."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def configure(plies: int) -> None:
    """gnubg set to analyse at ``plies`` as the club does: one thread (0 hangs), cubeful
    checker play and cube, a small cache, and no luck (the dice's, which the club does
    not report: an eighth of a 1-ply analysis)."""
    import gnubg

    gnubg.command("set threads 1")
    gnubg.command(f"set cache {CACHE_POSITIONS}")
    gnubg.command("set analysis luck off")
    for part in ("chequerplay", "cubedecision"):
        gnubg.command(f"set analysis {part} evaluation plies {plies}")
        gnubg.command(f"set analysis {part} evaluation cubeful on")


def game_nodes(record: MatchRecord, number: int, plies: int) -> list[Node]:
    """gnubg's analysis at ``plies`` of game ``number`` (from 0) of ``record``: the match
    imported whole (the score and Crawford of each game are the file's), that game
    analysed and saved."""
    import gnubg

    with _LOCK, tempfile.TemporaryDirectory(prefix="gnubg-") as folder, quiet():
        match, saved = Path(folder, "match.mat"), Path(folder, "game.sgf")
        match.write_text(export_mat(record))
        configure(plies)
        gnubg.command(f"import mat {match}")
        read = gnubg.match(analysis=False, boards=False)  # None: no match at all
        if read is None or len(read["games"]) != len(record.games):
            # Its error went to /dev/null with its chat.
            raise GnubgError("gnubg could not read the match's file")
        gnubg.command("first game")
        if number:
            gnubg.navigate(game=number)
        gnubg.command("analyse game")
        gnubg.command(f"save game {saved}")
        return sgf_nodes(saved.read_text())


def judge_of(record: MatchRecord, number: int, plies: int, deadline: float) -> GnubgGame:
    """The judge of game ``number`` (from 0) of ``record`` at ``plies``, unless the run's
    soft ``deadline`` (seconds since the epoch) is past: gnubg's analysis of a game is
    one call, stopped only by the hard limit. gnubg writes the match's first player
    (the ``.mat``'s left column) as white."""
    if time.time() > deadline:
        raise TimeUp
    return GnubgGame(game_nodes(record, number, plies), white_side=0)


def record_of(games: list[dict[str, Any]]) -> MatchRecord:
    """The match a job's ``games`` (``analysis.jobs.games_of``) make, for its ``.mat``
    (the players' names do not matter to the analysis)."""
    return MatchRecord(
        ("first", "second"),
        MatchState.from_dict(games[0]["state"]),
        tuple(Game.from_dict(played["game"]) for played in games),
    )
