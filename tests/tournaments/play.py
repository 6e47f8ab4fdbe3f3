"""Helpers: build fields and play tournaments out with results from a seeded RNG."""

from __future__ import annotations

import random
from collections.abc import Callable

from tournaments.formats import Entry, FormatOptions, Pairing, Tournament


def field(count: int) -> tuple[Entry, ...]:
    """Entries ``e1``... rated from the top down, so seeding by rating makes ``e<n>`` seed n."""
    return tuple(Entry(f"e{n}", rating=2000.0 - n) for n in range(1, count + 1))


def drawn(options: FormatOptions, count: int) -> Tournament:
    return Tournament(format=options, entries=field(count)).draw()


Chooser = Callable[[Pairing], str]


def random_winner(rng: random.Random) -> Chooser:
    return lambda pairing: rng.choice(pairing.players)


def play_round(tournament: Tournament, choose: Chooser) -> Tournament:
    """Start the next round and give every match in it a result."""
    tournament = tournament.start_round()
    assert tournament.current_round is not None
    for pairing in tournament.current_round.pairings:
        if not pairing.finished:
            tournament = tournament.record_result(pairing.id, choose(pairing))
    return tournament


def play_out(tournament: Tournament, choose: Chooser) -> Tournament:
    while not tournament.complete:
        tournament = play_round(tournament, choose)
    return tournament


def seed(tournament: Tournament, entry: str) -> int:
    return tournament.seed_order.index(entry) + 1
