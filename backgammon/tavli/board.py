"""The board of the tavli games (portes, plakoto, fevga, gul bara, acey-deucey).

GNU Backgammon's ``Position`` cannot hold these games: a plakoto point holds a pinned
checker under its pinner, fevga and gul bara run both sides the same way, acey-deucey's
checkers wait off the board to enter, and gul bara's doubles depend on how many rolls a
side has made. So each side is a ``Side`` in its own numbering (RULES.md B1): slot 0 of
``points`` its checkers borne off, slot r its checkers on its own point r (1..24, home
board 1..6). ``bar`` holds its hit checkers, ``waiting`` those not yet entered,
``pinned`` its own points where its single checker is pinned, ``roll`` the rolls it has
made in the game. A ``TavliBoard`` is the two sides, the side to move (``mine``) first,
exactly the API's board JSON. Which opposing point faces which of mine is a property of
the game (``facing``), not of the board, so the board is checked against a game's rules
(``TavliRules.validate``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

POINTS = 24
CHECKERS = 15
OFF = 0
SLOTS = POINTS + 1  # borne off, then points 1..24


class Side(NamedTuple):
    """One side's checkers, in its own numbering (see the module docstring). A named
    tuple rather than a dataclass: the generator builds one for every play it finds,
    and a tuple is built, hashed and compared in one C call."""

    points: tuple[int, ...]
    bar: int = 0
    waiting: int = 0
    pinned: tuple[int, ...] = ()
    roll: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back an equal side."""
        return {
            "points": list(self.points),
            "bar": self.bar,
            "waiting": self.waiting,
            "pinned": list(self.pinned),
            "roll": self.roll,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Side:
        """The side ``to_dict`` wrote."""
        return cls(
            tuple(data["points"]), data["bar"], data["waiting"], tuple(data["pinned"]), data["roll"]
        )

    @property
    def borne_off(self) -> int:
        """Checkers this side has borne off."""
        return self.points[OFF]

    @property
    def left(self) -> int:
        """Checkers not yet borne off: on the board, on the bar or waiting to enter."""
        return CHECKERS - self.points[OFF]


class TavliBoard(NamedTuple):
    """Both sides, the side to move first."""

    mine: Side
    opponent: Side

    def mirror(self) -> TavliBoard:
        """The same board seen by the other side (the other side to move)."""
        return TavliBoard(self.opponent, self.mine)


def facing(point: int, same_direction: bool) -> int:
    """The opponent's own number for my point ``point`` (1..24): ``25 - point`` when the
    sides move in opposite directions, ``((point + 11) mod 24) + 1`` when both move the
    same way round the board (fevga, gul bara). Both maps are their own inverse."""
    if same_direction:
        return point + 12 if point <= 12 else point - 12
    return 25 - point


def side_from_points(
    points: dict[int, int], *, bar: int = 0, waiting: int = 0, pinned: tuple[int, ...] = ()
) -> Side:
    """A ``Side`` from ``{own point: count}``; whatever is missing of the 15 is borne off."""
    slots = [0] * SLOTS
    for point, count in points.items():
        slots[point] += count
    slots[OFF] = CHECKERS - sum(slots) - bar - waiting
    return Side(tuple(slots), bar, waiting, tuple(sorted(pinned)))
