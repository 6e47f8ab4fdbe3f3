"""The engine's side of match analysis: every decision of a match judged by bgsage.

Plain Python like the rules core (no Django): the Celery task of the ``analysis`` queue
imports it, and nothing the web process loads does (bgsage is a C++ engine with its
neural nets in the wheel; a test holds the web's URLconf to that). The definitions
(what counts, the marks, PR) are in docs/analysis.md; why bgsage and not gnubg is there
too, with the figures of bench/analysis.py.

``plies`` is GNU Backgammon's numbering, which the club shows: 0 is the network alone
(bgsage and eXtreme Gammon call that 1-ply), 1 looks one roll ahead, and so on.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Protocol, TypedDict

import bgbot_cpp
from bgsage import can_double_match
from bgsage.weights import default_weights

from analysis.marks import CLOSE_CUBE, Decision, Kind
from backgammon.cube import CubeContract, Holder
from backgammon.game import (
    Action,
    Beaver,
    Double,
    Game,
    Move,
    NoMove,
    Pass,
    Phase,
    Roll,
    Take,
)
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord
from backgammon.moves import Play
from backgammon.notation import format_play
from backgammon.position import Position
from backgammon.team import BOX
from backgammon.variants import STANDARD

ENGINE = "bgsage"
ENGINE_VERSION = importlib.metadata.version("bgsage")


class Unsupported(ValueError):
    """A match the engine cannot judge (only standard backgammon is)."""


class TimeUp(Exception):
    """The run's time is up (its soft limit, ``Engine.deadline``): it stops between two
    decisions."""


def sage_board(position: Position) -> list[int]:
    """Our position (side on roll first) as bgsage's 26 numbers: the mover's checkers
    positive on its points 1-24, the opponent's negative, [25] the mover's bar, [0] the
    opponent's."""
    player, opponent = position.player, position.opponent
    # Point n of the mover (slot n - 1) is the opponent's point 25 - n (slot 24 - n).
    return [
        opponent[24],
        *[mine - theirs for mine, theirs in zip(player[:24], opponent[23::-1], strict=True)],
        player[24],
    ]


_OWNERS = {
    "centered": bgbot_cpp.CubeOwner.CENTERED,
    "player": bgbot_cpp.CubeOwner.PLAYER,
    "opponent": bgbot_cpp.CubeOwner.OPPONENT,
}


class SageCube(TypedDict):
    """The cube and score as bgsage's batch functions take them."""

    cube_value: int
    cube_owner: bgbot_cpp.CubeOwner
    away1: int
    away2: int
    is_crawford: bool


@dataclass(frozen=True)
class Situation:
    """What the engine needs besides the board: the cube and the score, for the side to act."""

    cube_value: int
    cube_owner: str  # "centered", "player" (the side to act) or "opponent"
    away: tuple[int, int]  # points the side to act and its opponent still need; (0, 0): money
    crawford: bool
    jacoby: bool
    beavers: bool

    def cube_args(self) -> SageCube:
        """The cube and score as bgsage's batch functions take them."""
        return {
            "cube_value": self.cube_value,
            "cube_owner": _OWNERS[self.cube_owner],
            "away1": self.away[0],
            "away2": self.away[1],
            "is_crawford": self.crawford,
        }


def situation(
    game: Game, state: MatchState, side: int, contract: CubeContract | None = None
) -> Situation:
    """The cube (``contract``, default the game's one) and score of ``game`` (played in
    ``state``) as ``side`` sees them."""
    cube = game.cube if contract is None else contract
    owner = "centered" if cube.owner is None else "player" if cube.owner == side else "opponent"
    away = (0, 0)
    if not state.money:
        away = (state.length - state.score[side], state.length - state.score[1 - side])
    jacoby = game.options.jacoby and state.money
    return Situation(
        cube_value=cube.value,
        cube_owner=owner,
        away=away,
        crawford=game.options.crawford,
        jacoby=jacoby,
        beavers=game.options.beavers and state.money,
    )


@dataclass(frozen=True)
class CheckerChoice:
    """The legal plays of a roll, best first, with their equities for the mover."""

    plays: tuple[Play, ...]
    equities: tuple[float, ...]


