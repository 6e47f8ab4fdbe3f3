"""Swiss pairings over several rounds: no avoidable rematch, at most one bye each, the
bye to the lowest-ranked player who can take it, score groups with floaters."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tournaments.play import drawn, field, play_out, play_round, random_winner
from tests.tournaments.test_single_elimination import check_rounds
from tournaments.formats import (
    Event,
    InvalidOptions,
    Swiss,
    Tournament,
    TournamentComplete,
)
from tournaments.formats.matching import maximum_matching_size

quick = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _fewest_rematches(players: tuple[str, ...], met: frozenset[frozenset[str]]) -> int:
    """By brute force: the fewest rematches any pairing of ``players`` has."""

    @cache
    def best(rest: tuple[str, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        return min(
            (frozenset((first, other)) in met) + best(others[:i] + others[i + 1 :])
            for i, other in enumerate(others)
        )

    return best(players)


def _check_round(before: Tournament, after: Tournament) -> None:
    """The round ``after`` started against the brute-force optimum from ``before``."""
    assert after.current_round is not None
    pairings = after.current_round.pairings
    entries = before.seed_order
    assert sorted(player for p in pairings for player in p.players) == sorted(entries)
    finished = [p for p in before.pairings if p.finished]
    met = frozenset(frozenset(p.players) for p in finished if not p.bye)
    had_bye = {p.players[0] for p in finished if p.bye}
    score = Counter(p.winner for p in finished)
    ranking = sorted(entries, key=lambda entry: (-score[entry], entries.index(entry)))
    rematches = sum(frozenset(p.players) in met for p in pairings if not p.bye)
    byes = [p.players[0] for p in pairings if p.bye]
    if len(entries) % 2 == 0:
        assert byes == []
        assert rematches == _fewest_rematches(tuple(entries), met)
        return
    (holder,) = byes
    assert holder not in had_bye
    cost = {
        candidate: _fewest_rematches(tuple(e for e in entries if e != candidate), met)
        for candidate in entries
        if candidate not in had_bye
    }
    fewest = min(cost.values())
    assert rematches == cost[holder] == fewest
    lowest_able = next(e for e in reversed(ranking) if e in cost and cost[e] == fewest)
    assert holder == lowest_able


@quick
@given(
    count=st.integers(min_value=2, max_value=10),
    rounds=st.integers(min_value=1, max_value=10),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_swiss_pairings_avoid_rematches_and_share_out_byes(
    count: int, rounds: int, seed: int
) -> None:
    limit = count if count % 2 else count - 1
    tournament = drawn(Swiss(rounds=min(rounds, limit)), count)
    choose = random_winner(random.Random(seed))
    while not tournament.complete:
        started = tournament.start_round()
        _check_round(tournament, started)
        tournament = started
        assert tournament.current_round is not None
        for pairing in tournament.current_round.pairings:
            if not pairing.finished:
                tournament = tournament.record_result(pairing.id, choose(pairing))
    check_rounds(tournament)
    byes = Counter(p.players[0] for p in tournament.pairings if p.bye)
    assert set(byes.values()) <= {1}
    assert sum(byes.values()) == (len(tournament.rounds) if count % 2 else 0)


def test_swiss_first_round_pairs_the_top_half_with_the_bottom_half() -> None:
    eight = drawn(Swiss(rounds=3), 8).start_round()
    assert eight.current_round is not None
    assert [p.players for p in eight.current_round.pairings] == [
        ("e1", "e5"),
        ("e2", "e6"),
        ("e3", "e7"),
        ("e4", "e8"),
    ]
    seven = drawn(Swiss(rounds=3), 7).start_round()
    assert seven.current_round is not None
    assert [p.players for p in seven.current_round.pairings] == [
        ("e1", "e4"),
        ("e2", "e5"),
        ("e3", "e6"),
        ("e7",),
    ]


def test_swiss_pairs_within_score_groups() -> None:
    tournament = play_round(drawn(Swiss(rounds=3), 8), lambda pairing: pairing.players[0])
    tournament = tournament.start_round()
    assert tournament.current_round is not None
    assert [p.players for p in tournament.current_round.pairings] == [
        ("e1", "e3"),
        ("e2", "e4"),
        ("e5", "e7"),
        ("e6", "e8"),
    ]


def test_swiss_floats_the_odd_player_of_a_score_group_down() -> None:
    # Round 1: e1 v e4, e2 v e5, e3 v e6, the first named winning. Round 2: the winners'
    # group e1 e2 e3 has one player too many: e1 v e2, and e3 floats down to meet e4,
    # the best of the next group.
    tournament = play_round(drawn(Swiss(rounds=3), 6), lambda pairing: pairing.players[0])
    tournament = tournament.start_round()
    assert tournament.current_round is not None
    assert [p.players for p in tournament.current_round.pairings] == [
        ("e1", "e2"),
        ("e3", "e4"),
        ("e5", "e6"),
    ]


def test_swiss_has_as_many_rounds_as_asked_then_is_complete() -> None:
    tournament = play_out(drawn(Swiss(rounds=2), 6), random_winner(random.Random(1)))
    assert len(tournament.rounds) == 2 and tournament.complete
    with pytest.raises(TournamentComplete):
        tournament.start_round()
    places = tournament.final_places()
    assert {fp.event for fp in places} == {Event.MAIN}
    assert sorted(entry for fp in places for entry in fp.entries) == sorted(tournament.seed_order)


def test_swiss_refuses_more_rounds_than_a_round_robin() -> None:
    Tournament(format=Swiss(rounds=5), entries=field(6))
    Tournament(format=Swiss(rounds=5), entries=field(5))
    for count, rounds in [(6, 6), (5, 6), (4, 0)]:
        with pytest.raises(InvalidOptions):
            Tournament(format=Swiss(rounds=rounds), entries=field(count))


def test_swiss_of_64_pairs_quickly_and_cleanly() -> None:
    tournament = play_out(drawn(Swiss(rounds=7), 64), random_winner(random.Random(3)))
    meetings = Counter(frozenset(p.players) for p in tournament.pairings)
    assert set(meetings.values()) == {1}


def _largest_matching(players: tuple[str, ...], met: frozenset[frozenset[str]]) -> int:
    """By brute force: the most disjoint pairs of players who have not met."""

    @cache
    def best(rest: tuple[str, ...]) -> int:
        if len(rest) < 2:
            return 0
        first, others = rest[0], rest[1:]
        return max(
            [
                best(others),
                *(
                    1 + best(others[:i] + others[i + 1 :])
                    for i, other in enumerate(others)
                    if frozenset((first, other)) not in met
                ),
            ]
        )

    return best(players)


def test_maximum_matching_agrees_with_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(400):
        players = tuple(f"p{n}" for n in range(rng.randint(0, 11)))
        density = rng.random()
        met = frozenset(
            frozenset((a, b))
            for i, a in enumerate(players)
            for b in players[i + 1 :]
            if rng.random() < density
        )
        found = maximum_matching_size(
            list(players), lambda a, b, met=met: frozenset((a, b)) not in met
        )
        assert found == _largest_matching(players, met)
