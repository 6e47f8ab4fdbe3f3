"""Final places, event by event, for the prize table.

In an elimination, an event's places follow how long each entrant lasted in it: the
champion first, then the entrants whose last match in the event came in a later round
ahead of those knocked out earlier; those knocked out in the same round share the places
between them (the two losing semi-finalists are 3rd-4th). Entering another bracket does
not change a place already decided: a first-round loser of the main bracket has a main
place (5th-8th of eight) and, if they enter the consolation, a consolation place too.
Swiss and round robin places are the standings' places.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from tournaments.formats.errors import InvalidState
from tournaments.formats.pairings import Event, Pairing
from tournaments.formats.standings import Place, Standing


@dataclass(frozen=True, slots=True)
class FinalPlace:
    """The entries that finished in ``place`` of ``event`` (several when shared)."""

    event: Event
    place: Place
    entries: tuple[str, ...]


def elimination_places(
    seed_order: Sequence[str], pairings: Sequence[Pairing]
) -> tuple[FinalPlace, ...]:
    """The places of every event played, from a complete elimination's pairings."""
    seed_index = {entry: index for index, entry in enumerate(seed_order)}
    places: list[FinalPlace] = []
    for event in Event:
        last_pairing: dict[str, Pairing] = {}
        for pairing in sorted(pairings, key=lambda p: p.round):
            if pairing.bracket.event is event:
                for player in pairing.players:
                    last_pairing[player] = pairing
        if not last_pairing:
            continue
        champions = [entry for entry, pairing in last_pairing.items() if pairing.winner == entry]
        if len(champions) != 1:
            raise InvalidState(f"the {event.value} event has no single champion: {champions}")
        places.append(FinalPlace(event, Place(1, 1), (champions[0],)))
        knocked_out = sorted(
            (entry for entry in last_pairing if entry != champions[0]),
            key=lambda entry: (-last_pairing[entry].round, seed_index[entry]),
        )
        for _, group in groupby(knocked_out, key=lambda entry: last_pairing[entry].round):
            entries = tuple(group)
            first = places[-1].place.last + 1
            places.append(FinalPlace(event, Place(first, first + len(entries) - 1), entries))
    return tuple(places)


def standings_places(lines: Sequence[Standing]) -> tuple[FinalPlace, ...]:
    """The main event's places from final standings."""
    return tuple(
        FinalPlace(Event.MAIN, place, tuple(line.entry for line in group))
        for place, group in groupby(lines, key=lambda line: line.place)
    )
