"""The board as an immutable value.

A ``Position`` is two 25-slot tuples, one per side, each counted from its own side
(the layout GNU Backgammon uses): slot ``i`` (0..23) holds that side's checkers on its
own point ``i + 1``; slot 24 is its bar. Checkers not on the board are borne off.
The side on roll comes first. Own point ``p`` is the opponent's point ``25 - p`` (B1).
"""

from __future__ import annotations

from dataclasses import dataclass

from backgammon.errors import InvalidPosition

BAR = 24
POINTS = 24
CHECKERS = 15

Board = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Position:
    """The checkers of the side on roll (``player``) and of the other side (``opponent``)."""

    player: Board
    opponent: Board

    def mirror(self) -> Position:
        """The same board seen by the other side (the other side on roll)."""
        return Position(self.opponent, self.player)

    def pips(self) -> tuple[int, int]:
        """Pip counts (player, opponent): each checker's distance to bearing off."""
        return pip_count(self.player), pip_count(self.opponent)

    def borne_off(self, checkers: int = CHECKERS) -> tuple[int, int]:
        """Checkers borne off (player, opponent) for a variant with ``checkers`` a side."""
        return checkers - sum(self.player), checkers - sum(self.opponent)

    def validate(self, checkers: int = CHECKERS) -> Position:
        """Return self, or raise ``InvalidPosition`` saying what is impossible."""
        for name, board in (("player", self.player), ("opponent", self.opponent)):
            if len(board) != POINTS + 1:
                raise InvalidPosition(f"{name} board must have 25 slots, not {len(board)}")
            if any(not isinstance(n, int) or n < 0 for n in board):
                raise InvalidPosition(f"{name} board has a negative or non-integer count")
            if sum(board) > checkers:
                raise InvalidPosition(
                    f"{name} has {sum(board)} checkers on the board; at most {checkers}"
                )
        for point in range(1, POINTS + 1):
            if self.player[point - 1] and self.opponent[POINTS - point]:
                raise InvalidPosition(f"both sides have checkers on point {point}")
        if sum(self.player) == 0 and sum(self.opponent) == 0:
            raise InvalidPosition("both sides have borne off every checker")
        return self


def pip_count(board: Board) -> int:
    """Pips a side needs to bear off everything; a checker on the bar counts 25."""
    return sum(count * (slot + 1) for slot, count in enumerate(board))


def board_from_points(points: dict[int, int]) -> Board:
    """A 25-slot board from ``{own point: count}``, point 25 meaning the bar."""
    slots = [0] * (POINTS + 1)
    for point, count in points.items():
        if not 1 <= point <= POINTS + 1:
            raise InvalidPosition(f"point {point} is not on the board (1..24, 25 = bar)")
        slots[point - 1] += count
    return tuple(slots)
