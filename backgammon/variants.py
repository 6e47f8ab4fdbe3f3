"""Variants as data: backgammon's (B2), another starting position and checker count, and
the games of the Greek and Bulgarian table (``rules``: RULES.md TV to AD)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from backgammon.position import Position, board_from_points
from backgammon.tavli.rules import ACEY_DEUCEY, FEVGA, GULBARA, PLAKOTO, PORTES, TavliRules


@dataclass(frozen=True, slots=True)
class Variant:
    """A starting layout; everything else about backgammon is shared. A game of the tavli
    family carries its ``rules`` instead (its own board, generator and scoring)."""

    name: str
    mat_name: str
    checkers: int
    layout: tuple[tuple[int, int], ...]
    rules: TavliRules | None = None

    def start(self) -> Position:
        """The starting position, side on roll first (both sides set up alike)."""
        board = board_from_points(dict(self.layout))
        return Position(board, board)

    def with_options(self, options: Mapping[str, Any]) -> Variant:
        """This game under the options of a match (GB3, AD5, AD6: ``TavliRules``)."""
        if not options:
            return self
        if self.rules is None:
            raise ValueError(f"{self.name} has no options of its own")
        return replace(self, rules=self.rules.with_options(options))

    def from_stored(self, options: Mapping[str, Any]) -> Variant:
        """This game under the options a stored game wrote (``TavliRules.from_stored``)."""
        if self.rules is None:
            return self.with_options(options)
        return replace(self, rules=self.rules.from_stored(options))


def _tavli(rules: TavliRules) -> Variant:
    return Variant(rules.name, rules.title, 15, (), rules)


class Variants(enum.Enum):
    """The variants a match, money session or chouette may be played with."""

    STANDARD = Variant("standard", "Backgammon", 15, ((24, 2), (13, 5), (8, 3), (6, 5)))
    NACKGAMMON = Variant(
        "nackgammon", "NackGammon", 15, ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4))
    )
    HYPERGAMMON = Variant("hypergammon", "HyperGammon (3)", 3, ((24, 1), (23, 1), (22, 1)))
    PORTES = _tavli(PORTES)
    PLAKOTO = _tavli(PLAKOTO)
    FEVGA = _tavli(FEVGA)
    GULBARA = _tavli(GULBARA)
    ACEY_DEUCEY = _tavli(ACEY_DEUCEY)

    @classmethod
    def by_name(cls, name: str) -> Variant:
        """The variant called ``name`` (``standard``, ``nackgammon``, ``hypergammon``,
        ``portes``, ``plakoto``, ``fevga``, ``gulbara``, ``acey-deucey``)."""
        for member in cls:
            if member.value.name == name:
                return member.value
        raise ValueError(f"unknown variant {name!r}")


STANDARD = Variants.STANDARD.value
START = STANDARD.start()
