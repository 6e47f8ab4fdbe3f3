"""The matches services: create, accept, decline, each action and each refusal."""

from decimal import Decimal

import pytest

from backgammon.game import Phase
from matches import selectors, services
from matches.errors import IllegalPlay, NotYourTurn, StaleTurn
from matches.models import Action, Match, Table
from tests.matches.conftest import act, game_of, on_turn, play_out, start
from web.errors import Conflict, Forbidden, Invalid

pytestmark = pytest.mark.django_db


def log_size(match):
    return Action.objects.filter(table=match.table).count()


def test_an_invitation_waits_with_its_commitment_and_no_table_game(alice, bob):
    match = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=5)
    )
    detail = selectors.match_detail(match)
    assert detail["status"] == "invited"
    assert len(detail["dice_commitment"]) == 64
    assert detail["game"] is None
    assert log_size(match) == 0


def test_o1_accepting_makes_the_opening_roll_and_the_higher_die_moves(alice, bob):
    match = start(alice, bob)
    game = game_of(match)
    opening = Action.objects.get(table=match.table, seq=0)
    rolls = opening.payload["rolls"]
    first, second = rolls[-1]
    assert all(a == b for a, b in rolls[:-1]) and first != second
    assert game["phase"] == "move"
    assert game["turn"] == ("alice" if first > second else "bob")
    assert sorted(game["dice"]) == sorted(rolls[-1])
    assert game["turn_no"] == 1
    assert match.status == Match.Status.PLAYING


def test_only_the_invited_player_accepts(alice, bob, carol):
    match = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=3)
    )
    with pytest.raises(Forbidden):
        services.match_accept(match=match, player=carol)
    with pytest.raises(Forbidden):
        services.match_accept(match=match, player=alice)


def test_an_open_challenge_is_accepted_by_any_member_once(alice, bob, carol):
    match = services.match_create(
        creator=alice, opponent=None, options=services.MatchOptions(length=1)
    )
    assert list(selectors.open_challenges()) == [match]
    match = services.match_accept(match=match, player=carol)
    assert selectors.players(match) == ["alice", "carol"]
    with pytest.raises(Conflict):
        services.match_accept(match=match, player=bob)
    assert list(selectors.live_matches()) == [match]


def test_declining_closes_the_invitation(alice, bob):
    match = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=3)
    )
    match = services.match_decline(match=match, player=bob)
    assert match.status == Match.Status.DECLINED
    with pytest.raises(Conflict):
        services.match_accept(match=match, player=bob)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"length": 0, "rated": True},
        {"length": 0, "rated": False},
        {"length": 3, "stake": "1.00"},
        {"length": 65},
        {"length": 3, "clock": "fast"},
        {"length": 3, "clock": {"delay": 5}},
        {"length": 3, "game_options": {"jacoby": True}},
        {"length": 3, "on_timeout": "autoplay"},
    ],
)
def test_match_create_refuses_what_cannot_be_played(alice, bob, kwargs):
    if isinstance(kwargs.get("stake"), str):
        kwargs["stake"] = Decimal(kwargs["stake"])
    with pytest.raises(Invalid):
        services.match_create(creator=alice, opponent=bob, options=services.MatchOptions(**kwargs))
    assert not Match.objects.exists()


