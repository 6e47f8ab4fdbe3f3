"""An online chouette through the HTTP API with real tokens (shared/API.md, Chouettes,
online mode): the box, the captain and two crew members, each acting for themself."""

import pytest

from backgammon.game import Game, Result
from chouette.models import Chouette, ChouetteGame
from matches.models import Action, Table

TEAM = ("bob", "carol", "dave")


@pytest.fixture
def table(members, api):
    """An online chouette opened through the API by alice (alice the box, bob captain,
    carol and dave the crew, multiple cubes, Jacoby off) and a way to act at it as any
    of them."""
    opened = api.as_user(members["alice"].user).post(
        "/api/chouettes/",
        {
            "players": ["alice", *TEAM],
            "order": ["alice", *TEAM],
            "stake": "5.00",
            "mode": "online",
            "options": {"cube": "multiple", "jacoby": False},
        },
        format="json",
    )
    assert opened.status_code == 201, opened.json()
    assert opened.json()["game"] is None  # until a seated player starts it
    chouette = Chouette.objects.get(pk=opened.json()["id"])

    class At:
        pk = chouette.pk

        def post(self, name, action, **body):
            client = api.as_user(members[name].user)
            return client.post(f"/api/chouettes/{chouette.pk}/{action}/", body, format="json")

        def get(self, name, path=""):
            return api.as_user(members[name].user).get(f"/api/chouettes/{chouette.pk}/{path}")

        def act(self, name, action, **body):
            body.setdefault("turn_no", self.game["turn_no"])
            response = self.post(name, action, **body)
            assert response.status_code == 200, response.json()
            self.body = response.json()
            return self.body

        @property
        def game(self):
            return self.body["game"]

    at = At()
    response = at.post("carol", "start")
    assert response.status_code == 200, response.json()
    at.body = response.json()
    return at


def play(at, *, until, box_rolls=True):
    for _step in range(1000):
        game = at.game
        if until(game):
            return game
        mover = game["awaiting"][0]
        if game["phase"] == "roll":
            if mover == "alice" and not box_rolls:
                return game
            at.act(mover, "roll")
        else:
            plays = game["legal_plays"]
            at.act(mover, "move", play=plays[0] if plays else "")
    raise AssertionError("the game did not get there")


def test_h5_h2_h6_h3_a_whole_online_game_through_the_api(table, members):
    at = table
    assert at.body["box"] == "alice" and at.body["line"] == list(TEAM)
    assert at.body["topic"] == f"chouette:{at.pk}"
    game = play(at, until=lambda g: g["phase"] == "roll" and g["awaiting"] == ["alice"],
                box_rolls=False)  # fmt: skip
    at.act("alice", "double", to=["carol", "dave"])
    offered = at.game["cubes"]["carol"]["offered_at"]
    assert at.game["awaiting"] == ["carol", "dave"]
    assert at.game["cubes"]["bob"]["state"] == "live"
    # Each answers with their own token and the double's turn_no (H5).
    at.act("carol", "take", turn_no=offered)
    at.act("dave", "pass", turn_no=offered)
    assert at.game["cubes"]["dave"]["state"] == "passed"
    assert at.game["cubes"]["carol"]["owner"] == "carol"
    assert at.get("dave").json()["game"] == at.game  # GET /api/chouettes/{id}/ reads alike
    # The box rolls, moves; the team's turn: only the captain moves (H2).
    game = play(at, until=lambda g: g["phase"] == "move" and g["awaiting"] == ["bob"])
    plays = game["legal_plays"]
    refused = at.post("carol", "move", turn_no=game["turn_no"], play=plays[0] if plays else "")
    assert refused.status_code == 403 and refused.json()["error"] == "not_your_turn"
    at.act("bob", "move", play=plays[0] if plays else "")

    play(at, until=lambda g: g["phase"] == "over")
    final = Game.from_dict(Table.objects.get(chouette__pk=at.pk).state)
    times = {Result.SINGLE: 1, Result.GAMMON: 2, Result.BACKGAMMON: 3}[final.result]
    sign = 1 if final.winner == 1 else -1
    bob, carol = sign * times, sign * 2 * times  # bob at 1, carol at 2, dave passed at 1
    assert at.body["scores"] == {"alice": 1 - bob - carol, "bob": bob, "carol": carol, "dave": -1}
    assert sum(at.body["scores"].values()) == 0 and at.body["games"] == 1
    if sign > 0:  # H3: the captain takes the box; the old box to the end of the line
        assert (at.body["box"], at.body["line"]) == ("bob", ["carol", "dave", "alice"])
    else:
        assert (at.body["box"], at.body["line"]) == ("alice", ["carol", "dave", "bob"])
    row = ChouetteGame.objects.get(chouette_id=at.pk)
    assert [m["outcome"] for m in row.record["members"]] == ["played", "played", "passed"]
    listed = at.get("erin", "games/").json()  # listed as a recorded game is
    listed = listed.get("results", listed)
    assert [(g["number"], g["points"]) for g in listed] == [(1, at.body["scores"])]


