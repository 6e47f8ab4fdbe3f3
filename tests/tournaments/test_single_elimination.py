"""Single elimination: seeding, byes, the consolation (plain and progressive), the last
chance and final places, for every field from 2 to 64 entries."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from tests.tournaments.play import drawn, field, play_out, random_winner, seed
from tournaments.formats import (
    Bracket,
    Entry,
    Event,
    InvalidOptions,
    Seeding,
    SingleElimination,
    SlotKind,
    Tournament,
    bracket_order,
)

COUNTS = range(2, 65)


def _size(count: int) -> int:
    return 1 << (count - 1).bit_length()


def _main_rounds(count: int) -> int:
    return _size(count).bit_length() - 1


def check_rounds(tournament: Tournament) -> None:
    """Every entry plays at most once a round, and every round has a match to play."""
    for played in tournament.rounds:
        players = Counter(player for p in played.pairings for player in p.players)
        assert max(players.values()) == 1, f"round {played.number}: {players.most_common(1)}"
        assert any(not p.bye for p in played.pairings), f"round {played.number} is all byes"


def check_places(tournament: Tournament) -> None:
    """Each event's places give every entrant exactly one place, 1 to the number of them."""
    places = tournament.final_places()
    for event in Event:
        entrants = {
            player
            for pairing in tournament.pairings
            if pairing.bracket.event is event
            for player in pairing.players
        }
        held = [fp for fp in places if fp.event is event]
        placed = [entry for fp in held for entry in fp.entries]
        assert sorted(placed) == sorted(entrants)
        covered = [n for fp in held for n in range(fp.place.first, fp.place.last + 1)]
        assert covered == list(range(1, len(entrants) + 1))
        for fp in held:
            assert fp.place.last - fp.place.first + 1 == len(fp.entries)


def bracket_pairings(tournament: Tournament, bracket: Bracket) -> list:
    return [p for p in tournament.pairings if p.bracket is bracket]


def test_bracket_order_puts_neighbouring_seeds_apart() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


@pytest.mark.parametrize("count", COUNTS)
def test_single_elimination_byes_go_to_the_top_seeds(count: int) -> None:
    tournament = drawn(SingleElimination(), count).start_round()
    first = tournament.rounds[0].pairings
    assert len(first) == _size(count) // 2
    assert sorted(player for p in first for player in p.players) == sorted(
        entry.id for entry in field(count)
    )
    byes = sorted(seed(tournament, p.players[0]) for p in first if p.bye)
    assert byes == list(range(1, _size(count) - count + 1))
    assert all(p.winner == p.players[0] for p in first if p.bye)


@pytest.mark.parametrize("count", COUNTS)
def test_single_elimination_played_out(count: int) -> None:
    rounds = _main_rounds(count)
    for trial in range(3):
        tournament = play_out(
            drawn(SingleElimination(), count), random_winner(random.Random(trial))
        )
        check_rounds(tournament)
        main = bracket_pairings(tournament, Bracket.MAIN)
        assert max(p.bracket_round for p in main) == rounds == len(tournament.rounds)
        (final,) = [p for p in main if p.bracket_round == rounds]
        assert len(final.players) == 2
        losses = Counter(p.loser for p in main if p.loser)
        assert set(losses.values()) == {1} and len(losses) == count - 1
        assert final.winner not in losses
        # Seeds 1 to 2**m sit in different sections of the draw: two of them meet in
        # round rounds - m + 1 at the earliest (1 and 2 only in the final).
        for pairing in main:
            if not pairing.bye:
                worse = max(seed(tournament, player) for player in pairing.players)
                section = (worse - 1).bit_length()
                assert pairing.bracket_round >= rounds - section + 1
        check_places(tournament)
        places = tournament.final_places()
        assert places[0].entries == (final.winner,)
        assert places[1].entries == (final.loser,)
        if rounds >= 2:
            semi_losers = {p.loser for p in main if p.bracket_round == rounds - 1} - {None}
            assert set(places[2].entries) == semi_losers
            assert str(places[2].place) == ("3-4" if len(semi_losers) == 2 else "3")


