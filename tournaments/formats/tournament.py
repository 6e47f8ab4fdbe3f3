"""A tournament as one immutable value: entries, draw, rounds and results.

The app keeps ``to_dict()`` (plain JSON) and drives the tournament with three calls,
each returning a new value and leaving the old one as it was when it refuses:

    tournament = Tournament(format=SingleElimination(consolation_through_round=1),
                            entries=entries)
    tournament = tournament.draw(rng=random.SystemRandom())
    tournament = tournament.start_round()            # the next round's pairings
    tournament = tournament.record_result("main-1-2", winner="17")

and reads ``current_round``, ``complete``, ``standings()``, ``fixtures()`` and, once
complete, ``final_places()`` for the payouts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from tournaments.formats.entries import Entry, EntryDict, check_entries, seed_order
from tournaments.formats.errors import (
    AlreadyDrawn,
    InvalidOptions,
    InvalidState,
    NotDrawn,
    RoundNotComplete,
    TournamentComplete,
    TournamentNotComplete,
    UnknownPairing,
    WrongFormat,
)
from tournaments.formats.options import (
    DoubleElimination,
    FormatDict,
    FormatOptions,
    RoundRobin,
    SingleElimination,
    Swiss,
    check_options,
    options_from_dict,
    options_to_dict,
)
from tournaments.formats.pairings import Pairing, Round, RoundDict
from tournaments.formats.places import FinalPlace, elimination_places, standings_places
from tournaments.formats.plan import (
    Fixture,
    Plan,
    PlanDict,
    Progress,
    double_elimination_plan,
    round_robin_plan,
    single_elimination_plan,
)
from tournaments.formats.standings import Standing, standings
from tournaments.formats.swiss import swiss_round


def _plan(options: FormatOptions, entries: int) -> Plan | None:
    """The fixed plan of the format, or ``None`` for a Swiss (paired round by round)."""
    if isinstance(options, SingleElimination):
        return single_elimination_plan(entries, options)
    if isinstance(options, DoubleElimination):
        return double_elimination_plan(entries, options)
    if isinstance(options, RoundRobin):
        return round_robin_plan(entries)
    return None


def _swiss_rounds_limit(entries: int) -> int:
    """A round robin's number of rounds: more Swiss rounds would force rematches or
    second byes."""
    return entries if entries % 2 else entries - 1


class TournamentDict(TypedDict):
    """A tournament's stored JSON form (``Tournament.to_dict``)."""

    format: FormatDict
    entries: list[EntryDict]
    seed_order: list[str]
    plan: PlanDict | None
    rounds: list[RoundDict]


