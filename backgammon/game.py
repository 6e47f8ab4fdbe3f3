"""One game of backgammon as an immutable state machine, and the values it is made of.

Every action (``roll``, ``move_step``, ``double``, ``take``...) returns a new ``Game``;
a refused action raises (``NotYourTurn``, ``IllegalPlay``, ``CubeNotAvailable``,
``GameOver``, ``InvalidDice``) and the old value is untouched, so the server can keep the
last good state and replay, undo and caching come for free.

Sides are 0 and 1 (the first and second player of a match; in a chouette the box and
the team: the core does not care who moves for a side). ``position`` is always from
side 0's view; ``position_for(side)`` gives either side's. The core never asks who is
calling: the server checks that the requesting player is ``turn`` (in a chouette, where
several may act at once, one of ``awaiting``).

``Game`` plays backgammon in a match or a money game; each other variant family is a
subclass in ``backgammon.games`` overriding the hooks where its rules differ, and
``Game.start``, ``Game.replay`` and ``Game.from_dict`` give the class that plays the
options (``backgammon.games.game_class``).

A game carries one cube contract per stake holder (``GameOptions.holders``): one in a
match or money game, one per team member in a chouette (``GameOptions.chouette``: the box
is side 0, the team side 1, the holders the team in line order, captain first). Points
are per contract, signed from side 0's view (positive: side 0 wins them): see
``points_by_holder`` and ``outcomes``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from itertools import takewhile
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypedDict, cast

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
from backgammon.notation import play_from_text
from backgammon.position import Position
from backgammon.tavli.board import TavliBoard
from backgammon.tavli.plays import TavliPlay
from backgammon.tavli.turns import Turn
from backgammon.team import BOX, TEAM, Awaiting, ChouetteRules
from backgammon.variants import STANDARD, Variant, Variants

if TYPE_CHECKING:
    from backgammon.games.chouette import TeamState

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
RESIGNED_RESULTS = (Result.RESIGNED, Result.FORFEIT)


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
            **(
                {"variant_options": rules.stored_options()}
                if rules and rules.stored_options()
                else {}
            ),
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
        variant = Variants.by_name(data["variant"]).from_stored(data.get("variant_options", {}))
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

    def check_roll(self) -> None:
        """Raise ``InvalidDice`` unless ``dice`` are a roll that can start a game: two
        dice of 1..6, not a tie."""
        _check_dice(self.dice)
        if self.dice[0] == self.dice[1]:
            raise InvalidDice("the opening roll that starts the game cannot be a tie")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back an equal opening."""
        return {
            "dice": list(self.dice),
            "auto_doubles": self.auto_doubles,
            **({"starter": self.starter} if self.starter is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Opening:
        """The opening ``to_dict`` wrote."""
        return cls((data["dice"][0], data["dice"][1]), data["auto_doubles"], data.get("starter"))


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
    """What a game works out from its fields on first use and keeps (a plain dict)."""

    plays: Sequence[AnyPlay]
    results: frozenset[Board]
    walk: tuple[tuple[Step, ...], Board]


@dataclass(frozen=True)
class GameState:
    """What one game is, and everything read off it; ``Game`` adds how it moves.

    Fields worth reading directly: ``options``, ``opening``, ``phase``, ``on_roll`` (the
    side whose turn it is: it rolls, moves, doubles, resigns), ``dice`` (rolled, while
    ``phase`` is ``move``), ``contracts``, ``resignation`` (the value on offer, or
    accepted, or what a forfeit cost), ``winner``, ``result``, ``turn_no`` (1 at the
    start, one more after every action: the server's stale-turn check) and ``history``.

    Two fields only a variant sets (``None`` elsewhere): ``stage``, in the tavli games
    (``backgammon.games.tavli``), what is left of the turn (``tavli.turns.Turn``): the
    dice of the stage being played (gul bara's run and acey-deucey's 1-2 have several)
    and what follows it, ``dice`` staying the roll; ``team``, in a chouette
    (``backgammon.games.chouette``), the team's cube round, the offers waiting with the
    ``turn_no`` each was made at, and the resignations. ``doubled`` is the side on
    roll's one double a turn (a chouette's team may double in several rounds, H8).
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

    # The turn and the board

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
        return False

    # The stakes

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
        """``holder``'s contract is still played for: not passed (in a chouette, nor
        resigned)."""
        return self.contract(holder).live

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
        """Who must act now (API.md's ``awaiting``), side 0 standing for the box (see
        ``Awaiting``). Members who may double in a chouette team's cube round are not
        awaited: the captain's roll ends the round."""
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
            return Awaiting(members=self._answering_resignation())
        if self.on_roll == BOX:
            return Awaiting(box=True)
        captain = self.captain
        return Awaiting(members=() if captain is None else (captain,))

    def offered_at(self, holder: Holder) -> int | None:
        """A chouette: the ``turn_no`` of the offer (double, beaver or resignation) that
        ``holder``'s contract waits to have answered, by the member or by the box; the
        answer carries it instead of the game's ``turn_no`` (API.md). ``None``: no offer
        waits on it (always, outside a chouette)."""
        return None

    @property
    def doubles_to_send(self) -> tuple[Holder, ...]:
        """A chouette with multiple cubes: the members who doubled in the team's cube
        round still open; the captain's roll sends them to the box (``close_round``).
        Always empty outside a chouette."""
        return ()

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

    # What a variant overrides to read its own board and stakes

    def _stage_dice(self) -> tuple[int, ...]:
        """The dice being played: the roll's (M1; a variant's turn may play others)."""
        assert self.dice is not None
        return dice_for_roll(*self.dice)

    def _find_plays(self) -> Sequence[AnyPlay]:
        """The legal plays of the turn (M5), from the mover's view."""
        view = self._view(self.board)
        assert isinstance(view, Position)
        assert self.dice is not None
        return legal_plays(view, self.dice)

    def _walk_pending(self) -> tuple[tuple[Step, ...], Board]:
        """The pending steps as ``Step`` values and the position they reach (mover's view)."""
        position = self._view(self.board)
        assert isinstance(position, Position)
        steps = []
        for s in self.pending:
            destination = max(s.origin - s.die, OFF)
            hit = destination != OFF and position.opponent[24 - destination] == 1
            steps.append(Step(s.origin, destination, hit))
            position = apply_step(position, s.origin, s.die)
        return tuple(steps), position

    def _step(
        self, before: Board, origin: int, die: int, remaining: Sequence[int]
    ) -> tuple[Board, Sequence[AnyPlay]]:
        """The board one step reaches from ``before`` (mover's view), and the plays of
        the ``remaining`` dice from there."""
        assert isinstance(before, Position)
        after = apply_step(before, origin, die)
        return after, legal_plays_for_dice(after, remaining) if remaining else []

    def _choose_play(self, dice: Dice, play: str | AnyPlay | Sequence[Step]) -> AnyPlay:
        """The legal play that ``play`` (text, a play or steps) describes, or ``IllegalPlay``."""
        view = self._view(self.board)
        assert isinstance(view, Position)
        # The roll's plays, found once when it was rolled (backgammon's are all Plays).
        legal = cast(Sequence[Play], self._plays())
        if isinstance(play, str):
            return play_from_text(view, dice, play, legal)
        steps = play.steps if isinstance(play, Play | TavliPlay) else play
        return check_play(view, dice, tuple(steps), legal)

    def _check_ready_to_move(self) -> None:
        """Raise unless the mover may move a checker now (backgammon: always, once rolled)."""

    def _check_cube(self) -> None:
        """Raise ``CubeNotAvailable`` when the game has no doubling cube at all."""

    def _check_resignable(self, value: Result) -> None:
        """Raise ``ValueError`` when ``value`` cannot be resigned in this game."""

    def _pending_contract(self, holder: Holder | None) -> CubeContract:
        """The contract of ``holder`` (None: the only one) whose double waits for an answer."""
        if holder is None:
            waiting = [c for c in self.contracts if c.pending is not None]
            if len(waiting) != 1:
                raise CubeNotAvailable("several doubles wait for an answer; name the cube")
            return waiting[0]
        contract = self.contract(holder)
        if contract.pending is None:
            raise CubeNotAvailable(f"no double waits for an answer on {holder!r}'s cube")
        return contract

    def _answering_resignation(self) -> tuple[Holder, ...]:
        """The holders who owe an answer to the resignation side 0 offered."""
        return self.options.holders

    def _lost_on_board(self, side: int) -> Result:
        """What ``side`` would lose if the game ended on this board (S1-S3)."""
        assert isinstance(self.board, Position)
        loser = self.board.player if side == 0 else self.board.opponent
        return _result_on_board(loser, self.options.variant)

    def _multiplier(self) -> int:
        """What the game's ending multiplies each live contract's cube by (S1-S3)."""
        return self._value_multiplier(
            self.resignation if self.result in RESIGNED_RESULTS else self.result
        )

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
        if self.result is None:
            return None
        value = self.resignation if self.result in RESIGNED_RESULTS else self.result
        points = contract.points(self.winner, self._multiplier(), jacoby)
        return ContractOutcome(holder, self.winner, self.result, value, stake, points)

    # Internals

    def _view(self, board: Board) -> Board:
        """``board`` (side 0's view) from the side on roll's view."""
        return board if self.on_roll == 0 else board.mirror()

    def _plays(self) -> Sequence[AnyPlay]:
        if "plays" not in self._cache:
            self._cache["plays"] = self._find_plays()
        return self._cache["plays"]

    def _results(self) -> frozenset[Board]:
        """The positions the legal plays reach: plays are told apart by them."""
        if "results" not in self._cache:
            self._cache["results"] = frozenset(p.result for p in self._plays())
        return self._cache["results"]

    def _walk(self) -> tuple[tuple[Step, ...], Board]:
        if "walk" not in self._cache:
            self._cache["walk"] = self._walk_pending()
        return self._cache["walk"]

    def _next(self, actions: list[Action], **changes: Any) -> Self:
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

    def _doubling(self, holders: Iterable[Holder], side: int) -> list[Holder]:
        """The contracts of ``holders`` ``side`` may double now, in line order (H10;
        in a match, the one contract)."""
        named = list(dict.fromkeys(holders))
        if not named:
            raise CubeNotAvailable("name at least one cube to double")
        for holder in named:
            self._check_doubling(holder, side)
        return [c.holder for c in self.contracts if c.holder in named]

    def _check_doubling(self, holder: Holder, side: int) -> None:
        """Raise ``CubeNotAvailable`` unless ``side`` may double ``holder``'s cube now."""
        self.contract(holder).check_offer(side)


class Game(GameState):
    """One game as an immutable state machine; build it with ``start``, ``replay`` or
    ``from_dict``, which give the class that plays the game's options
    (``backgammon.games.game_class``): this one plays backgammon (standard, Nackgammon,
    Hypergammon) in a match or a money game; the tavli games, acey-deucey and a
    chouette's team are its subclasses, each overriding the hooks where its rules differ.
    """

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
        return _game_class(options)._start(options, opening)

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

    # Turn actions

    def roll(self, dice: Dice) -> Game:
        """The side on roll rolls ``dice`` (from the server's dice stream).

        A roll that cannot be played at all passes the turn at once, recorded as
        ``NoMove`` after the ``Roll`` (E2, E4).
        """
        self._expect(Phase.ROLL, "roll")
        return self._roll(_check_dice(tuple(dice)))

    def move_step(self, origin: int, die: int) -> Game:
        """Move one checker from ``origin`` (25: the bar) with ``die``, not yet final (T3).

        The step is accepted only if the position it reaches can still be completed,
        with the dice left, into one of the roll's legal plays: so the compulsory-play
        rules (M5) bind a play made step by step too.
        """
        self._rolled("move")
        self._check_ready_to_move()
        remaining = list(self.remaining_dice)
        if die not in remaining:
            raise IllegalPlay(
                f"no {die} left to play (dice left: {remaining or 'none'})",
                IllegalPlay.WRONG_DICE,
            )
        remaining.remove(die)
        after, completions = self._step(self._walk()[1], origin, die, remaining)
        reachable = {p.result for p in completions} or {after}
        if reachable.isdisjoint(self._results()):
            usable = 1 + max((len(p.dice_used) for p in completions), default=0)
            raise self._why_not(self._stage_dice(), die, usable)
        return self._next([MoveStep(origin, die)], pending=(*self.pending, MoveStep(origin, die)))

    def undo(self) -> Game:
        """Take back the last unconfirmed step (T3)."""
        self._expect(Phase.MOVE, "undo")
        self._check_ready_to_move()
        if not self.pending:
            raise IllegalPlay("there is no step to take back this turn")
        return self._next([Undo()], pending=self.pending[:-1])

    def confirm(self) -> Game:
        """Make this turn's steps final ("pick up the dice", T3); then the other side rolls."""
        self._rolled("confirm")
        self._check_ready_to_move()
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
        self._check_ready_to_move()
        chosen: AnyPlay
        if isinstance(play, Play | TavliPlay) and any(play is legal for legal in self._plays()):
            chosen = play
        else:
            chosen = self._choose_play(dice, play)
        return self._end_turn(Move(tuple(chosen.steps)), chosen.result)

    def name_double(self, value: int) -> Game:
        """Acey-deucey: name the double to play four times after the 1-2 (AD4); refused
        in every other game and turn."""
        self._expect(Phase.MOVE, "name a double")
        raise IllegalPlay(
            "a double is named only after playing a 1-2 in full (AD4)", IllegalPlay.NOT_LEGAL
        )

    # Cube actions

    def double(self, holders: Iterable[Holder] | None = None) -> Game:
        """The side on roll doubles, before rolling (C2), on the contracts of
        ``holders`` (default: every contract it may double now).

        Refused in the Crawford game (P2), once already doubled this turn, on a cube the
        opponent owns, and past the cube's maximum (C1). A side that cannot move may
        still double (C3).
        """
        self._check_cube()
        if self.phase is Phase.MOVE:
            raise CubeNotAvailable("a double must be offered before rolling")
        self._expect(Phase.ROLL, "double")
        if self.options.crawford:
            raise CubeNotAvailable("there is no doubling in the Crawford game")
        if not self.options.cube_allowed:
            raise CubeNotAvailable("the cube is not used in this game")
        return self._offer_double(holders)

    def close_round(self) -> Game:
        """A chouette with multiple cubes: the captain ends the team's cube round (his
        roll, API.md); refused in every other game."""
        self._check_cube()
        self._expect(Phase.ROLL, "send the team's doubles")
        return self._close_round()

    def take(self, holder: Holder | None = None) -> Game:
        """Accept the double (or the beaver) waiting on ``holder``'s contract (C4)."""
        return self._answer_double(Take, holder)

    def pass_(self, holder: Holder | None = None) -> Game:
        """Refuse the double (or the beaver) waiting on ``holder``'s contract (C4)."""
        return self._answer_double(Pass, holder)

    def beaver(self, holder: Holder | None = None) -> Game:
        """Take the double on ``holder``'s contract and redouble at once (C5, money only)."""
        return self._answer_double(Beaver, holder)

    # Resignation and forfeit

    def resign(self, value: Result | str, holder: Holder | None = None) -> Game:
        """The side on roll offers to resign a single, gammon or backgammon (S4)."""
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            raise NotYourTurn("you may resign only on your own turn")
        value = Result(value)
        if value not in _RESIGNABLE:
            raise ValueError("resign a single, a gammon or a backgammon")
        self._check_resignable(value)
        return self._offer_resignation(value, holder)

    def accept_resign(self, holder: Holder | None = None) -> Game:
        """Accept the resignation on offer: the game ends at that value times the cube."""
        self._expect(Phase.RESIGN_OFFERED, "accept a resignation")
        return self._answer_resignation(AcceptResign, holder)

    def reject_resign(self, holder: Holder | None = None) -> Game:
        """Refuse the resignation on offer: play goes on where it stopped."""
        self._expect(Phase.RESIGN_OFFERED, "reject a resignation")
        return self._answer_resignation(RejectResign, holder)

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
        return self._next(
            [Forfeit(side, reason)],
            phase=Phase.OVER,
            winner=1 - side,
            result=Result.FORFEIT,
            resignation=Result.SINGLE
            if self._lost_on_board(side) is Result.SINGLE
            else Result.GAMMON,
            contracts=tuple(c.lapse() if c.pending is not None else c for c in self.contracts),
            dice=None,
            pending=(),
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
        unaccepted = _unaccepted_resignations(actions)
        if not unaccepted and not any(isinstance(a, MoveStep | Undo | Confirm) for a in actions):
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
            "opening": self.opening.to_dict(),
            **self._fields_to_dict(),
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
        """The game ``to_dict`` wrote (restored as stored, not replayed), of the class
        that plays its options."""
        options = GameOptions.from_dict(data["options"])
        game_class = _game_class(options)
        return game_class(
            options=options,
            opening=Opening.from_dict(data["opening"]),
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
            **game_class._fields_from_dict(data),
        )

    # The hooks a variant overrides where its rules differ (backgammon's rules here)

    @classmethod
    def _start(cls, options: GameOptions, opening: Opening) -> Self:
        """The game once ``opening`` is rolled (O1, O2)."""
        if opening.starter is not None:
            raise ValueError("only the tavli games start without an opening roll (TV2)")
        opening.check_roll()
        value = 1 << opening.auto_doubles
        if opening.auto_doubles > options.automatic_doubles or (
            options.cube_max is not None and value > options.cube_max
        ):
            raise ValueError(f"{opening.auto_doubles} automatic doubles are not allowed")
        return cls(
            options=options,
            opening=opening,
            board=options.variant.start(),
            on_roll=opening.first,
            phase=Phase.MOVE,
            dice=(max(opening.dice), min(opening.dice)),
            pending=(),
            contracts=tuple(
                CubeContract(holder=holder, value=value, max_value=options.cube_max)
                for holder in options.holders
            ),
        )

    def _roll(self, dice: Dice, **changes: Any) -> Game:
        """The game once the side on roll rolled ``dice`` (checked), with ``changes``."""
        view = self._view(self.board)
        assert isinstance(view, Position)
        plays = legal_plays(view, dice)
        if not plays:
            return self._next(
                [Roll(dice), NoMove()],
                on_roll=1 - self.on_roll,
                dice=None,
                doubled=False,
                **changes,
            )
        game = self._next([Roll(dice)], phase=Phase.MOVE, dice=dice, **changes)
        game._cache["plays"] = plays
        return game

    def _end_turn(self, action: Action, position: Board) -> Game:
        """After a final play: the game is won, or the other side is on roll."""
        assert isinstance(position, Position)
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

    def _offer_double(self, holders: Iterable[Holder] | None) -> Game:
        """The side on roll's double on ``holders`` (None: every cube it may double)."""
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
        return self._doubled(chosen)

    def _doubled(self, chosen: Sequence[Holder], **changes: Any) -> Game:
        """The game once the side on roll doubled the contracts of ``chosen``."""
        contracts = tuple(
            c.offer(self.on_roll) if c.holder in chosen else c for c in self.contracts
        )
        return self._next(
            [Double(tuple(chosen))],
            phase=Phase.TAKE_OR_PASS,
            contracts=contracts,
            doubled=True,
            **changes,
        )

    def _close_round(self) -> Game:
        raise NotYourTurn("only a chouette's team has a cube round, on its own turn")

    def _answer_double(self, kind: type[Take | Pass | Beaver], holder: Holder | None) -> Game:
        """``holder``'s contract answers the double waiting on it (None: the only one)."""
        self._check_cube()
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase is not Phase.TAKE_OR_PASS:
            raise NotYourTurn("there is no double to answer")
        contract = self._pending_contract(holder)
        if kind is Beaver and not self.options.beavers:
            raise CubeNotAvailable("beavers are not allowed in this game")
        answered = CUBE_ANSWERS[kind](contract)
        contracts = tuple(answered if c.holder == answered.holder else c for c in self.contracts)
        action = kind(contract.holder)
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

    def _offer_resignation(self, value: Result, holder: Holder | None) -> Game:
        if holder is not None:
            raise ValueError("only a chouette's team members resign a contract of their own")
        return self._next([Resign(value)], phase=Phase.RESIGN_OFFERED, resignation=value)

    def _answer_resignation(
        self, kind: type[AcceptResign | RejectResign], holder: Holder | None
    ) -> Game:
        if holder is not None:
            raise ValueError("only in a chouette is a resignation answered per contract")
        if kind is AcceptResign:
            return self._next(
                [AcceptResign()],
                phase=Phase.OVER,
                winner=1 - self.on_roll,
                result=Result.RESIGNED,
                dice=None,
                pending=(),
            )
        phase = Phase.ROLL if self.dice is None else Phase.MOVE
        return self._next([RejectResign()], phase=phase, resignation=None)

    def _fields_to_dict(self) -> dict[str, Any]:
        """The board and the variant's own fields, JSON-safe (``_fields_from_dict``)."""
        assert isinstance(self.board, Position)
        return {"board": [list(self.board.player), list(self.board.opponent)]}

    @classmethod
    def _fields_from_dict(cls, data: dict[str, Any]) -> dict[str, Any]:
        player, opponent = data["board"]
        return {"board": Position(tuple(player), tuple(opponent))}


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


# What each answer to a double does to the contract it answers (C4, C5).
CUBE_ANSWERS = {Take: CubeContract.take, Pass: CubeContract.pass_, Beaver: CubeContract.beaver}


def _unaccepted_resignations(actions: Sequence[Action]) -> set[int]:
    """The indexes of each resignation nobody accepted, and of its answers."""
    unaccepted: set[int] = set()
    for index, action in enumerate(actions):
        if isinstance(action, Resign):
            answers = list(
                takewhile(
                    lambda a: isinstance(a, AcceptResign | RejectResign), actions[index + 1 :]
                )
            )
            if not any(isinstance(answer, AcceptResign) for answer in answers):
                unaccepted.update(range(index, index + 1 + len(answers)))
    return unaccepted


def _game_class(options: GameOptions) -> type[Game]:
    """``backgammon.games.game_class``, imported when first asked: the variants' modules
    build on this one."""
    from backgammon.games import game_class

    return game_class(options)
