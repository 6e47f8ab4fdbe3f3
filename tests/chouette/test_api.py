"""The chouettes' API exactly as shared/API.md says, with real users and tokens."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from backgammon.chouette import roll_for_order
from backgammon.dice import DiceStream, commitment
from chouette.models import Chouette, ChouetteGame
from club import selectors as club_selectors
from club.models import SourceKind, Transaction
from tests.chouette.conftest import member
from tests.factories import token_for

pytestmark = pytest.mark.django_db


def client_of(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


@pytest.fixture
def keeper(make_player):
    """The scorekeeper: a member who does not play."""
    return make_player("keeper")


@pytest.fixture
def as_keeper(keeper):
    return client_of(keeper.user)


@pytest.fixture
def table(members, as_keeper):
    """A recorded chouette of four, order entered: alice in the box, bob captain."""
    response = as_keeper.post(
        "/api/chouettes/",
        {
            "players": ["alice", "bob", "carol", "dave"],
            "stake": "5.00",
            "mode": "recorded",
            "order": ["alice", "bob", "carol", "dave"],
            "options": {
                "cube": "multiple",
                "jacoby": True,
                "beavers": False,
                "box_keeps": "beats_captain",
                "partner_from": 7,
            },
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()


def game(winner, result, *members_sent, **extra):
    return {"winner": winner, "result": result, "members": list(members_sent), **extra}


def test_opening_a_chouette_answers_the_chouette_as_api_md_says(table, keeper):
    assert table["status"] == "open"
    assert table["box"] == "alice" and table["captain"] == "bob"
    assert table["line"] == ["bob", "carol", "dave"] and table["partner"] is None
    assert table["scores"] == {"alice": 0, "bob": 0, "carol": 0, "dave": 0}
    assert table["games"] == 0 and table["version"] == 0
    assert table["stake"] == "5.00" and table["mode"] == "recorded"
    assert table["options"] == {
        "cube": "multiple",
        "jacoby": True,
        "beavers": False,
        "box_keeps": "beats_captain",
        "partner_from": 7,
        "turn_time": None,  # the online options (tests/chouette/test_online_api.py)
        "no_answer": "pass",
        "consulting": "full",
        "same_action": False,  # and the cube options (tests/chouette/test_online_options.py)
        "automatic_doubles": 0,
        "cube_max": None,
    }
    assert table["recorder"] == "keeper"


def test_h1_the_order_rolled_by_the_server_is_checkable_after_the_close(members, as_keeper):
    opened = as_keeper.post(
        "/api/chouettes/", {"players": ["alice", "bob", "carol"], "stake": "1.00"}, format="json"
    ).json()
    dice = as_keeper.get(f"/api/chouettes/{opened['id']}/dice/").json()
    assert dice["algorithm"] == "hmac-sha256-v1" and dice["server_seed"] is None
    assert dice["commitment"] == opened["dice_commitment"] != ""
    as_keeper.post(f"/api/chouettes/{opened['id']}/close/", {}, format="json")
    revealed = as_keeper.get(f"/api/chouettes/{opened['id']}/dice/").json()
    seed = bytes.fromhex(revealed["server_seed"])
    assert commitment(seed) == dice["commitment"]
    again = roll_for_order(["alice", "bob", "carol"], DiceStream(seed, dice["client_seed"]))
    assert list(again.order) == opened["players"]
    assert revealed["throws"] == [[list(pair) for pair in throw] for throw in again.throws]


def test_recording_a_game_answers_the_points_and_the_seats_after(table, as_keeper):
    url = f"/api/chouettes/{table['id']}/games/"
    response = as_keeper.post(
        url,
        game(
            "team",
            "single",
            member("bob", 1, "passed"),
            member("carol", 2),
            member("dave", 1, "box_passed", cube_turned=False),
        ),
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["points"] == {"alice": -2, "bob": -1, "carol": 2, "dave": 1}
    # H7/H3: the captain (bob) lost to the box, so alice keeps it and bob goes to the end.
    assert (body["box"], body["captain"], body["line"]) == (
        "alice",
        "carol",
        ["carol", "dave", "bob"],
    )
    assert body["number"] == 1 and body["version"] == 1
    detail = as_keeper.get(f"/api/chouettes/{table['id']}/").json()
    assert detail["scores"] == {"alice": -2, "carol": 2, "dave": 1, "bob": -1}
    assert detail["games"] == 1


def test_the_games_list_is_paged_oldest_first_in_the_posted_form(table, as_keeper, members):
    url = f"/api/chouettes/{table['id']}/games/"
    as_keeper.post(
        url, game("box", "gammon", member("bob", 2), member("carol"), member("dave")), format="json"
    )
    as_keeper.post(
        url, game("team", "single", member("carol"), member("dave"), member("bob")), format="json"
    )
    listed = client_of(members["erin"].user).get(url).json()  # any member reads
    assert listed["count"] == 2 and listed["next"] is None and listed["previous"] is None
    first, second = listed["results"]
    assert first["number"] == 1 and second["number"] == 2
    assert first["winner"] == "box" and first["result"] == "gammon"
    assert first["members"] == [
        {"player": "bob", "stake": 2, "outcome": "played", "cube_turned": True},
        {"player": "carol", "stake": 1, "outcome": "played", "cube_turned": False},
        {"player": "dave", "stake": 1, "outcome": "played", "cube_turned": False},
    ]
    # Jacoby on: carol's and dave's untouched cubes count the gammon as a single.
    assert first["points"] == {"alice": 6, "bob": -4, "carol": -1, "dave": -1}
    assert first["seats"]["box"] == "alice" and second["seats"]["captain"] == "carol"
    assert first["undoes"] is None and first["undone_by"] is None
    assert client_of(members["erin"].user).get(url + "?page=2").status_code == 404


def test_undo_takes_back_the_last_game_with_a_reversing_game(table, as_keeper):
    url = f"/api/chouettes/{table['id']}/games/"
    as_keeper.post(
        url, game("team", "single", member("bob"), member("carol"), member("dave")), format="json"
    )
    response = as_keeper.post(url + "undo/", {"number": 1, "version": 1}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["number"] == 2 and body["undoes"] == 1
    assert body["points"] == {"alice": 3, "bob": -1, "carol": -1, "dave": -1}
    assert (body["box"], body["line"]) == ("alice", ["bob", "carol", "dave"])
    games = as_keeper.get(url).json()["results"]
    assert [(g["number"], g["undoes"], g["undone_by"]) for g in games] == [
        (1, None, 2),
        (2, 1, None),
    ]
    detail = as_keeper.get(f"/api/chouettes/{table['id']}/").json()
    assert detail["games"] == 0 and set(detail["scores"].values()) == {0}
    again = as_keeper.post(url + "undo/", {"number": 1}, format="json")
    assert again.status_code == 409 and again.json()["error"] == "conflict"


def test_a_repeated_request_is_recorded_once(table, as_keeper):
    url = f"/api/chouettes/{table['id']}/games/"
    sent = game("box", "single", member("bob"), member("carol"), member("dave"), version=0)
    assert as_keeper.post(url, sent, format="json").status_code == 201
    repeated = as_keeper.post(url, sent, format="json")
    assert repeated.status_code == 409
    assert repeated.json()["error"] == "stale_version" and repeated.json()["detail"]
    assert ChouetteGame.objects.count() == 1


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        (game("team", "single", member("bob"), member("carol")), "dave"),
        (
            game("team", "single", member("bob"), member("carol"), member("dave"), member("erin")),
            "erin",
        ),
        (game("team", "single", member("bob", 3), member("carol"), member("dave")), "stake"),
        (game("team", "single", member("bob", "2"), member("carol"), member("dave")), "stake"),
        (game("team", "single", member("bob", 0), member("carol"), member("dave")), "stake"),
        (game("team", "double", member("bob"), member("carol"), member("dave")), "result"),
        (
            game(
                "team",
                "single",
                {**member("bob"), "cube_turnd": True},
                member("carol"),
                member("dave"),
            ),
            "cube_turnd",
        ),
    ],
)
def test_a_bad_game_is_a_400_json_error_and_changes_nothing(table, as_keeper, sent, field):
    response = as_keeper.post(f"/api/chouettes/{table['id']}/games/", sent, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid" and field in response.json()["detail"]
    assert not ChouetteGame.objects.exists()
    assert Chouette.objects.get().version == 0


@pytest.mark.parametrize(
    ("sent", "status"),
    [
        ({"players": ["alice", "bob"], "stake": "5.00"}, 400),
        ({"players": ["alice", "bob", "bob"], "stake": "5.00"}, 400),
        ({"players": ["alice", "bob", "carol"], "stake": "0.00"}, 400),
        ({"players": ["alice", "bob", "carol"], "stake": "-5.00"}, 400),
        ({"players": ["alice", "bob", "carol"], "stake": 5}, 400),
        ({"players": ["alice", "bob", "carol"], "stake": "5.00", "mode": "by_post"}, 400),
        (  # a recorded chouette has no clock
            {"players": ["alice", "bob", "carol"], "stake": "5.00", "options": {"turn_time": 30}},
            400,
        ),
        (
            {
                "players": ["alice", "bob", "carol"],
                "stake": "5.00",
                "order": ["alice", "bob", "dave"],
            },
            400,
        ),
        ({"players": ["alice", "bob", "nobody"], "stake": "5.00"}, 404),
        (
            {"players": ["alice", "bob", "carol"], "stake": "5.00", "options": {"partner_from": 2}},
            400,
        ),
    ],
)
def test_a_chouette_that_cannot_open_is_refused_with_a_json_error(members, as_keeper, sent, status):
    response = as_keeper.post("/api/chouettes/", sent, format="json")
    assert response.status_code == status
    assert set(response.json()) >= {"error", "detail"}
    assert not Chouette.objects.exists()


def test_who_may_record_the_scorekeeper_players_and_staff_not_others(table, members, staff):
    url = f"/api/chouettes/{table['id']}/games/"
    sent = lambda line: game("box", "single", *(member(n) for n in line))  # noqa: E731
    line = table["line"]
    outsider = client_of(members["erin"].user).post(url, sent(line), format="json")
    assert outsider.status_code == 403 and outsider.json()["error"] == "forbidden"
    anonymous = APIClient().post(url, sent(line), format="json")
    assert anonymous.status_code == 401
    player = client_of(members["carol"].user).post(url, sent(line), format="json")
    assert player.status_code == 201
    line = player.json()["line"]
    assert client_of(staff.user).post(url, sent(line), format="json").status_code == 201
    assert ChouetteGame.objects.count() == 2


def test_h13_join_and_leave_through_the_api_settle_at_once(table, members, as_keeper):
    base = f"/api/chouettes/{table['id']}/"
    as_keeper.post(
        base + "games/",
        game("box", "single", member("bob"), member("carol"), member("dave")),
        format="json",
    )
    joined = client_of(members["erin"].user).post(base + "join/", {"player": "erin"}, format="json")
    assert joined.status_code == 200 and joined.json()["line"][-1] == "erin"
    twice = as_keeper.post(base + "join/", {"player": "erin"}, format="json")
    assert twice.status_code == 409
    left = as_keeper.post(base + "leave/", {"player": "bob"}, format="json")
    assert left.status_code == 200, left.json()
    body = left.json()
    assert body["settlement"] == {"bob": "-5.00", "alice": "5.00"}
    posted = Transaction.objects.get(pk=body["transaction"])
    assert posted.kind == SourceKind.CHOUETTE and posted.source_id == table["id"]
    assert club_selectors.player_balance(player=members["bob"]) == Decimal("-5.00")
    ledger = client_of(members["bob"].user).get("/api/players/bob/ledger/").json()
    assert [(e["amount"], e["transaction"]) for e in ledger["entries"]] == [("-5.00", posted.pk)]
    assert "bob" not in as_keeper.get(base).json()["players"]


def test_h14_close_answers_the_settlement_posted_as_one_balanced_transaction(
    table, members, as_keeper
):
    base = f"/api/chouettes/{table['id']}/"
    as_keeper.post(
        base + "games/",
        game("team", "gammon", member("bob", 2), member("carol", 2), member("dave")),
        format="json",
    )
    closed = as_keeper.post(base + "close/", {"version": 1}, format="json")
    assert closed.status_code == 200, closed.json()
    # bob and carol win a gammon at 2 (+4 each), dave's untouched cube a single (+1).
    assert closed.json()["settlement"] == {
        "alice": "-45.00",
        "bob": "20.00",
        "carol": "20.00",
        "dave": "5.00",
    }
    posted = Transaction.objects.get(pk=closed.json()["transaction"])
    assert sum(leg.amount for leg in posted.legs.all()) == 0 and posted.legs.count() == 4
    assert as_keeper.get(base).json()["status"] == "closed"
    assert as_keeper.post(base + "close/", {}, format="json").status_code == 409
    assert Transaction.objects.filter(kind=SourceKind.CHOUETTE).count() == 1


def test_the_list_of_chouettes_is_paged_and_filtered(table, members, as_keeper):
    other = as_keeper.post(
        "/api/chouettes/", {"players": ["erin", "frank", "gina"], "stake": "1.00"}, format="json"
    ).json()
    as_keeper.post(f"/api/chouettes/{other['id']}/close/", {}, format="json")
    every = as_keeper.get("/api/chouettes/").json()
    assert [c["id"] for c in every["results"]] == [other["id"], table["id"]]
    assert every["results"][1]["players"] == ["alice", "bob", "carol", "dave"]
    assert every["results"][1]["games"] == 0
    open_ones = as_keeper.get("/api/chouettes/?status=open").json()["results"]
    assert [c["id"] for c in open_ones] == [table["id"]]
    erins = as_keeper.get("/api/chouettes/?player=erin").json()["results"]
    assert [c["id"] for c in erins] == [other["id"]]
    assert as_keeper.get("/api/chouettes/?status=playing").status_code == 400
    assert as_keeper.get("/api/chouettes/?player=").json()["count"] == 2


def test_unknown_chouettes_are_404_json(members, as_keeper):
    for path in ("/api/chouettes/999/", "/api/chouettes/999/games/", "/api/chouettes/999/dice/"):
        response = as_keeper.get(path)
        assert response.status_code == 404 and response.json()["error"] == "not_found"
    posted = as_keeper.post("/api/chouettes/999/close/", {}, format="json")
    assert posted.status_code == 404
