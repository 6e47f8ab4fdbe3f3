"""The practice robot's engine side (docs/practice.md): what the club's robot does at
its turn, decided by bgsage in the analysis worker.

Plain Python like ``analysis.engine`` (no Django): the worker that loads it may be a
Django-free Celery worker. The request comes by name on ``ANALYSIS_QUEUE`` from the
table engine (``matches.table_engine``), as JSON: the game as the rules core serializes
it, the match's state, the robot's strength, the table and its turn number. The answer
goes back by name (``REPLY_TASK``) on the queue the request names, where the Django side
applies it through the table engine only if the table is still at that turn.

A chouette's request (docs/practice.md, "At a chouette") names the robot's ``seat``:
``None`` for the box, else its holder key in the team (its username). Each cube is
judged on its own, as ``analysis.engine.analyse_chouette_game`` judges a member's: money
equity on that contract, the board the same for all.

The strengths (plies in GNU Backgammon's numbering, as ``analysis.engine``):

- ``beginner``: 0-ply with Gaussian noise (``BEGINNER_NOISE``) on every equity it
  compares, seeded by the table and the turn (the same request, the same answer);
- ``intermediate``: 0-ply, the network's best;
- ``expert``: 1-ply (eXtreme Gammon's and bgsage's 2-ply), the engine's best.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, NotRequired, TypedDict

from celery import current_app, shared_task

from analysis.engine import CubeChoice, Engine, engine_at
from backgammon.cube import CubeContract
from backgammon.errors import CubeNotAvailable
from backgammon.game import Game, Phase, Result
from backgammon.games.chouette import TeamGame
from backgammon.match import MatchState
from backgammon.notation import format_play
from backgammon.team import BOX, TEAM

# The task names: the request (this module's) and the answer (the Django side's).
TASK = "analysis.robot_move"
REPLY_TASK = "matches.robot_act"
# A chouette crew member's answer when it does not double: the table engine applies
# nothing.
NOTHING = "none"
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
    seat: NotRequired[str | None]  # a chouette's: None the box, else the member's key


class RobotAction(TypedDict):
    """The robot's action: ``act`` one of the match's actions, ``play`` a move's text;
    at a chouette, ``to`` the members the box doubles, and ``act`` ``NOTHING`` for a
    crew member that does not double."""

    act: str
    play: NotRequired[str]
    to: NotRequired[list[str]]


def decide(request: RobotRequest) -> RobotAction:
    """The robot's action at the request's turn; ``ValueError`` for a strength it does
    not know or a game with nothing for it to do."""
    strength = STRENGTHS.get(request["strength"])
    if strength is None:
        raise ValueError(f"no robot strength {request['strength']!r}")
    game = Game.from_dict(request["game"])
    state = MatchState.from_dict(request["match"])
    rng = random.Random(f"{request['table']}:{request['turn_no']}:{request['strength']}")
    chooser = _Chooser(engine_at(strength.plies), strength.noise, rng)
    if isinstance(game, TeamGame):
        return _chouette_decide(chooser, game, state, request.get("seat"))
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

    def play(self, game: Game, state: MatchState, contract: CubeContract | None = None) -> str:
        """The play with the best (noisy) equity with ``contract``'s cube (default the
        game's one cube), as move text."""
        choice = self.engine.checker(game, state, contract)
        scored = [self._noisy(equity) for equity in choice.equities]
        best = max(range(len(scored)), key=scored.__getitem__)
        return format_play(choice.plays[best].steps)

    def doubles(self, game: Game, state: MatchState, contract: CubeContract | None = None) -> bool:
        """Doubling (on ``contract``, default the game's one cube) earns more than not
        (against the best answer)."""
        choice = self.engine.cube(game, state, contract)
        if choice is None:
            return False
        return self._noisy(choice.double) > self._noisy(choice.no_double)

    def answer(
        self,
        game: Game,
        state: MatchState,
        cube: CubeContract | None = None,
        *,
        may_beaver: bool = True,
    ) -> str:
        """The answer to the double waiting on ``cube`` (default the game's one cube):
        take, pass or (money, beavers allowed and ``may_beaver``, the taker the
        favourite) beaver. A beaver offered to the robot is always taken: it doubled,
        and passing would give up the doubled cube."""
        cube = game.cube if cube is None else cube
        if cube.beavered:
            return "take"
        choice = self._before_double(game, state, cube)
        take, pass_ = self._noisy(-choice.double_take), self._noisy(-choice.double_pass)
        if take < pass_:
            return "pass"
        room = cube.max_value is None or cube.value * 4 <= cube.max_value
        if may_beaver and game.options.beavers and state.money and take > 0 and room:
            return "beaver"
        return "take"

    def _before_double(self, game: Game, state: MatchState, cube: CubeContract) -> CubeChoice:
        """The doubler's cube decision on ``cube`` as it stood before its double."""
        before = replace(cube, pending=None, beavered=False)
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


