"""Double elimination: winners' and losers' brackets and the grand final, with and
without the bracket reset, every field from 2 to 32 played out with random results; the
drops' alternating placement keeps rematches late; a draw stored with the old placement
plays on as it was drawn."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.tournaments.play import drawn, losers_rematch_rates, play_out, random_winner
from tests.tournaments.test_single_elimination import check_places, check_rounds
from tournaments.formats import Bracket, DoubleElimination, Event, Tournament


def _losses(tournament: Tournament) -> Counter[str]:
    return Counter(p.loser for p in tournament.pairings if p.loser is not None)


@pytest.mark.parametrize("count", range(2, 33))
@pytest.mark.parametrize("reset", [True, False])
def test_double_elimination_played_out(count: int, reset: bool) -> None:
    for trial in range(4):
        tournament = play_out(
            drawn(DoubleElimination(bracket_reset=reset), count),
            random_winner(random.Random(trial)),
        )
        check_rounds(tournament)
        losses = _losses(tournament)
        assert max(losses.values()) <= 2
        for entry, lost in losses.items():
            if lost == 2:
                second_loss = max(p.round for p in tournament.pairings if p.loser == entry)
                assert all(
                    p.round <= second_loss for p in tournament.pairings if entry in p.players
                ), f"{entry} played on after losing twice"
        finals = [p for p in tournament.pairings if p.bracket is Bracket.GRAND_FINAL]
        first_final = finals[0]
        assert len(first_final.players) == 2
        winners_champion, losers_champion = first_final.players
        before_final = Counter(
            p.loser for p in tournament.pairings if p.loser and p.bracket is not Bracket.GRAND_FINAL
        )
        assert (before_final[winners_champion], before_final[losers_champion]) == (0, 1)
        upset = first_final.winner == losers_champion
        assert len(finals) == (2 if reset and upset else 1)
        champion = finals[-1].winner
        assert champion is not None
        # With the reset everyone but the champion ends with two losses; without it the
        # winners' champion may be out after one, beaten in the only final.
        out_after_one = {entry for entry, lost in losses.items() if lost == 1} - {champion}
        assert out_after_one == (set() if reset or not upset else {winners_champion})
        assert len(losses) + (champion not in losses) == count
        if count >= 5:
            # Drops meet the survivors in reverse order: no rematch in losers' round 2.
            for pairing in tournament.pairings:
                if pairing.bracket is Bracket.LOSERS and pairing.bracket_round == 2:
                    earlier = {
                        frozenset(p.players) for p in tournament.pairings if p.round < pairing.round
                    }
                    assert pairing.bye or frozenset(pairing.players) not in earlier
        check_places(tournament)
        places = tournament.final_places()
        assert {fp.event for fp in places} == {Event.MAIN}
        assert places[0].entries == (champion,)
        assert places[1].entries == (finals[-1].loser,)


def test_a_four_player_double_elimination_worked_by_hand() -> None:
    tournament = drawn(DoubleElimination(), 4)
    steps = [
        [("main-1-1", ("e1", "e4"), "e1"), ("main-1-2", ("e2", "e3"), "e3")],
        [("main-2-1", ("e1", "e3"), "e1"), ("losers-1-1", ("e4", "e2"), "e2")],
        [("losers-2-1", ("e2", "e3"), "e2")],
        [("grand_final-1-1", ("e1", "e2"), "e2")],
        [("grand_final-2-1", ("e2", "e1"), "e1")],
    ]
    for step in steps:
        tournament = tournament.start_round()
        assert tournament.current_round is not None
        assert [(p.id, p.players) for p in tournament.current_round.pairings] == [
            (pairing_id, players) for pairing_id, players, _ in step
        ]
        for pairing_id, _, winner in step:
            tournament = tournament.record_result(pairing_id, winner)
    assert tournament.complete
    assert [(str(fp.place), fp.entries) for fp in tournament.final_places()] == [
        ("1", ("e1",)),
        ("2", ("e2",)),
        ("3", ("e3",)),
        ("4", ("e4",)),
    ]


def test_no_reset_when_the_winners_champion_wins_the_grand_final() -> None:
    tournament = drawn(DoubleElimination(), 2).start_round()
    tournament = tournament.record_result("main-1-1", "e1").start_round()
    assert tournament.current_round is not None
    assert tournament.current_round.pairings[0].players == ("e1", "e2")
    tournament = tournament.record_result("grand_final-1-1", "e1")
    assert tournament.complete
    assert [fixture.id for fixture in tournament.fixtures()] == ["main-1-1", "grand_final-1-1"]


def test_losers_of_later_winners_rounds_enter_in_reverse_order() -> None:
    tournament = drawn(DoubleElimination(), 8)
    for _ in range(2):
        tournament = tournament.start_round()
        assert tournament.current_round is not None
        for pairing in tournament.current_round.pairings:
            if pairing.bracket is Bracket.MAIN:
                tournament = tournament.record_result(pairing.id, pairing.players[0])
            else:
                tournament = tournament.record_result(pairing.id, pairing.players[1])
    tournament = tournament.start_round()
    assert tournament.current_round is not None
    # Winners' round 2: e1 beat e4, e2 beat e3; losers' round 1 was won by e5 and e6
    # (second sides). The top survivor meets the bottom dropper, so no one meets again.
    assert [
        p.players for p in tournament.current_round.pairings if p.bracket is Bracket.LOSERS
    ] == [
        ("e5", "e3"),
        ("e6", "e4"),
    ]


@pytest.mark.parametrize(("count", "trials"), [(8, 150), (16, 150), (32, 100), (64, 40)])
def test_rematches_wait_for_the_last_two_losers_rounds(count: int, trials: int) -> None:
    rng = random.Random(count)
    rates = losers_rematch_rates(
        play_out(drawn(DoubleElimination(), count), random_winner(rng)) for _ in range(trials)
    )
    before_the_last_two = list(rates.items())[:-2]
    for number, rate in before_the_last_two:
        if (count, number) == (16, 4):
            # The winners' semi-finals' two losers drop into a losers' round of two
            # matches; either way they are placed, one in eight of them meets a player
            # they beat (1/2 that this player won each of three losers' rounds): 12.5%.
            assert rate <= 0.16, (number, rate)
        else:
            assert rate <= 0.10, (number, rate)


def test_a_draw_stored_with_the_reversed_placement_plays_on_as_drawn() -> None:
    # Drawn, four rounds played and the fifth started before the alternating placement:
    # its losers' round 4 meets the winners' semi-finals' losers in reverse order, where
    # a draw made today places them straight.
    stored = json.loads(
        (Path(__file__).parent / "data" / "double_elimination_16_drawn_reversed.json").read_text()
    )
    tournament = Tournament.from_dict(stored)
    assert tournament.plan is not None
    sides = {node.id: node.sides[1].ref for node in tournament.plan.nodes}
    assert (sides["losers-4-1"], sides["losers-4-2"]) == ("main-3-2", "main-3-1")
    today = drawn(DoubleElimination(), 16).plan
    assert today is not None
    assert [node.sides[1].ref for node in today.nodes if node.id.startswith("losers-4-")] == [
        "main-3-1",
        "main-3-2",
    ]
    rng = random.Random(9)
    assert tournament.current_round is not None
    for pairing in tournament.current_round.pairings:
        if not pairing.finished:
            tournament = tournament.record_result(pairing.id, rng.choice(pairing.players))
    tournament = play_out(tournament, random_winner(rng))
    assert tournament.plan == Tournament.from_dict(stored).plan
    losers_4_1 = tournament.pairing("losers-4-1")
    assert tournament.pairing("main-3-2").loser in losers_4_1.players
    check_rounds(tournament)
    check_places(tournament)
    assert Tournament.from_dict(tournament.to_dict()) == tournament
