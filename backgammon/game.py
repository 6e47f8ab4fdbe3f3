"""One game of backgammon as an immutable state machine.

Every action (``roll``, ``move_step``, ``double``, ``take``...) returns a new ``Game``;
a refused action raises (``NotYourTurn``, ``IllegalPlay``, ``CubeNotAvailable``,
``GameOver``, ``InvalidDice``) and the old value is untouched, so the server can keep the
last good state and replay, undo and caching come for free.

Sides are 0 and 1 (the first and second player of a match; in a chouette the box and
the team: the core does not care who moves for a side). ``position`` is always from
side 0's view; ``position_for(side)`` gives either side's. The core never asks who is
calling: the server checks that the requesting player is ``turn`` (in a chouette, where
several may act at once, one of ``awaiting``).

A game carries one cube contract per stake holder (``GameOptions.holders``): one in a
match or money game, one per team member in a chouette (``GameOptions.chouette``: the box
is side 0, the team side 1, the holders the team in line order, captain first). Points
are per contract, signed from side 0's view (positive: side 0 wins them): see
``points_by_holder`` and ``outcomes``. How a chouette game runs (the team's cube round,
answers per member, resignations per contract, the captain handing over) is told in
docs/rules-core.md, "Chouette games".
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import takewhile
from typing import Any, ClassVar, TypedDict

from backgammon.cube import CubeContract, CubeState, Holder
from backgammon.errors import CubeNotAvailable, GameOver, IllegalPlay, InvalidDice, NotYourTurn
from backgammon.moves import (
    OFF,
    Play,
    Step,
    apply_step,
    check_play,
    dice_for_roll,
    legal_plays,
    legal_plays_for_dice,
)
from backgammon.notation import parse_play, play_from_text
from backgammon.position import Position
from backgammon.tavli import plays as tavli_plays
from backgammon.tavli import turns as tavli_turns
from backgammon.tavli.board import CHECKERS, Side, TavliBoard
from backgammon.tavli.plays import TavliPlay
from backgammon.tavli.rules import TavliRules, mother_outcome
from backgammon.tavli.turns import Turn
from backgammon.team import BOX, TEAM, Awaiting, ChouetteRules, check_same_action
from backgammon.variants import STANDARD, Variant, Variants

Dice = tuple[int, int]
# A board of either family: backgammon's ``Position``, or a tavli game's ``TavliBoard``;
# and a play of either.
Board = Position | TavliBoard
AnyPlay = Play | TavliPlay


class Phase(enum.Enum):
    """What the game waits for (the API's ``phase``)."""

    ROLL = "roll"
    MOVE = "move"
    TAKE_OR_PASS = "take_or_pass"
    RESIGN_OFFERED = "resign_offered"
    OVER = "over"


class Result(enum.Enum):
    """How a game ended; the first three are also what a side may resign (S4).

    The tavli games add theirs: ``MOTHER`` (PL5, 2 points), ``DRAW`` (PL5, 0 points) and
    ``CHECKERS`` (AD7: a point a checker the loser has not borne off); their mars is
    ``GAMMON`` (TV4). A chouette game adds ``SETTLED``: every contract was settled (passed
    or resigned, each with its own outcome) before the board game ended."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    RESIGNED = "resigned"
    PASSED = "passed"
    FORFEIT = "forfeit"
    MOTHER = "mother"
    DRAW = "draw"
    CHECKERS = "checkers"
    SETTLED = "settled"


class ForfeitReason(enum.Enum):
    """Why a side forfeited: its clock ran out, or it left the game."""

    TIMEOUT = "timeout"
    ABANDONED = "abandoned"


# The endings only the tavli games have (PL5, AD7).
TAVLI_RESULTS = frozenset({Result.MOTHER, Result.DRAW, Result.CHECKERS})
_RESIGNABLE = (Result.SINGLE, Result.GAMMON, Result.BACKGAMMON)
# The results that score the value in ``Game.resignation``, not the board's.
_RESIGNED = (Result.RESIGNED, Result.FORFEIT)


@dataclass(frozen=True, slots=True)
class GameOptions:
    """The settings one game is played under.

    The match or session decides them (``MatchState.next_game_options``), which is
    where the match-play restrictions (P2, P3) are applied; the game applies what it is
    given. ``automatic_doubles`` is the most ties that double the cube (0: off, O2);
    ``backgammon_value`` 3 or 2 (S3); ``cube_max`` the highest cube face (``None``: no
    limit, C1); ``crawford`` marks the Crawford game (no cube, P2); ``cube_allowed``
    False plays the game without a cube; ``holders`` names the cube contracts: one in a
    match or money game; in a chouette (``chouette``: the team's cube rules, H4, H8, H9)
    the team members in line order, captain first, the box being side 0.
    """

    variant: Variant = STANDARD
    jacoby: bool = False
    beavers: bool = False
    automatic_doubles: int = 0
    backgammon_value: int = 3
    cube_max: int | None = None
    crawford: bool = False
    cube_allowed: bool = True
    holders: tuple[Holder, ...] = (0,)
    chouette: ChouetteRules | None = None

    def __post_init__(self) -> None:
        if self.backgammon_value not in (2, 3):
            raise ValueError("a backgammon counts 3 or 2 (S3)")
        if self.automatic_doubles < 0:
            raise ValueError("automatic_doubles is a limit, 0 or more")
        if self.cube_max is not None and (self.cube_max < 1 or self.cube_max & (self.cube_max - 1)):
            raise ValueError(f"cube_max {self.cube_max} is not a power of 2")
        if not self.holders or len(set(self.holders)) != len(self.holders):
            raise ValueError("a game needs one or more distinct cube holders")
        if self.chouette is None and len(self.holders) > 1:
            raise ValueError(
                "a match or money game has one cube; several holders are a chouette's team: "
                "give the chouette's rules"
            )
        if self.chouette is not None:
            if len(self.holders) < 2:
                raise ValueError("a chouette's team has two members or more (H1)")
            if self.variant.rules is not None or self.crawford or not self.cube_allowed:
                raise ValueError("a chouette is money play at backgammon, with the cube (H11)")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back equal options."""
        rules = self.variant.rules
        return {
            "variant": self.variant.name,
            **({"variant_options": rules.options()} if rules and rules.options() else {}),
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "automatic_doubles": self.automatic_doubles,
            "backgammon_value": self.backgammon_value,
            "cube_max": self.cube_max,
            "crawford": self.crawford,
            "cube_allowed": self.cube_allowed,
            "holders": list(self.holders),
            **({"chouette": self.chouette.to_dict()} if self.chouette is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameOptions:
        """The options ``to_dict`` wrote."""
        variant = Variants.by_name(data["variant"]).with_options(data.get("variant_options", {}))
        return cls(
            **{
                **{key: value for key, value in data.items() if key != "variant_options"},
                "variant": variant,
                "holders": tuple(data["holders"]),
                "chouette": ChouetteRules.from_dict(data["chouette"])
                if "chouette" in data
                else None,
            }
        )


@dataclass(frozen=True, slots=True)
class Opening:
    """The opening roll as it matters to the game (O1, O2).

    ``dice``: side 0's die and side 1's die, not a tie: the higher die's side moves
    first, playing both (in the tavli games it rolls both dice afresh, TV2).
    ``auto_doubles``: how many of the ties before it doubled the cube. The tied rolls
    themselves change nothing else, so they are not kept. ``starter``: in a tavli match's
    later games there is no opening roll, the winner of the game before starts (TV2):
    ``Opening.winner_starts(side)``, whose ``dice`` are ``(0, 0)``.
    """

    dice: Dice
    auto_doubles: int = 0
    starter: int | None = None

    @classmethod
    def winner_starts(cls, side: int) -> Opening:
        """No opening roll: ``side``, the winner of the game before, starts (TV2)."""
        if side not in (0, 1):
            raise ValueError("the side that starts is 0 or 1")
        return cls((0, 0), starter=side)

    @classmethod
    def from_rolls(cls, rolls: Sequence[Dice], options: GameOptions) -> Opening:
        """The opening of ``rolls`` (ties first, then one non-tie: ``DiceStream.opening_roll``)."""
        rolls = [_check_dice(tuple(roll)) for roll in rolls]
        if not rolls or rolls[-1][0] == rolls[-1][1]:
            raise InvalidDice("the opening rolls must end with a roll that is not a tie")
        if any(a != b for a, b in rolls[:-1]):
            raise InvalidDice("the opening rolls before the last must all be ties")
        doubles = min(len(rolls) - 1, options.automatic_doubles)
        if options.cube_max is not None:
            doubles = min(doubles, options.cube_max.bit_length() - 1)
        return cls(rolls[-1], doubles)

    @property
    def first(self) -> int:
        """The side that moves first."""
        if self.starter is not None:
            return self.starter
        return 0 if self.dice[0] > self.dice[1] else 1


# Actions: the history of a game, enough to replay it (``Game.replay``).


@dataclass(frozen=True, slots=True)
class Roll:
    """The side on roll rolled ``dice``."""

    kind: ClassVar[str] = "roll"
    dice: Dice


@dataclass(frozen=True, slots=True)
class NoMove:
    """Recorded after a ``Roll`` that cannot be played: the turn passed (M5, E2)."""

    kind: ClassVar[str] = "no_move"


@dataclass(frozen=True, slots=True)
class NameDouble:
    """Acey-deucey: after playing the 1-2, the mover named the double ``double`` (AD4)."""

    kind: ClassVar[str] = "name_double"
    double: int


@dataclass(frozen=True, slots=True)
class MoveStep:
    """One checker moved from ``origin`` (25: bar) with ``die``, not yet final (T3)."""

    kind: ClassVar[str] = "move_step"
    origin: int
    die: int


@dataclass(frozen=True, slots=True)
class Undo:
    """The last unconfirmed step taken back (T3)."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Confirm:
    """The steps played this turn made final (T3)."""

    kind: ClassVar[str] = "confirm"


@dataclass(frozen=True, slots=True)
class Move:
    """A whole play made and confirmed in one action (the API's ``move``)."""

    kind: ClassVar[str] = "move"
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Double:
    """The side on roll doubled on the contracts of ``holders`` (in a chouette, on the
    team's turn: those members doubled, or proposed the team's double)."""

    kind: ClassVar[str] = "double"
    holders: tuple[Holder, ...]


@dataclass(frozen=True, slots=True)
class CloseRound:
    """A chouette: the captain ended the team's cube round; its doubles go to the box."""

    kind: ClassVar[str] = "close_round"


@dataclass(frozen=True, slots=True)
class Take:
    """The pending offer on ``holder``'s contract accepted."""

    kind: ClassVar[str] = "take"
    holder: Holder


@dataclass(frozen=True, slots=True)
class Pass:
    """The pending offer on ``holder``'s contract refused."""

    kind: ClassVar[str] = "pass"
    holder: Holder


@dataclass(frozen=True, slots=True)
class Beaver:
    """The double on ``holder``'s contract taken and at once redoubled (C5)."""

    kind: ClassVar[str] = "beaver"
    holder: Holder


@dataclass(frozen=True, slots=True)
class Resign:
    """The side on roll offered to resign ``value`` (in a chouette, a team member
    ``holder`` their own contract; the box, to every member still in the game)."""

    kind: ClassVar[str] = "resign"
    value: Result
    holder: Holder | None = None


@dataclass(frozen=True, slots=True)
class AcceptResign:
    """The resignation on offer accepted: the game is over (in a chouette, ``holder``'s
    contract is settled)."""

    kind: ClassVar[str] = "accept_resign"
    holder: Holder | None = None


@dataclass(frozen=True, slots=True)
class RejectResign:
    """The resignation on offer refused: play goes on (in a chouette, for ``holder``)."""

    kind: ClassVar[str] = "reject_resign"
    holder: Holder | None = None


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``side`` lost on time or left (``reason``): the game is over, whatever it waited for."""

    kind: ClassVar[str] = "forfeit"
    side: int
    reason: ForfeitReason


Action = (
    Roll
    | NoMove
    | NameDouble
    | MoveStep
    | Undo
    | Confirm
    | Move
    | Double
    | CloseRound
    | Take
    | Pass
    | Beaver
    | Resign
    | AcceptResign
    | RejectResign
    | Forfeit
)
_ACTIONS: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        Roll,
        NoMove,
        NameDouble,
        MoveStep,
        Undo,
        Confirm,
        Move,
        Double,
        CloseRound,
        Take,
        Pass,
        Beaver,
        Resign,
        AcceptResign,
        RejectResign,
        Forfeit,
    )
}


def action_to_dict(action: Action) -> dict[str, Any]:
    """A JSON-safe dict for one action: ``{"type": "roll", "dice": [3, 1]}``; a field
    left at ``None`` (a chouette's holder, outside a chouette) is left out."""
    data: dict[str, Any] = {"type": action.kind}
    for f in fields(action):
        value = getattr(action, f.name)
        if value is None:
            continue
        if f.name == "steps":
            value = [[s.origin, s.destination, s.hit] for s in value]
        elif isinstance(value, Result | ForfeitReason):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        data[f.name] = value
    return data


def action_from_dict(data: dict[str, Any]) -> Action:
    """The action ``action_to_dict`` wrote."""
    data = dict(data)
    cls = _ACTIONS[data.pop("type")]
    if "steps" in data:
        data["steps"] = tuple(Step(o, d, bool(h)) for o, d, h in data["steps"])
    if "value" in data:
        data["value"] = Result(data["value"])
    if "reason" in data:
        data["reason"] = ForfeitReason(data["reason"])
    for name in ("dice", "holders"):
        if name in data:
            data[name] = tuple(data[name])
    return cls(**data)


@dataclass(frozen=True, slots=True)
class ResignedContract:
    """A chouette contract settled by a resignation accepted: ``winner`` won ``value``."""

    holder: Holder
    winner: int
    value: Result


@dataclass(frozen=True, slots=True)
class TeamState:
    """What a chouette game keeps beyond its contracts (``Game.team``; None in a match).

    - ``proposals``: one team cube (H4): the members who proposed the team's double this
      turn; it goes to the box once every member still in the game has.
    - ``answering``: the team's doubles the box is answering, in line order, each with
      the cube value doubled (for H9).
    - ``offered_at``: for each contract whose holder (or the box) owes an answer, the
      ``turn_no`` the offer was made at: the answer carries it (API.md), so members
      answering side by side do not make each other's answers stale.
    - ``resign_to``: the box's resignation: the members who still owe it an answer; the
      team's (the captain's, for the team): the contracts the box has still to answer.
    - ``resigner``: the member whose resignation of their own contract the box answers.
    - ``resigned``: the contracts settled by a resignation, in the order accepted.
    """

    proposals: tuple[Holder, ...] = ()
    answering: tuple[tuple[Holder, int], ...] = ()
    offered_at: tuple[tuple[Holder, int], ...] = ()
    resign_to: tuple[Holder, ...] = ()
    resigner: Holder | None = None
    resigned: tuple[ResignedContract, ...] = ()

    def resigned_by(self, holder: Holder) -> ResignedContract | None:
        """How ``holder``'s contract was resigned, if it was."""
        return next((r for r in self.resigned if r.holder == holder), None)

    def offered(self, holders: Iterable[Holder], turn_no: int) -> TeamState:
        """``holders`` owe an answer to an offer made at ``turn_no`` (theirs replaced)."""
        holders = tuple(holders)
        kept = tuple((h, at) for h, at in self.offered_at if h not in holders)
        return replace(self, offered_at=(*kept, *((h, turn_no) for h in holders)))

    def answered(self, holders: Iterable[Holder]) -> TeamState:
        """The offers to ``holders`` answered."""
        holders = tuple(holders)
        return replace(self, offered_at=tuple(p for p in self.offered_at if p[0] not in holders))

    def lapsed(self) -> TeamState:
        """Nothing waits any more (the game ended at once): only the resignations stand."""
        return TeamState(resigned=self.resigned)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back an equal state."""
        return {
            "proposals": list(self.proposals),
            "answering": [list(pair) for pair in self.answering],
            "offered_at": [list(pair) for pair in self.offered_at],
            "resign_to": list(self.resign_to),
            "resigner": self.resigner,
            "resigned": [[r.holder, r.winner, r.value.value] for r in self.resigned],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TeamState:
        """The state ``to_dict`` wrote."""
        return cls(
            proposals=tuple(data["proposals"]),
            answering=tuple((h, v) for h, v in data["answering"]),
            offered_at=tuple((h, at) for h, at in data["offered_at"]),
            resign_to=tuple(data["resign_to"]),
            resigner=data["resigner"],
            resigned=tuple(ResignedContract(h, w, Result(v)) for h, w, v in data["resigned"]),
        )


@dataclass(frozen=True, slots=True)
class ContractOutcome:
    """How one contract ended (``Game.outcomes``), never read off a game-wide winner.

    ``winner``: the side that won it (``None``: a tavli game drawn). ``result``: how it
    ended: the board's ``SINGLE``, ``GAMMON`` or ``BACKGAMMON`` (played to the end),
    ``PASSED``, ``RESIGNED`` or ``FORFEIT`` (or a tavli game's ending). ``value``: what
    multiplied the cube: the board's result, the value resigned or forfeited; ``None``
    for a pass. ``stake``: the cube value it settled at. ``points``: signed from side 0's
    view, the Jacoby rule applied (C6).
    """

    holder: Holder
    winner: int | None
    result: Result
    value: Result | None
    stake: int
    points: int


class _Derived(TypedDict, total=False):
    """What a ``Game`` works out from its fields on first use and keeps (a plain dict)."""

    plays: Sequence[AnyPlay]
    results: frozenset[Board]
    walk: tuple[tuple[Step, ...], Board]


@dataclass(frozen=True)
class Game:
    """The state of one game; build it with ``start``, ``replay`` or ``from_dict``.

    Fields worth reading directly: ``options``, ``opening``, ``phase``, ``on_roll`` (the
    side whose turn it is: it rolls, moves, doubles, resigns), ``dice`` (rolled, while
    ``phase`` is ``move``), ``contracts``, ``resignation`` (the value on offer, or
    accepted, or what a forfeit cost), ``winner``, ``result``, ``turn_no`` (1 at the
    start, one more after every action: the server's stale-turn check) and ``history``.

    In the tavli games (``options.variant.rules``) the board is a ``TavliBoard``, there
    is no cube, and ``stage`` is what is left of the turn (``tavli.turns.Turn``): the dice
    of the stage being played (gul bara's run and acey-deucey's 1-2 have several) and
    what follows it; ``dice`` stays the roll.

    In a chouette (``options.chouette``) ``team`` keeps the team's cube round, the offers
    waiting with the ``turn_no`` each was made at, and the resignations; ``awaiting``
    says who must act, ``captain`` who moves for the team, ``outcomes`` how each
    contract ended. ``doubled`` is the box's one double a turn; the team's members may
    double in several rounds of one turn (H8).
    """

    options: GameOptions
    opening: Opening
    board: Board
    on_roll: int
    phase: Phase
    dice: Dice | None
    pending: tuple[MoveStep, ...]
    contracts: tuple[CubeContract, ...]
    doubled: bool = False
    resignation: Result | None = None
    winner: int | None = None
    result: Result | None = None
    turn_no: int = 1
    history: tuple[Action, ...] = ()
    stage: Turn | None = None
    team: TeamState | None = None
    _cache: _Derived = field(
        default_factory=_Derived, init=False, repr=False, compare=False, hash=False
    )

    # Building a game

    @classmethod
    def start(cls, options: GameOptions, opening: Opening | Sequence[Dice]) -> Game:
        """A new game after its opening roll: the higher die's side to play both dice (O1).

        ``opening`` is an ``Opening`` or the opening rolls, ties included
        (``DiceStream.opening_roll()``); each tie doubles the cube up to
        ``options.automatic_doubles`` times (O2), the cube staying in the centre.
        """
        if not isinstance(opening, Opening):
            opening = Opening.from_rolls(opening, options)
        rules = options.variant.rules
        if rules is not None:
            return cls._start_tavli(options, opening, rules)
        if opening.starter is not None:
            raise ValueError("only the tavli games start without an opening roll (TV2)")
        _check_dice(opening.dice)
        if opening.dice[0] == opening.dice[1]:
            raise InvalidDice("the opening roll that starts the game cannot be a tie")
        value = 1 << opening.auto_doubles
        if opening.auto_doubles > options.automatic_doubles or (
            options.cube_max is not None and value > options.cube_max
        ):
            raise ValueError(f"{opening.auto_doubles} automatic doubles are not allowed")
        contracts = tuple(
            CubeContract(holder=holder, value=value, max_value=options.cube_max)
            for holder in options.holders
        )
        return cls(
            options=options,
            opening=opening,
            board=options.variant.start(),
            on_roll=opening.first,
            phase=Phase.MOVE,
            dice=(max(opening.dice), min(opening.dice)),
            pending=(),
            contracts=contracts,
            team=None if options.chouette is None else TeamState(),
        )

    @classmethod
    def replay(
        cls, options: GameOptions, start: Opening | Sequence[Dice], actions: Iterable[Action]
    ) -> Game:
        """The game ``start`` and ``actions`` (a ``history``) lead to, every rule checked.

        ``NoMove`` entries are not actions but the record of a roll that could not be
        played; they are checked against what the rolls give.
        """
        actions = tuple(actions)
        game = cls.start(options, start)
        for action in actions:
            if not isinstance(action, NoMove):
                game = game.apply(action)
        if game.history != actions:
            raise IllegalPlay("the actions do not replay to that history (a NoMove is wrong)")
        return game

    def apply(self, action: Action) -> Game:
        """The game after ``action`` (one of the history's dataclasses)."""
        match action:
            case Roll(dice=dice):
                return self.roll(dice)
            case MoveStep(origin=origin, die=die):
                return self.move_step(origin, die)
            case NameDouble(double=double):
                return self.name_double(double)
            case Undo():
                return self.undo()
            case Confirm():
                return self.confirm()
            case Move(steps=steps):
                return self.play(steps)
            case Double(holders=holders):
                return self.double(holders)
            case CloseRound():
                return self.close_round()
            case Take(holder=holder):
                return self.take(holder)
            case Pass(holder=holder):
                return self.pass_(holder)
            case Beaver(holder=holder):
                return self.beaver(holder)
            case Resign(value=value, holder=holder):
                return self.resign(value, holder)
            case AcceptResign(holder=holder):
                return self.accept_resign(holder)
            case RejectResign(holder=holder):
                return self.reject_resign(holder)
            case Forfeit(side=side, reason=reason):
                return self.forfeit(side, reason)
        raise TypeError(f"{action!r} is not an action a caller can apply")

    # Reading the state

    @property
    def turn(self) -> int | None:
        """The side that must act now: in ``take_or_pass`` the doubled side (the doubler
        while only beavers wait), in ``resign_offered`` the side offered the
        resignation; ``None`` once the game is over. (In a chouette both sides may owe
        answers at once: ``awaiting`` names who.)"""
        if self.phase is Phase.OVER:
            return None
        if self.phase is Phase.RESIGN_OFFERED:
            return 1 - self.on_roll
        if self.phase is Phase.TAKE_OR_PASS:
            if any(c.pending == self.on_roll for c in self.contracts):
                return 1 - self.on_roll
            return self.on_roll
        return self.on_roll

    @property
    def over(self) -> bool:
        """The game has ended."""
        return self.phase is Phase.OVER

    @property
    def position(self) -> Board:
        """The board from side 0's view, unconfirmed steps included."""
        view = self._walk()[1]
        return view if self.on_roll == 0 else view.mirror()

    def position_for(self, side: int) -> Board:
        """The board from ``side``'s view (that side's checkers first)."""
        return self.position if side == 0 else self.position.mirror()

    @property
    def pending_steps(self) -> tuple[Step, ...]:
        """The steps played this turn and not yet confirmed (T3), in order."""
        return self._walk()[0]

    @property
    def remaining_dice(self) -> tuple[int, ...]:
        """The dice of this roll not yet used by the pending steps."""
        if self.dice is None:
            return ()
        left = list(self._stage_dice())
        for step in self.pending:
            left.remove(step.die)
        return tuple(left)

    def legal_plays(self) -> list[AnyPlay]:
        """Every distinct legal play of the rolled dice from the start of the turn (in
        the tavli games, of the stage being played; empty unless the game waits for a
        move, or while acey-deucey's double must be named)."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return []
        return list(self._plays())

    @property
    def awaiting_double(self) -> bool:
        """Acey-deucey: the 1-2 is played and the mover must name a double (AD4)."""
        return self.phase is Phase.MOVE and self.stage is not None and self.stage.naming

    def contract(self, holder: Holder) -> CubeContract:
        """The cube contract of ``holder``."""
        for contract in self.contracts:
            if contract.holder == holder:
                return contract
        raise CubeNotAvailable(f"there is no cube for {holder!r} in this game")

    @property
    def cube(self) -> CubeContract:
        """The game's only contract (a match or money game)."""
        if len(self.contracts) != 1:
            raise CubeNotAvailable("this game has several cubes; ask for one by holder")
        return self.contracts[0]

    def in_play(self, holder: Holder) -> bool:
        """``holder``'s contract is still played for: neither passed nor resigned."""
        contract = self.contract(holder)
        return contract.live and (self.team is None or self.team.resigned_by(holder) is None)

    @property
    def live_holders(self) -> tuple[Holder, ...]:
        """The holders still in the game, in line order (a chouette: the team members
        who have not passed or resigned)."""
        return tuple(c.holder for c in self.contracts if self.in_play(c.holder))

    @property
    def captain(self) -> Holder | None:
        """A chouette: the member who moves for the team now (H2), the first in line
        still in the game: when the captain is out (a pass, the box passing his double,
        a resignation) the next in line plays on as captain (H7). ``None`` when none is."""
        return next(iter(self.live_holders), None)

    @property
    def awaiting(self) -> Awaiting:
        """Who must act now (API.md's ``awaiting``), the box being side 0 (see
        ``Awaiting``). Members who may double in the team's cube round are not awaited:
        the captain's roll ends the round."""
        if self.phase is Phase.OVER:
            return Awaiting()
        if self.phase is Phase.TAKE_OR_PASS:
            return Awaiting(
                box=any(c.pending == TEAM for c in self.contracts),
                members=tuple(c.holder for c in self.contracts if c.pending == BOX),
            )
        if self.phase is Phase.RESIGN_OFFERED:
            if self.on_roll == TEAM:
                return Awaiting(box=True)
            return Awaiting(members=self.team.resign_to if self.team else self.options.holders)
        if self.on_roll == BOX:
            return Awaiting(box=True)
        captain = self.captain
        return Awaiting(members=() if captain is None else (captain,))

    def offered_at(self, holder: Holder) -> int | None:
        """A chouette: the ``turn_no`` of the offer (double, beaver or resignation) that
        ``holder``'s contract waits to have answered, by the member or by the box; the
        answer carries it instead of the game's ``turn_no`` (API.md). ``None``: no offer
        waits on it."""
        pairs = dict(self.team.offered_at) if self.team is not None else {}
        return pairs.get(holder)

    @property
    def doubles_to_send(self) -> tuple[Holder, ...]:
        """A chouette with multiple cubes: the members who doubled in the team's cube
        round still open; the captain's roll sends them to the box (``close_round``)."""
        if self.team is None or self.phase is not Phase.ROLL:
            return ()
        return tuple(c.holder for c in self.contracts if c.pending == TEAM)

    def outcomes(self) -> dict[Holder, ContractOutcome]:
        """How each settled contract ended, in line order: a pass or a resignation as
        soon as it happens, every contract once the game is over."""
        found = (self._outcome(c) for c in self.contracts)
        return {outcome.holder: outcome for outcome in found if outcome is not None}

    def points_by_holder(self) -> dict[Holder, int]:
        """Each contract's points, signed from side 0's view: positive, side 0 wins them.

        Settled contracts (passed, resigned) count as soon as they are settled; live ones
        count once the game is over (0 before).
        """
        outcomes = self.outcomes()
        return {
            c.holder: outcomes[c.holder].points if c.holder in outcomes else 0
            for c in self.contracts
        }

    def points_for(self, side: int) -> int:
        """What ``side`` wins (negative: loses) over all contracts."""
        total = sum(self.points_by_holder().values())
        return total if side == 0 else -total

    # Turn actions

    def roll(self, dice: Dice) -> Game:
        """The side on roll rolls ``dice`` (from the server's dice stream).

        A roll that cannot be played at all passes the turn at once, recorded as
        ``NoMove`` after the ``Roll`` (E2, E4). In a chouette the captain's roll ends the
        team's cube round: doubles made in it must go to the box first
        (``close_round``), and proposals of the team's double not yet unanimous lapse.
        """
        self._expect(Phase.ROLL, "roll")
        dice = _check_dice(tuple(dice))
        if self.options.variant.rules is not None:
            return self._roll_tavli(self.options.variant.rules, dice)
        round_over: dict[str, Any] = {}
        if self.team is not None:
            if self.doubles_to_send:
                raise NotYourTurn(
                    "the team's doubles go to the box before the roll: send them first"
                )
            round_over["team"] = replace(self.team, proposals=())
        view = self._view(self.board)
        assert isinstance(view, Position)
        plays = legal_plays(view, dice)
        if not plays:
            return self._next(
                [Roll(dice), NoMove()],
                on_roll=1 - self.on_roll,
                dice=None,
                doubled=False,
                **round_over,
            )
        game = self._next([Roll(dice)], phase=Phase.MOVE, dice=dice, **round_over)
        game._cache["plays"] = plays
        return game

    def move_step(self, origin: int, die: int) -> Game:
        """Move one checker from ``origin`` (25: the bar) with ``die``, not yet final (T3).

        The step is accepted only if the position it reaches can still be completed,
        with the dice left, into one of the roll's legal plays: so the compulsory-play
        rules (M5) bind a play made step by step too.
        """
        self._rolled("move")
        self._check_named()
        remaining = list(self.remaining_dice)
        if die not in remaining:
            raise IllegalPlay(
                f"no {die} left to play (dice left: {remaining or 'none'})",
                IllegalPlay.WRONG_DICE,
            )
        before = self._walk()[1]
        remaining.remove(die)
        rules = self.options.variant.rules
        completions: Sequence[AnyPlay]
        if isinstance(before, TavliBoard):
            assert rules is not None
            moved = tavli_plays.apply_step(rules, before, origin, die)[0]
            completions = tavli_plays.stage_plays(rules, moved, remaining) if remaining else []
            after: Board = moved
        else:
            after = apply_step(before, origin, die)
            completions = legal_plays_for_dice(after, remaining) if remaining else []
        reachable = {p.result for p in completions} or {after}
        if reachable.isdisjoint(self._results()):
            usable = 1 + max((len(p.dice_used) for p in completions), default=0)
            raise self._why_not(self._stage_dice(), die, usable)
        return self._next([MoveStep(origin, die)], pending=(*self.pending, MoveStep(origin, die)))

    def undo(self) -> Game:
        """Take back the last unconfirmed step (T3)."""
        self._expect(Phase.MOVE, "undo")
        self._check_named()
        if not self.pending:
            raise IllegalPlay("there is no step to take back this turn")
        return self._next([Undo()], pending=self.pending[:-1])

    def confirm(self) -> Game:
        """Make this turn's steps final ("pick up the dice", T3); then the other side rolls."""
        self._rolled("confirm")
        self._check_named()
        position = self._walk()[1]
        if position not in self._results():
            left = max(len(p.dice_used) for p in self._plays()) - len(self.pending)
            different = len(set(self._stage_dice())) > 1
            raise IllegalPlay(
                f"the play is not complete: {left} more {'die' if left == 1 else 'dice'} "
                "can be played and must be (M5)",
                IllegalPlay.MUST_USE_BOTH if different else IllegalPlay.MUST_USE_MORE,
            )
        return self._end_turn(Confirm(), position)

    def play(self, play: str | AnyPlay | Sequence[Step]) -> Game:
        """Make a whole play and confirm it (the API's ``move``), from the start of the
        turn: steps already played one by one are replaced.

        ``play`` is move text (``"24/18 13/11"``), a ``Play`` from ``legal_plays()`` or
        a sequence of ``Step`` (or ``(origin, destination)`` pairs). The history keeps
        the steps as played, in a legal order, so a transcript shows what was played.
        """
        dice = self._rolled("move")
        self._check_named()
        view = self._view(self.board)
        chosen: AnyPlay
        if isinstance(play, Play | TavliPlay) and any(play is legal for legal in self._plays()):
            chosen = play
        elif isinstance(view, TavliBoard):
            chosen = self._check_tavli(view, play)
        elif isinstance(play, str):
            chosen = play_from_text(view, dice, play)
        else:
            steps = play.steps if isinstance(play, Play | TavliPlay) else play
            chosen = check_play(view, dice, tuple(steps))
        return self._end_turn(Move(tuple(chosen.steps)), chosen.result)

    def name_double(self, value: int) -> Game:
        """Acey-deucey: name the double to play four times after the 1-2 (AD4). A double
        that cannot be played at all is lost, and with it the new roll."""
        self._expect(Phase.MOVE, "name a double")
        if self.stage is None or not self.stage.naming:
            raise IllegalPlay(
                "a double is named only after playing a 1-2 in full (AD4)", IllegalPlay.NOT_LEGAL
            )
        stage = tavli_turns.name_double(self.stage, value)
        assert isinstance(self.board, TavliBoard)
        return self._tavli_stage([NameDouble(value)], self.on_roll, self.board, stage)

    # Cube actions

    def double(self, holders: Iterable[Holder] | None = None) -> Game:
        """The side on roll doubles, before rolling (C2), on the contracts of
        ``holders`` (default: every contract it may double now).

        Refused in the Crawford game (P2), once already doubled this turn, on a cube the
        opponent owns, and past the cube's maximum (C1). A side that cannot move may
        still double (C3).

        In a chouette, on the box's turn: the box's one double a turn, to ``holders``
        (default: every member it may double; with one team cube, every member still in
        the game), each answering alone (H5, H8). On the team's turn: ``holders`` double
        the box on their own cubes (multiple cubes, H8), or propose the team's double
        (one cube, H4), in the team's cube round (see ``close_round``).
        """
        self._check_cube()
        if self.phase is Phase.MOVE:
            raise CubeNotAvailable("a double must be offered before rolling")
        self._expect(Phase.ROLL, "double")
        if self.options.crawford:
            raise CubeNotAvailable("there is no doubling in the Crawford game")
        if not self.options.cube_allowed:
            raise CubeNotAvailable("the cube is not used in this game")
        if self.team is not None and self.on_roll == TEAM:
            return self._team_double(holders)
        if self.doubled:
            raise CubeNotAvailable("you have already doubled this turn")
        side, live = self.on_roll, self.live_holders
        if holders is None:
            chosen = [h for h in live if self.contract(h).can_offer(side)]
            if not chosen:
                self.contract(live[0]).check_offer(side)
                raise CubeNotAvailable("you have no cube you may double now")
        else:
            chosen = self._doubling(holders, side)
        chouette, changes = self.options.chouette, {}
        if chouette is not None and chouette.single and len(chosen) != len(live):
            raise CubeNotAvailable(
                "one team cube (H4): the box doubles every member still in the game"
            )
        if self.team is not None:
            changes["team"] = self.team.offered(chosen, self.turn_no + 1)
        contracts = tuple(c.offer(side) if c.holder in chosen else c for c in self.contracts)
        return self._next(
            [Double(tuple(chosen))],
            phase=Phase.TAKE_OR_PASS,
            contracts=contracts,
            doubled=True,
            **changes,
        )

    def close_round(self) -> Game:
        """A chouette with multiple cubes: the captain ends the team's cube round (his
        roll, API.md): the doubles its members made go to the box, which answers them
        before the roll, in line order (H8, H9, H10)."""
        self._check_cube()
        self._expect(Phase.ROLL, "send the team's doubles")
        if self.team is None or self.on_roll != TEAM:
            raise NotYourTurn("only a chouette's team has a cube round, on its own turn")
        if not self.doubles_to_send:
            missing = [h for h in self.live_holders if h not in self.team.proposals]
            raise CubeNotAvailable(
                f"the team's double needs every member still in the game (H4): "
                f"{', '.join(map(str, missing))} did not propose it"
                if self.team.proposals
                else "no double waits to go to the box: roll"
            )
        return self._send_team_doubles([CloseRound()], self.contracts, self.team)

    def take(self, holder: Holder | None = None) -> Game:
        """Accept the double (or the beaver) waiting on ``holder``'s contract (C4)."""
        if self.team is not None:
            return self._chouette_answer(Take, holder)
        contract = self._pending_contract(holder)
        return self._answered(Take(contract.holder), contract.take())

    def pass_(self, holder: Holder | None = None) -> Game:
        """Refuse the double (or the beaver) waiting on ``holder``'s contract (C4)."""
        if self.team is not None:
            return self._chouette_answer(Pass, holder)
        contract = self._pending_contract(holder)
        return self._answered(Pass(contract.holder), contract.pass_())

    def beaver(self, holder: Holder | None = None) -> Game:
        """Take the double on ``holder``'s contract and redouble at once (C5, money only)."""
        if self.team is not None:
            return self._chouette_answer(Beaver, holder)
        contract = self._pending_contract(holder)
        if not self.options.beavers:
            raise CubeNotAvailable("beavers are not allowed in this game")
        return self._answered(Beaver(contract.holder), contract.beaver())

    # Resignation

    def resign(self, value: Result | str, holder: Holder | None = None) -> Game:
        """The side on roll offers to resign a single, gammon or backgammon (S4).

        In a chouette the box offers it to every member still in the game, each
        accepting or rejecting for their own contract. On the team's turn the team
        offers it (``holder`` None: the captain, who moves for the team) for every
        contract still in the game, the box answering each one; or a member
        (``holder``) resigns their own contract only, and the box answers it."""
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            raise NotYourTurn("you may resign only on your own turn")
        value = Result(value)
        if value not in _RESIGNABLE:
            raise ValueError("resign a single, a gammon or a backgammon")
        rules = self.options.variant.rules
        if rules is not None:
            view = self._view(self.board)
            mine = view.mine if isinstance(view, TavliBoard) else None
            if value is Result.BACKGAMMON or (rules.per_checker and value is not Result.SINGLE):
                raise ValueError(
                    "in acey-deucey resign the game (a single): you pay for every checker "
                    "not borne off (AD7)"
                    if rules.per_checker
                    else "there is no backgammon in these games: resign 1 or 2 points (TV4)"
                )
            if value is Result.GAMMON and mine is not None and mine.borne_off:
                raise ValueError("you have borne off a checker: resign for 1 point (TM3)")
        if self.team is not None:
            return self._chouette_resign(value, holder)
        if holder is not None:
            raise ValueError("only a chouette's team members resign a contract of their own")
        return self._next([Resign(value)], phase=Phase.RESIGN_OFFERED, resignation=value)

    def accept_resign(self, holder: Holder | None = None) -> Game:
        """Accept the resignation on offer: the game ends at that value times the cube.

        In a chouette: ``holder`` accepts the box's resignation for their own contract,
        or the box accepts ``holder``'s; that contract is settled (S4)."""
        self._expect(Phase.RESIGN_OFFERED, "accept a resignation")
        if self.team is not None:
            return self._resign_answered(AcceptResign, holder)
        if holder is not None:
            raise ValueError("only in a chouette is a resignation answered per contract")
        return self._next(
            [AcceptResign()],
            phase=Phase.OVER,
            winner=1 - self.on_roll,
            result=Result.RESIGNED,
            dice=None,
            pending=(),
        )

    def reject_resign(self, holder: Holder | None = None) -> Game:
        """Refuse the resignation on offer: play goes on where it stopped (in a chouette,
        once every member offered it has answered)."""
        self._expect(Phase.RESIGN_OFFERED, "reject a resignation")
        if self.team is not None:
            return self._resign_answered(RejectResign, holder)
        if holder is not None:
            raise ValueError("only in a chouette is a resignation answered per contract")
        phase = Phase.ROLL if self.dice is None else Phase.MOVE
        return self._next([RejectResign()], phase=phase, resignation=None)

    # Forfeit

    def forfeit(self, side: int, reason: ForfeitReason | str) -> Game:
        """``side`` loses on time or by leaving (``reason``), in whatever phase the game
        is: on roll, mid-move (unconfirmed steps are dropped, T3), while a double or a
        resignation waits (the offer lapses unanswered).

        The game is lost as if resigned (``resignation``): a gammon if ``side`` has borne
        off no checker, else a single, never a backgammon; the Jacoby rule cuts a gammon
        to a single on a cube never turned, as it does any gammon (C6). In a match the
        score is not the game's: ``MatchState.apply_forfeit`` ends the match.
        """
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if side not in (0, 1):
            raise ValueError(f"side {side!r} is not 0 or 1")
        try:
            reason = ForfeitReason(reason)
        except ValueError:
            raise ValueError(f"a forfeit is for timeout or abandoned, not {reason!r}") from None
        if isinstance(self.board, TavliBoard):  # as resigned: 1 or 2 (TM3), AD7's count
            borne_off = (self.board.mine if side == 0 else self.board.opponent).borne_off
            on_board = Result.SINGLE if borne_off else Result.GAMMON
        else:
            loser = self.board.player if side == 0 else self.board.opponent
            on_board = _result_on_board(loser, self.options.variant)
        return self._next(
            [Forfeit(side, reason)],
            phase=Phase.OVER,
            winner=1 - side,
            result=Result.FORFEIT,
            resignation=Result.SINGLE if on_board is Result.SINGLE else Result.GAMMON,
            contracts=tuple(c.lapse() if c.pending is not None else c for c in self.contracts),
            dice=None,
            pending=(),
            team=None if self.team is None else self.team.lapsed(),
        )

    def compact(self) -> Game:
        """This game as a transcript (a ``.mat`` file) keeps it: each turn one ``Move``
        (steps, undos and confirm folded into it), resignations not accepted (refused,
        unanswered, or cut short by a forfeit) left out, steps of an unconfirmed turn
        dropped.

        Board, cube and score are those of this game; ``turn_no`` counts the shorter
        history. Two records of one match compare equal once compacted, however their
        turns were entered. (In a chouette a resignation some member accepted is kept
        with all its answers.)
        """
        actions = self.history
        folded = (MoveStep, Undo, Confirm)
        unaccepted: set[int] = set()  # each resignation nobody accepted, and its answers
        for index, action in enumerate(actions):
            if isinstance(action, Resign):
                answers = list(
                    takewhile(
                        lambda a: isinstance(a, AcceptResign | RejectResign), actions[index + 1 :]
                    )
                )
                if not any(isinstance(answer, AcceptResign) for answer in answers):
                    unaccepted.update(range(index, index + 1 + len(answers)))
        if not unaccepted and not any(isinstance(a, folded) for a in actions):
            return self
        game = Game.start(self.options, self.opening)
        steps: list[MoveStep] = []
        for index, action in enumerate(actions):
            match action:
                case MoveStep():
                    steps.append(action)
                case Undo():
                    steps.pop()
                case Confirm():
                    stepped = game
                    for step in steps:
                        stepped = stepped.move_step(step.origin, step.die)
                    game = game.play(stepped.pending_steps)
                    steps = []
                case NoMove():
                    pass
                case _ if index in unaccepted:
                    pass
                case Resign() | AcceptResign() | RejectResign():
                    game = game.apply(action)  # a chouette's, accepted: mid-move steps stay
                case _:
                    steps = []
                    game = game.apply(action)
        return game

    # Serialization

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe snapshot of the whole state, history included."""
        return {
            "options": self.options.to_dict(),
            "opening": {
                "dice": list(self.opening.dice),
                "auto_doubles": self.opening.auto_doubles,
                **({"starter": self.opening.starter} if self.opening.starter is not None else {}),
            },
            "board": (
                {"tavli": [self.board.mine.to_dict(), self.board.opponent.to_dict()]}
                if isinstance(self.board, TavliBoard)
                else [list(self.board.player), list(self.board.opponent)]
            ),
            **({"stage": self.stage.to_dict()} if self.stage is not None else {}),
            **({"team": self.team.to_dict()} if self.team is not None else {}),
            "on_roll": self.on_roll,
            "phase": self.phase.value,
            "dice": None if self.dice is None else list(self.dice),
            "pending": [[s.origin, s.die] for s in self.pending],
            "contracts": [c.to_dict() for c in self.contracts],
            "doubled": self.doubled,
            "resignation": None if self.resignation is None else self.resignation.value,
            "winner": self.winner,
            "result": None if self.result is None else self.result.value,
            "turn_no": self.turn_no,
            "history": [action_to_dict(a) for a in self.history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """The game ``to_dict`` wrote (restored as stored, not replayed)."""
        board: Board
        if isinstance(data["board"], dict):
            mine, theirs = data["board"]["tavli"]
            board = TavliBoard(Side.from_dict(mine), Side.from_dict(theirs))
        else:
            player, opponent = data["board"]
            board = Position(tuple(player), tuple(opponent))
        opening = data["opening"]
        return cls(
            options=GameOptions.from_dict(data["options"]),
            opening=Opening(
                (opening["dice"][0], opening["dice"][1]),
                opening["auto_doubles"],
                opening.get("starter"),
            ),
            board=board,
            stage=Turn.from_dict(data["stage"]) if "stage" in data else None,
            team=TeamState.from_dict(data["team"]) if "team" in data else None,
            on_roll=data["on_roll"],
            phase=Phase(data["phase"]),
            dice=None if data["dice"] is None else tuple(data["dice"]),
            pending=tuple(MoveStep(o, d) for o, d in data["pending"]),
            contracts=tuple(CubeContract.from_dict(c) for c in data["contracts"]),
            doubled=data["doubled"],
            resignation=None if data["resignation"] is None else Result(data["resignation"]),
            winner=data["winner"],
            result=None if data["result"] is None else Result(data["result"]),
            turn_no=data["turn_no"],
            history=tuple(action_from_dict(a) for a in data["history"]),
        )

    # Internals

    def _view(self, board: Board) -> Board:
        """``board`` (side 0's view) from the side on roll's view."""
        return board if self.on_roll == 0 else board.mirror()

    def _next(self, actions: list[Action], **changes: Any) -> Game:
        """A copy with ``changes``, the actions recorded and ``turn_no`` advanced.

        Copies the fields directly rather than through ``dataclasses.replace``: this is
        the hot path of self-play and bots, and every field was checked on the way in.
        """
        game = object.__new__(type(self))
        fields_ = game.__dict__
        fields_.update(self.__dict__)
        fields_.update(changes)
        fields_["turn_no"] = self.turn_no + 1
        fields_["history"] = (*self.history, *actions)
        fields_["_cache"] = {}
        return game

    def _expect(self, phase: Phase, doing: str) -> None:
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase is not phase:
            raise NotYourTurn(f"cannot {doing} now: the game waits for {_WAITING[self.phase]}")

    def _rolled(self, doing: str) -> Dice:
        """The dice to play, once the game waits for a move; else ``GameOver`` or
        ``NotYourTurn`` (a restored state can claim a move without dice)."""
        self._expect(Phase.MOVE, doing)
        if self.dice is None:
            raise NotYourTurn(f"cannot {doing} now: no dice have been rolled")
        return self.dice

    def _plays(self) -> Sequence[AnyPlay]:
        if "plays" not in self._cache:
            view = self._view(self.board)
            rules = self.options.variant.rules
            if isinstance(view, TavliBoard):
                assert rules is not None and self.stage is not None
                naming = self.stage.naming
                stage = [] if naming else tavli_plays.stage_plays(rules, view, self.stage.stage)
                self._cache["plays"] = stage
            else:
                self._cache["plays"] = legal_plays(view, self._rolled("move"))
        return self._cache["plays"]

    def _results(self) -> frozenset[Board]:
        """The positions the legal plays reach: plays are told apart by them."""
        if "results" not in self._cache:
            self._cache["results"] = frozenset(p.result for p in self._plays())
        return self._cache["results"]

    def _walk(self) -> tuple[tuple[Step, ...], Board]:
        """The pending steps as ``Step`` values and the position they reach (mover's view)."""
        if "walk" not in self._cache and isinstance(self.board, TavliBoard):
            rules = self.options.variant.rules
            assert rules is not None
            board = self._view(self.board)
            assert isinstance(board, TavliBoard)
            taken = []
            for pending in self.pending:
                board, step = tavli_plays.apply_step(rules, board, pending.origin, pending.die)
                taken.append(step)
            self._cache["walk"] = (tuple(taken), board)
        if "walk" not in self._cache:
            position = self._view(self.board)
            assert isinstance(position, Position)
            steps = []
            for s in self.pending:
                destination = max(s.origin - s.die, OFF)
                hit = destination != OFF and position.opponent[24 - destination] == 1
                steps.append(Step(s.origin, destination, hit))
                position = apply_step(position, s.origin, s.die)
            self._cache["walk"] = (tuple(steps), position)
        return self._cache["walk"]

    def _why_not(self, dice: Sequence[int], die: int, usable: int) -> IllegalPlay:
        """Why a step that cannot lead to a legal play of ``dice`` is refused (M5)."""
        needed = max(len(p.dice_used) for p in self._plays())
        if usable < needed:
            if needed == 2 and dice[0] != dice[1]:
                return IllegalPlay(
                    "that leaves a die unplayable; both dice must be used",
                    IllegalPlay.MUST_USE_BOTH,
                )
            return IllegalPlay(
                f"that leaves dice unplayable; {needed} dice can be used",
                IllegalPlay.MUST_USE_MORE,
            )
        if needed == 1 and die < max(dice):
            return IllegalPlay(
                "only one die can be played, so it must be the higher one",
                IllegalPlay.HIGHER_DIE,
            )
        return IllegalPlay("that step does not lead to a legal play")

    def _end_turn(self, action: Action, position: Board) -> Game:
        """After a final play: the game is won, or the other side is on roll."""
        if isinstance(position, TavliBoard):
            return self._end_tavli_stage(action, position)
        board = position if self.on_roll == 0 else position.mirror()
        if sum(position.player) == 0:
            return self._next(
                [action],
                board=board,
                phase=Phase.OVER,
                dice=None,
                pending=(),
                winner=self.on_roll,
                result=_result_on_board(position.opponent, self.options.variant),
            )
        return self._next(
            [action],
            board=board,
            on_roll=1 - self.on_roll,
            phase=Phase.ROLL,
            dice=None,
            pending=(),
            doubled=False,
        )

    def _pending_contract(self, holder: Holder | None) -> CubeContract:
        self._check_cube()
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase is not Phase.TAKE_OR_PASS:
            raise NotYourTurn("there is no double to answer")
        if holder is None:
            waiting = [c for c in self.contracts if c.pending is not None]
            if len(waiting) != 1:
                raise CubeNotAvailable("several doubles wait for an answer; name the cube")
            return waiting[0]
        contract = self.contract(holder)
        if contract.pending is None:
            raise CubeNotAvailable(f"no double waits for an answer on {holder!r}'s cube")
        return contract

    def _answered(self, action: Action, answered: CubeContract) -> Game:
        """The game once one contract is answered: still waiting, over, or the doubler rolls."""
        contracts = tuple(answered if c.holder == answered.holder else c for c in self.contracts)
        if any(c.pending is not None for c in contracts):
            return self._next([action], contracts=contracts)
        # Every contract passed, this one last: the side that passed it loses the game.
        if answered.passer is not None and all(c.state is CubeState.PASSED for c in contracts):
            return self._next(
                [action],
                contracts=contracts,
                phase=Phase.OVER,
                winner=1 - answered.passer,
                result=Result.PASSED,
            )
        return self._next([action], contracts=contracts, phase=Phase.ROLL)

    def _multiplier(self) -> int:
        kind = self.resignation if self.result in _RESIGNED else self.result
        rules = self.options.variant.rules
        if rules is not None and isinstance(self.board, TavliBoard):
            if self.winner is None:
                return 0  # not over, or drawn (PL5)
            loser = self.board.mine if self.winner == 1 else self.board.opponent
            if kind is Result.MOTHER:
                return 2  # PL5
            if self.result in _RESIGNED and not rules.per_checker:
                return 2 if kind is Result.GAMMON else 1  # TM3
            return rules.score(loser)  # TV4, AD7
        return self._value_multiplier(kind)

    def _value_multiplier(self, kind: Result | None) -> int:
        """What a backgammon game won as ``kind`` multiplies the cube by (S1-S3)."""
        if kind is Result.GAMMON:
            return 2
        if kind is Result.BACKGAMMON:
            return self.options.backgammon_value
        return 1

    def _outcome(self, contract: CubeContract) -> ContractOutcome | None:
        """How ``contract`` ended, or ``None`` while it is still played for."""
        jacoby, holder, stake = self.options.jacoby, contract.holder, contract.value
        if not contract.live:
            assert contract.passer is not None
            points = contract.points(None, 1, jacoby)
            return ContractOutcome(holder, 1 - contract.passer, Result.PASSED, None, stake, points)
        resigned = None if self.team is None else self.team.resigned_by(holder)
        if resigned is not None:
            multiplier = self._value_multiplier(resigned.value)
            points = contract.points(resigned.winner, multiplier, jacoby)
            return ContractOutcome(
                holder, resigned.winner, Result.RESIGNED, resigned.value, stake, points
            )
        if self.result is None:
            return None
        value = self.resignation if self.result in _RESIGNED else self.result
        points = contract.points(self.winner, self._multiplier(), jacoby)
        return ContractOutcome(holder, self.winner, self.result, value, stake, points)

    # A chouette's team (RULES.md H4-H10; docs/rules-core.md, "Chouette games")

    def _team_double(self, holders: Iterable[Holder] | None) -> Game:
        """Members double in the team's cube round: each on their own cube (H8), the
        round's doubles going to the box when the captain rolls or when nobody else
        could double; or each proposes the team's double, which goes to the box once
        every member still in the game has (H4)."""
        assert self.team is not None and self.options.chouette is not None
        team, live = self.team, self.live_holders
        if self.options.chouette.single:
            if holders is None:
                self.contract(live[0]).check_offer(TEAM)
                chosen = [h for h in live if h not in team.proposals]
            else:
                chosen = self._doubling(holders, TEAM)
                again = [str(h) for h in chosen if h in team.proposals]
                if again:
                    raise CubeNotAvailable(f"{', '.join(again)} already proposed the double")
            team = replace(team, proposals=(*team.proposals, *chosen))
            if any(h not in team.proposals for h in live):
                return self._next([Double(tuple(chosen))], team=team)
            contracts = tuple(c.offer(TEAM) if c.holder in live else c for c in self.contracts)
            return self._send_team_doubles([Double(tuple(chosen))], contracts, team)
        if holders is None:
            chosen = [h for h in live if self.contract(h).can_offer(TEAM)]
            if not chosen:
                raise CubeNotAvailable("no member of the team may double now")
        else:
            chosen = self._doubling(holders, TEAM)
        contracts = tuple(c.offer(TEAM) if c.holder in chosen else c for c in self.contracts)
        if any(c.can_offer(TEAM) for c in contracts if c.holder in live):
            return self._next([Double(tuple(chosen))], contracts=contracts)
        return self._send_team_doubles([Double(tuple(chosen))], contracts, team)

    def _doubling(self, holders: Iterable[Holder], side: int) -> list[Holder]:
        """The contracts of ``holders`` ``side`` may double now, in line order (H10;
        in a match, the one contract)."""
        named = list(dict.fromkeys(holders))
        if not named:
            raise CubeNotAvailable("name at least one cube to double")
        for holder in named:
            contract = self.contract(holder)
            if contract.live and not self.in_play(holder):
                raise CubeNotAvailable(f"{holder} resigned: that cube is out of this game")
            if side == TEAM and contract.pending == TEAM:
                raise CubeNotAvailable(f"{holder} has already doubled in this cube round")
            contract.check_offer(side)
        return [c.holder for c in self.contracts if c.holder in named]

    def _send_team_doubles(
        self, actions: list[Action], contracts: tuple[CubeContract, ...], team: TeamState
    ) -> Game:
        """The team's doubles (``contracts`` offered by the team) go to the box."""
        doubles = tuple((c.holder, c.value) for c in contracts if c.pending == TEAM)
        team = replace(team, proposals=(), answering=doubles)
        return self._next(
            actions,
            phase=Phase.TAKE_OR_PASS,
            contracts=contracts,
            team=team.offered([holder for holder, _ in doubles], self.turn_no + 1),
        )

    def _chouette_answer(self, kind: type[Take | Pass | Beaver], holder: Holder | None) -> Game:
        """A member answers the box's double (or beaver) on their own cube (H5); or the
        box answers the team's doubles, one cube at a time in line order (H8, H10, H9
        when on), the team's one cube at once (H4). ``holder`` ``None``: the box
        answering the next in line."""
        assert self.team is not None and self.options.chouette is not None
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase is not Phase.TAKE_OR_PASS:
            raise NotYourTurn("there is no double to answer")
        due = [c for c in self.contracts if c.pending == TEAM]
        if holder is None and not due:
            raise CubeNotAvailable("the box owes no answer: name the member who answers")
        contract = due[0] if holder is None else self.contract(holder)
        if contract.pending is None:
            raise CubeNotAvailable(f"no double waits for an answer on {holder!r}'s cube")
        single = self.options.chouette.single
        if kind is Beaver:
            if not self.options.beavers:
                raise CubeNotAvailable("beavers are not allowed in this game")
            if single and contract.pending == BOX:
                raise CubeNotAvailable(
                    "one team cube (H4): a member takes or passes; a beaver would split it"
                )
        answered = [contract]
        if contract.pending == TEAM and single:
            answered = due
        elif contract.pending == TEAM:
            if contract.holder != due[0].holder:
                raise CubeNotAvailable(
                    f"the box answers the team's doubles in line order (H10): "
                    f"{due[0].holder}'s first"
                )
            if self.options.chouette.same_action and not contract.beavered:
                self._check_same_action(contract.holder, took=kind is not Pass)
        answer = {Take: CubeContract.take, Pass: CubeContract.pass_, Beaver: CubeContract.beaver}
        updated = {c.holder: answer[kind](c) for c in answered}
        contracts = tuple(updated.get(c.holder, c) for c in self.contracts)
        team = self.team.answered(updated)
        team = team.offered(
            [h for h, c in updated.items() if c.pending is not None], self.turn_no + 1
        )
        action = kind(answered[0].holder)
        if any(c.pending is not None for c in contracts):
            return self._next([action], contracts=contracts, team=team)
        return self._team_settled(action, contracts, replace(team, answering=()))

    def _check_same_action(self, holder: Holder, took: bool) -> None:
        """H9 on the set of team doubles the box is answering."""
        assert self.team is not None
        answers = {}
        for answered, _ in self.team.answering:
            contract = self.contract(answered)
            if contract.pending != TEAM:
                answers[answered] = contract.state is CubeState.LIVE or contract.passer != BOX
        check_same_action(self.team.answering, answers, holder, took)

    def _chouette_resign(self, value: Result, holder: Holder | None) -> Game:
        """The box offers ``value`` to every member still in the game; or a member
        (``holder``) offers their own contract to the box."""
        assert self.team is not None
        team = self.team
        if self.on_roll == BOX:
            if holder is not None:
                raise ValueError("the box resigns to every member still in the game")
            live = self.live_holders
            team = replace(team, resign_to=live).offered(live, self.turn_no + 1)
        else:
            if holder is not None and not self.in_play(holder):
                raise NotYourTurn(f"{holder} is out of this game: there is nothing to resign")
            if team.proposals or self.doubles_to_send:
                raise NotYourTurn("the team's cube round is open: resign after the roll")
            if holder is None:  # the captain, for the team: every contract still in play
                live = self.live_holders
                team = replace(team, resign_to=live).offered(live, self.turn_no + 1)
            else:
                team = replace(team, resigner=holder).offered([holder], self.turn_no + 1)
        return self._next(
            [Resign(value, holder)], phase=Phase.RESIGN_OFFERED, resignation=value, team=team
        )

    def _resign_answered(
        self, kind: type[AcceptResign | RejectResign], holder: Holder | None
    ) -> Game:
        """``holder`` answers the box's resignation for their own contract, or the box
        answers the member's, or the team's for ``holder``'s contract (None: the next in
        line); an accepted one settles that contract (S4)."""
        assert self.team is not None and self.resignation is not None
        team = self.team
        if self.on_roll == BOX:
            if holder is None and len(team.resign_to) == 1:
                holder = team.resign_to[0]
            if holder is None or holder not in team.resign_to:
                raise NotYourTurn(
                    f"{holder!r} owes no answer to the box's resignation"
                    if holder is not None
                    else "name the member who answers the box's resignation"
                )
            winner = TEAM
            team = replace(team, resign_to=tuple(h for h in team.resign_to if h != holder))
        elif team.resigner is None:  # the team's resignation: the box answers each contract
            holder = team.resign_to[0] if holder is None else holder
            if holder not in team.resign_to:
                raise NotYourTurn(f"{holder!r} has no contract in the team's resignation")
            winner = BOX
            team = replace(team, resign_to=tuple(h for h in team.resign_to if h != holder))
        else:
            if holder is not None and holder != team.resigner:
                raise NotYourTurn(f"the box answers {team.resigner}'s resignation, not {holder}'s")
            holder, winner = team.resigner, BOX
            assert holder is not None
            team = replace(team, resigner=None)
        team = team.answered([holder])
        if kind is AcceptResign:
            settled = ResignedContract(holder, winner, self.resignation)
            team = replace(team, resigned=(*team.resigned, settled))
        action = kind(holder)
        if team.resign_to:
            return self._next([action], team=team)
        play_on = Phase.ROLL if self.dice is None else Phase.MOVE
        return self._team_settled(action, self.contracts, team, play_on, resignation=None)

    def _team_settled(
        self,
        action: Action,
        contracts: tuple[CubeContract, ...],
        team: TeamState,
        play_on: Phase = Phase.ROLL,
        **changes: Any,
    ) -> Game:
        """Once nothing waits: play goes on (``play_on``) while a contract is still
        played for; once none is, the game is over, each contract with its outcome."""
        if any(c.live and team.resigned_by(c.holder) is None for c in contracts):
            return self._next([action], contracts=contracts, team=team, phase=play_on, **changes)
        return self._next(
            [action],
            contracts=contracts,
            team=team,
            phase=Phase.OVER,
            winner=None,
            result=Result.SETTLED,
            dice=None,
            pending=(),
            **changes,
        )

    # The tavli games (RULES.md TV, PO, PL, FV, GB, AD)

    @classmethod
    def _start_tavli(cls, options: GameOptions, opening: Opening, rules: TavliRules) -> Game:
        """TV2: the side with the higher die (or the winner of the game before) starts and
        rolls both dice afresh. No cube (TV1): each holder's contract stays at 1."""
        if opening.starter is None:
            _check_dice(opening.dice)
            if opening.dice[0] == opening.dice[1]:
                raise InvalidDice("the opening roll that starts the game cannot be a tie")
        if opening.auto_doubles:
            raise ValueError(f"there is no cube in {rules.title} (TV1)")
        return cls(
            options=options,
            opening=opening,
            board=rules.start_board(),
            on_roll=opening.first,
            phase=Phase.ROLL,
            dice=None,
            pending=(),
            contracts=tuple(CubeContract(holder=h, value=1, max_value=1) for h in options.holders),
        )

    def _stage_dice(self) -> tuple[int, ...]:
        """The dice being played: the roll's (M1), or the tavli stage's."""
        if self.stage is not None:
            return self.stage.stage
        assert self.dice is not None
        return dice_for_roll(*self.dice)

    def _check_cube(self) -> None:
        rules = self.options.variant.rules
        if rules is not None:
            raise CubeNotAvailable(
                f"there is no doubling cube in {rules.title} ({'AD7' if rules.one_two else 'TV1'})"
            )

    def _check_named(self) -> None:
        if self.awaiting_double:
            raise IllegalPlay(
                "you played the 1-2: name the double you will play four times first (AD4)",
                IllegalPlay.DOUBLE_NOT_NAMED,
            )

    def _roll_tavli(self, rules: TavliRules, dice: Dice) -> Game:
        """The side on roll rolls: its roll number counts (GB2), and the roll gives its
        turn's first stage (``tavli.turns.turn_for_roll``)."""
        board = self.board
        assert isinstance(board, TavliBoard)
        if rules.counts_rolls:
            if self.on_roll == 0:
                board = TavliBoard(board.mine._replace(roll=board.mine.roll + 1), board.opponent)
            else:
                board = TavliBoard(
                    board.mine, board.opponent._replace(roll=board.opponent.roll + 1)
                )
        view = board if self.on_roll == 0 else board.mirror()
        stage = tavli_turns.turn_for_roll(rules, view.mine.roll, dice)
        return self._tavli_stage([Roll(dice)], self.on_roll, board, stage, dice)

    def _tavli_stage(
        self,
        actions: list[Action],
        side: int,
        board: TavliBoard,
        stage: Turn,
        dice: Dice | None = None,
    ) -> Game:
        """The game once ``side`` is to play ``stage`` on ``board`` (side 0's view): it
        waits for the move, or, when no die of the stage can be played, what follows
        happens at once (recorded as ``NoMove``): the rest passes (GB3), or the turn ends."""
        rules = self.options.variant.rules
        assert rules is not None
        dice = dice or self.dice
        while True:
            plays: list[TavliPlay] = []
            if not stage.naming:
                view = board if side == 0 else board.mirror()
                plays = tavli_plays.stage_plays(rules, view, stage.stage)
            if plays or stage.naming:
                game = self._next(
                    actions, board=board, on_roll=side, phase=Phase.MOVE, dice=dice, stage=stage,
                    pending=(),
                )  # fmt: skip
                game._cache["plays"] = plays
                return game
            actions = [*actions, NoMove()]
            following = tavli_turns.after_stage(rules, stage, 0)
            if following.passed is None:
                return self._next(
                    actions,
                    board=board,
                    on_roll=side if following.roll_again else 1 - side,
                    phase=Phase.ROLL,
                    dice=None,
                    stage=None,
                    pending=(),
                )
            side, stage = 1 - side, following.passed

    def _check_tavli(self, view: TavliBoard, play: str | AnyPlay | Sequence[Step]) -> TavliPlay:
        """The legal play of the stage that ``play`` (text or steps) describes."""
        rules = self.options.variant.rules
        assert rules is not None and self.stage is not None
        if isinstance(play, str):
            segments = parse_play(play)
        else:
            steps = play.steps if isinstance(play, Play | TavliPlay) else play
            segments = [(int(step[0]), int(step[1])) for step in steps]
        legal = [p for p in self._plays() if isinstance(p, TavliPlay)]
        return tavli_plays.check_play(rules, view, self.stage.stage, segments, legal)

    def _end_tavli_stage(self, action: Action, result: TavliBoard) -> Game:
        """After a stage is played: the game is won (F7, TV4, AD7), lost or drawn by the
        mother (PL5), or the turn goes on, passes its rest (GB3) or ends."""
        rules = self.options.variant.rules
        assert rules is not None and self.stage is not None
        side = self.on_roll
        board = result if side == 0 else result.mirror()
        start = self._view(self.board)
        assert isinstance(start, TavliBoard)
        over = {"phase": Phase.OVER, "dice": None, "pending": (), "stage": None, "board": board}
        if result.mine.borne_off == CHECKERS:
            won = (
                Result.CHECKERS
                if rules.per_checker
                else Result.SINGLE
                if result.opponent.borne_off
                else Result.GAMMON
            )
            return self._next([action], winner=side, result=won, **over)
        if rules.mother:
            outcome = mother_outcome(start, result)
            if outcome == "won":
                return self._next([action], winner=side, result=Result.MOTHER, **over)
            if outcome == "draw":
                return self._next([action], winner=None, result=Result.DRAW, **over)
        used = len(action.steps) if isinstance(action, Move) else len(self.pending)
        following = tavli_turns.after_stage(rules, self.stage, used)
        if following.next_turn is not None:
            return self._tavli_stage([action], side, board, following.next_turn)
        if following.passed is not None:
            return self._tavli_stage([action], 1 - side, board, following.passed)
        return self._next(
            [action],
            board=board,
            on_roll=side if following.roll_again else 1 - side,
            phase=Phase.ROLL,
            dice=None,
            pending=(),
            stage=None,
        )


_WAITING = {
    Phase.ROLL: "a roll (or a double or a resignation)",
    Phase.MOVE: "a move",
    Phase.TAKE_OR_PASS: "an answer to the double",
    Phase.RESIGN_OFFERED: "an answer to the resignation",
}


def _check_dice(dice: Sequence[int]) -> Dice:
    """``dice`` as a roll, or ``InvalidDice`` unless they are two dice of 1..6."""
    if len(dice) != 2 or not all(type(d) is int and 1 <= d <= 6 for d in dice):
        raise InvalidDice(f"{list(dice)!r} are not two dice of 1..6")
    return dice[0], dice[1]


def _result_on_board(loser: tuple[int, ...], variant: Variant) -> Result:
    """Single, gammon or backgammon from the loser's checkers (S1-S3)."""
    if sum(loser) < variant.checkers:
        return Result.SINGLE
    if any(loser[18:]):
        return Result.BACKGAMMON
    return Result.GAMMON