@dataclass(frozen=True)
class CubeChoice:
    """The cube's equities for the side on roll: no double, double/take, double/pass."""

    no_double: float
    double_take: float
    double_pass: float

    @property
    def double(self) -> float:
        """What a double earns against the best answer."""
        return min(self.double_take, self.double_pass)

    @property
    def best_action(self) -> float:
        return max(self.no_double, self.double)


class Engine:
    """bgsage at ``plies`` (gnubg's numbering) on one thread, cubeful.

    Called through bgsage's C++ batch functions with strategies built once: its
    ``BgBotAnalyzer`` reads the networks from disk again for every cube decision (a
    quarter of a second each) and runs deeper searches on two threads at least.
    """

    def __init__(self, plies: int) -> None:
        if plies < 0:
            raise ValueError("plies are 0 or more")
        self.plies = plies
        self.deadline: float | None = None  # seconds since the epoch: the soft limit
        weights = default_weights()
        paths, hidden = weights.weight_args
        self._network = bgbot_cpp.create_strategy(weights.strategy_type, paths, hidden)
        self._search = [self._network]
        if plies:
            self._search.append(
                bgbot_cpp.create_multipy(
                    weights.strategy_type,
                    paths,
                    hidden,
                    n_plies=plies + 1,
                    parallel_evaluate=False,
                    parallel_threads=0,
                )
            )

    @contextlib.contextmanager
    def until(self, deadline: float) -> Iterator[Engine]:
        """The engine with the soft limit ``deadline`` (seconds since the epoch) for the
        block, none after it: one engine serves a run's games and the robot's moves."""
        self.deadline = deadline
        try:
            yield self
        finally:
            self.deadline = None

    def in_time(self) -> None:
        """Raise ``TimeUp`` once past ``deadline``: checked before each decision."""
        if self.deadline is not None and time.time() > self.deadline:
            raise TimeUp

    def checker(
        self, game: Game, state: MatchState, contract: CubeContract | None = None
    ) -> CheckerChoice:
        """The rolled position's legal plays ranked by the engine, best first, with the
        cube of ``contract`` (default the game's one cube)."""
        self.in_time()
        view = game.position_for(game.on_roll)
        assert isinstance(view, Position) and game.dice is not None
        # The game found its roll's plays when the dice were rolled.
        plays = {tuple(sage_board(p.result)): p for p in game.legal_plays() if isinstance(p, Play)}
        if len(plays) == 1:
            return CheckerChoice(tuple(plays.values()), (0.0,))
        at = situation(game, state, game.on_roll, contract)
        asked = {"board": sage_board(view), "die1": game.dice[0], "die2": game.dice[1]}
        asked.update(at.cube_args())
        (ranked,) = bgbot_cpp.batch_checker_play(
            [asked], *self._search, n_threads=1, jacoby=at.jacoby, beaver=at.beavers
        )
        found = [(plays[tuple(m["board"])], float(m["equity"])) for m in ranked["moves"]]
        return CheckerChoice(tuple(p for p, _ in found), tuple(e for _, e in found))

    def cube(
        self, game: Game, state: MatchState, contract: CubeContract | None = None
    ) -> CubeChoice | None:
        """The side on roll's cube decision before its roll on ``contract`` (default the
        game's one cube); None when it may not double."""
        self.in_time()
        if not may_double(game, state, contract):
            return None
        view = game.position_for(game.on_roll)
        assert isinstance(view, Position)
        at = situation(game, state, game.on_roll, contract)
        args = at.cube_args()
        asked = (sage_board(view), args["cube_value"], args["cube_owner"], *at.away, at.crawford)
        (answer,) = bgbot_cpp.batch_evaluate_positions(
            [asked], self._search[-1], 1, jacoby=at.jacoby, beaver=at.beavers
        )
        return CubeChoice(
            float(answer["equity_nd"]), float(answer["equity_dt"]), float(answer["equity_dp"])
        )

    def cubeless(self, game: Game) -> float:
        """The network's cubeless money equity (points per cube) of the position before
        a roll, for the side on roll (the practice robot's answer to a resignation)."""
        view = game.position_for(game.on_roll)
        assert isinstance(view, Position)
        asked = (sage_board(view), 1, _OWNERS["centered"], 0, 0, False)
        (answer,) = bgbot_cpp.batch_evaluate_positions(
            [asked], self._network, 1, jacoby=False, beaver=False
        )
        return float(answer["cubeless_equity"])


