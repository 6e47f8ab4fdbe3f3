"""Entries and the seeding order a draw puts them in.

An entry is identified by a string the app chooses (an entry's primary key as text, a
username...). The draw turns the entries into a *seed order*: seed 1 first. Entries the
director seeded by hand (``seed`` 1, 2, ... k) take the first k places; the others follow
by rating (highest first, equal ratings in the order the entries were given) or in a
random order drawn from the random source the caller passes.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypedDict

from tournaments.formats.errors import InvalidEntries, InvalidOptions, InvalidState


class Seeding(StrEnum):
    """How the entries not seeded by hand are ordered at the draw."""

    RANDOM = "random"
    RATING = "rating"


class EntryDict(TypedDict):
    """An entry's stored JSON form."""

    id: str
    rating: float | None
    seed: int | None


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry: its id, its rating (for seeding by rating) and a seed set by hand."""

    id: str
    rating: float | None = None
    seed: int | None = None

    def to_dict(self) -> EntryDict:
        return {"id": self.id, "rating": self.rating, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Any) -> Entry:
        try:
            return cls(id=data["id"], rating=data["rating"], seed=data["seed"])
        except (KeyError, TypeError) as error:
            raise InvalidState(f"not an entry: {data!r}") from error


def check_entries(entries: Sequence[Entry], seeding: Seeding) -> None:
    """Refuse entries no draw can use; say which entry is wrong."""
    if len(entries) < 2:
        raise InvalidEntries("a tournament needs at least two entries")
    ids = Counter(entry.id for entry in entries)
    for entry in entries:
        if not isinstance(entry.id, str) or not entry.id:
            raise InvalidEntries(f"an entry id must be a non-empty string, not {entry.id!r}")
        if ids[entry.id] > 1:
            raise InvalidEntries(f"entry {entry.id!r} is entered twice")
        if entry.rating is not None and (
            isinstance(entry.rating, bool)
            or not isinstance(entry.rating, int | float)
            or not math.isfinite(entry.rating)
        ):
            raise InvalidEntries(f"entry {entry.id!r} has a rating that is not a number")
        if entry.seed is not None and (
            isinstance(entry.seed, bool) or not isinstance(entry.seed, int) or entry.seed < 1
        ):
            raise InvalidEntries(f"entry {entry.id!r}: a seed is a whole number from 1")
    seeds = sorted(entry.seed for entry in entries if entry.seed is not None)
    if seeds != list(range(1, len(seeds) + 1)):
        raise InvalidEntries(f"seeds set by hand must be 1 to {len(seeds)}, each once: {seeds}")
    if seeding is Seeding.RATING:
        unrated = [entry.id for entry in entries if entry.seed is None and entry.rating is None]
        if unrated:
            raise InvalidEntries(f"seeding by rating, but no rating for {', '.join(unrated)}")


def seed_order(
    entries: Sequence[Entry], seeding: Seeding, rng: random.Random | None
) -> tuple[str, ...]:
    """The entry ids from seed 1 down: hand seeds first, then by rating or at random."""
    by_hand = sorted((entry.seed, entry.id) for entry in entries if entry.seed is not None)
    rest = [entry for entry in entries if entry.seed is None]
    if seeding is Seeding.RATING:
        rest.sort(key=lambda entry: entry.rating or 0.0, reverse=True)
    else:
        if rng is None:
            raise InvalidOptions("a random draw needs a random source")
        rng.shuffle(rest)
    return tuple(entry_id for _, entry_id in by_hand) + tuple(entry.id for entry in rest)