@pytest.mark.parametrize("count", COUNTS)
def test_consolation_entries_are_exactly_the_first_round_losers(count: int) -> None:
    options = SingleElimination(consolation_through_round=1)
    first_round_matches = count - _size(count) // 2
    if first_round_matches < 2:
        with pytest.raises(InvalidOptions):
            Tournament(format=options, entries=field(count))
        return
    for trial in range(3):
        tournament = play_out(drawn(options, count), random_winner(random.Random(trial)))
        check_rounds(tournament)
        first_round_losers = {p.loser for p in tournament.rounds[0].pairings if not p.bye}
        consolation = bracket_pairings(tournament, Bracket.CONSOLATION)
        assert {player for p in consolation for player in p.players} == first_round_losers
        assert min(p.round for p in consolation) == 2
        # The consolation is drawn by the main seeds: its byes go to its best seeds.
        by_seed = sorted(first_round_losers, key=lambda entry: seed(tournament, entry))
        byes = {p.players[0] for p in consolation if p.bye}
        assert byes == set(by_seed[: len(byes)])
        assert len(byes) == _size(len(by_seed)) - len(by_seed)
        check_places(tournament)


@pytest.mark.parametrize("count", COUNTS)
def test_progressive_consolation_takes_later_losers_with_byes(count: int) -> None:
    rounds = _main_rounds(count)
    for through in range(2, rounds + 1):
        options = SingleElimination(consolation_through_round=through)
        if through >= rounds:
            with pytest.raises(InvalidOptions):
                Tournament(format=options, entries=field(count))
            continue
        tournament = play_out(drawn(options, count), random_winner(random.Random(through)))
        check_rounds(tournament)
        main = bracket_pairings(tournament, Bracket.MAIN)
        consolation = bracket_pairings(tournament, Bracket.CONSOLATION)
        lost_in = {p.loser: p.bracket_round for p in main if p.loser}
        entrants = {player for p in consolation for player in p.players}
        assert entrants == {entry for entry, lost in lost_in.items() if lost <= through}
        for entry in entrants:
            first = min((p for p in consolation if entry in p.players), key=lambda p: p.round)
            lost = lost_in[entry]
            # Round r's losers enter consolation round 1 (r = 1) or 2(r - 1): the
            # rounds before are byes for them.
            assert first.bracket_round == (1 if lost == 1 else 2 * (lost - 1))
            assert first.round > lost
        check_places(tournament)


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("consolation", [0, 1, 2])
def test_last_chance_takes_everyone_knocked_out_by_its_round(count: int, consolation: int) -> None:
    rounds = _main_rounds(count)
    for after in sorted({1, 2, max(rounds - 1, 1), rounds}):
        options = SingleElimination(
            consolation_through_round=consolation, last_chance_after_round=after
        )
        try:
            tournament = drawn(options, count)
        except InvalidOptions:
            # Refused only when the main bracket is too short, the consolation cannot be
            # held, or fewer than two are out by then.
            without = replace(options, last_chance_after_round=0)
            if after < rounds and _valid(without, count):
                played = play_out(drawn(without, count), random_winner(random.Random(after)))
                assert len(_knocked_out_by(played, after)) < 2
            continue
        tournament = play_out(tournament, random_winner(random.Random(after)))
        check_rounds(tournament)
        last_chance = bracket_pairings(tournament, Bracket.LAST_CHANCE)
        expected = _knocked_out_by(tournament, after)
        assert {player for p in last_chance for player in p.players} == expected
        assert min(p.round for p in last_chance) == after + 1
        check_places(tournament)


def _valid(options: SingleElimination, count: int) -> bool:
    try:
        Tournament(format=options, entries=field(count))
    except InvalidOptions:
        return False
    return True


def _knocked_out_by(tournament: Tournament, after: int) -> set[str]:
    """The entries whose last match in the main or the consolation was lost in round
    ``after`` or before."""
    knocked_out = set()
    for entry in tournament.seed_order:
        played = [
            p
            for p in tournament.pairings
            if entry in p.players and p.bracket in (Bracket.MAIN, Bracket.CONSOLATION)
        ]
        last = max(played, key=lambda p: p.round)
        if last.loser == entry and last.round <= after:
            knocked_out.add(entry)
    return knocked_out


def test_random_draw_follows_the_rng_and_hand_seeds_come_first() -> None:
    entries = (*field(5), Entry("e6", seed=1))
    options = SingleElimination(seeding=Seeding.RANDOM)
    one = Tournament(format=options, entries=entries).draw(rng=random.Random(7))
    again = Tournament(format=options, entries=entries).draw(rng=random.Random(7))
    assert one.seed_order == again.seed_order
    assert one.seed_order[0] == "e6"
    orders = {
        Tournament(format=options, entries=entries).draw(rng=random.Random(n)).seed_order
        for n in range(20)
    }
    assert len(orders) > 1