class Judge(Protocol):
    """What ``analyse_game`` asks of an engine: bgsage's ``Engine``, or gnubg's analysis
    of the game (``analysis.gnubg_engine.GnubgGame``)."""

    def checker(
        self, game: Game, state: MatchState, contract: CubeContract | None = None
    ) -> CheckerChoice: ...

    def cube(
        self, game: Game, state: MatchState, contract: CubeContract | None = None
    ) -> CubeChoice | None: ...


@cache
def engine_at(plies: int) -> Engine:
    """The process's engine at ``plies``: its networks (18 MB a depth) loaded once, for
    the analyses and the robot alike."""
    return Engine(plies)


def may_double(game: Game, state: MatchState, contract: CubeContract | None = None) -> bool:
    """The side on roll may double now (on ``contract``, default the game's one cube),
    and doubling can change something (a dead cube in a match cannot)."""
    side = game.on_roll
    if not game.options.cube_allowed or game.options.crawford:
        return False
    if not (game.cube if contract is None else contract).can_offer(side):
        return False
    at = situation(game, state, side, contract)
    if state.money:
        return True
    return bool(can_double_match(at.away[0], at.away[1], at.cube_value, at.cube_owner, False))


def judged(game: Game) -> None:
    """Raise ``Unsupported`` unless the engines can judge ``game``: standard backgammon,
    one cube (a chouette game has its own walk, ``analyse_chouette_game``)."""
    if game.options.variant != STANDARD or len(game.contracts) != 1:
        raise Unsupported("only standard backgammon matches and money sessions are analysed")


def analyse_game(engine: Judge, game: Game, state: MatchState) -> list[Decision]:
    """Every checker play and cube decision of ``game`` (played in ``state``), in order.

    ``move_number`` counts the rolls of the game, the opening roll being 1; a cube
    decision has the number of the roll it comes before.
    """
    judged(game)
    history = game.compact().history
    decisions: list[Decision] = []
    roll_number = 1
    replayed = Game.start(game.options, game.opening)
    for index, action in enumerate(history):
        if isinstance(action, Move):
            decision, replayed = _checker_decision(engine, replayed, state, action, roll_number)
            decisions.append(decision)
            continue
        if isinstance(action, Roll | Double) and replayed.phase is Phase.ROLL:
            choice = engine.cube(replayed, state)
            if choice is not None:
                doubled = isinstance(action, Double)
                answer = _answer(history[index + 1 : index + 2]) if doubled else None
                decisions.extend(
                    _cube_decisions(choice, replayed.on_roll, doubled, answer, roll_number + 1)
                )
        if isinstance(action, Roll):
            roll_number += 1
        if not isinstance(action, NoMove):  # the record of a roll, which the roll replays
            replayed = replayed.apply(action)
    return decisions


def _checker_decision(
    engine: Judge,
    game: Game,
    state: MatchState,
    move: Move,
    roll_number: int,
    contract: CubeContract | None = None,
) -> tuple[Decision, Game]:
    """The play's decision, and the game after it (played once: checked against the
    roll's legal plays)."""
    choice = engine.checker(game, state, contract)
    after = game.play(move.steps)
    played = after.position_for(game.on_roll)
    index = next(i for i, p in enumerate(choice.plays) if p.result == played)
    decision = Decision(
        move_number=roll_number,
        side=game.on_roll,
        kind=Kind.CHECKER,
        played=format_play(move.steps),
        best=format_play(choice.plays[0].steps),
        played_equity=choice.equities[index],
        best_equity=choice.equities[0],
        counted=len(choice.plays) > 1,
    )
    return decision, after


def _answer(following: Sequence[object]) -> str | None:
    """The answer to a double, the action after it (none when a forfeit ended the game)."""
    for action in following:
        if isinstance(action, Take):
            return "take"
        if isinstance(action, Pass):
            return "pass"
        if isinstance(action, Beaver):
            return "beaver"
    return None