def test_h2_consulting_through_the_api_is_the_teams_alone(table, members):
    at = table
    game = play(at, until=lambda g: g["phase"] == "move" and g["awaiting"] == ["bob"]
                and len(g["legal_plays"]) > 1)  # fmt: skip
    sent = at.post("dave", "proposals", turn_no=game["turn_no"], kind="play",
                   play=game["legal_plays"][1])  # fmt: skip
    assert sent.status_code == 201, sent.json()
    seen = at.get("carol", "proposals/")
    assert seen.status_code == 200
    assert [(p["player"], p["play"]) for p in seen.json()] == [("dave", game["legal_plays"][1])]
    for outsider in ("alice", "erin"):  # the box, and a member not at the table
        refused = at.get(outsider, "proposals/")
        assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    at.act("bob", "move", play=game["legal_plays"][0])  # the captain's choice stands
    assert at.get("carol", "proposals/").json() == []  # a new turn


def test_stale_and_out_of_turn_requests_change_nothing(table, members):
    at = table
    game = play(at, until=lambda g: g["phase"] == "roll" and g["awaiting"] == ["alice"],
                box_rolls=False)  # fmt: skip
    count, version = Action.objects.count(), Chouette.objects.get(pk=at.pk).version
    cases = [
        ("alice", "roll", {"turn_no": game["turn_no"] - 1}, 409, "stale_turn"),
        ("bob", "roll", {"turn_no": game["turn_no"]}, 403, "not_your_turn"),
        ("carol", "take", {"turn_no": game["turn_no"]}, 409, "conflict"),
        ("erin", "roll", {"turn_no": game["turn_no"]}, 403, "forbidden"),
        ("alice", "double", {"turn_no": game["turn_no"], "to": ["erin"]}, 400, "invalid"),
        ("bob", "start", {}, 409, "conflict"),
    ]
    for name, action, body, status, error in cases:
        response = at.post(name, action, **body)
        assert (response.status_code, response.json()["error"]) == (status, error), action
    assert Action.objects.count() == count
    assert Chouette.objects.get(pk=at.pk).version == version
    at.act("alice", "double")
    offered = at.game["cubes"]["bob"]["offered_at"]
    at.act("bob", "take", turn_no=offered)
    twice = at.post("bob", "take", turn_no=offered)  # answering twice
    assert twice.status_code == 409


def test_the_table_page_shows_the_online_board_and_each_members_cube_live(table, members, client):
    at = table
    client.force_login(members["erin"].user)  # any member watches the big screen
    version = at.body["version"]
    page = client.get(f"/chouettes/{at.pk}/").content.decode()
    assert "<svg" in page and 'class="cubes"' in page and page.count("cube-live") == 3
    play(at, until=lambda g: g["phase"] == "roll" and g["awaiting"] == ["alice"], box_rolls=False)
    at.act("alice", "double")
    live = client.get(f"/api/live/?topic=chouette:{at.pk}&since={version}&wait=0").json()
    assert live["version"] > version  # the page looks again
    page = client.get(f"/chouettes/{at.pk}/").content.decode()
    assert page.count("cube-offered") == 3


def test_h5_h8_four_players_to_the_end_with_a_box_double_two_take_and_one_passes(table, members):
    """The issue's test: an online chouette of four through the API to the end of a game,
    the box doubling every member, two taking and one passing, each with their own token."""
    at = table
    play(at, until=lambda g: g["phase"] == "roll" and g["awaiting"] == ["alice"],
         box_rolls=False)  # fmt: skip
    at.act("alice", "double")  # "to" left out: every member it may double
    assert at.game["awaiting"] == list(TEAM)
    offered = {name: at.game["cubes"][name]["offered_at"] for name in TEAM}
    at.act("dave", "pass", turn_no=offered["dave"])  # in any order, side by side (H10)
    at.act("bob", "take", turn_no=offered["bob"])
    at.act("carol", "take", turn_no=offered["carol"])
    cubes = at.game["cubes"]
    assert {name: (c["value"], c["owner"], c["state"]) for name, c in cubes.items()} == {
        "bob": (2, "bob", "live"),
        "carol": (2, "carol", "live"),
        "dave": (1, None, "passed"),
    }
    play(at, until=lambda g: g["phase"] == "over")
    final = Game.from_dict(Table.objects.get(chouette__pk=at.pk).state)
    times = {Result.SINGLE: 1, Result.GAMMON: 2, Result.BACKGAMMON: 3}[final.result]
    each = (1 if final.winner == 1 else -1) * 2 * times  # bob and carol at 2, Jacoby off
    assert at.body["scores"] == {"alice": 1 - 2 * each, "bob": each, "carol": each, "dave": -1}
    row = ChouetteGame.objects.get(chouette_id=at.pk)
    assert [(m["player"], m["outcome"], m["stake"]) for m in row.record["members"]] == [
        ("bob", "played", 2),
        ("carol", "played", 2),
        ("dave", "passed", 1),
    ]
    assert sum(p.points for p in row.points.all()) == 0
    kinds = Action.objects.filter(table__chouette__pk=at.pk, kind__in=["take", "pass"])
    assert sorted((a.actor.user.username, a.kind) for a in kinds) == [
        ("bob", "take"),
        ("carol", "take"),
        ("dave", "pass"),
    ]
