"""Whole matches: to 3 with the Crawford game, ratings, money sessions and their
settlement, abandoning, the players' settings (T4), the log's guards."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction

from club import selectors as club_selectors
from club.models import Leg, MatchResult, RowImmutable, SourceKind
from matches import selectors, services
from matches.errors import IllegalPlay
from matches.models import Action, Match, Table
from tests.matches.conftest import act, game_of, on_turn, play_out, start

pytestmark = pytest.mark.django_db


def win_game_by_pass(match, winner, loser):
    """``winner`` doubles at their first roll and ``loser`` passes; the first player on
    turn plays a move first if it is not ``winner``'s turn to roll."""
    for _ in range(4):
        game = game_of(match)
        if game["phase"] == "roll" and game["turn"] == winner.username:
            break
        player = on_turn(match, winner, loser)
        if game["phase"] == "roll":
            match = act(match, player, "roll")
            game = game_of(match)
        if game["phase"] == "move" and game["turn"] == player.username:
            match = act(match, player, "move", play=game["legal_plays"][0])
    match = act(match, winner, "double")
    return act(match, loser, "pass")


def resign_game(match, winner, loser):
    """``loser`` resigns a single at their turn; ``winner`` accepts."""
    for _ in range(4):
        game = game_of(match)
        if game["turn"] == loser.username and game["phase"] in ("roll", "move"):
            break
        match = (
            act(match, winner, "roll")
            if game["phase"] == "roll"
            else act(match, winner, "move", play=game["legal_plays"][0])
        )
    match = act(match, loser, "resign", value="single")
    return act(match, winner, "accept_resign")