def _cube_decisions(
    choice: CubeChoice, side: int, doubled: bool, answer: str | None, roll_number: int
) -> Iterator[Decision]:
    """``side``'s decision to double or not and, after a double, the ``answer``'s.

    A beaver is judged as a take: the engine gives a beaver's equity only when a
    beaver is the best answer."""
    played_equity = choice.double if doubled else choice.no_double
    yield Decision(
        move_number=roll_number,
        side=side,
        kind=Kind.CUBE,
        played="double" if doubled else "no double",
        best="double" if choice.double > choice.no_double else "no double",
        played_equity=played_equity,
        best_equity=choice.best_action,
        counted=doubled
        or choice.best_action - choice.double < CLOSE_CUBE
        or played_equity < choice.best_action,
    )
    if answer is not None:
        take, pass_ = -choice.double_take, -choice.double_pass
        yield Decision(
            move_number=roll_number,
            side=1 - side,
            kind=Kind.CUBE,
            played=answer,
            best="take" if take >= pass_ else "pass",
            played_equity=pass_ if answer == "pass" else take,
            best_equity=max(take, pass_),
            counted=True,
        )


def analyse_chouette_game(engine: Engine, start: Game, history: Sequence[Action]) -> list[Decision]:
    """Every decision of a chouette game played from ``start`` through ``history``, each
    judged for the one who made it (docs/analysis.md, "Chouettes"): the box's checker
    plays (side 0) and the team's (side 1, ``holder`` the member who moved for it), and
    on every member's own cube, before each roll, the double or no double of the side on
    roll and the answer to a double: the box doubling the member and the member's take
    or pass, or the member doubling the box and the box's answer (``holder`` the member
    whose cube it is). Money equity, per point at stake, so the cubes add up."""
    if start.options.chouette is None or start.options.variant != STANDARD:
        raise Unsupported("not a chouette game at standard backgammon")
    state = MatchState()  # money: the game's own options say Jacoby and beavers
    decisions: list[Decision] = []
    roll_number = 1
    replayed = start
    judged = False  # the turn's cube decisions are judged (at its first action)
    for index, action in enumerate(history):
        if isinstance(action, Move):
            # Judged with the captain's cube: the member moving for the team, and the
            # box's first opponent.
            captain = replayed.captain
            assert captain is not None  # a game someone is still playing
            on_roll = replayed.on_roll
            move, replayed = _checker_decision(
                engine, replayed, state, action, roll_number, replayed.contract(captain)
            )
            decisions.append(replace(move, holder=None if on_roll == BOX else captain))
            continue
        if replayed.phase is Phase.ROLL and not judged and not isinstance(action, NoMove):
            judged = True
            decisions.extend(
                _chouette_cube(engine, replayed, state, history[index:], roll_number + 1)
            )
        if isinstance(action, Roll):
            roll_number += 1
            judged = False
        if not isinstance(action, NoMove):
            replayed = replayed.apply(action)
    return decisions


def _chouette_cube(
    engine: Engine, game: Game, state: MatchState, turn: Sequence[Action], roll_number: int
) -> Iterator[Decision]:
    """The cube decisions of the side on roll's turn, one set per member's cube: who
    doubled in ``turn`` (the actions up to the roll) and how each double was answered."""
    doubled: set[Holder] = set()
    answers: dict[Holder, str] = {}
    for action in turn:
        if isinstance(action, Roll):
            break
        if isinstance(action, Double):
            doubled.update(action.holders)
        elif isinstance(action, Take | Pass | Beaver):
            answers.setdefault(action.holder, _answer([action]) or "")
    choices: dict[str, CubeChoice | None] = {}  # one board: the owner alone differs
    for contract in game.contracts:
        if not contract.can_offer(game.on_roll):
            continue
        owner = situation(game, state, game.on_roll, contract).cube_owner
        if owner not in choices:
            choices[owner] = engine.cube(game, state, contract)
        choice = choices[owner]
        if choice is None:
            continue
        holder = contract.holder
        for decision in _cube_decisions(
            choice,
            game.on_roll,
            holder in doubled,
            answers.get(holder) if holder in doubled else None,
            roll_number,
        ):
            yield replace(decision, holder=holder)


ProgressCallback = Callable[[int, int], None]


def analyse_match(
    engine: Engine, record: MatchRecord, progress: ProgressCallback | None = None
) -> list[list[Decision]]:
    """Each game's decisions; ``progress(done, total)`` after each game."""
    games: list[list[Decision]] = []
    for index, game in enumerate(record.games):
        games.append(analyse_game(engine, game, record.state_before(index)))
        if progress is not None:
            progress(index + 1, len(record.games))
    return games
