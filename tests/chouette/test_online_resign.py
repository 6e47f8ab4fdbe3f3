"""Resignations at an online chouette (S4, per contract) through the HTTP API with real
tokens: the box offers to every member still in the game and each answers for their own
contract; the captain offers for the team and the box answers each contract.
alice is the box, bob the captain, carol and dave the crew; every figure is worked out by
hand from the rules."""

from datetime import timedelta

import pytest

from chouette.models import ChouetteGame
from matches import table_engine
from matches.models import Action, Table
from tests.chouette.online_table import OnlineTable

ORDER = ["alice", "bob", "carol", "dave"]


@pytest.fixture
def open_table(api, members):
    def make(**options):
        at = OnlineTable(api, members, ORDER, **{"cube": "multiple", **options})
        at.act("carol", "start")
        return at

    return make


def refused(at, name, action, status, error, **body):
    """``action`` is refused with ``status`` and ``error``: nothing changed, nothing logged."""
    before = at.snapshot()
    response = at.post(name, action, **body)
    assert (response.status_code, response.json()["error"]) == (status, error), response.json()
    assert at.snapshot() == before
    return response.json()


def offer(at):
    """The turn_no an answer to the resignation on offer carries."""
    return at.game["resignation"]["offered_at"]


@pytest.mark.parametrize(
    ("jacoby", "bob"),
    [(True, 1), (False, 2)],  # bob's gammon at a cube never turned: single under Jacoby
)
def test_s4_h6_the_box_resigns_two_members_accept_one_rejects(open_table, jacoby, bob):
    at = open_table(jacoby=jacoby)
    # carol's cube turned first: the box doubles her to 2 and she takes.
    at.box_to_roll()
    at.act("alice", "double", to=["carol"])
    at.act("carol", "take", turn_no=at.game["cubes"]["carol"]["offered_at"])
    at.play(until=lambda g: g["phase"] == "move" and g["awaiting"] == ["alice"])
    at.box_to_roll()
    # The box offers a gammon (two points a cube) to bob, carol and dave.
    at.act("alice", "resign", value="gammon")
    game = at.game
    assert game["phase"] == "resign_offered" and game["awaiting"] == ["bob", "carol", "dave"]
    assert game["resignation"] == {
        "value": "gammon", "offered_by": "box", "contracts": ["bob", "carol", "dave"],
        "offered_at": offer(at),
    }  # fmt: skip
    offered = offer(at)
    at.act("bob", "accept_resign", turn_no=offered)
    at.act("carol", "accept_resign", turn_no=offered)  # bob's answer made nothing stale
    at.act("dave", "reject_resign", turn_no=offered)
    # bob and carol are settled; dave plays on, now as captain (H7); the box rolls on.
    game = at.game
    assert (game["phase"], game["awaiting"], game["captain"]) == ("roll", ["alice"], "dave")
    assert game["resignation"] is None
    assert {n: c["state"] for n, c in game["cubes"].items()} == {
        "bob": "passed", "carol": "passed", "dave": "live"
    }  # fmt: skip
    # The box offers dave a single, which he accepts: every contract is settled.
    at.act("alice", "resign", value="single")
    at.act("dave", "accept_resign", turn_no=offer(at))
    # By hand: bob a gammon at 1 (Jacoby on, never turned: 1; off: 2); carol a gammon at
    # 2, her cube turned: 4 either way; dave a single at 1; the box minus their sum.
    assert at.body["scores"] == {"alice": -(bob + 4 + 1), "bob": bob, "carol": 4, "dave": 1}
    assert at.body["game"]["phase"] == "over" and at.body["games"] == 1
    # H3: the box lost to the original captain (bob won his contract): bob takes the box.
    assert (at.body["box"], at.body["line"]) == ("bob", ["carol", "dave", "alice"])
    row = ChouetteGame.objects.get(chouette_id=at.pk)
    assert [(m["player"], m["stake"], m["outcome"], m["winner"], m["result"])
            for m in row.record["members"]] == [
        ("bob", 1, "played", "team", "gammon"),
        ("carol", 2, "played", "team", "gammon"),
        ("dave", 1, "played", "team", "single"),
    ]  # fmt: skip
    listed = at.get("erin", "games/").json()["results"]
    assert [g["points"] for g in listed] == [at.body["scores"]]
    table = Table.objects.get(chouette__pk=at.pk)
    answers = Action.objects.filter(
        table=table, kind__in=["resign", "accept_resign", "reject_resign"]
    ).order_by("seq")
    assert [(a.kind, a.actor.username) for a in answers] == [
        ("resign", "alice"), ("accept_resign", "bob"), ("accept_resign", "carol"),
        ("reject_resign", "dave"), ("resign", "alice"), ("accept_resign", "dave"),
    ]  # fmt: skip


@pytest.mark.parametrize(("jacoby", "carol"), [(True, 1), (False, 2)])
def test_s4_h7_the_captain_resigns_for_the_team_and_the_box_answers_each_contract(
    open_table, jacoby, carol
):
    at = open_table(jacoby=jacoby)
    at.team_to_roll()
    # The captain offers a single for the team: the box answers each contract in line.
    at.act("bob", "resign", value="single")
    assert at.game["awaiting"] == ["alice"]
    assert at.game["resignation"]["offered_by"] == "team"
    assert at.game["resignation"]["contracts"] == ["bob", "carol", "dave"]
    offered = offer(at)
    at.act("alice", "accept_resign", turn_no=offered)  # bob's
    assert at.game["resignation"]["contracts"] == ["carol", "dave"]
    at.act("alice", "reject_resign", turn_no=offered)  # carol's: she plays on
    at.act("alice", "accept_resign", turn_no=offered)  # dave's
    # bob and dave are settled; carol moves for the team now (H7), where it stopped.
    game = at.game
    assert (game["phase"], game["awaiting"], game["captain"]) == ("roll", ["carol"], "carol")
    # carol offers a gammon (2 points a cube), and the box accepts it.
    at.act("carol", "resign", value="gammon")
    at.act("alice", "accept_resign", turn_no=offer(at))
    # By hand: bob and dave a single at 1: -1 each; carol a gammon at 1, her cube never
    # turned: -1 with Jacoby, -2 without; the box the sum.
    assert at.body["scores"] == {"alice": 2 + carol, "bob": -1, "carol": -carol, "dave": -1}
    # H3: the box beat the original captain: it keeps the box, bob to the end of the line.
    assert (at.body["box"], at.body["line"]) == ("alice", ["carol", "dave", "bob"])


