"""Helpers: build fields and play tournaments out with results from a seeded RNG."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable

from tournaments.formats import Bracket, Entry, FormatOptions, Pairing, Tournament


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


def losers_rematch_rates(brackets: Iterable[Tournament]) -> dict[int, float]:
    """Per losers' round of the double eliminations ``brackets`` (played out): the share
    of its matches between two players who had met earlier in their tournament."""
    matches: Counter[int] = Counter()
    rematches: Counter[int] = Counter()
    for tournament in brackets:
        met: set[frozenset[str]] = set()
        for played in tournament.rounds:
            pairings = [p for p in played.pairings if not p.bye]
            for pairing in pairings:
                if pairing.bracket is Bracket.LOSERS:
                    matches[pairing.bracket_round] += 1
                    rematches[pairing.bracket_round] += frozenset(pairing.players) in met
            met.update(frozenset(p.players) for p in pairings)
    return {number: rematches[number] / matches[number] for number in sorted(matches)}
