"""Round robin: every pair once, in the order of the published Berger tables."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from tests.tournaments.play import drawn, play_out, random_winner, seed
from tests.tournaments.test_single_elimination import check_rounds
from tournaments.formats import Event, RoundRobin

# The Berger tables as published (FIDE Handbook C.05, Annex 1): pairs in table order,
# the first-named player first. With five players, 6 is the bye.
BERGER_4 = [
    [(1, 4), (2, 3)],
    [(4, 3), (1, 2)],
    [(2, 4), (3, 1)],
]
BERGER_6 = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]


def _table(count: int) -> list[list[tuple[int, ...]]]:
    tournament = play_out(drawn(RoundRobin(), count), random_winner(random.Random(0)))
    return [
        [tuple(seed(tournament, player) for player in p.players) for p in played.pairings]
        for played in tournament.rounds
    ]


def test_round_robin_follows_the_berger_table_for_4_and_6() -> None:
    assert _table(4) == BERGER_4
    assert _table(6) == BERGER_6


def test_round_robin_of_an_odd_field_gives_the_bye_to_whoever_meets_the_dummy() -> None:
    expected = [
        [tuple(player for player in pair if player != 6) for pair in played] for played in BERGER_6
    ]
    assert _table(5) == expected


@pytest.mark.parametrize("count", range(2, 21))
def test_round_robin_every_pair_meets_exactly_once(count: int) -> None:
    tournament = play_out(drawn(RoundRobin(), count), random_winner(random.Random(count)))
    check_rounds(tournament)
    assert len(tournament.rounds) == (count if count % 2 else count - 1)
    meetings = Counter(frozenset(p.players) for p in tournament.pairings if not p.bye)
    assert set(meetings) == {frozenset(pair) for pair in combinations(tournament.seed_order, 2)}
    assert set(meetings.values()) == {1}
    for played in tournament.rounds:
        assert sorted(player for p in played.pairings for player in p.players) == sorted(
            tournament.seed_order
        )
        assert sum(p.bye for p in played.pairings) == count % 2
    byes = Counter(p.players[0] for p in tournament.pairings if p.bye)
    assert set(byes.values()) <= {1} and len(byes) == count % 2 * count
    places = tournament.final_places()
    assert {fp.event for fp in places} == {Event.MAIN}
    assert sorted(entry for fp in places for entry in fp.entries) == sorted(tournament.seed_order)
