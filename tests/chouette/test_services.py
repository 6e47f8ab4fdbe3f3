"""The chouette app's services: the order, recording, rotation, partner, undo, joining,
leaving and closing, and the money each posts to the ledger (tests named by rule id)."""

from decimal import Decimal

import pytest
from django.db import DatabaseError, connection, transaction

from backgammon.chouette import roll_for_order
from backgammon.dice import DiceStream, commitment
from chouette import selectors, services
from chouette.models import Chouette, ChouetteGame, GamePoints
from club import selectors as club_selectors
from club.models import RowImmutable, SourceKind, Transaction
from tests.chouette.conftest import member
from web.errors import Conflict, Forbidden, Invalid

pytestmark = pytest.mark.django_db

D = Decimal


def record(chouette, winner, result, *members, by=None, version=None):
    return services.chouette_game_record(
        chouette=chouette,
        record={"winner": winner, "result": result, "members": list(members)},
        recorded_by=by or chouette.recorded_by,
        version=version,
    )


def seats(chouette):
    chouette.refresh_from_db()
    return selectors.chouette_seating(chouette=chouette).to_dict()


def scores(chouette):
    chouette.refresh_from_db()
    return selectors.chouette_scores(chouette=chouette)


def points(game):
    return {row.player.username: row.points for row in game.points.all()}


def chouette_transactions(chouette):
    return Transaction.objects.filter(kind=SourceKind.CHOUETTE, source_id=chouette.pk)


def legs(posted):
    return {leg.account.player.username: leg.amount for leg in posted.legs.all()}


# Opening: the order (H1) --------------------------------------------------------------


def test_h1_the_order_by_rolls_is_the_sessions_verifiable_dice(members, staff):
    players = [members[name] for name in ("alice", "bob", "carol", "dave")]
    chouette = services.chouette_create(
        players=players, recorded_by=staff.user, options=services.ChouetteOptions(stake=D("2.50"))
    )
    chouette.refresh_from_db()
    seed = bytes(chouette.server_seed)
    assert chouette.dice_commitment == commitment(seed)
    again = roll_for_order(
        ["alice", "bob", "carol", "dave"], DiceStream(seed, chouette.client_seed)
    )
    assert seats(chouette)["box"] == again.order[0]
    assert selectors.chouette_seating(chouette=chouette).players == again.order
    assert chouette.throws == [[list(throw) for throw in t] for t in again.throws]
    assert chouette.dice_used == sum(map(len, again.throws))
    assert chouette.stake == D("2.50") and chouette.version == 0


def test_h1_an_order_entered_is_kept_box_first(open_chouette):
    chouette = open_chouette("carol", "alice", "bob", "dave")
    assert seats(chouette) == {
        "box": "carol",
        "captain": "alice",
        "line": ["alice", "bob", "dave"],
        "partner": None,
    }
    assert chouette.server_seed is None and chouette.throws == []


@pytest.mark.parametrize(
    ("names", "options"),
    [
        (("alice", "bob"), {}),  # H13: three or more
        (("alice", "bob", "alice"), {}),
        (("alice", "bob", "carol"), {"stake": D("0.00")}),
        (("alice", "bob", "carol"), {"stake": D("-1.00")}),
        (("alice", "bob", "carol"), {"stake": D("1.005")}),
        (("alice", "bob", "carol"), {"stake": D("5000.00")}),
        (("alice", "bob", "carol"), {"partner_from": 3}),
        (("alice", "bob", "carol"), {"mode": "by_post"}),
        (("alice", "bob", "carol"), {"turn_time": 30}),  # a recorded game has no clock
        (("alice", "bob", "carol"), {"mode": "online", "turn_time": 2}),
        (("alice", "bob", "carol"), {"mode": "online", "consulting": "some"}),
        (("alice", "bob", "carol"), {"cube": "double"}),
    ],
)
def test_h13_a_chouette_that_cannot_start_is_refused(open_chouette, names, options):
    with pytest.raises(Invalid):
        open_chouette(*names, **options)
    assert not Chouette.objects.exists()


