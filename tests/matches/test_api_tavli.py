"""The tavli games through the HTTP API (issue 11 item 5): a tavli match created with
``"tavli"``, its games in turn (TM1) played to the end, the board given as API.md's form
``B`` with no gnubg IDs, and an illegal plakoto play refused with its rule's reason."""

import pytest

from backgammon.tavli.board import facing
from backgammon.variants import Variants
from matches import services
from matches.models import Match
from tests.matches.api_helpers import act, client_for, ok, path, start_match, step

pytestmark = pytest.mark.django_db

MOST_REQUESTS = 4000


def play_to_the_end(clients, match):
    """Every request the simplest legal thing, until the match is over; the games seen."""
    games: dict[int, str] = {}
    for _request in range(MOST_REQUESTS):
        if match["status"] == "finished":
            return match, games
        game = match["game"]
        games[game["number"]] = game["variant"]
        assert game["position_id"] is None and game["match_id"] is None
        assert set(game["board"]) >= {"mine", "opponent", "pins"}
        assert not game["can_double"]  # TV1: no cube
        if game["awaiting_double"]:  # AD4: after a 1-2, name a double
            match = ok(act(clients[game["turn"]], match, "name_double", die=1))
            continue
        match = ok(step(clients, match, double=False))
    raise AssertionError("the match did not end")


def test_a_greek_tavli_match_plays_its_games_in_turn_to_the_end(alice, bob):
    # TM1: portes, plakoto, fevga in turn to the match length; the winner reaches it.
    clients, match = start_match(alice, bob, length=3, rated=False, tavli="greek")
    assert match["tavli"] == "greek"
    assert match["game"]["variant"] == "portes"
    start_pips = 2 * 24 + 5 * 13 + 3 * 8 + 5 * 6  # PO1: portes starts as backgammon
    assert match["pip_counts"] == {"alice": start_pips, "bob": start_pips}
    match, games = play_to_the_end(clients, match)
    order = ["portes", "plakoto", "fevga"]
    assert list(games.values()) == [order[n % 3] for n in range(len(games))]
    assert max(match["score"].values()) >= 3
    assert match["winner"] == max(match["score"], key=match["score"].get)
    assert Match.objects.get(pk=match["id"]).status == Match.Status.FINISHED
    export = clients["alice"].get(path(match["id"], "export.mat"))
    assert export.status_code == 409
    assert ".mat" in export.json()["detail"]


def test_a_bulgarian_tavli_match_of_one_point_ends_after_its_first_game(alice, bob):
    # TM1: the Bulgarian order opens with права (portes); one game decides a 1-point match.
    clients, match = start_match(alice, bob, length=1, rated=False, tavli="bulgarian")
    match, games = play_to_the_end(clients, match)
    assert games == {1: "portes"}
    assert match["winner"] is not None


@pytest.mark.parametrize("variant", ["gulbara", "acey-deucey"])
def test_a_single_tavli_game_is_a_match_of_its_own(alice, bob, variant):
    clients, match = start_match(alice, bob, length=1, rated=False, options={"variant": variant})
    assert match["tavli"] is None
    match, games = play_to_the_end(clients, match)
    assert games == {1: variant}


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"tavli": "turkish"}, "tavli"),
        ({"tavli": "greek", "options": {"variant": "plakoto"}}, "variant"),
        (
            {
                "options": {"variant": "fevga"},
                "length": 0,
                "stake": "1.00",
                "rated": False,
                "options_jacoby": True,
            },
            "",
        ),
        ({"options": {"variant": "chess"}}, "variant"),
        ({"options": {"variant": "fevga", "backgammon_value": 2}}, "TV4"),
    ],
)
def test_an_unknown_or_inconsistent_tavli_match_is_refused(alice, bob, body, detail):
    client = client_for(alice.user)
    body = {"opponent": "bob", "length": 3, **body}
    if body.pop("options_jacoby", False):
        body["options"] = {**body["options"], "jacoby": True}
    response = client.post("/api/matches/", body, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()) >= {"error", "detail"}
    assert detail in str(response.json())
    assert not Match.objects.exists()


def test_r_a_tavli_match_is_rated_like_any_match_unless_asked_otherwise(alice, bob):
    # docs/ratings.md: rated by default, in the tavli rating (tests/matches/test_tavli_rating.py).
    client = client_for(alice.user)
    created = client.post(
        "/api/matches/", {"opponent": "bob", "length": 3, "tavli": "bulgarian"}, format="json"
    )
    assert ok(created, 201)["rated"] is True
    unrated = client.post(
        "/api/matches/",
        {"opponent": "bob", "length": 3, "options": {"variant": "plakoto"}, "rated": False},
        format="json",
    )
    assert ok(unrated, 201)["rated"] is False


def test_every_game_is_offered():
    assert set(services.VARIANTS) == {member.value.name for member in Variants}
    assert "acey-deucey" in services.VARIANTS


def a_fevga_first_roll_of_two_numbers(alice, bob):
    """A fevga match whose mover rolled two numbers before moving a checker, both
    landing on points the opponent's runner left open, and the mover's client. A side
    whose first roll is a double has started when it next moves; both first rolls
    doubles (1 in 36), or a runner on a landing point, and a fresh match is begun."""
    while True:
        clients, match = start_match(
            alice, bob, length=1, rated=False, options={"variant": "fevga"}
        )
        for _first_move in range(2):  # each side's first
            game = match["game"]
            client = clients[game["turn"]]
            if game["phase"] == "roll":
                match = ok(act(client, match, "roll"))
                game = match["game"]
            opponent = game["board"]["opponent"]
            landings_open = all(opponent[facing(24 - die, True)] == 0 for die in game["dice"])
            if len(set(game["dice"])) == 2 and game["board"]["mine"][24] == 15 and landings_open:
                return match, client
            match = ok(step(clients, match, double=False))


def test_fv3_a_second_checker_before_the_runner_has_passed_is_refused_through_the_api(alice, bob):
    match, client = a_fevga_first_roll_of_two_numbers(alice, bob)
    low, high = sorted(match["game"]["dice"])
    before = ok(client.get(path(match["id"])))
    refused = act(client, match, "move", play=f"24/{24 - high} 24/{24 - low}")
    assert refused.status_code == 400
    body = refused.json()
    assert body["error"] == "illegal_play"
    assert body["reason"] == "runner_must_pass_first"
    assert "FV3" in body["detail"]
    assert ok(client.get(path(match["id"]))) == before  # nothing changed


def test_ad4_a_double_is_named_only_after_a_1_2(alice, bob):
    clients, match = start_match(
        alice, bob, length=1, rated=False, options={"variant": "acey-deucey"}
    )
    game = match["game"]
    client = clients[game["turn"]]
    if game["phase"] == "roll":
        match = ok(act(client, match, "roll"))
    refused = act(client, match, "name_double", die=6)
    assert refused.status_code == 400
    assert refused.json()["reason"] == "not_legal"
    assert "AD4" in refused.json()["detail"]
