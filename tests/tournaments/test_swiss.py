"""Swiss pairings over several rounds: no avoidable rematch, at most one bye each, the
bye to the lowest-ranked player who can take it, score groups with floaters."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import pytest

from tests.tournaments.play import drawn, field, play_out, play_round, random_winner
from tests.tournaments.test_single_elimination import check_rounds
from tournaments.formats import (
    Bracket,
    Event,
    InvalidOptions,
    Pairing,
    PairingImpossible,
    Round,
    Swiss,
    Tournament,
    TournamentComplete,
)
from tournaments.formats.swiss import swiss_round

BYE = None  # the bye as a pseudo-player of an odd field, in the brute force below
Objective = tuple[int, ...]


def _perfect_pairings(
    players: tuple[str | None, ...], allowed: Callable[[str | None, str | None], bool]
) -> Iterator[list[tuple[str | None, str | None]]]:
    """By brute force: every way to pair all of ``players`` with allowed pairs only."""
    if not players:
        yield []
        return
    first, others = players[0], players[1:]
    for index, other in enumerate(others):
        if allowed(first, other):
            for rest in _perfect_pairings(others[:index] + others[index + 1 :], allowed):
                yield [(first, other), *rest]


class _Criteria:
    """The rules' criteria for a pairing of the round, as a vector compared
    lexicographically (larger is better), written from docs/tournaments.md."""

    def __init__(self, ranking: list[str], score: Counter[str]) -> None:
        self.rank = {entry: index for index, entry in enumerate(ranking)}
        self.score = score
        self.groups = sorted({score[entry] for entry in ranking}, reverse=True)
        members = {g: [entry for entry in ranking if score[entry] == g] for g in self.groups}
        self.size = {entry: len(members[score[entry]]) for entry in ranking}
        self.position = {e: i for group in members.values() for i, e in enumerate(group)}

    def of(self, pairs: Sequence[tuple[str | None, str | None]]) -> Objective:
        score, position = self.score, self.position
        bye_rank = differences = s1_s2 = floats = 0
        in_group = Counter[int]()
        for one, other in pairs:
            if one is None or other is None:
                bye_rank = self.rank[one or other or ""]
                continue
            high, low = sorted((one, other), key=self.rank.__getitem__)
            differences += score[high] - score[low]
            if score[high] == score[low]:
                in_group[score[high]] += 1
                s1_s2 += abs(position[low] - position[high] - self.size[high] // 2)
            else:
                floats += self.size[high] - 1 - position[high] + position[low]
        return (bye_rank, *(in_group[g] for g in self.groups), -differences, -s1_s2, -floats)


def _check_round(before: Tournament) -> Tournament | None:
    """Start the next round and check it against the brute-force optimum of the rules;
    ``None`` when no pairing without a rematch or second bye exists (and the round is
    refused)."""
    entries = before.seed_order
    finished = [p for p in before.pairings if p.finished]
    met = {frozenset(p.players) for p in finished if not p.bye}
    had_bye = {p.players[0] for p in finished if p.bye}
    score = Counter(p.winner for p in finished if p.winner is not None)
    ranking = sorted(entries, key=lambda entry: (-score[entry], entries.index(entry)))

    def allowed(one: str | None, other: str | None) -> bool:
        if one is None or other is None:
            return (one or other) not in had_bye
        return frozenset((one, other)) not in met

    field = (*entries, BYE) if len(entries) % 2 else entries
    criteria = _Criteria(ranking, score)
    best = max(map(criteria.of, _perfect_pairings(field, allowed)), default=None)
    if best is None:
        with pytest.raises(PairingImpossible, match="cannot be paired"):
            before.start_round()
        return None
    after = before.start_round()
    assert after.current_round is not None
    pairings = after.current_round.pairings
    assert sorted(player for p in pairings for player in p.players) == sorted(entries)
    pairs = [(p.players[0], BYE) if p.bye else p.players for p in pairings]
    assert all(allowed(*pair) for pair in pairs)
    assert criteria.of(pairs) == best
    return after


def test_swiss_pairings_are_the_optimum_found_by_brute_force() -> None:
    rng = random.Random(22)
    rounds_checked = impossible = 0
    for _ in range(60):
        count = rng.randint(2, 12)
        limit = count if count % 2 else count - 1
        tournament: Tournament | None = drawn(Swiss(rounds=limit), count)
        choose = random_winner(rng)
        while tournament is not None and not tournament.complete:
            tournament = _check_round(tournament)
            rounds_checked += 1
            if tournament is None:
                impossible += 1
                break
            assert tournament.current_round is not None
            for pairing in tournament.current_round.pairings:
                if not pairing.finished:
                    tournament = tournament.record_result(pairing.id, choose(pairing))
        if tournament is not None:
            check_rounds(tournament)
            byes = Counter(p.players[0] for p in tournament.pairings if p.bye)
            assert set(byes.values()) <= {1}
    # The fields reach both ends: rounds paired, and rounds no pairing could make.
    assert rounds_checked > 350 and impossible >= 5


def _next_round(tournament: Tournament) -> list[tuple[str, ...]]:
    """The players of each table of the next round, in table order."""
    started = tournament.start_round()
    assert started.current_round is not None
    return [p.players for p in started.current_round.pairings]


def test_swiss_first_round_pairs_the_top_half_with_the_bottom_half() -> None:
    assert _next_round(drawn(Swiss(rounds=3), 8)) == [
        ("e1", "e5"),
        ("e2", "e6"),
        ("e3", "e7"),
        ("e4", "e8"),
    ]
    assert _next_round(drawn(Swiss(rounds=3), 7)) == [
        ("e1", "e4"),
        ("e2", "e5"),
        ("e3", "e6"),
        ("e7",),
    ]


def test_swiss_pairs_within_score_groups() -> None:
    tournament = play_round(drawn(Swiss(rounds=3), 8), lambda pairing: pairing.players[0])
    assert _next_round(tournament) == [
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
    assert _next_round(tournament) == [
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


def _stored_swiss(count: int, rounds: int, played: list[list[tuple[str, ...]]]) -> Tournament:
    """A Swiss as stored after the rounds ``played`` (the winner named first; a bye alone)."""
    stored = drawn(Swiss(rounds=rounds), count)
    return Tournament(
        format=stored.format,
        entries=stored.entries,
        seed_order=stored.seed_order,
        rounds=tuple(
            Round(
                number,
                tuple(
                    Pairing(
                        id=f"main-{number}-{table}",
                        round=number,
                        bracket=Bracket.MAIN,
                        bracket_round=number,
                        position=table,
                        players=(players[0],) if len(players) == 1 else (players[0], players[1]),
                        winner=players[0],
                    )
                    for table, players in enumerate(tables, 1)
                ),
            )
            for number, tables in enumerate(played, 1)
        ),
    )


def test_nine_players_round_six_keeps_the_score_groups_together() -> None:
    # The example: five rounds paired the old way. Seed 4 leads alone with 5
    # points; 1, 2, 5, 7 have 3; 3, 6, 8, 9 have 2 (8 and 9 have met). The old pairing
    # gave 4 a 2-pointer (4-6) and left 5-9 and 7-8 crossing groups; the best is 4-9
    # (4 must float: 9 is the 2-pointer left when the lowest, 3, has the bye and 6-8
    # pair inside their group), 1-2 and 5-7 inside the 3-point group.
    tournament = _stored_swiss(
        9,
        9,
        [
            [("e5", "e1"), ("e2", "e6"), ("e7", "e3"), ("e4", "e8"), ("e9",)],
            [("e5", "e2"), ("e4", "e7"), ("e1", "e9"), ("e3", "e6"), ("e8",)],
            [("e4", "e5"), ("e1", "e7"), ("e2", "e8"), ("e3", "e9"), ("e6",)],
            [("e4", "e1"), ("e2", "e3"), ("e6", "e5"), ("e9", "e8"), ("e7",)],
            [("e4", "e2"), ("e1", "e6"), ("e8", "e3"), ("e7", "e9"), ("e5",)],
        ],
    )
    scores = {line.entry: line.score for line in tournament.standings()}
    assert scores["e4"] == 5 and scores["e9"] == scores["e6"] == scores["e8"] == 2
    assert _next_round(tournament) == [
        ("e4", "e9"),
        ("e1", "e2"),
        ("e5", "e7"),
        ("e6", "e8"),
        ("e3",),
    ]


def test_when_everyone_has_met_everyone_the_round_is_refused_with_a_reason() -> None:
    # Four players, three rounds: everyone has met everyone. A fourth round (here asked
    # of the pairing directly: a Swiss of four has three rounds) cannot be paired.
    tournament = _stored_swiss(
        4,
        3,
        [
            [("e1", "e3"), ("e2", "e4")],
            [("e1", "e2"), ("e3", "e4")],
            [("e1", "e4"), ("e2", "e3")],
        ],
    )
    with pytest.raises(PairingImpossible, match="round 4 cannot be paired without a rematch"):
        swiss_round(tournament.seed_order, tournament.pairings, 4)


def test_a_swiss_that_cannot_pair_its_next_round_says_so_and_can_end_there() -> None:
    # Six players, three rounds in which each of 1, 2, 3 met each of 4, 5, 6: the pairs
    # not yet met are two triangles, 1-2-3 and 4-5-6, and a triangle cannot be paired.
    tournament = _stored_swiss(
        6,
        5,
        [
            [("e1", "e4"), ("e2", "e5"), ("e3", "e6")],
            [("e1", "e5"), ("e2", "e6"), ("e3", "e4")],
            [("e1", "e6"), ("e2", "e4"), ("e3", "e5")],
        ],
    )
    assert tournament.next_round_ready
    with pytest.raises(PairingImpossible, match="round 4 cannot be paired without a rematch"):
        tournament.start_round()
    ended = tournament.end_after_rounds_played()
    assert ended.complete and ended.format == Swiss(rounds=3)
    assert [(str(fp.place), fp.entries) for fp in ended.final_places()] == [
        ("1-3", ("e1", "e2", "e3")),
        ("4-6", ("e4", "e5", "e6")),
    ]