def test_a_roll_and_a_move_advance_the_turn_and_the_log(alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    before = log_size(match)
    plays = game_of(match)["legal_plays"]
    match = act(match, player, "move", play=plays[0])
    game = game_of(match)
    assert game["turn"] != player.username
    assert game["phase"] == "roll"
    assert game["turn_no"] == 2
    assert log_size(match) == before + 1
    match = act(match, on_turn(match, alice, bob), "roll")
    assert game_of(match)["turn_no"] == 3
    assert match.table.version == 3


def test_t3_steps_and_undo_before_confirming(alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    dice = game_of(match)["dice"]
    match = act(match, player, "move_step", origin=8, die=dice[0])
    assert game_of(match)["pending"]
    match = act(match, player, "undo")
    assert game_of(match)["pending"] == []
    match = act(match, player, "move_step", origin=8, die=dice[0])
    match = act(match, player, "move_step", origin=8, die=dice[1])
    match = act(match, player, "confirm")
    assert game_of(match)["turn"] != player.username
    kinds = list(Action.objects.filter(table=match.table).values_list("kind", flat=True))
    assert kinds == ["start", "move_step", "undo", "move_step", "move_step", "confirm"]


def refused(match, player, what, error, **kwargs):
    """``what`` raises ``error`` and changes nothing: state, version, log."""
    table = Table.objects.get(pk=match.table_id)
    size = log_size(match)
    with pytest.raises(error) as caught:
        act(match, player, what, **kwargs)
    after = Table.objects.get(pk=match.table_id)
    seen = (table.state, table.version, table.turn_no)
    assert (after.state, after.version, after.turn_no) == seen
    assert log_size(match) == size
    return caught.value


def test_a_stale_turn_no_is_refused(alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    with pytest.raises(StaleTurn) as caught:
        services.match_act(match=match, player=player, turn_no=0, act="move", play="")
    assert caught.value.code == "stale_turn" and caught.value.status == 409
    assert log_size(match) == 1


def test_the_player_not_on_turn_is_refused(alice, bob):
    match = start(alice, bob)
    other = bob if on_turn(match, alice, bob) == alice else alice
    error = refused(match, other, "roll", NotYourTurn)
    assert (error.code, error.status) == ("not_your_turn", 403)


def test_a_watcher_is_refused(alice, bob, carol):
    match = start(alice, bob)
    error = refused(match, carol, "roll", Forbidden)
    assert (error.code, error.status) == ("forbidden", 403)


def test_m2_a_blocked_point_is_an_illegal_play_with_its_reason(alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    dice = game_of(match)["dice"]
    # From 24 a 5 lands on the opponent's 8 (own 19 is their 6: five checkers).
    error = refused(match, player, "move", IllegalPlay, play=f"24/{24 - 5} 13/{13 - dice[1]}")
    if 5 in dice:
        assert error.reason == "blocked_point"
    assert error.code == "illegal_play" and error.status == 400


def test_moving_before_rolling_and_rolling_twice_are_refused(alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    refused(match, player, "roll", Conflict)
    match = act(match, player, "move", play=game_of(match)["legal_plays"][0])
    other = on_turn(match, alice, bob)
    refused(match, other, "move", Conflict, play="24/23")
    refused(match, other, "take", Conflict)


def test_c2_double_take_and_the_cube_changes_hands(alice, bob):
    match = start(alice, bob)
    match = act(match, on_turn(match, alice, bob), "move", play=game_of(match)["legal_plays"][0])
    doubler = on_turn(match, alice, bob)
    match = act(match, doubler, "double")
    game = game_of(match)
    assert game["phase"] == "take_or_pass" and game["turn"] != doubler.username
    taker = on_turn(match, alice, bob)
    match = act(match, taker, "take")
    game = game_of(match)
    assert game["cube"] == {"value": 2, "owner": taker.username}
    assert game["turn"] == doubler.username and game["phase"] == "roll"
    error = refused(match, doubler, "double", IllegalPlay)
    assert error.reason == "cube_not_available"


def test_c4_a_pass_ends_the_game_and_the_next_starts(alice, bob):
    match = start(alice, bob, length=3)
    match = act(match, on_turn(match, alice, bob), "move", play=game_of(match)["legal_plays"][0])
    doubler = on_turn(match, alice, bob)
    match = act(match, doubler, "double")
    match = act(match, on_turn(match, alice, bob), "pass")
    detail = selectors.match_detail(match)
    assert detail["score"][doubler.username] == 1
    assert detail["game"]["number"] == 2
    assert detail["game"]["phase"] == "move"


def test_s4_resign_accept_and_reject(alice, bob):
    match = start(alice, bob, length=5)
    player = on_turn(match, alice, bob)
    match = act(match, player, "resign", value="gammon")
    assert game_of(match)["phase"] == "resign_offered"
    match = act(match, on_turn(match, alice, bob), "reject_resign")
    assert game_of(match)["turn"] == player.username
    match = act(match, player, "resign", value="single")
    match = act(match, on_turn(match, alice, bob), "accept_resign")
    detail = selectors.match_detail(match)
    other = "bob" if player == alice else "alice"
    assert detail["score"][other] == 1 and detail["game"]["number"] == 2


def test_a_match_played_out_records_its_result_and_ends(alice, bob):
    match = play_out(start(alice, bob, length=1), alice, bob)
    assert match.status == Match.Status.FINISHED
    assert match.result is not None and match.result.winner == match.winner
    assert match.ended_by == "played"
    assert game_of(match)["phase"] == Phase.OVER.value
    with pytest.raises(Conflict):
        act(match, alice, "roll")


def test_the_log_replays_to_the_stored_state(alice, bob):
    match = play_out(start(alice, bob, length=3), alice, bob)
    assert selectors.tables_check() == []
    games = selectors.match_games(match)
    assert games[-1].over


def test_the_match_body_says_what_the_pages_need(alice, bob, carol):
    challenge = services.match_create(
        creator=carol, opponent=None, options=services.MatchOptions(length=1)
    )
    body = selectors.match_detail(challenge)
    assert body["open"] is True and body["game"] is None
    assert body["clock"] == {"carol": None, "deadline": None}
    match = start(alice, bob, length=5)
    body = selectors.match_detail(match)
    assert body["open"] is False and body["pip_counts"] == {"alice": 167, "bob": 167}
    game = body["game"]
    assert game["can_double"] is False  # after the opening roll, the mover has rolled
    assert sorted(game["remaining_dice"]) == sorted(game["dice"])
    match = act(match, on_turn(match, alice, bob), "move", play=game["legal_plays"][0])
    assert game_of(match)["can_double"] is True
    match = act(match, on_turn(match, alice, bob), "resign", value="gammon")
    assert game_of(match)["resignation"] == "gammon"


def test_an_action_reads_and_writes_as_much_late_in_a_match_as_early(alice, bob):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match = start(alice, bob, length=7)
    counts = []
    for _ in range(30):
        player = on_turn(match, alice, bob)
        if game_of(match)["phase"] != "roll":
            match = act(match, player, "move", play=game_of(match)["legal_plays"][-1])
            continue
        with CaptureQueriesContext(connection) as queries:
            match = act(match, player, "roll")
        counts.append(len(queries))
        if game_of(match)["number"] == 1:  # the match row is written when a game ends only
            assert not any('UPDATE "matches_match"' in q["sql"] for q in queries.captured_queries)
        if game_of(match)["number"] > 1:
            break
    assert len(counts) > 5 and len(set(counts)) == 1, counts


def test_c5_a_beaver_in_a_money_session_and_refused_in_a_match(alice, bob):
    match = start(alice, bob, length=0, rated=False, stake=Decimal("1.00"),
                  options={"beavers": True})  # fmt: skip
    match = act(match, on_turn(match, alice, bob), "move", play=game_of(match)["legal_plays"][0])
    doubler = on_turn(match, alice, bob)
    match = act(match, doubler, "double")
    beaverer = on_turn(match, alice, bob)
    match = act(match, beaverer, "beaver")
    game = game_of(match)
    assert game["phase"] == "take_or_pass" and game["turn"] == doubler.username
    match = act(match, doubler, "take")
    assert game_of(match)["cube"] == {"value": 4, "owner": beaverer.username}
    in_a_match = start(alice, bob, length=3)
    player = on_turn(in_a_match, alice, bob)
    in_a_match = act(in_a_match, player, "move", play=game_of(in_a_match)["legal_plays"][0])
    in_a_match = act(in_a_match, on_turn(in_a_match, alice, bob), "double")
    error = refused(in_a_match, player, "beaver", IllegalPlay)
    assert error.reason == "cube_not_available"


@pytest.mark.parametrize(
    ("what", "kwargs", "error"),
    [
        ("move", {"play": "24/"}, IllegalPlay),
        ("move", {"play": "6/off"}, IllegalPlay),
        ("move_step", {}, Invalid),
        ("move_step", {"origin": 2, "die": 6}, IllegalPlay),
        ("resign", {"value": "everything"}, Invalid),
        ("jump", {}, Invalid),
        ("undo", {}, IllegalPlay),
        ("accept_resign", {}, Conflict),
    ],
)
def test_bad_requests_change_nothing(alice, bob, what, kwargs, error):
    match = start(alice, bob)
    refused(match, on_turn(match, alice, bob), what, error, **kwargs)


def test_abandon_and_the_money_session_services_refuse_what_does_not_fit(alice, bob, carol):
    match = start(alice, bob, length=3)
    turn_no = game_of(match)["turn_no"]
    with pytest.raises(Forbidden):
        services.match_abandon(match=match, player=carol)
    with pytest.raises(Conflict):
        services.match_continue(match=match, player=alice, turn_no=turn_no)
    with pytest.raises(Conflict):
        services.match_stop(match=match, player=alice, turn_no=turn_no)
    with pytest.raises(StaleTurn):
        services.match_stop(match=match, player=alice, turn_no=turn_no + 5)
    invited = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=3)
    )
    with pytest.raises(Conflict):
        services.match_abandon(match=invited, player=alice)
    with pytest.raises(Forbidden):
        services.match_decline(match=invited, player=carol)
    services.match_abandon(match=match, player=alice)
    with pytest.raises(Conflict):
        services.match_abandon(match=match, player=alice)
    assert log_size(match) == 2


def test_a_money_session_abandoned_between_games_ends_with_its_score(alice, bob):
    match = start(alice, bob, length=0, rated=False, stake=Decimal("1.00"))
    player = on_turn(match, alice, bob)
    match = act(match, player, "resign", value="single")
    match = act(match, on_turn(match, alice, bob), "accept_resign")
    match = services.match_abandon(match=match, player=player)
    assert match.status == Match.Status.FINISHED and match.ended_by == "abandoned"
    other = bob if player == alice else alice
    assert match.winner == other
    assert selectors.match_detail(match)["score"][other.username] == 1