def test_an_entered_order_must_be_the_players(members, staff):
    players = [members[name] for name in ("alice", "bob", "carol")]
    with pytest.raises(Invalid, match="leaves out"):
        services.chouette_create(
            players=players,
            order=[*players[:2], members["dave"]],
            recorded_by=staff.user,
            options=services.ChouetteOptions(stake=D(1)),
        )


# Recording a game: points (H5, H6, C6) and the worked examples ----------------


def test_h8_h5_worked_example_multiple_cubes_jacoby_off(open_chouette):
    """5 players, multiple cubes: the box doubles B and C to 2, B passes (-1), C takes;
    D doubles the box, which passes (D +1); E plays on at 1; the team wins a single."""
    chouette = open_chouette("alice", "bob", "carol", "dave", "erin", cube="multiple", jacoby=False)
    game = record(
        chouette,
        "team",
        "single",
        member("bob", 1, "passed"),
        member("carol", 2),
        member("dave", 1, "box_passed"),
        member("erin", 1),
    )
    assert points(game) == {"alice": -3, "bob": -1, "carol": 2, "dave": 1, "erin": 1}
    assert scores(chouette) == {"carol": 2, "dave": 1, "erin": 1, "alice": -3, "bob": -1}


def test_c6_h6_worked_example_single_cube_jacoby_on_gammon_counts_single(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    game = record(chouette, "team", "gammon", member("bob"), member("carol"), member("dave"))
    assert points(game) == {"alice": -3, "bob": 1, "carol": 1, "dave": 1}


def test_h6_s3_a_backgammon_with_a_turned_cube_and_jacoby_off(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave", jacoby=False)
    game = record(
        chouette,
        "box",
        "backgammon",
        member("bob", 2),
        member("carol", 2),
        member("dave", 1, "passed"),
    )
    # The box doubled all three; dave passed (-1); bob and carol lose a backgammon at 2.
    assert points(game) == {"alice": 13, "bob": -6, "carol": -6, "dave": -1}


def test_h5_passes_before_and_after_a_redouble(open_chouette):
    """Multiple cubes: bob passed the box's first double (-1); carol took at 2,
    redoubled to 4, and passed the box's re-redouble at 8 (-4); dave played at 2 and the
    box won a gammon, Jacoby on but his cube turned (-4)."""
    chouette = open_chouette("alice", "bob", "carol", "dave", cube="multiple")
    game = record(
        chouette,
        "box",
        "gammon",
        member("bob", 1, "passed"),
        member("carol", 4, "passed"),
        member("dave", 2),
    )
    assert points(game) == {"alice": 9, "bob": -1, "carol": -4, "dave": -4}


def test_c5_a_beavered_cube_is_a_stake_like_any_other(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave", cube="multiple", beavers=True)
    game = record(
        chouette, "team", "single", member("bob", 4), member("carol", 2), member("dave", 1)
    )
    assert points(game) == {"alice": -7, "bob": 4, "carol": 2, "dave": 1}


def test_every_games_points_sum_to_zero_and_the_box_pays_the_rest(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave", "erin", cube="multiple")
    for winner, result in (("team", "gammon"), ("box", "single"), ("box", "backgammon")):
        line = seats(chouette)["line"]
        game = record(chouette, winner, result, *(member(name, 2) for name in line))
        assert sum(points(game).values()) == 0
        box = game.seats_before[0]
        assert game.points.get(player_id=box).points == -sum(
            row.points for row in game.points.exclude(player_id=box)
        )


@pytest.mark.parametrize(
    ("members_sent", "message"),
    [
        ([member("bob"), member("carol")], "dave missing"),
        ([member("bob"), member("carol"), member("dave"), member("alice")], "the box"),
        ([member("bob"), member("carol"), member("dave"), member("erin")], "not in the team"),
        ([member("bob"), member("carol"), member("dave"), member("bob")], "twice"),
        ([member("bob", 0), member("carol"), member("dave")], "stake"),
        ([member("bob", 3), member("carol"), member("dave")], "stake"),
        ([member("bob", -2), member("carol"), member("dave")], "stake"),
        ([member("bob", 1, "dropped"), member("carol"), member("dave")], "outcome"),
    ],
)
def test_a_game_naming_the_wrong_team_or_stakes_is_refused_and_changes_nothing(
    open_chouette, members_sent, message
):
    chouette = open_chouette("alice", "bob", "carol", "dave", cube="multiple")
    with pytest.raises(Invalid, match=message):
        record(chouette, "team", "single", *members_sent)
    chouette.refresh_from_db()
    assert chouette.version == 0 and not ChouetteGame.objects.exists()


@pytest.mark.parametrize(
    "members_sent",
    [
        [member("bob", 2), member("carol", 4), member("dave", 2)],
        [
            member("bob", 2, "box_passed"),
            member("carol", 4, "box_passed"),
            member("dave", 1, "passed"),
        ],
        [member("bob", 2, "box_passed"), member("carol", 2), member("dave", 1, "passed")],
    ],
)
def test_h4_one_team_cube_plays_at_one_value_and_the_box_passes_it_whole(
    open_chouette, members_sent
):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    with pytest.raises(Invalid, match="one team cube"):
        record(chouette, "team", "single", *members_sent)
    # In multiple-cube mode each cube is its own (H8).
    multiple = open_chouette("alice", "bob", "carol", "dave", cube="multiple")
    record(multiple, "team", "single", *members_sent)


# Rotation (H3, H7) and the partner (H12) ---------------------------------------------


def test_h3_the_team_winning_sends_the_captain_to_the_box(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    game = record(chouette, "team", "single", member("bob"), member("carol"), member("dave"))
    assert seats(chouette) == {
        "box": "bob",
        "captain": "carol",
        "line": ["carol", "dave", "alice"],
        "partner": None,
    }
    assert game.seats_after == chouette.seats


def test_h3_the_box_beating_the_captain_keeps_the_box(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    assert seats(chouette)["box"] == "alice"
    assert seats(chouette)["line"] == ["carol", "dave", "bob"]


def test_h7_h3_the_captain_passing_while_the_others_win_still_lost_to_the_box(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave", cube="multiple")
    game = record(
        chouette,
        "team",
        "single",
        member("bob", 1, "passed"),
        member("carol", 2),
        member("dave", 2),
    )
    assert points(game) == {"alice": -3, "bob": -1, "carol": 2, "dave": 2}
    # beats_captain: the box beat the original captain, so it keeps the box.
    assert seats(chouette)["box"] == "alice"
    assert seats(chouette)["line"] == ["carol", "dave", "bob"]


def test_h3_option_no_net_loss_the_box_losing_net_hands_it_to_the_captain(open_chouette):
    chouette = open_chouette(
        "alice", "bob", "carol", "dave", cube="multiple", box_keeps="no_net_loss"
    )
    record(
        chouette,
        "team",
        "single",
        member("bob", 1, "passed"),
        member("carol", 2),
        member("dave", 2),
    )
    # The box is -3 net: it loses the box to the original captain, even though he passed.
    assert seats(chouette) == {
        "box": "bob",
        "captain": "carol",
        "line": ["carol", "dave", "alice"],
        "partner": None,
    }


def test_h3_option_no_net_loss_the_box_square_keeps_it(open_chouette):
    chouette = open_chouette(
        "alice", "bob", "carol", "dave", cube="multiple", box_keeps="no_net_loss"
    )
    record(
        chouette,
        "team",
        "single",
        member("bob", 2),
        member("carol", 1, "passed"),
        member("dave", 1, "passed"),
    )
    assert seats(chouette)["box"] == "alice"


def test_h12_the_partner_shares_the_box_result_the_odd_point_is_the_box_s(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave", "erin", "frank", "gina")
    assert seats(chouette)["partner"] == "carol"
    assert seats(chouette)["line"] == ["bob", "dave", "erin", "frank", "gina"]
    game = record(
        chouette, "team", "single", *(member(n) for n in ("bob", "dave", "erin", "frank", "gina"))
    )
    # The box side is -5: the partner -2, the box -3.
    assert points(game) == {
        "alice": -3,
        "carol": -2,
        "bob": 1,
        "dave": 1,
        "erin": 1,
        "frank": 1,
        "gina": 1,
    }
    # The captain takes the box; the old box, then the partner, go to the end of the line.
    chouette.refresh_from_db()
    assert selectors.chouette_seating(chouette=chouette).players == (
        "bob",
        "dave",
        "erin",
        "frank",
        "gina",
        "alice",
        "carol",
    )
    assert seats(chouette)["partner"] == "erin"


def test_h12_no_partner_below_partner_from_or_when_off(open_chouette):
    assert seats(open_chouette("alice", "bob", "carol", "dave", "erin", "frank"))["partner"] is None
    never = open_chouette(
        "alice", "bob", "carol", "dave", "erin", "frank", "gina", partner_from=None
    )
    assert seats(never)["partner"] is None
    four = open_chouette("alice", "bob", "carol", "dave", partner_from=4)
    assert seats(four)["partner"] == "carol"


# Undo ---------------------------------------------------------------------------------


def test_an_undo_is_a_reversing_row_that_puts_the_seats_and_scores_back(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    first = record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    before = seats(chouette), scores(chouette)
    second = record(chouette, "team", "single", member("carol"), member("dave"), member("bob"))
    undo = services.chouette_game_undo(
        chouette=chouette, recorded_by=chouette.recorded_by, number=2
    )
    assert undo.undoes == second and undo.number == 3
    assert points(undo) == {name: -value for name, value in points(second).items()}
    assert (seats(chouette), scores(chouette)) == before
    assert selectors.chouette_games_played(chouette=chouette) == 1
    assert ChouetteGame.objects.count() == 3  # nothing deleted
    # The next undo takes back the first game; then there is nothing left to undo.
    services.chouette_game_undo(
        chouette=chouette, recorded_by=chouette.recorded_by, number=first.number
    )
    assert scores(chouette) == {"alice": 0, "bob": 0, "carol": 0, "dave": 0}
    assert seats(chouette)["box"] == "alice"
    with pytest.raises(Conflict, match="no game"):
        services.chouette_game_undo(chouette=chouette, recorded_by=chouette.recorded_by)


def test_undoing_a_game_that_is_not_the_last_is_refused(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    record(chouette, "box", "single", member("carol"), member("dave"), member("bob"))
    with pytest.raises(Conflict, match="not the last"):
        services.chouette_game_undo(chouette=chouette, recorded_by=chouette.recorded_by, number=1)


def test_h13_a_game_before_a_join_or_leave_cannot_be_undone(open_chouette, members):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    services.chouette_join(chouette=chouette, player=members["erin"], by=chouette.recorded_by)
    with pytest.raises(Conflict, match="joined or left"):
        services.chouette_game_undo(chouette=chouette, recorded_by=chouette.recorded_by)


def test_games_and_their_points_are_append_only(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    game = record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    with pytest.raises(RowImmutable):
        game.save()
    with pytest.raises(RowImmutable):
        game.delete()
    with pytest.raises(RowImmutable):
        ChouetteGame.objects.filter(pk=game.pk).update(number=9)
    with pytest.raises(RowImmutable):
        GamePoints.objects.all().delete()


@pytest.mark.postgresql
def test_postgresql_refuses_changing_or_deleting_a_game_in_sql(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    game = record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    for sql in (
        "UPDATE chouette_gamepoints SET points = 0 WHERE game_id = %s",
        "DELETE FROM chouette_chouettegame WHERE id = %s",
    ):
        with (
            pytest.raises(DatabaseError, match="games are append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [game.pk])


# A repeated request, and who records ---------------------------------------------------


def test_a_repeated_request_with_the_version_seen_is_applied_once(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    sent = (member("bob"), member("carol"), member("dave"))
    record(chouette, "box", "single", *sent, version=0)
    with pytest.raises(services.StaleVersion):
        record(chouette, "box", "single", *sent, version=0)
    chouette.refresh_from_db()
    assert chouette.version == 1 and ChouetteGame.objects.count() == 1


def test_a_request_that_lost_the_race_for_the_version_writes_nothing(open_chouette):
    """Two requests read version 0; the other one moved it on first (what SQLite, whose
    select_for_update locks nothing, leaves to the conditional UPDATE)."""
    chouette = open_chouette("alice", "bob", "carol", "dave")
    Chouette.objects.filter(pk=chouette.pk).update(version=1)
    locked = Chouette.objects.get(pk=chouette.pk)
    locked.version = 0
    with pytest.raises(services.StaleVersion):
        services.chouette_version_advance(locked=locked, seats=[])
    chouette.refresh_from_db()
    assert chouette.version == 1 and len(chouette.seats) == 4


def test_only_the_scorekeeper_the_players_and_staff_record(open_chouette, members, make_player):
    keeper = make_player("keeper")
    chouette = open_chouette("alice", "bob", "carol", "dave", by=keeper.user)
    sent = lambda: (member(n) for n in seats(chouette)["line"])  # noqa: E731
    record(chouette, "box", "single", *sent(), by=keeper.user)
    record(chouette, "box", "single", *sent(), by=members["dave"].user)
    with pytest.raises(Forbidden):
        record(chouette, "box", "single", *sent(), by=members["erin"].user)
    with pytest.raises(Forbidden):
        services.chouette_close(chouette=chouette, by=members["erin"].user)


# Joining and leaving (H13) -----------------------------------------------------------


def test_h13_a_player_joins_at_the_end_of_the_line_and_not_twice(open_chouette, members):
    chouette = open_chouette("alice", "bob", "carol")
    services.chouette_join(chouette=chouette, player=members["dave"], by=members["dave"].user)
    assert seats(chouette)["line"] == ["bob", "carol", "dave"]
    with pytest.raises(Conflict, match="already sits"):
        services.chouette_join(chouette=chouette, player=members["dave"], by=chouette.recorded_by)
    with pytest.raises(Forbidden):  # erin may join herself, not bring frank
        services.chouette_join(chouette=chouette, player=members["frank"], by=members["erin"].user)


def test_h13_a_player_who_leaves_settles_at_once_in_one_balanced_transaction(
    open_chouette, members
):
    chouette = open_chouette("alice", "bob", "carol", "dave", cube="multiple")
    # bob +2 and carol +2 and dave -1 against the box alice (-3).
    record(
        chouette,
        "team",
        "single",
        member("bob", 2),
        member("carol", 2),
        member("dave", 1, "passed"),
    )
    settled = services.chouette_leave(
        chouette=chouette, player=members["carol"], by=chouette.recorded_by
    )
    assert settled.amounts == {"carol": D("10.00"), "alice": D("-10.00")}
    posted = settled.transaction
    assert legs(posted) == {"carol": D("10.00"), "alice": D("-10.00")}
    assert sum(legs(posted).values()) == 0
    assert posted.source == chouette and posted.kind == SourceKind.CHOUETTE
    assert posted.recorded_by == chouette.recorded_by
    statement = club_selectors.player_statement(player=members["carol"])
    assert [(entry.amount, entry.transaction) for entry in statement] == [(D("10.00"), posted.pk)]
    assert "carol" not in seats(chouette)["line"] + [seats(chouette)["box"]]
    # Closing settles the rest: alice still owes bob 2 points, dave owes alice 1.
    closed = services.chouette_close(chouette=chouette, by=chouette.recorded_by)
    assert closed.amounts == {"bob": D("10.00"), "alice": D("-5.00"), "dave": D("-5.00")}
    assert legs(closed.transaction) == {"alice": D("-5.00"), "bob": D("10.00"), "dave": D("-5.00")}
    # Over the session every player got their points times the stake.
    for name, total in {"alice": -3, "bob": 2, "carol": 2, "dave": -1}.items():
        assert club_selectors.player_balance(player=members[name]) == total * chouette.stake


def test_h13_the_box_leaving_hands_the_box_to_the_captain(open_chouette, members):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    settled = services.chouette_leave(
        chouette=chouette, player=members["alice"], by=chouette.recorded_by
    )
    assert settled.transaction is None  # nothing played, nothing to settle
    assert seats(chouette)["box"] == "bob" and seats(chouette)["line"] == ["carol", "dave"]


def test_h13_leaving_below_three_players_or_without_a_seat_is_refused(open_chouette, members):
    chouette = open_chouette("alice", "bob", "carol")
    with pytest.raises(Conflict, match="at least three"):
        services.chouette_leave(chouette=chouette, player=members["bob"], by=chouette.recorded_by)
    with pytest.raises(Invalid, match="does not sit"):
        services.chouette_leave(chouette=chouette, player=members["dave"], by=chouette.recorded_by)
    assert not Transaction.objects.exists()


def test_h13_a_player_who_left_may_come_back_at_the_end_of_the_line(open_chouette, members):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    record(chouette, "box", "single", member("bob"), member("carol"), member("dave"))
    services.chouette_leave(chouette=chouette, player=members["bob"], by=chouette.recorded_by)
    services.chouette_join(chouette=chouette, player=members["bob"], by=chouette.recorded_by)
    assert seats(chouette)["line"][-1] == "bob"
    assert scores(chouette)["bob"] == -1  # the session's points, settled or not
    closed = services.chouette_close(chouette=chouette, by=chouette.recorded_by)
    assert "bob" in closed.amounts and closed.amounts["bob"] == D("0.00")


# Closing (H14) ------------------------------------------------------------------------


def test_h14_closing_posts_every_players_points_times_the_stake_as_one_transaction(
    open_chouette, members
):
    chouette = open_chouette("alice", "bob", "carol", "dave", stake=D("2.50"))
    record(chouette, "box", "gammon", member("bob", 2), member("carol", 2), member("dave", 2))
    record(chouette, "team", "single", member("carol"), member("dave"), member("bob"))
    closed = services.chouette_close(chouette=chouette, by=members["bob"].user)
    # Game 1: each member -4, alice +12; game 2: alice -3, each member +1.
    assert closed.amounts == {
        "alice": D("22.50"),
        "bob": D("-7.50"),
        "carol": D("-7.50"),
        "dave": D("-7.50"),
    }
    assert chouette_transactions(chouette).count() == 1
    assert sum(legs(closed.transaction).values()) == 0
    chouette.refresh_from_db()
    assert chouette.status == "closed" and chouette.settlement == closed.transaction
    with pytest.raises(Conflict, match="closed"):
        services.chouette_close(chouette=chouette, by=chouette.recorded_by)
    with pytest.raises(Conflict, match="closed"):
        record(chouette, "box", "single", member("carol"), member("dave"), member("bob"))
    assert chouette_transactions(chouette).count() == 1


def test_h14_a_square_session_closes_without_posting(open_chouette):
    chouette = open_chouette("alice", "bob", "carol")
    closed = services.chouette_close(chouette=chouette, by=chouette.recorded_by)
    assert closed.amounts == {"alice": D("0.00"), "bob": D("0.00"), "carol": D("0.00")}
    assert closed.transaction is None and not Transaction.objects.exists()
