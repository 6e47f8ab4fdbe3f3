"""Match length and clock per round, set by the director in the admin (Django's test
client, the tournament's form) and used when each round starts and creates its matches."""

import pytest

from club.models import MatchResult
from matches import services as matches_services
from tests.tournaments.admin_forms import form_fields, submit
from tests.tournaments.test_admin import (
    ADD,
    change_url,
    create,
    enter,
    enter_results,
    form_errors,
    messages_of,
    players,
    step,
)
from tournaments import tasks
from tournaments.models import Pairing, Round, Tournament


@pytest.fixture
def director(client, staff):
    client.force_login(staff.user)
    return client


def round_matches(tournament, number):
    return [
        pairing.match
        for pairing in Pairing.objects.filter(
            round__tournament=tournament, round__number=number, match__isnull=False
        ).select_related("match", "first__player")
    ]


def finish_round_online(tournament, number):
    """Each match of the round is abandoned by its second player, then beat's sweep
    (``tournaments.collect``) gives the pairings their winners."""
    for pairing in Pairing.objects.filter(
        round__tournament=tournament, round__number=number, match__isnull=False
    ).select_related("match", "second__player"):
        matches_services.match_abandon(match=pairing.match, player=pairing.second.player)
    tasks.collect()


def test_each_round_starts_its_matches_at_its_length_and_clock(director, make_player):
    tournament = create(
        director,
        online="on",
        match_lengths="3, 5, 7",
        clock="standard",
        round_clocks="blitz, standard",
    )
    enter(director, tournament, players(make_player, 8))
    step(director, tournament, "start")
    first = Round.objects.get(tournament=tournament, number=1)
    assert (first.length, first.clock) == (3, "blitz")
    matches = round_matches(tournament, 1)
    assert len(matches) == 4
    assert {(match.length, match.clock) for match in matches} == {(3, "blitz")}
    finish_round_online(tournament, 1)
    second = Round.objects.get(tournament=tournament, number=2)
    assert (second.length, second.clock) == (5, "standard")
    assert {(match.length, match.clock) for match in round_matches(tournament, 2)} == {
        (5, "standard")
    }
    finish_round_online(tournament, 2)
    # The last clock and the last length hold for every later round: the final is to 7.
    final = Round.objects.get(tournament=tournament, number=3)
    assert (final.length, final.clock) == (7, "standard")
    [match] = round_matches(tournament, 3)
    assert (match.length, match.clock) == (7, "standard")


def test_an_empty_clock_per_round_keeps_the_tournaments_clock(director, make_player):
    tournament = create(director, online="on", match_lengths="1", clock="blitz")
    enter(director, tournament, players(make_player, 2))
    step(director, tournament, "start")
    [match] = round_matches(tournament, 1)
    assert (match.length, match.clock) == (1, "blitz")
    assert Round.objects.get(tournament=tournament).clock == "blitz"


def test_later_rounds_can_be_changed_while_the_tournament_runs(director, make_player):
    tournament = create(director, online="on", match_lengths="3", clock="none")
    enter(director, tournament, players(make_player, 4))
    step(director, tournament, "start")
    fields = form_fields(director.get(change_url(tournament)).content.decode(), "tournament_form")
    # The rounds' options stay editable; the others are fixed since the draw.
    assert {"match_lengths", "round_clocks", "round_deadline_hours", "deadline_rule"} <= set(fields)
    assert "entry_fee" not in fields and "format" not in fields and "clock" not in fields
    response = submit(
        director,
        change_url(tournament),
        "tournament_form",
        {"match_lengths": "3, 9", "round_clocks": "none, correspondence"},
    )
    assert response.status_code == 302, form_errors(response)
    # Round 1 keeps what it started with; round 2 starts with the new settings.
    assert [(m.length, m.clock) for m in round_matches(tournament, 1)] == [(3, "none")] * 2
    finish_round_online(tournament, 1)
    [final] = round_matches(tournament, 2)
    assert (final.length, final.clock) == (9, "correspondence")


def test_over_the_board_results_are_recorded_at_the_rounds_length(director, make_player):
    tournament = create(director, match_lengths="5, 11")
    enter(director, tournament, players(make_player, 4))
    step(director, tournament, "start")
    first = Round.objects.get(tournament=tournament, number=1)
    enter_results(director, first, lambda pairing: pairing.first)
    final = Round.objects.get(tournament=tournament, number=2)
    enter_results(director, final, lambda pairing: pairing.first)
    lengths = sorted(
        MatchResult.objects.filter(
            pk__in=Pairing.objects.filter(round__tournament=tournament).values("result")
        ).values_list("length", flat=True)
    )
    assert lengths == [5, 5, 11]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"round_clocks": "blitz, fast"}, "fast is not a clock."),
        ({"round_clocks": "blitz; standard"}, "Clocks per round, like standard, standard, blitz."),
        ({"match_lengths": "5, 0"}, "Points per round, like 5, 5, 7, 9."),
        ({"round_deadline_hours": "1441"}, "Ensure this value is less than or equal to 1440."),
    ],
)
def test_bad_round_settings_are_refused_on_the_form(director, changes, message):
    fields = {"name": "Bad rounds", "format": "single_elimination", **changes}
    response = submit(director, ADD, "tournament_form", fields)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.filter(name="Bad rounds").exists()


def test_a_finished_tournaments_rounds_are_fixed(director, make_player):
    tournament = create(director, match_lengths="1")
    enter(director, tournament, players(make_player, 2))
    step(director, tournament, "start")
    enter_results(director, Round.objects.get(tournament=tournament), lambda p: p.first)
    assert "is finished" in " ".join(messages_of(step(director, tournament, "finish")))
    fields = form_fields(director.get(change_url(tournament)).content.decode(), "tournament_form")
    assert "match_lengths" not in fields and "round_clocks" not in fields
