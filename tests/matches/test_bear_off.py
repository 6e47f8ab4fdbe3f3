"""T4 at the table: the server plays a no-contact bear-off for a player whose settings
ask it, by the rule of ``backgammon.bearoff``; the setting in the API and on the page."""

from matches import services
from matches.models import Action, PlaySettings, Table
from tests.matches.api_helpers import client_for, ok
from tests.matches.conftest import act, game_of, on_turn, start

HOME = [2, 0, 2, 0, 1] + [0] * 20  # five checkers on their own 1, 3 and 5 points


def _board(match, boards):
    state = dict(match.table.state)
    state["board"] = boards
    Table.objects.filter(pk=match.table_id).update(state=state)
    match.refresh_from_db()
    return match


def test_t4_the_server_plays_a_no_contact_bear_off_for_a_player_who_asks(alice, bob):
    match = start(alice, bob, length=3)
    mover = on_turn(match, alice, bob)
    waiting = bob if mover == alice else alice
    services.play_settings_update(player=waiting, auto_bear_off=True)
    match = _board(match, [HOME, HOME])
    match = act(match, mover, "move", play=game_of(match)["legal_plays"][0])
    match = act(match, waiting, "roll")
    rows = list(Action.objects.filter(table=match.table, game_number=1).order_by("seq"))
    server_move = rows[-1]
    assert (rows[-2].kind, rows[-2].actor) == ("roll", waiting)
    assert (server_move.kind, server_move.actor, server_move.by_server) == ("move", None, True)
    game = game_of(match)
    assert game["turn"] == mover.username and game["phase"] == "roll"
    # The rule's play: with any roll from 1, 3 and 5 the most checkers come off.
    assert match.table.state["board"][0 if waiting == alice else 1] != HOME


def test_t4_no_bear_off_is_played_while_there_is_contact_or_unasked(alice, bob):
    match = start(alice, bob, length=3)
    mover = on_turn(match, alice, bob)
    waiting = bob if mover == alice else alice
    services.play_settings_update(player=waiting, auto_bear_off=True)
    contact = [0] * 19 + [1] + [0] * 5  # a checker on its 20 point: the sides still meet
    match = _board(match, [HOME, contact] if waiting == bob else [contact, HOME])
    match = act(match, mover, "move", play=game_of(match)["legal_plays"][0])
    match = act(match, waiting, "roll")
    assert game_of(match)["phase"] == "move" and game_of(match)["turn"] == waiting.username
    services.play_settings_update(player=waiting, auto_bear_off=False)
    again = start(alice, bob, length=3)
    first = on_turn(again, alice, bob)
    second = bob if first == alice else alice
    again = _board(again, [HOME, HOME])
    again = act(again, first, "move", play=game_of(again)["legal_plays"][0])
    again = act(again, second, "roll")
    assert game_of(again)["phase"] == "move" and game_of(again)["turn"] == second.username


def test_t4_the_bear_off_setting_in_the_api(alice):
    mine = client_for(alice.user)
    assert ok(mine.get("/api/play-settings/"))["auto_bear_off"] is False
    changed = ok(mine.put("/api/play-settings/", {"auto_bear_off": True}, format="json"))
    assert changed["auto_bear_off"] is True and changed["auto_roll"] is False
    assert PlaySettings.objects.get(player=alice).auto_bear_off
    refused = mine.put("/api/play-settings/", {"auto_bear_off": "often"}, format="json")
    assert refused.status_code == 400 and set(refused.json()) >= {"error", "detail"}


def test_t4_the_bear_off_setting_on_the_settings_page(logged_in, alice):
    client = logged_in(alice)
    page = client.get("/play/settings/").content.decode()
    assert 'name="auto_bear_off"' in page
    response = client.post("/play/settings/", {"auto_bear_off": "on", "home_board": "right"})
    assert response.status_code == 302
    assert PlaySettings.objects.get(player=alice).auto_bear_off
