"""Brackets, pairings and rounds: what the director starts and the players play.

A *round* is the tournament's unit of play (round 3 of the tournament): every pairing in
it can be played at the same time, and the next round starts once all have a result. A
pairing belongs to one bracket and is in some round of that bracket (the consolation's
first round is played in the tournament's second round). A pairing is two entries, or
one entry with a bye (which is its own winner from the start).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol, TypedDict

from tournaments.formats.errors import InvalidState, NotInPairing, PairingFinished


class Event(StrEnum):
    """A competition with its own places (and prizes) within the tournament."""

    MAIN = "main"
    CONSOLATION = "consolation"
    LAST_CHANCE = "last_chance"


class Bracket(StrEnum):
    """Where a pairing is played; the winners', losers' and grand final of a double
    elimination all decide the main event's places."""

    MAIN = "main"
    LOSERS = "losers"
    GRAND_FINAL = "grand_final"
    CONSOLATION = "consolation"
    LAST_CHANCE = "last_chance"

    @property
    def event(self) -> Event:
        if self is Bracket.CONSOLATION:
            return Event.CONSOLATION
        if self is Bracket.LAST_CHANCE:
            return Event.LAST_CHANCE
        return Event.MAIN


class LocationDict(TypedDict):
    """Where a pairing or a plan's node is, in its stored JSON form."""

    id: str
    round: int
    bracket: str
    bracket_round: int
    position: int


class LocationArgs(TypedDict):
    """A stored location read back, as keyword arguments."""

    id: str
    round: int
    bracket: Bracket
    bracket_round: int
    position: int


class PairingDict(LocationDict):
    """A pairing's stored JSON form."""

    players: list[str]
    winner: str | None


class RoundDict(TypedDict):
    """A round's stored JSON form."""

    number: int
    pairings: list[PairingDict]


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two entries to play each other, or one with a bye.

    ``id`` is ``<bracket>-<bracket round>-<position>``, stable for the whole tournament
    (the app keys its rows on it). ``position`` counts from 1 down the bracket's round
    (a Swiss or round robin: the table).
    """

    id: str
    round: int
    bracket: Bracket
    bracket_round: int
    position: int
    players: tuple[str] | tuple[str, str]
    winner: str | None = None

    @classmethod
    def new(
        cls,
        *,
        round: int,
        bracket: Bracket,
        bracket_round: int,
        position: int,
        players: tuple[str] | tuple[str, str],
    ) -> Pairing:
        """A pairing to play; a bye (one player) is won by its player from the start."""
        return cls(
            id=pairing_id(bracket, bracket_round, position),
            round=round,
            bracket=bracket,
            bracket_round=bracket_round,
            position=position,
            players=players,
            winner=players[0] if len(players) == 1 else None,
        )

    @property
    def bye(self) -> bool:
        return len(self.players) == 1

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def loser(self) -> str | None:
        """The player who lost (``None`` for a bye or before the result)."""
        if len(self.players) == 1 or self.winner is None:
            return None
        first, second = self.players
        return second if self.winner == first else first

    def with_winner(self, winner: str) -> Pairing:
        if self.bye:
            raise PairingFinished(f"{self.id} is a bye for {self.players[0]}: it has no result")
        if self.winner is not None:
            raise PairingFinished(f"{self.id} is finished: {self.winner} won it")
        if winner not in self.players:
            raise NotInPairing(
                f"{winner!r} does not play in {self.id} ({' v '.join(self.players)})"
            )
        return replace(self, winner=winner)

    def to_dict(self) -> PairingDict:
        return {**location_to_dict(self), "players": list(self.players), "winner": self.winner}

    @classmethod
    def from_dict(cls, data: Any) -> Pairing:
        try:
            players = tuple(data["players"])
            pairing = cls(
                **location_from_dict(data),
                players=(players[0],) if len(players) == 1 else (players[0], players[1]),
                winner=data["winner"],
            )
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise InvalidState(f"not a pairing: {data!r}") from error
        if len(players) not in (1, 2) or (
            pairing.winner is not None and pairing.winner not in players
        ):
            raise InvalidState(f"not a pairing: {data!r}")
        return pairing


def pairing_id(bracket: Bracket, bracket_round: int, position: int) -> str:
    return f"{bracket.value}-{bracket_round}-{position}"


class Located(Protocol):
    """Where a pairing or a plan's node is in the tournament."""

    @property
    def id(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def bracket(self) -> Bracket: ...
    @property
    def bracket_round(self) -> int: ...
    @property
    def position(self) -> int: ...


def location_to_dict(item: Located) -> LocationDict:
    return {
        "id": item.id,
        "round": item.round,
        "bracket": item.bracket.value,
        "bracket_round": item.bracket_round,
        "position": item.position,
    }


def location_from_dict(data: Any) -> LocationArgs:
    """The location a ``location_to_dict`` wrote, as keyword arguments."""
    return {
        "id": data["id"],
        "round": data["round"],
        "bracket": Bracket(data["bracket"]),
        "bracket_round": data["bracket_round"],
        "position": data["position"],
    }


@dataclass(frozen=True, slots=True)
class Round:
    """A round of the tournament: its number (from 1) and its pairings."""

    number: int
    pairings: tuple[Pairing, ...]

    @property
    def complete(self) -> bool:
        return all(pairing.finished for pairing in self.pairings)

    def to_dict(self) -> RoundDict:
        return {"number": self.number, "pairings": [p.to_dict() for p in self.pairings]}

    @classmethod
    def from_dict(cls, data: Any) -> Round:
        try:
            return cls(
                number=data["number"],
                pairings=tuple(Pairing.from_dict(p) for p in data["pairings"]),
            )
        except (KeyError, TypeError) as error:
            raise InvalidState(f"not a round: {data!r}") from error
