"""Every refusal of the matches API is a 4xx JSON ``{"error", "detail"}`` and changes
nothing: no state, no version, no row in the action log (shared/API.md "Conventions")."""

from dataclasses import replace

import pytest

from backgammon.game import Game, Phase
from backgammon.position import Position, board_from_points
from matches.models import Action, Match, Table
from tests.matches.api_helpers import act, client_for, ok, path, start_match, step

pytestmark = pytest.mark.django_db

START = {24: 2, 13: 5, 8: 3, 6: 5}


@pytest.fixture
def playing(alice, bob):
    """A match to 3 just started: the clients by username and the match."""
    return start_match(alice, bob)


def on_turn(clients, match):
    return clients[match["game"]["turn"]]


def off_turn(clients, match):
    (other,) = [name for name in clients if name != match["game"]["turn"]]
    return clients[other]


def snapshot(match_id: int):
    """Everything a refused request must leave as it was."""
    table = Match.objects.get(pk=match_id).table
    return table.version, table.turn_no, table.state, Action.objects.filter(table=table).count()


def refused(response, status: int, error: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:400])
    body = response.json()
    assert body["error"] == error
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def set_board(match: dict, mine: dict[int, int], theirs: dict[int, int], dice: tuple[int, int]):
    """Put the side on turn in a position (points from its own side, 25: the bar) with
    ``dice`` rolled, as the table stores it; returns the match as the API now shows it."""
    table = Table.objects.get(match__pk=match["id"])
    game = Game.from_dict(table.state)
    board = Position(board_from_points(mine), board_from_points(theirs))
    game = replace(
        game,
        board=board if game.on_roll == 0 else board.mirror(),
        dice=dice,
        phase=Phase.MOVE,
        pending=(),
    )
    Table.objects.filter(pk=table.pk).update(state=game.to_dict())
    return client_for(Match.objects.get(pk=match["id"]).creator.user).get(path(match["id"])).json()


# Illegal plays, each with the rule's reason -------------------------------------------


@pytest.mark.parametrize(
    ("mine", "theirs", "dice", "play", "reason"),
    [
        pytest.param(START, START, (6, 5), "24/19 24/18", "blocked_point", id="m2"),
        pytest.param(START, START, (6, 5), "13/7", "must_use_both_dice", id="m5_both"),
        pytest.param(
            {24: 1}, {12: 2, 2: 13}, (6, 5), "24/19", "must_play_higher_die", id="m5_higher"
        ),
        pytest.param(
            {25: 1, 24: 1, 13: 5, 8: 3, 6: 5},
            START,
            (3, 1),
            "13/10 6/5",
            "must_enter_from_bar_first",
            id="e1",
        ),
        pytest.param(
            {8: 1, 6: 4, 5: 5, 4: 3, 3: 2},
            {24: 1, 23: 14},
            (6, 1),
            "6/off 8/7",
            "cannot_bear_off_yet",
            id="f1",
        ),
    ],
)
def test_an_illegal_play_is_refused_with_the_rule_it_breaks(
    playing, mine, theirs, dice, play, reason
):
    clients, match = playing
    match = set_board(match, mine, theirs, dice)
    before = snapshot(match["id"])
    body = refused(act(on_turn(clients, match), match, "move", play=play), 400, "illegal_play")
    assert body["reason"] == reason
    assert snapshot(match["id"]) == before


def test_move_text_that_cannot_be_read_is_an_illegal_play(playing):
    clients, match = playing
    before = snapshot(match["id"])
    body = refused(
        act(on_turn(clients, match), match, "move", play="24 to 18"), 400, "illegal_play"
    )
    assert body["reason"] == "invalid_notation"
    assert snapshot(match["id"]) == before


# Who may act --------------------------------------------------------------------------


def test_watchers_see_the_match_and_may_not_act(playing, carol, staff):
    _clients, match = playing
    before = snapshot(match["id"])
    for watcher in (carol, staff):
        seen = ok(client_for(watcher.user).get(path(match["id"])))
        assert seen["game"]["turn_no"] == match["game"]["turn_no"]
        for action, body in (("move", {"play": match["game"]["legal_plays"][0]}), ("roll", {})):
            refused(act(client_for(watcher.user), match, action, **body), 403, "forbidden")
    assert snapshot(match["id"]) == before


def test_acting_out_of_turn_is_not_your_turn(playing):
    clients, match = playing
    before = snapshot(match["id"])
    refused(
        act(off_turn(clients, match), match, "move", play=match["game"]["legal_plays"][0]),
        403,
        "not_your_turn",
    )
    refused(act(off_turn(clients, match), match, "double"), 403, "not_your_turn")
    assert snapshot(match["id"]) == before


def test_a_stale_turn_number_is_a_409_and_changes_nothing(playing):
    clients, match = playing
    play = match["game"]["legal_plays"][0]
    for stale in (match["game"]["turn_no"] - 1, match["game"]["turn_no"] + 1):
        before = snapshot(match["id"])
        refused(
            act(on_turn(clients, match), match, "move", play=play, turn_no=stale),
            409,
            "stale_turn",
        )
        assert snapshot(match["id"]) == before