def _chouette_decide(
    chooser: _Chooser, game: TeamGame, state: MatchState, seat: str | None
) -> RobotAction:
    """The robot's action at a chouette, as the box (``seat`` None) or as the team's
    member ``seat`` (docs/practice.md, "At a chouette")."""
    awaiting = game.awaiting
    if seat is None:
        if game.phase is Phase.RESIGN_OFFERED and awaiting.box:
            return {
                "act": "accept_resign" if chooser.accepts_resignation(game) else "reject_resign"
            }
        if game.phase is Phase.TAKE_OR_PASS and awaiting.box:
            return {"act": _box_answer(chooser, game, state)}
        if game.on_roll == BOX and game.phase is Phase.ROLL:
            doubled = _box_doubles(chooser, game, state)
            return {"act": "double", "to": doubled} if doubled else {"act": "roll"}
        if game.on_roll == BOX and game.phase is Phase.MOVE:
            return {"act": "move", "play": _team_play(chooser, game, state)}
        raise ValueError(f"nothing for the box to do in phase {game.phase.value}")
    if seat in awaiting.members and game.phase is Phase.TAKE_OR_PASS:
        single = game.options.chouette is not None and game.options.chouette.single
        cube = game.contract(seat)
        return {"act": chooser.answer(game, state, cube, may_beaver=not single)}
    if seat in awaiting.members and game.phase is Phase.RESIGN_OFFERED:
        return {"act": "accept_resign" if chooser.accepts_resignation(game) else "reject_resign"}
    if game.may_double(seat) and chooser.doubles(game, state, game.contract(seat)):
        return {"act": "double"}
    if seat == game.captain and game.phase is Phase.ROLL:
        return {"act": "roll"}
    if seat == game.captain and game.phase is Phase.MOVE:
        return {"act": "move", "play": _team_play(chooser, game, state)}
    return {"act": NOTHING}


def _team_play(chooser: _Chooser, game: TeamGame, state: MatchState) -> str:
    """The side on roll's play, judged with the captain's cube (the box's first
    opponent, as the analysis judges it)."""
    captain = game.captain
    assert captain is not None
    return chooser.play(game, state, game.contract(captain))


def _box_doubles(chooser: _Chooser, game: TeamGame, state: MatchState) -> list[str]:
    """The members the box doubles this turn: each cube it may double judged on its own;
    one team cube, every member still in the game or none (judged on the captain's)."""
    if game.doubled:
        return []
    offered = [c for c in game.contracts if game.in_play(c.holder) and c.can_offer(BOX)]
    assert game.options.chouette is not None
    if game.options.chouette.single:
        if offered and chooser.doubles(game, state, offered[0]):
            return [str(h) for h in game.live_holders]
        return []
    return [str(c.holder) for c in offered if chooser.doubles(game, state, c)]


def _box_answer(chooser: _Chooser, game: TeamGame, state: MatchState) -> str:
    """The box's answer to the next team double in line; when same value, same action
    (H9) refuses it, the answer the rule leaves."""
    due = next(c for c in game.contracts if c.pending == TEAM)
    answer = chooser.answer(game, state, due)
    try:
        {"take": game.take, "pass": game.pass_, "beaver": game.beaver}[answer]()
    except CubeNotAvailable:
        return "take" if answer == "pass" else "pass"
    return answer


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
