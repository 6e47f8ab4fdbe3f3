"""The rest of the matches API: a turn played step by step (T3), resignations (S4), a
player leaving, money sessions (P4) with their settlement, open challenges, the lists,
the dice before the end (T2) and the play settings (T4, B4)."""

from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client

from club import selectors as club_selectors
from tests.matches.api_helpers import act, client_for, ok, path, start_match, step

pytestmark = pytest.mark.django_db


def turn_of(clients, match):
    return clients[match["game"]["turn"]]


def test_s3_the_options_asked_for_are_the_matchs(alice, bob):
    _clients, match = start_match(
        alice, bob, options={"backgammon_value": 2, "variant": "nackgammon"}, clock="blitz"
    )
    assert match["options"] == {"backgammon_value": 2, "variant": "nackgammon"}
    assert match["pip_counts"] == {"alice": 194, "bob": 194}  # B2: the nackgammon start
    assert set(match["clock"]) == {"alice", "bob", "deadline"}
    assert match["clock"]["deadline"] is not None


def test_t3_a_turn_played_step_by_step_taken_back_and_confirmed(alice, bob):
    clients, match = start_match(alice, bob)
    mover = turn_of(clients, match)
    high, low = match["game"]["dice"]
    match = ok(act(mover, match, "move_step", origin=8, die=high))
    assert match["game"]["pending"] == [f"8/{8 - high}"]
    assert match["game"]["remaining_dice"] == [low]
    match = ok(act(mover, match, "undo"))
    assert match["game"]["pending"] == []
    assert sorted(match["game"]["remaining_dice"]) == sorted([high, low])
    match = ok(act(mover, match, "move_step", origin=8, die=high))
    refused = act(mover, match, "confirm")  # one die is left to play (M5)
    assert refused.status_code == 400
    assert refused.json()["reason"] == "must_use_both_dice"
    match = ok(act(mover, match, "move_step", origin=8, die=low))
    match = ok(act(mover, match, "confirm"))
    assert match["game"]["phase"] == "roll"
    assert clients[match["game"]["turn"]] is not mover


def test_s4_a_resignation_accepted_ends_the_match_resigned(alice, bob):
    clients, match = start_match(alice, bob, length=1)
    match = ok(step(clients, match, double=False))  # the opening play; the other rolls next
    resigner = match["game"]["turn"]
    match = ok(act(clients[resigner], match, "resign", value="gammon"))
    assert match["game"]["phase"] == "resign_offered"
    assert match["game"]["resignation"] == "gammon"
    assert match["game"]["turn"] != resigner
    match = ok(act(turn_of(clients, match), match, "reject_resign"))
    assert match["game"]["turn"] == resigner
    match = ok(act(clients[resigner], match, "resign", value="single"))
    match = ok(act(turn_of(clients, match), match, "accept_resign"))
    assert match["status"] == "finished"
    assert match["ended_by"] == "resigned"
    assert match["winner"] != resigner


def test_a_player_who_leaves_loses_the_match_abandoned(alice, bob):
    clients, match = start_match(alice, bob)
    match = ok(clients["bob"].post(path(match["id"], "abandon"), format="json"))
    assert match["status"] == "finished"
    assert match["ended_by"] == "abandoned"
    assert match["winner"] == "alice"
    assert match["score"]["alice"] == 3
    again = clients["alice"].post(path(match["id"], "abandon"), format="json")
    assert again.status_code == 409


def test_p4_a_money_session_played_game_by_game_and_stopped_posts_the_net(alice, bob):
    clients, match = start_match(alice, bob, length=0, rated=False, stake="2.50")
    assert match["stake"] == "2.50" and match["rated"] is False
    games = 0
    while games < 2:
        match = ok(step(clients, match, double=True))  # a double passed ends each game
        if match["game"]["phase"] == "over":
            games += 1
            if games < 2:
                match = ok(act(clients["alice"], match, "continue"))
                assert match["game"]["number"] == games + 1
    net = match["score"]["alice"] - match["score"]["bob"]
    match = ok(act(clients["bob"], match, "stop"))
    assert match["status"] == "finished"
    assert club_selectors.player_balance(player=alice) == Decimal("2.50") * net
    assert club_selectors.player_balance(player=bob) == -Decimal("2.50") * net


def test_stopping_a_money_session_in_the_middle_of_a_game_is_refused(alice, bob):
    clients, match = start_match(alice, bob, length=0, rated=False, stake="1.00")
    response = act(clients["alice"], match, "stop")
    assert response.status_code == 409
    assert ok(clients["alice"].get(path(match["id"])))["status"] == "playing"


def test_an_open_challenge_is_listed_and_accepted_by_any_member(alice, bob, carol):
    challenge = ok(client_for(alice.user).post("/api/matches/", {"length": 5}, format="json"), 201)
    assert challenge["open"] is True and challenge["players"] == ["alice"]
    listed = ok(client_for(bob.user).get("/api/matches/?open=true"))
    assert [m["id"] for m in listed["results"]] == [challenge["id"]]
    refused = client_for(alice.user).post(path(challenge["id"], "accept"), format="json")
    assert refused.status_code == 403
    match = ok(client_for(carol.user).post(path(challenge["id"], "accept"), format="json"))
    assert match["players"] == ["alice", "carol"] and match["open"] is False
    late = client_for(bob.user).post(path(challenge["id"], "accept"), format="json")
    assert late.status_code == 409
    assert ok(client_for(bob.user).get("/api/matches/?open=true"))["results"] == []


