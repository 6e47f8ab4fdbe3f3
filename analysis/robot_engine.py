"""The practice robot's engine side (docs/practice.md): what the club's robot does at
its turn, decided by bgsage in the analysis worker.

Plain Python like ``analysis.engine`` (no Django): the worker that loads it may be a
Django-free Celery worker. The request comes by name on ``ANALYSIS_QUEUE`` from the
table engine (``matches.table_engine``), as JSON: the game as the rules core serializes
it, the match's state, the robot's strength, the table and its turn number. The answer
goes back by name (``REPLY_TASK``) on the queue the request names, where the Django side
applies it through the table engine only if the table is still at that turn.

The strengths (plies in GNU Backgammon's numbering, as ``analysis.engine``):

- ``beginner``: 0-ply with Gaussian noise (``BEGINNER_NOISE``) on every equity it
  compares, seeded by the table and the turn (the same request, the same answer);
- ``intermediate``: 0-ply, the network's best;
- ``expert``: 1-ply (eXtreme Gammon's and bgsage's 2-ply), the engine's best.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, NotRequired, TypedDict

from celery import current_app, shared_task

from analysis.engine import CubeChoice, Engine
from backgammon.game import Game, Phase, Result
from backgammon.match import MatchState
from backgammon.notation import format_play

# The task names: the request (this module's) and the answer (the Django side's).
TASK = "analysis.robot_move"
REPLY_TASK = "matches.robot_act"
# The noise added to each equity the beginner compares: GNU Backgammon's "beginner"
# (an equity's standard deviation of 0.06).
BEGINNER_NOISE = 0.06
# A resignation is accepted when it gives at least the robot's expected points less
# this: the network's estimate of a sure gammon is a little over 2.
RESIGN_TOLERANCE = 0.05


@dataclass(frozen=True)
class Strength:
    """A robot's depth (gnubg's numbering) and the noise on its equities."""

    plies: int
    noise: float = 0.0


STRENGTHS = {
    "beginner": Strength(plies=0, noise=BEGINNER_NOISE),
    "intermediate": Strength(plies=0),
    "expert": Strength(plies=1),
}


class RobotRequest(TypedDict):
    """What the table engine sends when the robot is to act."""

    table: int
    turn_no: int
    strength: str
    game: dict[str, Any]  # ``Game.to_dict()``
    match: dict[str, Any]  # ``MatchState.to_dict()``
    reply_queue: NotRequired[str]


class RobotAction(TypedDict):
    """The robot's action: ``act`` one of the match's actions, ``play`` a move's text."""

    act: str
    play: NotRequired[str]


@cache
def engine(plies: int) -> Engine:
    """One engine a depth per process (the networks loaded once)."""
    return Engine(plies)


def decide(request: RobotRequest) -> RobotAction:
    """The robot's action at the request's turn; ``ValueError`` for a strength it does
    not know or a game with nothing for it to do."""
    strength = STRENGTHS.get(request["strength"])
    if strength is None:
        raise ValueError(f"no robot strength {request['strength']!r}")
    game = Game.from_dict(request["game"])
    state = MatchState.from_dict(request["match"])
    rng = random.Random(f"{request['table']}:{request['turn_no']}:{request['strength']}")
    chooser = _Chooser(engine(strength.plies), strength.noise, rng)
    match game.phase:
        case Phase.ROLL:
            return {"act": "double" if chooser.doubles(game, state) else "roll"}
        case Phase.MOVE:
            return {"act": "move", "play": chooser.play(game, state)}
        case Phase.TAKE_OR_PASS:
            return {"act": chooser.answer(game, state)}
        case Phase.RESIGN_OFFERED:
            accepts = chooser.accepts_resignation(game)
            return {"act": "accept_resign" if accepts else "reject_resign"}
    raise ValueError(f"nothing to do in phase {game.phase.value}")


@dataclass
class _Chooser:
    """The engine's choices, each equity with the strength's noise added."""

    engine: Engine
    noise: float
    rng: random.Random

    def _noisy(self, equity: float) -> float:
        return equity + self.rng.gauss(0.0, self.noise) if self.noise else equity

    def play(self, game: Game, state: MatchState) -> str:
        """The play with the best (noisy) equity, as move text."""
        choice = self.engine.checker(game, state)
        scored = [self._noisy(equity) for equity in choice.equities]
        best = max(range(len(scored)), key=scored.__getitem__)
        return format_play(choice.plays[best].steps)

    def doubles(self, game: Game, state: MatchState) -> bool:
        """Doubling earns more than not (against the best answer)."""
        choice = self.engine.cube(game, state)
        if choice is None:
            return False
        return self._noisy(choice.double) > self._noisy(choice.no_double)

    def answer(self, game: Game, state: MatchState) -> str:
        """The answer to the double waiting: take, pass or (money, beavers allowed, the
        taker the favourite) beaver. A beaver offered to the robot is always taken: it
        doubled, and passing would give up the doubled cube."""
        cube = game.cube
        if cube.beavered:
            return "take"
        choice = self._before_double(game, state)
        take, pass_ = self._noisy(-choice.double_take), self._noisy(-choice.double_pass)
        if take < pass_:
            return "pass"
        room = cube.max_value is None or cube.value * 4 <= cube.max_value
        if game.options.beavers and state.money and take > 0 and room:
            return "beaver"
        return "take"

    def _before_double(self, game: Game, state: MatchState) -> CubeChoice:
        """The doubler's cube decision as it stood before its double."""
        before = replace(game.cube, pending=None, beavered=False)
        choice = self.engine.cube(game, state, before)
        if choice is None:  # a double the engine calls dead: take, as nothing is at stake
            return CubeChoice(0.0, 0.0, 1.0)
        return choice

    def accepts_resignation(self, game: Game) -> bool:
        """The offered points (a cube's worth) are at least what the robot expects
        playing on, within ``RESIGN_TOLERANCE``: its cubeless equity in this position
        (the network's, before a roll). A match's score is not weighed: points, not
        match equity."""
        assert game.resignation is not None
        offered = _RESIGNED_POINTS[game.resignation]
        equity = self.engine.cubeless(game)
        expected = equity if game.turn == game.on_roll else -equity
        return offered >= expected - RESIGN_TOLERANCE


_RESIGNED_POINTS = {Result.SINGLE: 1, Result.GAMMON: 2, Result.BACKGAMMON: 3}


@shared_task(name=TASK, ignore_result=True)
def robot_move(request: RobotRequest) -> RobotAction | None:
    """Decide the robot's action and send it back by name for the table engine to
    apply (at the request's turn only). A request the robot cannot answer is logged by
    Celery and left: the turn's clock still runs, and the sweep asks again."""
    action = decide(request)
    current_app.send_task(
        REPLY_TASK,
        args=[request["table"], request["turn_no"], action],
        queue=request.get("reply_queue", "celery"),
    )
    return action
