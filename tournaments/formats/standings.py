"""Standings of a Swiss or a round robin, and the tie-breaks that order them.

Score: one point for each win and for a bye; a loss scores nothing. Players with equal
scores are ordered by these tie-breaks, each applied to the players still tied:

1. **Head-to-head**, only when every two players of the tied group have played each
   other: each counts their wins in the matches among the group (every match counts if
   two met more than once); more wins rank higher.
2. **Buchholz**: the sum of the current scores of the opponents a player has met, one
   term per match played (an opponent met twice counts twice). A bye is no opponent: it
   adds nothing to its holder's Buchholz; the point it gave is in its holder's score,
   which their opponents' Buchholz counts like any other point.

Whenever a tie-break splits a tied group, each smaller group still tied starts again
from head-to-head among its own members. Players still tied after both tie-breaks
share the place (3rd-4th), and are listed in seed order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, groupby

from tournaments.formats.pairings import Pairing


@dataclass(frozen=True, slots=True, order=True)
class Place:
    """A place, shared when ``last`` > ``first`` (3rd-4th)."""

    first: int
    last: int

    def __str__(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


@dataclass(frozen=True, slots=True)
class Standing:
    """One entry's line in the standings."""

    entry: str
    place: Place
    score: int
    wins: int
    losses: int
    byes: int
    buchholz: int


class Record:
    """Scores and meetings from the finished pairings."""

    def __init__(self, seed_order: Sequence[str], pairings: Sequence[Pairing]) -> None:
        self.wins: Counter[str] = Counter()
        self.losses: Counter[str] = Counter()
        self.byes: Counter[str] = Counter()
        self.opponents: dict[str, list[str]] = {entry: [] for entry in seed_order}
        self.beat: Counter[tuple[str, str]] = Counter()
        for pairing in pairings:
            if pairing.winner is None:
                continue
            loser = pairing.loser
            if loser is None:
                self.byes[pairing.winner] += 1
                continue
            self.wins[pairing.winner] += 1
            self.losses[loser] += 1
            self.opponents[pairing.winner].append(loser)
            self.opponents[loser].append(pairing.winner)
            self.beat[pairing.winner, loser] += 1

    def score(self, entry: str) -> int:
        return self.wins[entry] + self.byes[entry]

    def buchholz(self, entry: str) -> int:
        return sum(self.score(opponent) for opponent in self.opponents[entry])

    def met(self, first: str, second: str) -> bool:
        return second in self.opponents[first]


def standings(seed_order: Sequence[str], pairings: Sequence[Pairing]) -> tuple[Standing, ...]:
    """Every entry, best first, from the finished pairings among ``pairings``."""
    record = Record(seed_order, pairings)
    seed_index = {entry: index for index, entry in enumerate(seed_order)}
    by_score = sorted(seed_order, key=lambda entry: (-record.score(entry), seed_index[entry]))
    tied_groups = [
        tied
        for _, group in groupby(by_score, key=record.score)
        for tied in _break_ties(list(group), record)
    ]
    lines: list[Standing] = []
    for tied in tied_groups:
        place = Place(len(lines) + 1, len(lines) + len(tied))
        for entry in sorted(tied, key=seed_index.__getitem__):
            lines.append(
                Standing(
                    entry=entry,
                    place=place,
                    score=record.score(entry),
                    wins=record.wins[entry],
                    losses=record.losses[entry],
                    byes=record.byes[entry],
                    buchholz=record.buchholz(entry),
                )
            )
    return tuple(lines)


def _break_ties(group: list[str], record: Record) -> list[list[str]]:
    """The groups of a score group still tied, best first (see the module's rules)."""
    if len(group) == 1:
        return [group]
    tie_breaks: list[Callable[[str], int]] = [record.buchholz]
    if all(record.met(first, second) for first, second in combinations(group, 2)):
        members = set(group)
        tie_breaks.insert(
            0,
            lambda entry: sum(record.beat[entry, other] for other in members),
        )
    for tie_break in tie_breaks:
        ordered = sorted(group, key=tie_break, reverse=True)
        parts = [list(part) for _, part in groupby(ordered, key=tie_break)]
        if len(parts) > 1:
            return [tied for part in parts for tied in _break_ties(part, record)]
    return [group]
