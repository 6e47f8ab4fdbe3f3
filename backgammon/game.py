"""One game of backgammon as an immutable state machine.

Every action (``roll``, ``move_step``, ``double``, ``take``...) returns a new ``Game``;
a refused action raises (``NotYourTurn``, ``IllegalPlay``, ``CubeNotAvailable``,
``GameOver``, ``InvalidDice``) and the old value is untouched, so the server can keep the
last good state and replay, undo and caching come for free.

Sides are 0 and 1 (the first and second player of a match; in a chouette the box and
the team: the core does not care who moves for a side). ``position`` is always from
side 0's view; ``position_for(side)`` gives either side's. The core never asks who is
calling: the server checks that the requesting player is ``turn`` (or, for ``take`` /
``pass_`` / ``beaver`` in a chouette, the holder of the contract answered).

A game carries one cube contract per stake holder (``GameOptions.holders``): one in a
match or money game, one per team member in a multiple-cube chouette. Points are per
contract, signed from side 0's view (positive: side 0 wins them): see
``points_by_holder``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from itertools import pairwise
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
from backgammon.notation import play_from_text
from backgammon.position import Position
from backgammon.variants import STANDARD, Variant, Variants

Dice = tuple[int, int]


class Phase(enum.Enum):
    """What the game waits for (the API's ``phase``)."""

    ROLL = "roll"
    MOVE = "move"
    TAKE_OR_PASS = "take_or_pass"
    RESIGN_OFFERED = "resign_offered"
    OVER = "over"


class Result(enum.Enum):
    """How a game ended; the first three are also what a side may resign (S4)."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    RESIGNED = "resigned"
    PASSED = "passed"
    FORFEIT = "forfeit"


class ForfeitReason(enum.Enum):
    """Why a side forfeited: its clock ran out, or it left the game."""

    TIMEOUT = "timeout"
    ABANDONED = "abandoned"


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
    False plays the game without a cube; ``holders`` names the cube contracts.
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

    def __post_init__(self) -> None:
        if self.backgammon_value not in (2, 3):
            raise ValueError("a backgammon counts 3 or 2 (S3)")
        if self.automatic_doubles < 0:
            raise ValueError("automatic_doubles is a limit, 0 or more")
        if self.cube_max is not None and (self.cube_max < 1 or self.cube_max & (self.cube_max - 1)):
            raise ValueError(f"cube_max {self.cube_max} is not a power of 2")
        if not self.holders or len(set(self.holders)) != len(self.holders):
            raise ValueError("a game needs one or more distinct cube holders")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back equal options."""
        return {
            "variant": self.variant.name,
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "automatic_doubles": self.automatic_doubles,
            "backgammon_value": self.backgammon_value,
            "cube_max": self.cube_max,
            "crawford": self.crawford,
            "cube_allowed": self.cube_allowed,
            "holders": list(self.holders),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameOptions:
        """The options ``to_dict`` wrote."""
        return cls(
            **{
                **data,
                "variant": Variants.by_name(data["variant"]),
                "holders": tuple(data["holders"]),
            }
        )


@dataclass(frozen=True, slots=True)
class Opening:
    """The opening roll as it matters to the game (O1, O2).

    ``dice``: side 0's die and side 1's die, not a tie: the higher die's side moves
    first, playing both. ``auto_doubles``: how many of the ties before it doubled the
    cube. The tied rolls themselves change nothing else, so they are not kept.
    """

    dice: Dice
    auto_doubles: int = 0

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
    """The side on roll doubled on the contracts of ``holders``."""

    kind: ClassVar[str] = "double"
    holders: tuple[Holder, ...]


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
    """The side on roll offered to resign ``value``."""

    kind: ClassVar[str] = "resign"
    value: Result


@dataclass(frozen=True, slots=True)
class AcceptResign:
    """The resignation on offer accepted: the game is over."""

    kind: ClassVar[str] = "accept_resign"


@dataclass(frozen=True, slots=True)
class RejectResign:
    """The resignation on offer refused: play goes on."""

    kind: ClassVar[str] = "reject_resign"


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``side`` lost on time or left (``reason``): the game is over, whatever it waited for."""

    kind: ClassVar[str] = "forfeit"
    side: int
    reason: ForfeitReason


Action = (
    Roll
    | NoMove
    | MoveStep
    | Undo
    | Confirm
    | Move
    | Double
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
        MoveStep,
        Undo,
        Confirm,
        Move,
        Double,
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
    """A JSON-safe dict for one action: ``{"type": "roll", "dice": [3, 1]}``."""
    data: dict[str, Any] = {"type": action.kind}
    for f in fields(action):
        value = getattr(action, f.name)
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


class _Derived(TypedDict, total=False):
    """What a ``Game`` works out from its fields on first use and keeps (a plain dict)."""

    plays: list[Play]
    results: frozenset[Position]
    walk: tuple[tuple[Step, ...], Position]


@dataclass(frozen=True)
class Game:
    """The state of one game; build it with ``start``, ``replay`` or ``from_dict``.

    Fields worth reading directly: ``options``, ``opening``, ``phase``, ``on_roll`` (the
    side whose turn it is: it rolls, moves, doubles, resigns), ``dice`` (rolled, while
    ``phase`` is ``move``), ``contracts``, ``resignation`` (the value on offer, or
    accepted, or what a forfeit cost), ``winner``, ``result``, ``turn_no`` (1 at the
    start, one more after every action: the server's stale-turn check) and ``history``.
    """

    options: GameOptions
    opening: Opening
    board: Position
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
            case Undo():
                return self.undo()
            case Confirm():
                return self.confirm()
            case Move(steps=steps):
                return self.play(steps)
            case Double(holders=holders):
                return self.double(holders)
            case Take(holder=holder):
                return self.take(holder)
            case Pass(holder=holder):
                return self.pass_(holder)
            case Beaver(holder=holder):
                return self.beaver(holder)
            case Resign(value=value):
                return self.resign(value)
            case AcceptResign():
                return self.accept_resign()
            case RejectResign():
                return self.reject_resign()
            case Forfeit(side=side, reason=reason):
                return self.forfeit(side, reason)
        raise TypeError(f"{action!r} is not an action a caller can apply")

    # Reading the state

    @property
    def turn(self) -> int | None:
        """The side that must act now: in ``take_or_pass`` the doubled side (the doubler
        while only beavers wait), in ``resign_offered`` the side offered the
        resignation; ``None`` once the game is over."""
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
    def position(self) -> Position:
        """The board from side 0's view, unconfirmed steps included."""
        view = self._walk()[1]
        return view if self.on_roll == 0 else view.mirror()

    def position_for(self, side: int) -> Position:
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
        left = list(dice_for_roll(*self.dice))
        for step in self.pending:
            left.remove(step.die)
        return tuple(left)

    def legal_plays(self) -> list[Play]:
        """Every distinct legal play of the rolled dice from the start of the turn
        (empty unless the game waits for a move)."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return []
        return list(self._plays())

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

    def points_by_holder(self) -> dict[Holder, int]:
        """Each contract's points, signed from side 0's view: positive, side 0 wins them.

        Settled contracts (passed) count as soon as they are settled; live ones count
        once the game is over (0 before).
        """
        multiplier = self._multiplier()
        jacoby = self.options.jacoby
        return {c.holder: c.points(self.winner, multiplier, jacoby) for c in self.contracts}

    def points_for(self, side: int) -> int:
        """What ``side`` wins (negative: loses) over all contracts."""
        total = sum(self.points_by_holder().values())
        return total if side == 0 else -total

    # Turn actions

    def roll(self, dice: Dice) -> Game:
        """The side on roll rolls ``dice`` (from the server's dice stream).

        A roll that cannot be played at all passes the turn at once, recorded as
        ``NoMove`` after the ``Roll`` (E2, E4).
        """
        self._expect(Phase.ROLL, "roll")
        dice = _check_dice(tuple(dice))
        plays = legal_plays(self._view(self.board), dice)
        if not plays:
            return self._next(
                [Roll(dice), NoMove()],
                on_roll=1 - self.on_roll,
                dice=None,
                doubled=False,
            )
        game = self._next([Roll(dice)], phase=Phase.MOVE, dice=dice)
        game._cache["plays"] = plays
        return game

    def move_step(self, origin: int, die: int) -> Game:
        """Move one checker from ``origin`` (25: the bar) with ``die``, not yet final (T3).

        The step is accepted only if the position it reaches can still be completed,
        with the dice left, into one of the roll's legal plays: so the compulsory-play
        rules (M5) bind a play made step by step too.
        """
        dice = self._rolled("move")
        remaining = list(self.remaining_dice)
        if die not in remaining:
            raise IllegalPlay(
                f"no {die} left to play (dice left: {remaining or 'none'})",
                IllegalPlay.WRONG_DICE,
            )
        before = self._walk()[1]
        after = apply_step(before, origin, die)
        remaining.remove(die)
        completions = legal_plays_for_dice(after, remaining) if remaining else []
        reachable = {p.result for p in completions} or {after}
        if reachable.isdisjoint(self._results()):
            usable = 1 + max((len(p.dice_used) for p in completions), default=0)
            raise self._why_not(dice, die, usable)
        return self._next([MoveStep(origin, die)], pending=(*self.pending, MoveStep(origin, die)))

    def undo(self) -> Game:
        """Take back the last unconfirmed step (T3)."""
        self._expect(Phase.MOVE, "undo")
        if not self.pending:
            raise IllegalPlay("there is no step to take back this turn")
        return self._next([Undo()], pending=self.pending[:-1])

    def confirm(self) -> Game:
        """Make this turn's steps final ("pick up the dice", T3); then the other side rolls."""
        dice = self._rolled("confirm")
        position = self._walk()[1]
        if position not in self._results():
            left = max(len(p.dice_used) for p in self._plays()) - len(self.pending)
            raise IllegalPlay(
                f"the play is not complete: {left} more {'die' if left == 1 else 'dice'} "
                "can be played and must be (M5)",
                IllegalPlay.MUST_USE_BOTH if dice[0] != dice[1] else IllegalPlay.MUST_USE_MORE,
            )
        return self._end_turn(Confirm(), position)

    def play(self, play: str | Play | Sequence[Step]) -> Game:
        """Make a whole play and confirm it (the API's ``move``), from the start of the
        turn: steps already played one by one are replaced.

        ``play`` is move text (``"24/18 13/11"``), a ``Play`` from ``legal_plays()`` or
        a sequence of ``Step`` (or ``(origin, destination)`` pairs). The history keeps
        the steps as played, in a legal order, so a transcript shows what was played.
        """
        dice = self._rolled("move")
        if isinstance(play, str):
            chosen = play_from_text(self._view(self.board), dice, play)
        elif isinstance(play, Play) and any(play is legal for legal in self._plays()):
            chosen = play
        else:
            steps = play.steps if isinstance(play, Play) else play
            chosen = check_play(self._view(self.board), dice, tuple(steps))
        return self._end_turn(Move(tuple(chosen.steps)), chosen.result)

    # Cube actions

    def double(self, holders: Iterable[Holder] | None = None) -> Game:
        """The side on roll doubles, before rolling (C2), on the contracts of
        ``holders`` (default: every contract it may double now).

        Refused in the Crawford game (P2), once already doubled this turn, on a cube the
        opponent owns, and past the cube's maximum (C1). A side that cannot move may
        still double (C3).
        """
        if self.phase is Phase.MOVE:
            raise CubeNotAvailable("a double must be offered before rolling")
        self._expect(Phase.ROLL, "double")
        if self.options.crawford:
            raise CubeNotAvailable("there is no doubling in the Crawford game")
        if not self.options.cube_allowed:
            raise CubeNotAvailable("the cube is not used in this game")
        if self.doubled:
            raise CubeNotAvailable("you have already doubled this turn")
        side = self.on_roll
        if holders is None:
            chosen = [c.holder for c in self.contracts if c.can_offer(side)]
            if not chosen:
                self.contracts[0].check_offer(side)
                raise CubeNotAvailable("you have no cube you may double now")
        else:
            chosen = list(dict.fromkeys(holders))
            if not chosen:
                raise CubeNotAvailable("name at least one cube to double")
            for holder in chosen:
                self.contract(holder).check_offer(side)
        contracts = tuple(c.offer(side) if c.holder in chosen else c for c in self.contracts)
        return self._next(
            [Double(tuple(chosen))],
            phase=Phase.TAKE_OR_PASS,
            contracts=contracts,
            doubled=True,
        )

    def take(self, holder: Holder | None = None) -> Game:
        """Accept the double (or the beaver) waiting on ``holder``'s contract (C4)."""
        contract = self._pending_contract(holder)
        return self._answered(Take(contract.holder), contract.take())

    def pass_(self, holder: Holder | None = None) -> Game:
        """Refuse the double (or the beaver) waiting on ``holder``'s contract (C4)."""
        contract = self._pending_contract(holder)
        return self._answered(Pass(contract.holder), contract.pass_())

    def beaver(self, holder: Holder | None = None) -> Game:
        """Take the double on ``holder``'s contract and redouble at once (C5, money only)."""
        contract = self._pending_contract(holder)
        if not self.options.beavers:
            raise CubeNotAvailable("beavers are not allowed in this game")
        return self._answered(Beaver(contract.holder), contract.beaver())

    # Resignation

    def resign(self, value: Result | str) -> Game:
        """The side on roll offers to resign a single, gammon or backgammon (S4)."""
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            raise NotYourTurn("you may resign only on your own turn")
        value = Result(value)
        if value not in _RESIGNABLE:
            raise ValueError("resign a single, a gammon or a backgammon")
        return self._next([Resign(value)], phase=Phase.RESIGN_OFFERED, resignation=value)

    def accept_resign(self) -> Game:
        """Accept the resignation on offer: the game ends at that value times the cube."""
        self._expect(Phase.RESIGN_OFFERED, "accept a resignation")
        return self._next(
            [AcceptResign()],
            phase=Phase.OVER,
            winner=1 - self.on_roll,
            result=Result.RESIGNED,
            dice=None,
            pending=(),
        )

    def reject_resign(self) -> Game:
        """Refuse the resignation on offer: play goes on where it stopped."""
        self._expect(Phase.RESIGN_OFFERED, "reject a resignation")
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
        )

    def compact(self) -> Game:
        """This game as a transcript (a ``.mat`` file) keeps it: each turn one ``Move``
        (steps, undos and confirm folded into it), resignations not accepted (refused,
        unanswered, or cut short by a forfeit) left out, steps of an unconfirmed turn
        dropped.

        Board, cube and score are those of this game; ``turn_no`` counts the shorter
        history. Two records of one match compare equal once compacted, however their
        turns were entered.
        """
        actions = self.history
        folded = (MoveStep, Undo, Confirm, RejectResign)
        unaccepted = {
            index
            for index, (action, after) in enumerate(pairwise((*actions, None)))
            if isinstance(action, Resign) and not isinstance(after, AcceptResign)
        }
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
                case NoMove() | RejectResign():
                    pass
                case Resign() if index in unaccepted:
                    pass
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
            },
            "board": [list(self.board.player), list(self.board.opponent)],
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
        player, opponent = data["board"]
        return cls(
            options=GameOptions.from_dict(data["options"]),
            opening=Opening(tuple(data["opening"]["dice"]), data["opening"]["auto_doubles"]),
            board=Position(tuple(player), tuple(opponent)),
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

    def _view(self, board: Position) -> Position:
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

    def _plays(self) -> list[Play]:
        if "plays" not in self._cache:
            self._cache["plays"] = legal_plays(self._view(self.board), self._rolled("move"))
        return self._cache["plays"]

    def _results(self) -> frozenset[Position]:
        """The positions the legal plays reach: plays are told apart by them."""
        if "results" not in self._cache:
            self._cache["results"] = frozenset(p.result for p in self._plays())
        return self._cache["results"]

    def _walk(self) -> tuple[tuple[Step, ...], Position]:
        """The pending steps as ``Step`` values and the position they reach (mover's view)."""
        if "walk" not in self._cache:
            position = self._view(self.board)
            steps = []
            for s in self.pending:
                destination = max(s.origin - s.die, OFF)
                hit = destination != OFF and position.opponent[24 - destination] == 1
                steps.append(Step(s.origin, destination, hit))
                position = apply_step(position, s.origin, s.die)
            self._cache["walk"] = (tuple(steps), position)
        return self._cache["walk"]

    def _why_not(self, dice: Dice, die: int, usable: int) -> IllegalPlay:
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

    def _end_turn(self, action: Action, position: Position) -> Game:
        """After a final play: the game is won, or the other side is on roll."""
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
        if kind is Result.GAMMON:
            return 2
        if kind is Result.BACKGAMMON:
            return self.options.backgammon_value
        return 1


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
