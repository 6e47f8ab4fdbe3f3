"""Variants as data: the same rules, another starting position and checker count (B2)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from backgammon.position import Position, board_from_points


@dataclass(frozen=True, slots=True)
class Variant:
    """A starting layout; everything else about the game is shared."""

    name: str
    mat_name: str
    checkers: int
    layout: tuple[tuple[int, int], ...]

    def start(self) -> Position:
        """The starting position, side on roll first (both sides set up alike)."""
        board = board_from_points(dict(self.layout))
        return Position(board, board)


class Variants(enum.Enum):
    """The variants a match, money session or chouette may be played with."""

    STANDARD = Variant("standard", "Backgammon", 15, ((24, 2), (13, 5), (8, 3), (6, 5)))
    NACKGAMMON = Variant(
        "nackgammon", "NackGammon", 15, ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4))
    )
    HYPERGAMMON = Variant("hypergammon", "HyperGammon (3)", 3, ((24, 1), (23, 1), (22, 1)))

    @classmethod
    def by_name(cls, name: str) -> Variant:
        """The variant called ``name`` (``standard``, ``nackgammon``, ``hypergammon``)."""
        for member in cls:
            if member.value.name == name:
                return member.value
        raise ValueError(f"unknown variant {name!r}")


STANDARD = Variants.STANDARD.value
START = STANDARD.start()
