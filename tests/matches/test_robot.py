"""The practice robot on the Django side (docs/practice.md): invited, it accepts at once
and the match starts unrated; its requests go out after commit when it is to act, and
its answers come back through the table engine at the turn asked. The engine's worker
is played here in the test's process (``analysis.robot_engine.decide``); the real
worker process is tests/analysis/test_robot_worker.py's."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from analysis import services as analysis_services
from analysis.models import MatchAnalysis
from analysis.robot_engine import decide
from analysis.selectors import pr_table
from chouette import services as chouette_services
from club import services as club_services
from club.models import Player, RatingChange, Transaction
from club.selectors import leaderboard, robot_get
from matches import selectors, services, table_engine
from matches.models import Match, Table
from tests.analysis.running import analyse_now
from tests.factories import token_for
from tests.matches.api_helpers import act, client_for, ok, path
from tests.matches.conftest import game_of
from tournaments import services as tournament_services
from web.errors import Invalid

# The robots as the migration made them, made again after a transactional test's flush.
pytestmark = pytest.mark.usefixtures("robots")


@pytest.fixture
def robot(robots):
    return robot_get(strength="intermediate")


def invite(worker, player, robot, **options):
    options.setdefault("rated", False)
    made = services.MatchOptions(length=options.pop("length", 1), **options)
    return worker.run(services.match_create, creator=player, opponent=robot, options=made)


def human_plays(worker, match, player):
    """The member acts whenever it is their turn (the first legal play, takes every
    double), the robot answering in between, to the match's end (or a money game's)."""
    for _ in range(2000):
        worker.answer()
        match = Match.objects.get(pk=match.pk)
        game = game_of(match)
        if match.status != Match.Status.PLAYING or game is None or game["turn"] is None:
            return match
        assert game["turn"] == player.username, "the robot was left to act"
        what = {"roll": "roll", "move": "move", "take_or_pass": "take"}[game["phase"]]
        play = (game["legal_plays"] or [""])[0] if what == "move" else ""
        worker.run(
            services.match_act,
            match=match,
            player=player,
            turn_no=game["turn_no"],
            act=what,
            play=play,
        )
    raise AssertionError("the match never ended")


def test_there_is_one_robot_a_strength_and_none_can_log_in(db, client):
    robots = list(Player.objects.exclude(robot="").select_related("user"))
    assert sorted(r.robot for r in robots) == ["beginner", "expert", "intermediate"]
    for found in robots:
        assert not found.user.is_active and not found.user.has_usable_password()
        assert not client.login(username=found.username, password="")
    someone = robots[0]
    refused = client_for(someone.user).get("/api/play-settings/")  # a token made anyway
    assert refused.status_code in (401, 403)
    assert refused.json()["error"]


def test_the_robots_are_listed_and_left_out_of_the_ratings(api, make_player):
    make_player("alice")
    user = Player.objects.get(user__username="alice").user
    body = ok(api.as_user(user).get("/api/robots/"))["results"]
    assert [r["strength"] for r in body] == ["beginner", "intermediate", "expert"]
    assert [r["username"] for r in body] == ["robot-beginner", "robot-intermediate", "robot-expert"]
    assert all(r["description"] for r in body)
    assert [p.username for p in leaderboard()] == ["alice"]


def test_an_invited_robot_accepts_at_once_and_the_match_is_unrated(make_player, worker):
    alice = make_player("alice")
    client = client_for(alice.user)
    body = {"opponent": "robot-expert", "length": 3, "clock": "blitz"}
    match = ok(worker.run(client.post, path="/api/matches/", data=body, format="json"), 201)
    assert match["status"] == "playing" and match["rated"] is False
    assert match["players"] == ["alice", "robot-expert"]
    assert match["game"]["turn"] in ("alice", "robot-expert")
    if match["game"]["turn"] == "robot-expert":
        (request,) = worker.asked
        assert request["strength"] == "expert" and request["turn_no"] == match["game"]["turn_no"]


def test_a_robot_plays_only_unrated_standard_backgammon(make_player):
    client = client_for(make_player("alice").user)
    for body in (
        {"opponent": "robot-beginner", "length": 3, "rated": True},
        {"opponent": "robot-beginner", "length": 3, "tavli": "greek"},
        {"opponent": "robot-beginner", "length": 3, "options": {"variant": "nackgammon"}},
    ):
        response = client.post("/api/matches/", body, format="json")
        assert response.status_code == 400, body
        assert response.json()["error"] == "invalid"
    assert not Match.objects.exists()


def test_a_whole_match_against_the_robot(make_player, worker, robot):
    alice = make_player("alice")
    match = human_plays(worker, invite(worker, alice, robot, length=3), alice)
    assert match.status == Match.Status.FINISHED and match.winner is not None
    assert match.result is not None and not match.result.rated
    assert not RatingChange.objects.exists()
    log = match.table.actions.exclude(actor=None)
    assert log.filter(actor=robot).exists() and log.filter(actor=alice).exists()
    assert selectors.match_detail(match)["score"]  # the match reads as any other


def test_a_money_session_against_the_robot_moves_no_money(make_player, worker, robot):
    alice = make_player("alice")
    money = {"length": 0, "stake": Decimal("1.00"), "game_options": {"jacoby": True}}
    match = invite(worker, alice, robot, **money)
    match = human_plays(worker, match, alice)
    assert game_of(match)["phase"] == "over"
    turn_no = game_of(match)["turn_no"]
    match = worker.run(services.match_stop, match=match, player=alice, turn_no=turn_no)
    assert match.status == Match.Status.FINISHED
    assert not Transaction.objects.exists()


def robots_turn(worker, alice, robot):
    """A match to 1 where the robot is to act, its request taken."""
    for _ in range(50):
        match = invite(worker, alice, robot)
        if worker.asked:
            return match, worker.asked.pop()
        worker.run(services.match_abandon, match=match, player=alice)
    raise AssertionError("the robot never won the opening roll")


def test_a_late_or_repeated_answer_does_nothing(make_player, worker, robot):
    alice = make_player("alice")
    match, request = robots_turn(worker, alice, robot)
    action = decide(request)
    table, turn_no = request["table"], request["turn_no"]

    def answer(turn: int) -> bool:
        return worker.run(table_engine.robot_act, table_id=table, turn_no=turn, action=action)

    assert not answer(turn_no - 1)
    assert answer(turn_no)
    version = Table.objects.get(pk=table).version
    assert not answer(turn_no)  # the same answer again: the table has moved on
    assert Table.objects.get(pk=table).version == version
    assert game_of(Match.objects.get(pk=match.pk))["turn"] == "alice"


def test_an_answer_the_rules_refuse_changes_nothing(make_player, worker, robot):
    alice = make_player("alice")
    _match, request = robots_turn(worker, alice, robot)
    table, turn_no = request["table"], request["turn_no"]
    version = Table.objects.get(pk=table).version
    for action in ({"act": "move", "play": "24/1"}, {"act": "resign"}, {"act": "fly"}):
        assert not table_engine.robot_act(table_id=table, turn_no=turn_no, action=action)
    assert Table.objects.get(pk=table).version == version


def test_nobody_acts_for_the_robot_through_the_api(make_player, worker, robot, staff):
    alice = make_player("alice")
    match, _request = robots_turn(worker, alice, robot)
    body = ok(client_for(alice.user).get(path(match.pk)))
    for user in (alice.user, staff.user):
        response = act(client_for(user), body, "move", play=body["game"]["legal_plays"][0])
        assert response.status_code in (403, 409), response.content
    robot_token = APIClient()
    robot_token.credentials(HTTP_AUTHORIZATION=f"Token {token_for(robot.user)}")
    assert act(robot_token, body, "move", play="13/7 8/7").status_code in (401, 403)


def test_the_sweep_asks_again_for_a_robot_whose_table_stands_still(
    make_player, worker, robot, clock
):
    alice = make_player("alice")
    _match, request = robots_turn(worker, alice, robot)
    assert table_engine.robots_ask_again() == 0
    clock.advance(table_engine.ROBOT_ASK_AGAIN + 1)
    assert table_engine.robots_ask_again() == 1
    assert worker.asked == [request]


def test_a_robot_whose_answer_never_comes_loses_on_time(make_player, worker, robot, clock):
    alice = make_player("alice")
    match = invite(worker, alice, robot, clock="blitz")
    while not worker.asked:
        worker.run(services.match_abandon, match=match, player=alice)
        match = invite(worker, alice, robot, clock="blitz")
    clock.advance(8 + 20 + 1)
    assert table_engine.tables_sweep() == 1
    match = Match.objects.get(pk=match.pk)
    assert match.status == Match.Status.FINISHED and match.winner == alice
    assert match.ended_by == "timeout"


def test_the_lobby_invites_a_robot_and_marks_it(make_player, logged_in, worker):
    alice = make_player("alice")
    page = logged_in(alice)
    form = {"robot": "beginner", "opponent": "", "length": 1, "clock": "none", "game": "standard"}
    response = worker.run(page.post, path="/play/", data=form)
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/play/{match.pk}/"
    assert match.status == Match.Status.PLAYING and not match.rated
    assert 'class="robot-mark"' in page.get("/play/").content.decode()
    both = page.post("/play/", {**form, "opponent": "bob"})
    assert "not both" in both.content.decode()


def test_a_match_against_the_robot_is_analysed_and_the_robot_left_out_of_the_pr_table(
    make_player, worker, robot, monkeypatch
):
    monkeypatch.setattr(analysis_services, "_send", lambda analysis_id: None)
    alice = make_player("alice")
    match = human_plays(worker, invite(worker, alice, robot, length=1), alice)
    analysis = MatchAnalysis.objects.get(match=match)
    assert analyse_now(analysis) == "done"
    assert analysis.players.filter(player=robot).exists()
    assert [row.player.username for row in pr_table()] == ["alice"]


def test_the_robot_is_kept_out_of_ratings_tournaments_and_recorded_chouettes(
    make_player, staff, robot
):
    alice, bob = make_player("alice"), make_player("bob")
    with pytest.raises(Invalid, match="never rated"):
        club_services.match_result_record(winner=robot, loser=alice, length=5)
    club_services.match_result_record(winner=robot, loser=alice, length=5, rated=False)
    tournament = tournament_services.tournament_create(
        created_by=staff.user, name="Club night", format="round_robin"
    )
    with pytest.raises(Invalid, match="invite it to"):
        tournament_services.entry_add(tournament=tournament, player=robot, recorded_by=None)
    with pytest.raises(Invalid, match="only at an online chouette"):
        chouette_services.chouette_create(
            players=[alice, bob, robot],
            order=[alice, bob, robot],
            recorded_by=staff.user,
            options=chouette_services.ChouetteOptions(stake=Decimal("1.00")),
        )
    assert not RatingChange.objects.exists()