def test_the_lists_are_paged_and_filtered_by_player_and_status(alice, bob, carol):
    start_match(alice, bob)
    start_match(bob, carol)
    ok(
        client_for(carol.user).post(
            "/api/matches/", {"opponent": "alice", "length": 1}, format="json"
        ),
        201,
    )
    viewer = client_for(carol.user)
    everything = ok(viewer.get("/api/matches/"))
    assert set(everything) == {"count", "next", "previous", "results"}
    assert everything["count"] == 3
    mine = ok(viewer.get("/api/matches/?player=alice"))
    assert {tuple(m["players"]) for m in mine["results"]} == {("alice", "bob"), ("carol", "alice")}
    live = ok(viewer.get("/api/matches/?status=playing"))
    assert {tuple(m["players"]) for m in live["results"]} == {("alice", "bob"), ("bob", "carol")}
    invited = ok(viewer.get("/api/matches/?status=invited&player=carol"))
    assert [m["players"] for m in invited["results"]] == [["carol", "alice"]]
    assert viewer.get("/api/matches/?status=asleep").status_code == 400
    assert viewer.get("/api/matches/?page=2").status_code == 404


def test_t2_the_dice_record_keeps_the_seed_until_the_end(alice, bob):
    clients, match = start_match(alice, bob)
    record = ok(clients["bob"].get(path(match["id"], "dice")))
    assert set(record) == {"algorithm", "commitment", "client_seed"}
    assert record["algorithm"] == "hmac-sha256-v1"
    assert record["commitment"] == match["dice_commitment"]


def test_the_mat_export_of_a_match_in_play_names_the_players(alice, bob):
    clients, match = start_match(alice, bob)
    match = ok(step(clients, match, double=False))
    exported = clients["alice"].get(path(match["id"], "export.mat"))
    assert exported.status_code == 200
    text = exported.content.decode()
    assert '[Player 1 "alice"]' in text and '[Player 2 "bob"]' in text
    assert "3 point match" in text
    assert exported["Content-Disposition"] == f'attachment; filename="match-{match["id"]}.mat"'


def test_t4_b4_play_settings_are_each_players_own(alice, bob):
    mine = client_for(alice.user)
    assert ok(mine.get("/api/play-settings/")) == {
        "auto_roll": False,
        "auto_play_forced": False,
        "auto_bear_off": False,
        "home_board": "right",
        "switch_sides": False,
    }
    changed = ok(
        mine.put("/api/play-settings/", {"auto_roll": True, "home_board": "left"}, format="json")
    )
    assert changed["auto_roll"] is True and changed["home_board"] == "left"
    assert ok(mine.get("/api/play-settings/"))["home_board"] == "left"
    assert ok(client_for(bob.user).get("/api/play-settings/"))["home_board"] == "right"
    assert mine.put("/api/play-settings/", {"home_board": "top"}, format="json").status_code == 400


def test_the_board_page_acts_with_its_session_and_csrf_token(alice, bob):
    """The board page calls the API with the session login: a write needs the CSRF token."""
    _clients, match = start_match(alice, bob)
    mover = alice if match["game"]["turn"] == "alice" else bob
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(mover.user)
    body = {"turn_no": match["game"]["turn_no"], "play": match["game"]["legal_plays"][0]}
    forged = browser.post(path(match["id"], "move"), body, content_type="application/json")
    assert forged.status_code == 403
    assert forged.json()["error"] == "forbidden"
    token = browser.get(f"/play/{match['id']}/").cookies["csrftoken"].value
    sent = browser.post(
        path(match["id"], "move"),
        body,
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert sent.status_code == 200
    assert sent.json()["game"]["turn_no"] == body["turn_no"] + 1


@contextmanager
def queries():
    """The SQL statements run inside (each request resets Django's own query log)."""
    sent: list[str] = []

    def count(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        yield sent


def test_reading_a_match_or_the_list_costs_the_same_queries_however_long_it_is(alice, bob, carol):
    clients, match = start_match(alice, bob)
    viewer = client_for(carol.user)
    ok(viewer.get(path(match["id"])))  # the viewer's token read, then cached
    with queries() as early:
        ok(viewer.get(path(match["id"])))
    for _ in range(40):
        match = ok(step(clients, match, double=False))
    with queries() as late:
        ok(viewer.get(path(match["id"])))
    assert 0 < len(late) == len(early)
    with queries() as one:
        ok(viewer.get("/api/matches/"))
    for opponent in (carol, bob, carol):
        start_match(alice, opponent)
    with queries() as four:
        assert ok(viewer.get("/api/matches/"))["count"] == 4
    assert 0 < len(four) == len(one)