def test_s4_bad_resignations_are_4xx_change_nothing_and_log_nothing(open_table, members):
    at = open_table()
    at.box_to_roll()
    turn = at.game["turn_no"]
    refused(
        at, "erin", "resign", 403, "forbidden", turn_no=turn, value="single"
    )  # not at the table
    refused(
        at, "bob", "resign", 403, "not_your_turn", turn_no=turn, value="single"
    )  # the box's turn
    refused(at, "alice", "resign", 409, "stale_turn", turn_no=turn - 1, value="single")
    refused(at, "alice", "resign", 400, "invalid", turn_no=turn, value="triple")
    refused(at, "alice", "resign", 400, "invalid", turn_no=turn, points=1)  # matches' words only
    refused(at, "alice", "resign", 400, "invalid", turn_no=turn)
    refused(at, "alice", "accept_resign", 409, "conflict", turn_no=turn)  # nothing offered
    at.act("alice", "resign", value="single")
    offered = offer(at)
    at.act("bob", "accept_resign", turn_no=offered)
    refused(at, "bob", "accept_resign", 409, "conflict", turn_no=offered)  # answering twice
    refused(at, "bob", "reject_resign", 409, "conflict", turn_no=offered)
    refused(at, "alice", "accept_resign", 409, "conflict", turn_no=offered)  # its own offer
    refused(at, "erin", "accept_resign", 403, "forbidden", turn_no=offered)
    refused(at, "carol", "accept_resign", 409, "stale_turn", turn_no=offered - 1)
    refused(at, "alice", "roll", 409, "conflict", turn_no=at.game["turn_no"])  # answers wait
    at.act("carol", "reject_resign", turn_no=offered)
    at.act("dave", "reject_resign", turn_no=offered)
    at.play(until=lambda g: g["phase"] == "roll" and g["awaiting"] == ["carol"])
    turn = at.game["turn_no"]
    refused(at, "alice", "resign", 403, "not_your_turn", turn_no=turn, value="single")  # the team's
    refused(at, "bob", "resign", 409, "conflict", turn_no=turn, value="single")  # bob is out
    at.act("dave", "double")  # the team's cube round is open: nobody resigns until the roll
    refused(at, "carol", "resign", 409, "conflict", turn_no=at.game["turn_no"], value="single")
    at.act("carol", "roll")  # sends dave's double; the box takes it
    at.act("alice", "take", turn_no=at.game["cubes"]["dave"]["offered_at"])
    turn = at.game["turn_no"]
    refused(at, "dave", "resign", 403, "not_your_turn", turn_no=turn, value="single")  # the crew
    at.act("carol", "resign", value="single")  # the captain, for the team, once the round is over
    offered = offer(at)
    # Only the box answers the team's resignation: neither carol nor dave.
    refused(at, "carol", "accept_resign", 403, "not_your_turn", turn_no=offered)
    refused(at, "dave", "reject_resign", 403, "not_your_turn", turn_no=offered)
    refused(at, "alice", "accept_resign", 409, "stale_turn", turn_no=offered + 1)
    at.act("alice", "reject_resign", turn_no=offered)
    at.act("alice", "reject_resign", turn_no=offered)
    assert at.game["phase"] == "roll" and at.game["awaiting"] == ["carol"]


def test_s4_a_resignation_nobody_answers_in_time_is_rejected(open_table, members, clock):
    at = open_table(turn_time=30)
    at.box_to_roll()
    at.act("alice", "resign", value="gammon")
    clock.advance(10)
    at.act("bob", "accept_resign", turn_no=offer(at))
    table = Table.objects.get(chouette__pk=at.pk)
    assert table.deadline == table.clock_started + timedelta(seconds=30)  # still the offer's
    clock.advance(21)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no)
    at.body = at.get("alice").json()
    # carol and dave rejected it by the server; bob's acceptance stands; the box rolls on.
    assert (at.game["phase"], at.game["awaiting"], at.game["captain"]) == (
        "roll", ["alice"], "carol"
    )  # fmt: skip
    rows = Action.objects.filter(table=table, kind="reject_resign").order_by("seq")
    assert [(r.actor, r.by_server) for r in rows] == [(None, True), (None, True)]
    table.refresh_from_db()
    assert table.deadline == table.clock_started + timedelta(seconds=30)  # the box's, afresh
    # The team's resignation the box does not answer in time: rejected, each contract.
    at.play(until=lambda g: g["phase"] == "roll" and g["awaiting"] == ["carol"])
    at.act("carol", "resign", value="single")
    clock.advance(31)
    assert table_engine.tables_sweep() == 1
    at.body = at.get("carol").json()
    assert (at.game["phase"], at.game["awaiting"]) == ("roll", ["carol"])
    assert not ChouetteGame.objects.filter(chouette_id=at.pk).exists()  # the game goes on
