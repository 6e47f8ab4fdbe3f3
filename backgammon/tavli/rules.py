"""The five games as data and small rule functions (RULES.md TV, PO, PL, FV, GB, AD).

Every game is one ``TavliRules`` value: its start, its direction, what landing on a single
opposing checker does (``Capture``), and the few rules that only it has, as functions
the generator (``backgammon.tavli.plays``) calls: fevga's runner and start-quarter rules
(``fevga_step_rule``) and its unblocking duty (``fevga_duty``). Gul bara's run (GB2) and
acey-deucey's 1-2 (AD4) shape the turn and are played by ``backgammon.tavli.turns``;
plakoto's mother (PL5) and the scores (TV4, AD7) end the game (``mother_outcome``,
``score``). The options of a match (GB3, AD5, AD6) are fields with their defaults:
``with_options`` gives the game played another way. One more field is not a choice of
the players but of the record: ``mother_at_once`` is False only for plakoto games stored
before PL5 was judged after every checker (they replay as they were played).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from backgammon.errors import IllegalPlay, InvalidPosition
from backgammon.tavli.board import (
    CHECKERS,
    OFF,
    POINTS,
    SLOTS,
    Side,
    TavliBoard,
    facing,
    side_from_points,
)


class Capture(enum.Enum):
    """What landing on a single opposing checker does."""

    HIT = "hit"  # portes, acey-deucey: it goes to the bar (M4, AD3)
    PIN = "pin"  # plakoto: it is pinned under the checker (PL3)
    NONE = "none"  # fevga, gul bara: one checker holds a point, no landing there (FV2)


class RunRest(enum.Enum):
    """GB3: what becomes of the part of a gul bara run that cannot be played."""

    PASSES = "passes"  # the opponent plays it, then rolls his own turn (default)
    LOST = "lost"


# A rule on one step, beyond the landing point being open: given the mover's slots
# (0 off, 1..24, 25 bar, 26 waiting) before the step, its origin and its landing point,
# the reason code (``IllegalPlay.*``) that forbids it, or None. A game gives it for a
# turn from the mover's side (None: no such rule can bite this turn), so the generator
# keeps its fast paths wherever the rule does not matter.
StepRule = Callable[[Sequence[int], int, int], str | None]
StepRuleFor = Callable[["Side"], StepRule | None]
# A duty on the whole play, decided at the start of the turn: the mover's points of which
# the play must leave one empty, or () when there is no such duty.
Duty = Callable[[TavliBoard], tuple[int, ...]]

BAR_SLOT = 25
WAITING_SLOT = 26
START_QUARTER = range(19, 25)


def fevga_step(slots: Sequence[int], origin: int, to: int) -> str | None:
    """FV3 and FV4 for one step from ``origin`` to ``to`` (0: off)."""
    if not (slots[OFF] or any(slots[1:12])) and slots[24] < CHECKERS and origin == 24:
        # FV3: no checker has passed the opponent's start, and one has left 24: the
        # runner alone may move.
        return IllegalPlay.RUNNER_FIRST
    if to >= 19 and all(
        slots[point] - (point == origin) + (point == to) for point in START_QUARTER
    ):
        return IllegalPlay.START_QUARTER  # FV4: checked where the checker lands
    return None


def fevga_step_rule(side: Side) -> StepRule | None:
    """``fevga_step`` for a turn of ``side``, or None when it cannot bite: once a
    checker has passed the opponent's start FV3 is over for the game, and FV4 needs six
    checkers on 19..24, where checkers only ever leave or move down."""
    points = side.points
    passed = points[OFF] or any(points[1:12])
    if passed and sum(points[19:25]) < len(START_QUARTER):
        return None
    return fevga_step


def fevga_duty(board: TavliBoard) -> tuple[int, ...]:
    """FV5: when every opposing checker on the board stands on the one point right
    behind six points in a row of mine, my points among those six; else ()."""
    theirs = board.opponent.points
    occupied = [point for point in range(1, POINTS + 1) if theirs[point]]
    if len(occupied) != 1 or occupied[0] < 7:
        return ()
    behind = occupied[0]  # in the opponent's numbering; the wall is right in front of it
    wall = tuple(facing(behind - step, True) for step in range(1, 7))
    return wall if all(board.mine.points[point] for point in wall) else ()


@dataclass(frozen=True, slots=True)
class TavliRules:
    """One game of the family. ``name`` is the API's and the CLI's ``--variant``."""

    name: str
    title: str
    start: Side
    same_direction: bool
    capture: Capture
    step_rule: StepRuleFor | None = None
    duty: Duty | None = None
    run_from_roll: int | None = None  # GB2: from this roll of a side on, doubles run up
    mother: bool = False  # PL5
    one_two: bool = False  # AD4
    per_checker: bool = False  # AD7: the loser pays a point a checker not borne off
    run_rest: RunRest = RunRest.PASSES  # GB3 option
    double_earns_roll: bool = False  # AD5 option
    exact_bear_off: bool = False  # AD6 option
    mother_at_once: bool = True  # PL5 after every checker; False: at the turn's end (old games)
    facing_table: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        table = (0, *(facing(point, self.same_direction) for point in range(1, POINTS + 1)))
        object.__setattr__(self, "facing_table", table)

    @property
    def has_bar(self) -> bool:
        """Hit checkers go to a bar (portes, acey-deucey)."""
        return self.capture is Capture.HIT

    @property
    def has_waiting(self) -> bool:
        """Checkers start off the board and enter (acey-deucey, AD1)."""
        return self.start.waiting > 0

    @property
    def counts_rolls(self) -> bool:
        """The board keeps each side's roll number (gul bara's run, GB2)."""
        return self.run_from_roll is not None

    def start_board(self) -> TavliBoard:
        """Both sides set up alike, each in its own numbering."""
        return TavliBoard(self.start, self.start)

    def options(self) -> dict[str, Any]:
        """The options of this game that differ from its defaults, JSON-safe."""
        default = GAMES[self.name]
        return {
            name: _option_value(getattr(self, name))
            for name in _OPTIONS
            if getattr(self, name) != getattr(default, name)
        }

    def stored_options(self) -> dict[str, Any]:
        """``options`` as a stored game keeps them: a plakoto game says that PL5 is judged
        at once, because a game stored before it was (whose log cannot be rewritten) says
        nothing (``from_stored``)."""
        options = {k: v for k, v in self.options().items() if k != "mother_at_once"}
        if self.mother and self.mother_at_once:
            options["mother_at_once"] = True
        return options

    def from_stored(self, options: Mapping[str, Any]) -> TavliRules:
        """The game under the options ``stored_options`` wrote, or an older game wrote."""
        if self.mother and "mother_at_once" not in options:
            options = {**options, "mother_at_once": False}
        return self.with_options(options)

    def with_options(self, options: Mapping[str, Any]) -> TavliRules:
        """The same game under the options given (``run_rest``: ``passes`` or ``lost``,
        GB3; ``double_earns_roll``, AD5; ``exact_bear_off``, AD6; ``mother_at_once``,
        PL5, false only in plakoto games stored before the rule was judged at once)."""
        unknown = set(options) - set(_OPTIONS)
        if unknown:
            raise ValueError(f"unknown options {sorted(unknown)}: know {list(_OPTIONS)}")
        changes: dict[str, Any] = {}
        for name, value in options.items():
            if name == "run_rest":
                if self.run_from_roll is None:
                    raise ValueError("run_rest is an option of gul bara (GB3)")
                changes[name] = RunRest(value)
            elif name == "mother_at_once":
                if not self.mother:
                    raise ValueError("mother_at_once belongs to plakoto (PL5)")
                if not isinstance(value, bool):
                    raise ValueError(f"{name} is true or false")
                changes[name] = value
            else:
                if not self.one_two:
                    raise ValueError(f"{name} is an option of acey-deucey (AD5, AD6)")
                if not isinstance(value, bool):
                    raise ValueError(f"{name} is true or false")
                changes[name] = value
        return replace(self, **changes)

    # --- boards ---------------------------------------------------------------------

    def validate(self, board: TavliBoard) -> TavliBoard:
        """Return ``board``, or raise ``InvalidPosition`` saying why it cannot exist in
        this game."""
        for label, side in (("mine", board.mine), ("opponent", board.opponent)):
            self._check_side(label, side)
        if not board.mine.left and not board.opponent.left:
            raise InvalidPosition("both sides have borne off every checker")
        mine, theirs = board.mine, board.opponent
        for point in range(1, POINTS + 1):
            other = self.facing_table[point]
            if not (mine.points[point] and theirs.points[other]):
                if point in mine.pinned:
                    raise InvalidPosition(f"mine is pinned on {point} with nothing on it")
                if other in theirs.pinned:
                    raise InvalidPosition(f"opponent is pinned on {other} with nothing on it")
                continue
            if self.capture is not Capture.PIN:
                raise InvalidPosition(
                    f"both sides have checkers on one point (my {point}, the opponent's "
                    f"{other}): one checker holds a point in {self.title}"
                    if self.capture is Capture.NONE
                    else f"both sides have checkers on one point (my {point})"
                )
            if (point in mine.pinned) == (other in theirs.pinned):
                raise InvalidPosition(
                    f"both sides have checkers on my point {point}: exactly one of them "
                    "must be pinned there (PL3)"
                )
        return board

    def _check_side(self, label: str, side: Side) -> None:
        points = side.points
        if len(points) != SLOTS:
            raise InvalidPosition(
                f"{label} must have {SLOTS} slots (0 off, 1..24), not {len(points)}"
            )
        counts = (*points, side.bar, side.waiting, side.roll)
        if any(type(n) is not int or n < 0 for n in counts):
            raise InvalidPosition(f"{label} has a negative or non-integer count")
        total = sum(points) + side.bar + side.waiting
        if total != CHECKERS:
            raise InvalidPosition(f"{label} has {total} checkers; a side has {CHECKERS}")
        if side.bar and not self.has_bar:
            raise InvalidPosition(f"{label} has checkers on the bar: {self.title} has no bar")
        if side.waiting and not self.has_waiting:
            raise InvalidPosition(f"{label} has checkers waiting to enter in {self.title}")
        if side.roll and not self.counts_rolls:
            raise InvalidPosition(f"{self.title} does not count rolls")
        if side.pinned:
            if self.capture is not Capture.PIN:
                raise InvalidPosition(f"{label} has a pinned checker: {self.title} has no pins")
            if list(side.pinned) != sorted(set(side.pinned)):
                raise InvalidPosition(f"{label}'s pins must be distinct points, ascending")
            for point in side.pinned:
                if not 1 <= point <= POINTS:
                    raise InvalidPosition(f"{label} has a pin on {point}: points run 1..24")
                if points[point] != 1:
                    raise InvalidPosition(
                        f"{label} has {points[point]} checkers on {point} under a pin: a pin "
                        "holds one checker (PL3)"
                    )
        if points[OFF] and self.capture is not Capture.HIT and any(points[7:]):
            raise InvalidPosition(
                f"{label} has borne off while checkers stand outside its home board, which "
                f"no game of {self.title} can reach (F1)"
            )
        if self.step_rule is fevga_step_rule:
            if all(points[point] for point in START_QUARTER):
                raise InvalidPosition(f"{label} holds all of its 19..24 (FV4)")
            if not (points[OFF] or any(points[1:12])) and points[24] < CHECKERS - 1:
                raise InvalidPosition(
                    f"{label} has moved a second checker from 24 before one passed the "
                    "opponent's start (FV3)"
                )

    # --- the API's board JSON ------------------------------------------------------------

    def board_to_json(self, board: TavliBoard) -> dict[str, Any]:
        """``{"mine", "opponent", "pins"}``, with ``"bar"`` (portes, acey-deucey),
        ``"waiting"`` (acey-deucey) and ``"roll"`` (gul bara, the mover's)."""
        data: dict[str, Any] = {
            "mine": list(board.mine.points),
            "opponent": list(board.opponent.points),
            "pins": [["mine", point] for point in board.mine.pinned]
            + [["opponent", point] for point in board.opponent.pinned],
        }
        if self.has_bar:
            data["bar"] = {"mine": board.mine.bar, "opponent": board.opponent.bar}
        if self.has_waiting:
            data["waiting"] = {"mine": board.mine.waiting, "opponent": board.opponent.waiting}
        if self.counts_rolls:
            data["roll"] = board.mine.roll
        return data

    def board_from_json(self, data: object) -> TavliBoard:
        """The board ``board_to_json`` writes, checked (``InvalidPosition`` says why not)."""
        if not isinstance(data, dict):
            raise InvalidPosition('a board is an object {"mine", "opponent", "pins"}')
        allowed = {"mine", "opponent", "pins"}
        allowed |= {"bar"} if self.has_bar else set()
        allowed |= {"waiting"} if self.has_waiting else set()
        allowed |= {"roll"} if self.counts_rolls else set()
        unknown = set(data) - allowed
        if unknown:
            raise InvalidPosition(f"{self.title} boards have no {', '.join(sorted(unknown))}")
        pins: dict[str, list[int]] = {"mine": [], "opponent": []}
        raw_pins = data.get("pins", [])
        if not isinstance(raw_pins, list):
            raise InvalidPosition('pins is a list of ["mine" | "opponent", point]')
        for pin in raw_pins:
            if not (
                isinstance(pin, list) and len(pin) == 2 and pin[0] in pins and type(pin[1]) is int
            ):
                raise InvalidPosition(f'a pin is ["mine" | "opponent", point], not {pin!r}')
            pins[pin[0]].append(pin[1])
        roll = data.get("roll", 0)
        if self.counts_rolls and (type(roll) is not int or roll < 1):
            raise InvalidPosition('gul bara boards need "roll": the mover\'s roll number, from 1')
        sides = []
        for label in ("mine", "opponent"):
            points = data.get(label)
            if not isinstance(points, list) or len(points) != SLOTS:
                raise InvalidPosition(f"{label} must be a list of {SLOTS} counts (0 off, 1..24)")
            sides.append(
                Side(
                    tuple(points),
                    _pair(data, "bar", label),
                    _pair(data, "waiting", label),
                    tuple(sorted(pins[label])),
                    roll if label == "mine" else 0,
                )
            )
            if len(set(pins[label])) != len(pins[label]):
                raise InvalidPosition(f"{label} has two pins on one point")
        return self.validate(TavliBoard(sides[0], sides[1]))

    # --- the end of a game --------------------------------------------------------------

    def score(self, loser: Side) -> int:
        """The winner's points (TV4: 1, or 2 when the loser has borne off no checker;
        AD7: one a checker the loser has not borne off)."""
        if self.per_checker:
            return loser.left
        return 1 if loser.borne_off else 2


def mother_outcome(board: TavliBoard) -> str | None:
    """PL5 on a board from the mover's view, judged after each checker it moves:
    ``"won"`` when the opponent's mother (its last checker on its own 24) is pinned and
    the mover has no checker left on its own 24; ``"draw"`` when both mothers are
    pinned; None while play goes on. (A board that ends the game is never the start of
    a turn, so the mover cannot lose here: its own 24 is the opponent's to leave.)"""
    if 24 not in board.opponent.pinned:
        return None
    if 24 in board.mine.pinned:
        return "draw"
    return "won" if not board.mine.points[24] else None


def mother_in_reach(board: TavliBoard, dice: Sequence[int]) -> bool:
    """Whether a play of ``dice`` could end the game by PL5 (a cheap test that spares the
    common case the step-by-step search): the opponent's mother is pinned and the mover
    still has checkers on its own 24, or it stands alone and a checker of the mover's can
    reach the mover's point 1 over it."""
    mine, theirs = board.mine, board.opponent
    if 24 in theirs.pinned:
        return bool(mine.points[24])
    if theirs.points[24] != 1 or 1 in mine.pinned:
        return False
    return any(mine.points[2 : 2 + sum(dice)])


def _pair(data: dict[str, Any], key: str, label: str) -> int:
    value = data.get(key, {"mine": 0, "opponent": 0})
    if not isinstance(value, dict) or set(value) != {"mine", "opponent"}:
        raise InvalidPosition(f'{key} is {{"mine": n, "opponent": n}}')
    count = value[label]
    if type(count) is not int:
        raise InvalidPosition(f"{key} counts checkers: whole numbers")
    return int(count)


def _option_value(value: object) -> object:
    return value.value if isinstance(value, enum.Enum) else value


_ALL_ON_24 = Side((0,) * 24 + (CHECKERS,))
_PORTES_START = side_from_points({24: 2, 13: 5, 8: 3, 6: 5})  # B2

PORTES = TavliRules("portes", "Portes", _PORTES_START, False, Capture.HIT)
PLAKOTO = TavliRules("plakoto", "Plakoto", _ALL_ON_24, False, Capture.PIN, mother=True)
FEVGA = TavliRules(
    "fevga", "Fevga", _ALL_ON_24, True, Capture.NONE, step_rule=fevga_step_rule, duty=fevga_duty
)
GULBARA = TavliRules("gulbara", "Gul bara", _ALL_ON_24, True, Capture.NONE, run_from_roll=4)
ACEY_DEUCEY = TavliRules(
    "acey-deucey",
    "Acey-deucey",
    Side((0,) * SLOTS, waiting=CHECKERS),
    False,
    Capture.HIT,
    one_two=True,
    per_checker=True,
)
GAMES = {rules.name: rules for rules in (PORTES, PLAKOTO, FEVGA, GULBARA, ACEY_DEUCEY)}
_OPTIONS = ("run_rest", "double_earns_roll", "exact_bear_off", "mother_at_once")