def test_p2_a_match_to_3_with_its_crawford_game_and_the_rating_change(alice, bob):
    match = start(alice, bob, length=3)
    match = win_game_by_pass(match, alice, bob)
    match = win_game_by_pass(match, alice, bob)
    detail = selectors.match_detail(match)
    assert detail["score"] == {"alice": 2, "bob": 0}
    assert detail["crawford"] is True  # alice at 2 of 3: the Crawford game (P2)
    # No doubling in the Crawford game.
    game = game_of(match)
    roller = on_turn(match, alice, bob)
    if game["phase"] == "move":
        match = act(match, roller, "move", play=game["legal_plays"][0])
    with pytest.raises(IllegalPlay) as refused:
        act(match, on_turn(match, alice, bob), "double")
    assert refused.value.reason == "cube_not_available"
    match = resign_game(match, bob, alice)  # bob wins the Crawford game
    detail = selectors.match_detail(match)
    assert detail["score"] == {"alice": 2, "bob": 1}
    assert detail["crawford"] is False  # post-Crawford: the cube is back
    match = resign_game(match, alice, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner == alice and match.ended_by == "resigned"
    result = match.result
    assert (result.winner, result.loser, result.length, result.rated) == (alice, bob, 3, True)
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert alice.rating > 1500 > bob.rating
    assert alice.experience == bob.experience == 3
    changes = club_selectors.result_rating_changes(result=result)
    assert changes["alice"] == pytest.approx(alice.rating - 1500)
    assert changes["bob"] == pytest.approx(bob.rating - 1500)


def test_p4_a_money_session_stops_between_games_and_settles_in_one_transaction(alice, bob):
    match = start(alice, bob, length=0, rated=False, stake=Decimal("2.50"))
    match = win_game_by_pass(match, alice, bob)
    assert game_of(match)["phase"] == "over" and match.status == Match.Status.PLAYING
    with pytest.raises(services.NotYourTurn):
        act(match, bob, "roll")
    match = services.match_continue(match=match, player=bob, turn_no=game_of(match)["turn_no"])
    assert game_of(match)["number"] == 2
    with pytest.raises(services.Conflict):
        services.match_stop(match=match, player=bob, turn_no=game_of(match)["turn_no"])
    match = win_game_by_pass(match, alice, bob)
    match = services.match_continue(match=match, player=alice, turn_no=game_of(match)["turn_no"])
    match = win_game_by_pass(match, bob, alice)
    match = services.match_stop(match=match, player=bob, turn_no=game_of(match)["turn_no"])
    assert match.status == Match.Status.FINISHED
    assert selectors.match_detail(match)["score"] == {"alice": 2, "bob": 1}
    legs = Leg.objects.filter(transaction__kind=SourceKind.MONEY_SESSION)
    assert sorted(leg.amount for leg in legs) == [Decimal("-2.50"), Decimal("2.50")]
    assert sum(leg.amount for leg in legs) == 0
    assert legs.values("transaction").distinct().count() == 1
    assert club_selectors.player_balance(player=alice) == Decimal("2.50")
    assert club_selectors.player_balance(player=bob) == Decimal("-2.50")
    assert match.result.rated is False and match.result.winner == alice


def test_abandoning_loses_the_match(alice, bob):
    match = start(alice, bob, length=5)
    match = services.match_abandon(match=match, player=bob)
    assert match.status == Match.Status.FINISHED
    assert (match.winner, match.ended_by) == (alice, MatchResult.EndedBy.ABANDONED)
    assert selectors.match_detail(match)["score"] == {"alice": 5, "bob": 0}


def test_t4_the_server_rolls_for_a_player_who_cannot_double_when_asked(alice, bob):
    services.play_settings_update(player=alice, auto_roll=True)
    services.play_settings_update(player=bob, auto_roll=True)
    match = start(alice, bob, length=3)
    mover = on_turn(match, alice, bob)
    match = act(match, mover, "move", play=game_of(match)["legal_plays"][0])
    # The cube is centred: the other side may double, so the server does not roll.
    assert game_of(match)["phase"] == "roll"
    other = on_turn(match, alice, bob)
    match = act(match, other, "double")
    match = act(match, mover, "take")
    # The doubler cannot double now (the taker owns the cube): the server rolled for him.
    kinds = list(Action.objects.filter(table=match.table).values_list("kind", "by_server"))
    assert kinds[kinds.index(("take", False)) + 1] == ("roll", True)


def test_t4_the_server_plays_a_forced_move_when_asked(alice, bob):
    match = start(alice, bob, length=3)
    mover = on_turn(match, alice, bob)
    waiting = bob if mover == alice else alice
    services.play_settings_update(player=waiting, auto_play_forced=True)
    # One checker each, out of contact: every roll has exactly one play.
    state = dict(match.table.state)
    one = [0] * 11 + [1] + [0] * 13
    state["board"] = [one, one]
    Table.objects.filter(pk=match.table_id).update(state=state)
    match.refresh_from_db()
    match = act(match, mover, "move", play=game_of(match)["legal_plays"][0])
    match = act(match, waiting, "roll")
    moves = Action.objects.filter(table=match.table, game_number=1, kind="move")
    assert [(row.actor, row.by_server) for row in moves] == [(mover, False), (None, True)]


def test_play_settings_refuse_what_they_do_not_have(alice):
    services.play_settings_update(player=alice, auto_play_forced=True, home_board="left")
    row = selectors.play_settings(player=alice)
    assert row.auto_play_forced and not row.auto_roll and row.home_board == "left"
    with pytest.raises(services.Invalid):
        services.play_settings_update(player=alice, home_board="top")
    with pytest.raises(services.Invalid):
        services.play_settings_update(player=alice, colour="red")
    with pytest.raises(services.Invalid):
        services.play_settings_update(player=alice, auto_roll="yes")


def test_the_log_refuses_changes_and_deletions(alice, bob):
    match = start(alice, bob, length=1)
    row = Action.objects.get(table=match.table)
    with pytest.raises(RowImmutable):
        row.save()
    with pytest.raises(RowImmutable):
        row.delete()
    with pytest.raises(RowImmutable):
        Action.objects.filter(pk=row.pk).update(kind="x")
    with pytest.raises(RowImmutable):
        Action.objects.filter(pk=row.pk).delete()


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_postgresql_refuses_raw_sql_updates_and_deletes_of_the_log(alice, bob):
    match = start(alice, bob, length=1)
    for statement in (
        "UPDATE matches_action SET kind = 'x' WHERE table_id = %s",
        "DELETE FROM matches_action WHERE table_id = %s",
    ):
        with (
            pytest.raises(IntegrityError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement, [match.table_id])
    assert Action.objects.filter(table=match.table).count() == 1


def test_a_whole_match_replays_from_its_log(alice, bob):
    match = play_out(start(alice, bob, length=3), alice, bob)
    assert selectors.tables_check() == []
    assert len(selectors.match_games(match)) == match.table.game_number