@dataclass(frozen=True)
class Tournament:
    """The whole state of one tournament.

    ``seed_order`` is empty until the draw, then the entry ids from seed 1 down. ``plan``
    holds every pairing an elimination or round robin can have (fixed at the draw);
    a Swiss has none. ``rounds`` are the rounds started, each with its results.
    """

    format: FormatOptions
    entries: tuple[Entry, ...]
    seed_order: tuple[str, ...] = ()
    plan: Plan | None = None
    rounds: tuple[Round, ...] = ()

    def __post_init__(self) -> None:
        check_options(self.format)
        check_entries(self.entries, self.format.seeding)
        if isinstance(self.format, Swiss) and not (
            1 <= self.format.rounds <= _swiss_rounds_limit(len(self.entries))
        ):
            raise InvalidOptions(
                f"a Swiss of {len(self.entries)} entries has 1 to "
                f"{_swiss_rounds_limit(len(self.entries))} rounds, not {self.format.rounds}"
            )
        if not self.seed_order:
            _plan(self.format, len(self.entries))
            if self.plan is not None or self.rounds:
                raise InvalidState("a tournament not drawn has no plan and no rounds")
            return
        self._check_drawn()

    def _check_drawn(self) -> None:
        if sorted(self.seed_order) != sorted(entry.id for entry in self.entries):
            raise InvalidState("the seed order is not the entries")
        if (self.plan is None) != isinstance(self.format, Swiss):
            raise InvalidState("an elimination or round robin has a plan; a Swiss has none")
        ids = set(self.seed_order)
        for number, played in enumerate(self.rounds, 1):
            players = [player for pairing in played.pairings for player in pairing.players]
            if played.number != number or not set(players) <= ids:
                raise InvalidState(f"round {played.number} is not round {number} of entries")
            if len(players) != len(set(players)):
                raise InvalidState(f"an entry plays twice in round {number}")
            if number < len(self.rounds) and not played.complete:
                raise InvalidState(f"round {number} is unfinished but a later round started")

    @property
    def drawn(self) -> bool:
        return bool(self.seed_order)

    def draw(self, *, rng: random.Random | None = None) -> Tournament:
        """Seed the entries (``rng`` is needed for a random draw) and fix the plan."""
        if self.drawn:
            raise AlreadyDrawn("the tournament has been drawn already")
        order = seed_order(self.entries, self.format.seeding, rng)
        return replace(self, seed_order=order, plan=_plan(self.format, len(self.entries)))

    @property
    def pairings(self) -> tuple[Pairing, ...]:
        """Every pairing of the rounds started, in round order."""
        return tuple(pairing for played in self.rounds for pairing in played.pairings)

    @property
    def current_round(self) -> Round | None:
        """The last round started (``None`` before the first)."""
        return self.rounds[-1] if self.rounds else None

    def pairing(self, pairing_id: str) -> Pairing:
        for pairing in self.pairings:
            if pairing.id == pairing_id:
                return pairing
        raise UnknownPairing(f"no pairing {pairing_id!r} has been started")

    def _progress(self) -> Progress:
        if self.plan is None:
            raise WrongFormat("a Swiss is paired round by round: it has no fixed plan")
        return Progress(self.plan, self.seed_order, self.pairings)

    @property
    def complete(self) -> bool:
        """Every pairing the tournament will have has its result."""
        if not self.drawn:
            return False
        if isinstance(self.format, Swiss):
            current = self.current_round
            return (
                len(self.rounds) == self.format.rounds and current is not None and current.complete
            )
        return self._progress().complete

    @property
    def next_round_ready(self) -> bool:
        """``start_round`` would start a round now."""
        current = self.current_round
        return self.drawn and not self.complete and (current is None or current.complete)

    def start_round(self) -> Tournament:
        """Start the next round: its pairings are ``current_round.pairings``."""
        if not self.drawn:
            raise NotDrawn("draw the tournament before starting a round")
        current = self.current_round
        if current is not None and not current.complete:
            waiting = ", ".join(p.id for p in current.pairings if not p.finished)
            raise RoundNotComplete(f"round {current.number} is waiting for {waiting}")
        if self.complete:
            raise TournamentComplete("every round has been played")
        number = len(self.rounds) + 1
        if isinstance(self.format, Swiss):
            pairings = swiss_round(self.seed_order, self.pairings, number)
        else:
            pairings = self._progress().pairings(number)
        return replace(self, rounds=(*self.rounds, Round(number, pairings)))

    def end_after_rounds_played(self) -> Tournament:
        """A Swiss ended after its rounds played (the director's way out when the next
        round cannot be paired: ``PairingImpossible``); its standings are then final."""
        if not isinstance(self.format, Swiss):
            raise WrongFormat("only a Swiss can end before its last round")
        current = self.current_round
        if current is None or not current.complete:
            raise RoundNotComplete("a Swiss ends after a complete round")
        return replace(self, format=replace(self.format, rounds=len(self.rounds)))

    def record_result(self, pairing_id: str, winner: str) -> Tournament:
        """The tournament after ``winner`` won the pairing ``pairing_id``."""
        rounds = list(self.rounds)
        for index, played in enumerate(rounds):
            pairings = list(played.pairings)
            for position, pairing in enumerate(pairings):
                if pairing.id == pairing_id:
                    pairings[position] = pairing.with_winner(winner)
                    rounds[index] = replace(played, pairings=tuple(pairings))
                    return replace(self, rounds=tuple(rounds))
        raise UnknownPairing(f"no pairing {pairing_id!r} has been started")

    def standings(self) -> tuple[Standing, ...]:
        """A Swiss's or round robin's standings from the results so far."""
        if not isinstance(self.format, Swiss | RoundRobin):
            raise WrongFormat("an elimination has a bracket, not standings: see fixtures()")
        if not self.drawn:
            raise NotDrawn("standings start with the draw")
        return standings(self.seed_order, self.pairings)

    def fixtures(self) -> tuple[Fixture, ...]:
        """Every match an elimination or round robin has or may still have."""
        if not self.drawn:
            raise NotDrawn("the bracket exists once the tournament is drawn")
        return self._progress().fixtures()

    def final_places(self) -> tuple[FinalPlace, ...]:
        """Each event's places, best first, once the tournament is complete."""
        if not self.complete:
            raise TournamentNotComplete("final places come when every round is complete")
        if isinstance(self.format, Swiss | RoundRobin):
            return standings_places(self.standings())
        return elimination_places(self.seed_order, self.pairings)

    def to_dict(self) -> TournamentDict:
        """Plain JSON: ``from_dict`` gives back an equal tournament."""
        return {
            "format": options_to_dict(self.format),
            "entries": [entry.to_dict() for entry in self.entries],
            "seed_order": list(self.seed_order),
            "plan": None if self.plan is None else self.plan.to_dict(),
            "rounds": [played.to_dict() for played in self.rounds],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Tournament:
        """The tournament ``to_dict`` wrote, restored as stored (not re-paired)."""
        try:
            return cls(
                format=options_from_dict(data["format"]),
                entries=tuple(Entry.from_dict(entry) for entry in data["entries"]),
                seed_order=tuple(data["seed_order"]),
                plan=None if data["plan"] is None else Plan.from_dict(data["plan"]),
                rounds=tuple(Round.from_dict(played) for played in data["rounds"]),
            )
        except (KeyError, TypeError) as error:
            raise InvalidState(f"not a stored tournament: {error}") from error
