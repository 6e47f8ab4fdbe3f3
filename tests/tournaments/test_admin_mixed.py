"""A club night with online and over-the-board pairings mixed, run from the admin with
Django's test client: the director moves pairings to a board (or back online) with the
pairings list's actions and enters the board results on the round's page; the online
matches are played to their end through the matches services, and their ends move the
bracket by themselves; to the payouts."""

from decimal import Decimal

import pytest
from django.contrib.contenttypes.models import ContentType

from club.models import Leg, MatchResult, Player
from matches import selectors as match_selectors
from matches.demo import play_on
from matches.models import Match
from matches.services import Act, match_act
from tests.tournaments.admin_forms import form_fields
from tests.tournaments.test_admin import (
    better_seed,
    create,
    enter,
    enter_results,
    messages_of,
    players,
    step,
)
from tournaments import selectors
from tournaments.models import Pairing, Round, Tournament

PAIRINGS = "/admin/tournaments/pairing/"


@pytest.fixture
def director(client, staff):
    client.force_login(staff.user)
    return client


def pairing(tournament, key):
    return Pairing.objects.select_related("match", "first__player", "second__player").get(
        round__tournament=tournament, key=key
    )


def act_on(director, action, *pairings):
    """Tick the pairings on the pairings list and run ``action`` on them."""
    page = director.get(PAIRINGS, {"decided": "all"}).content.decode()
    fields = form_fields(page, "changelist-form")
    data = {**fields, "action": action, "_selected_action": [str(p.pk) for p in pairings]}
    response = director.post(PAIRINGS + "?decided=all", data, follow=True)
    assert response.status_code == 200
    return messages_of(response)


def play_online_matches(django_capture_on_commit_callbacks, played):
    """Play every online match of the round to its end; the pairings follow by the
    match-finished signal (run at commit, as in production)."""
    for row in played.pairings.filter(match__isnull=False, winner__isnull=True):
        with django_capture_on_commit_callbacks(execute=True):
            finished = play_on(row.match)
        assert finished.status == Match.Status.FINISHED


def current_round(tournament):
    return Round.objects.filter(tournament=tournament).order_by("-number").first()