def test_not_logged_in_is_a_401(playing):
    _clients, match = playing
    from rest_framework.test import APIClient

    anonymous = APIClient()
    refused(anonymous.get(path(match["id"])), 401, "not_authenticated")
    refused(act(anonymous, match, "roll"), 401, "not_authenticated")


def test_an_unknown_match_is_a_404(alice):
    client = client_for(alice.user)
    refused(client.get(path(987654)), 404, "not_found")
    refused(client.post(path(987654, "roll"), {"turn_no": 1}, format="json"), 404, "not_found")
    refused(client.get(path(987654, "dice")), 404, "not_found")
    refused(client.get(path(987654, "export.mat")), 404, "not_found")


# The cube when it may not be used (C2, P2) ----------------------------------------------


def test_c2_doubling_after_rolling_is_refused(playing):
    clients, match = playing
    before = snapshot(match["id"])
    body = refused(act(on_turn(clients, match), match, "double"), 400, "illegal_play")
    assert body["reason"] == "cube_not_available"
    assert snapshot(match["id"]) == before


def test_c4_the_cube_owned_by_the_opponent_cannot_be_doubled(playing):
    clients, match = playing
    first = match["game"]["turn"]
    match = ok(act(clients[first], match, "move", play=match["game"]["legal_plays"][0]))
    second = match["game"]["turn"]
    match = ok(act(clients[second], match, "double"))
    match = ok(act(clients[first], match, "take"))
    assert match["game"]["cube"] == {"value": 2, "owner": first}
    match = ok(step(clients, match, double=False))  # the doubler rolls
    while not (match["game"]["turn"] == second and match["game"]["phase"] == "roll"):
        match = ok(step(clients, match, double=False))
    assert match["game"]["turn"] == second and match["game"]["phase"] == "roll"
    before = snapshot(match["id"])
    body = refused(act(clients[second], match, "double"), 400, "illegal_play")
    assert body["reason"] == "cube_not_available"
    assert snapshot(match["id"]) == before


# Malformed input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("move", {"play": "24/18"}),  # no turn_no
        ("move", {"turn_no": "1", "play": "24/18"}),  # a string for a number
        ("move", {"turn_no": 1}),  # no play
        ("move", {"turn_no": 1, "play": "24/18", "hurry": True}),  # a field nobody knows
        ("resign", {"turn_no": 1, "value": "triple"}),
        ("move_step", {"turn_no": 1, "origin": 26, "die": 3}),
        ("move_step", {"turn_no": 1, "origin": 13, "die": 7}),
    ],
)
def test_a_malformed_body_is_a_400_invalid(playing, action, body):
    clients, match = playing
    before = snapshot(match["id"])
    refused(
        on_turn(clients, match).post(path(match["id"], action), body, format="json"), 400, "invalid"
    )
    assert snapshot(match["id"]) == before


def test_a_body_that_is_not_json_is_a_400_malformed(playing):
    clients, match = playing
    before = snapshot(match["id"])
    response = on_turn(clients, match).post(
        path(match["id"], "roll"), "{turn_no: 1", content_type="application/json"
    )
    refused(response, 400, "malformed")
    assert snapshot(match["id"]) == before


@pytest.mark.parametrize(
    "body",
    [
        {"opponent": "bob", "length": 65},
        {"opponent": "bob", "length": 3, "clock": "slow"},
        {"opponent": "bob", "length": 3, "clock": {"delay": 5}},
        {"opponent": "bob", "length": 3, "options": {"variant": "chess"}},
        {"opponent": "bob", "length": 0},  # a money session needs a stake
        {"opponent": "bob", "length": 0, "stake": "1.00", "rated": True},
        {"opponent": "bob", "length": 3, "options": {"jacoby": True}},  # P3
        {"opponent": "bob", "length": 3, "stake": "1.00"},
        {"opponent": "alice", "length": 3},  # oneself
        {"opponent": "bob", "length": 3, "on_timeout": "autoplay"},  # a rated match
        {"opponent": "bob", "length": 3, "clock": {"delay": 0, "reserve": 0}},
    ],
)
def test_a_match_that_cannot_be_is_refused_and_none_is_created(alice, bob, body):
    response = client_for(alice.user).post("/api/matches/", body, format="json")
    refused(response, 400, "invalid")
    assert not Match.objects.exists()


def test_inviting_nobody_known_is_a_404(alice):
    response = client_for(alice.user).post(
        "/api/matches/", {"opponent": "nobody", "length": 3}, format="json"
    )
    refused(response, 404, "not_found")
    assert not Match.objects.exists()


@pytest.mark.parametrize("value", ["maybe", "yes", "2", "TRUE "])
def test_a_list_filter_that_is_neither_true_nor_false_is_a_400_naming_it(alice, value):
    response = client_for(alice.user).get("/api/matches/", {"open": value})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert response.json()["fields"]["open"] == [f"{value} is not true or false."]


@pytest.mark.parametrize("value", ["true", "false", "1", "0", ""])
def test_a_list_filter_reads_true_and_false(alice, value):
    assert client_for(alice.user).get("/api/matches/", {"open": value}).status_code == 200