def test_rating_seeding_orders_by_rating_and_keeps_entry_order_on_ties() -> None:
    entries = tuple(
        Entry(entry.id, rating=1500.0) if entry.id in ("e2", "e3") else entry for entry in field(4)
    )
    assert drawn(SingleElimination(), 4).seed_order == ("e1", "e2", "e3", "e4")
    tied = Tournament(format=SingleElimination(), entries=entries).draw()
    assert tied.seed_order == ("e1", "e4", "e2", "e3")


def test_fixtures_show_the_whole_bracket_filling_in() -> None:
    tournament = drawn(SingleElimination(consolation_through_round=1), 8)
    fixtures = {fixture.id: fixture for fixture in tournament.fixtures()}
    assert len(fixtures) == 7 + 3
    first = fixtures["main-1-1"]
    assert [side.entry for side in first.sides] == ["e1", "e8"]
    final = fixtures["main-3-1"]
    assert [(side.source.kind, side.source.ref, side.entry) for side in final.sides] == [
        (SlotKind.WINNER, "main-2-1", None),
        (SlotKind.WINNER, "main-2-2", None),
    ]
    consolation = fixtures["consolation-1-1"]
    assert [side.source.kind for side in consolation.sides] == [SlotKind.POOL, SlotKind.POOL]
    tournament = tournament.start_round()
    for pairing in tournament.rounds[0].pairings:
        tournament = tournament.record_result(pairing.id, pairing.players[1])
    fixtures = {fixture.id: fixture for fixture in tournament.fixtures()}
    assert fixtures["main-1-1"].winner == "e8"
    assert [side.entry for side in fixtures["main-2-1"].sides] == ["e8", "e5"]
    # First-round losers e1 to e4 fill the consolation by seed: 1 v 4, 2 v 3.
    assert [side.entry for side in fixtures["consolation-1-1"].sides] == ["e1", "e4"]
    assert [side.entry for side in fixtures["consolation-1-2"].sides] == ["e2", "e3"]


def test_an_eight_player_knockout_with_consolation_worked_by_hand() -> None:
    tournament = drawn(SingleElimination(consolation_through_round=1), 8).start_round()
    assert [p.players for p in tournament.rounds[0].pairings] == [
        ("e1", "e8"),
        ("e4", "e5"),
        ("e2", "e7"),
        ("e3", "e6"),
    ]
    for pairing_id, winner in [
        ("main-1-1", "e1"),
        ("main-1-2", "e5"),
        ("main-1-3", "e2"),
        ("main-1-4", "e6"),
    ]:
        tournament = tournament.record_result(pairing_id, winner)
    tournament = tournament.start_round()
    assert [(p.bracket, p.players) for p in tournament.rounds[1].pairings] == [
        (Bracket.MAIN, ("e1", "e5")),
        (Bracket.MAIN, ("e2", "e6")),
        (Bracket.CONSOLATION, ("e3", "e8")),
        (Bracket.CONSOLATION, ("e4", "e7")),
    ]
    for pairing_id, winner in [
        ("main-2-1", "e1"),
        ("main-2-2", "e6"),
        ("consolation-1-1", "e8"),
        ("consolation-1-2", "e4"),
    ]:
        tournament = tournament.record_result(pairing_id, winner)
    tournament = tournament.start_round()
    assert [p.players for p in tournament.rounds[2].pairings] == [("e1", "e6"), ("e8", "e4")]
    tournament = tournament.record_result("main-3-1", "e6")
    tournament = tournament.record_result("consolation-2-1", "e4")
    assert tournament.complete
    assert [(fp.event, str(fp.place), fp.entries) for fp in tournament.final_places()] == [
        (Event.MAIN, "1", ("e6",)),
        (Event.MAIN, "2", ("e1",)),
        (Event.MAIN, "3-4", ("e2", "e5")),
        (Event.MAIN, "5-8", ("e3", "e4", "e7", "e8")),
        (Event.CONSOLATION, "1", ("e4",)),
        (Event.CONSOLATION, "2", ("e8",)),
        (Event.CONSOLATION, "3-4", ("e3", "e7")),
    ]