def test_an_eight_player_knockout_with_consolation_mixed_online_and_on_boards(
    director, make_player, django_capture_on_commit_callbacks
):
    field = players(make_player, 8)
    ratings_before = {player.pk: player.rating for player in field}
    table = (
        '{"unit": "percent", "places": {"main": {"1": "50", "2": "25", "3-4": "20"}, '
        '"consolation": {"1": "5"}}}'
    )
    tournament = create(
        director,
        name="Mixed night",
        online="on",
        entry_fee="10.00",
        house_cut_percent="10",
        consolation_through_round="1",
        match_lengths="1",
        payout_table=table,
    )
    enter(director, tournament, field)
    assert "Mixed night is drawn: round 1 has started." in messages_of(
        step(director, tournament, "start")
    )
    first = Round.objects.get(tournament=tournament, number=1)
    assert first.pairings.filter(match__isnull=False).count() == 4  # online by default
    # The tournament's page links its pairings' list, where they are moved.
    page = director.get(f"/admin/tournaments/tournament/{tournament.pk}/change/").content.decode()
    listed = f"{PAIRINGS}?round__tournament__id__exact={tournament.pk}"
    assert f'href="{listed}"' in page and "Online or on a board" in page
    rows = director.get(listed).content.decode()
    assert rows.count('name="_selected_action"') == 4 and rows.count("online: match ") == 4

    # Two tables go to the big board: their matches are called off, unplayed.
    to_board = [pairing(tournament, "main-1-1"), pairing(tournament, "main-1-3")]
    called_off = [row.match for row in to_board]
    said = act_on(director, "play_on_board", *to_board)
    assert "2 pairings are played on a board: enter their results on their round's page." in said
    for row, match in zip(to_board, called_off, strict=True):
        assert pairing(tournament, row.key).match is None
        match.refresh_from_db()
        assert match.status == Match.Status.DECLINED and match.result is None
        assert match.winner is None
    assert not MatchResult.objects.exists()
    # Asked twice, the second is refused and says why.
    said = act_on(director, "play_on_board", to_board[0])
    assert any("is played on a board already" in text for text in said), said

    # The round's page offers a winner for the board pairings only.
    page = director.get(f"/admin/tournaments/round/{first.pk}/change/").content.decode()
    fields = form_fields(page, "round_form")
    open_winners = {
        Pairing.objects.get(pk=fields[f"pairings-{index}-id"]).key
        for index in range(int(fields["pairings-TOTAL_FORMS"]))
        if f"pairings-{index}-winner" in fields
    }
    assert open_winners == {"main-1-1", "main-1-3"}
    # A winner posted for an online pairing anyway is not taken: its match decides it.
    online = pairing(tournament, "main-1-2")
    index = next(i for i in range(4) if fields[f"pairings-{i}-id"] == str(online.pk))
    director.post(
        f"/admin/tournaments/round/{first.pk}/change/",
        {**fields, f"pairings-{index}-winner": str(online.first_id), "_continue": "1"},
    )
    assert pairing(tournament, "main-1-2").winner is None

    choose = better_seed(tournament)
    enter_results(director, first, choose)
    assert {pairing(tournament, key).source for key in ("main-1-1", "main-1-3")} == {
        Pairing.Source.OVER_THE_BOARD
    }
    assert current_round(tournament).number == 1  # two online matches still to play
    play_online_matches(django_capture_on_commit_callbacks, first)
    for key in ("main-1-2", "main-1-4"):
        decided = pairing(tournament, key)
        assert decided.source == Pairing.Source.ONLINE
        assert decided.winner.player == decided.match.winner
        assert decided.result == decided.match.result  # the match's own result, once

    # Round 2 started by itself, its pairings online: main semi-finals and consolation.
    second = current_round(tournament)
    assert second.number == 2
    assert second.pairings.filter(match__isnull=False).count() == 4
    # A match someone has moved in cannot be called off.
    begun = pairing(tournament, "main-2-1")
    game = match_selectors.match_detail(begun.match)["game"]
    assert game["phase"] == "move"  # the opening roll is the starter's to play
    match_act(
        match=begun.match,
        player=Player.objects.get(user__username=game["turn"]),
        turn_no=game["turn_no"],
        act=Act.MOVE,
        play=game["legal_plays"][0],
    )
    said = act_on(director, "play_on_board", begun)
    assert any("has begun: it can no longer be called off" in text for text in said), said
    assert pairing(tournament, "main-2-1").match == begun.match
    # A consolation table goes to a board and back online: a new match is started.
    moved = pairing(tournament, "consolation-1-1")
    act_on(director, "play_on_board", moved)
    said = act_on(director, "play_online", pairing(tournament, "consolation-1-1"))
    assert "1 pairing is played online: its match has started." in said
    again = pairing(tournament, "consolation-1-1")
    assert again.match is not None and again.match != moved.match
    assert again.match.status == Match.Status.PLAYING and again.match.length == 1
    # The other semi-final is played on a board.
    act_on(director, "play_on_board", pairing(tournament, "main-2-2"))
    enter_results(director, second, choose)
    play_online_matches(django_capture_on_commit_callbacks, second)

    # Round 3: the final and the consolation final, one online, one on a board.
    third = current_round(tournament)
    assert third.number == 3
    assert set(third.pairings.values_list("key", flat=True)) == {"main-3-1", "consolation-2-1"}
    act_on(director, "play_on_board", pairing(tournament, "consolation-2-1"))
    enter_results(director, third, choose)
    assert pairing(tournament, "main-3-1").winner is None  # the final is still played
    assert "is not over: 1 pairing" in " ".join(messages_of(step(director, tournament, "finish")))
    play_online_matches(django_capture_on_commit_callbacks, third)

    tournament.refresh_from_db()
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("80.00")
    assert "Mixed night is finished and its prizes are paid out." in messages_of(
        step(director, tournament, "finish")
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    # Every played pairing has one rated result: 7 main, 3 consolation; board results
    # come from the pairing, online ones from their match.
    played = Pairing.objects.filter(round__tournament=tournament)
    assert played.count() == 10 and not played.filter(winner__isnull=True).exists()
    assert MatchResult.objects.filter(rated=True).count() == 10
    by_board = played.filter(source=Pairing.Source.OVER_THE_BOARD)
    by_match = played.filter(source=Pairing.Source.ONLINE)
    assert by_board.count() == 4 and by_match.count() == 6  # rounds: 2+1+1 and 2+3+1
    pairing_type = ContentType.objects.get_for_model(Pairing)
    for row in by_board:
        assert (row.result.source_type, row.result.source_id) == (pairing_type, row.pk)
        assert row.result.winner == row.winner.player and row.result.length == 1
    for row in by_match:
        assert row.result == row.match.result and row.match.winner == row.winner.player
    # Ratings moved for everyone who played: all eight.
    for player in Player.objects.filter(pk__in=ratings_before):
        assert player.rating != ratings_before[player.pk]

    # The bracket moved on from both: each later pairing's players won the ones before.
    final = pairing(tournament, "main-3-1")
    semi_winners = {pairing(tournament, key).winner_id for key in ("main-2-1", "main-2-2")}
    assert {final.first_id, final.second_id} == semi_winners

    legs = Leg.objects.filter(transaction=tournament.payout_transaction)
    assert sum(leg.amount for leg in legs) == Decimal("0.00")
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("0.00")
    prizes = selectors.tournament_prizes(tournament=tournament)
    assert sum(line.amount for line in prizes) == Decimal("80.00")
    paid = {line.entry.pk if line.entry else None: line.amount for line in prizes}
    assert paid[final.winner_id] == Decimal("36.00")
    assert paid[final.loser.pk] == Decimal("18.00")
    assert paid[pairing(tournament, "consolation-2-1").winner_id] == Decimal("3.60")
    assert paid[None] == Decimal("8.00")


def test_a_board_tournaments_pairing_played_online_and_what_cannot_move(
    director, make_player, django_capture_on_commit_callbacks
):
    tournament = create(
        director, name="Board night", clock="blitz", match_lengths="1, 3", rated="on"
    )
    enter(director, tournament, players(make_player, 3))
    step(director, tournament, "start")
    bye, played = pairing(tournament, "main-1-1"), pairing(tournament, "main-1-2")
    assert bye.bye and played.match is None  # over the board by default
    page = director.get(PAIRINGS).content.decode()
    assert "on a board" in page and str(played) in page and str(bye) not in page  # waiting only

    said = act_on(director, "play_online", bye)
    assert any("is a bye: nothing is played." in text for text in said), said
    said = act_on(director, "play_online", played)
    assert "1 pairing is played online: its match has started." in said
    match = pairing(tournament, "main-1-2").match
    assert match.status == Match.Status.PLAYING
    assert (match.creator, match.opponent) == (played.first.player, played.second.player)
    assert (match.length, match.rated, match.clock) == (1, True, "blitz")
    assert f'href="/play/{match.pk}/"' in director.get(PAIRINGS).content.decode()
    # Its result is no longer the director's to enter.
    first_round = Round.objects.get(tournament=tournament, number=1)
    page = director.get(f"/admin/tournaments/round/{first_round.pk}/change/").content.decode()
    assert not any(name.endswith("-winner") for name in form_fields(page, "round_form"))

    with django_capture_on_commit_callbacks(execute=True):
        play_on(match)
    decided = pairing(tournament, "main-1-2")
    assert decided.winner.player == Match.objects.get(pk=match.pk).winner
    final = pairing(tournament, "main-2-1")
    assert final.match is None and final.round.length == 3  # the next round: on a board
    enter_results(director, final.round, lambda row: row.first)
    said = act_on(director, "play_online", pairing(tournament, "main-2-1"))
    assert any("has been played already." in text for text in said), said
    step(director, tournament, "finish")
    said = act_on(director, "play_on_board", decided)
    assert any("Board night is not running." in text for text in said), said
    assert Match.objects.count() == 1 and MatchResult.objects.filter(rated=True).count() == 2
