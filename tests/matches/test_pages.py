"""The play pages: the lobby (invite, open challenges, accept, decline, my matches, live
matches), the board page and its fragment (players and watchers), the play settings
(T4, B4)."""

import json
import re
from decimal import Decimal

import pytest

from matches import services
from matches.models import Match, PlaySettings
from tests.matches.conftest import act, game_of, on_turn, start

pytestmark = pytest.mark.django_db


def table_state(html: str) -> dict:
    found = re.search(r'<script id="table-state" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1))


def test_the_lobby_needs_a_member(client):
    response = client.get("/play/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_inviting_a_player_and_the_invitation_in_their_lobby(logged_in, alice, bob):
    response = logged_in(alice).post(
        "/play/", {"opponent": "bob", "length": 5, "rated": "on", "clock": "blitz"}
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert (match.creator, match.opponent, match.length, match.rated) == (alice, bob, 5, True)
    assert match.clock == "blitz" and match.status == Match.Status.INVITED
    page = logged_in(bob).get("/play/").content.decode()
    invitations = page.split('id="invitations"')[1].split("</section>")[0]
    assert "alice" in invitations and f"/play/{match.pk}/accept/" in invitations
    assert "blitz" in invitations


def test_a_refused_match_says_why_and_creates_nothing(logged_in, alice):
    response = logged_in(alice).post("/play/", {"opponent": "nobody", "length": 5, "clock": "none"})
    assert response.status_code == 200 and not Match.objects.exists()
    assert "nobody" in response.content.decode()
    response = logged_in(alice).post("/play/", {"opponent": "", "length": 0, "clock": "none"})
    assert (
        response.status_code == 200 and not Match.objects.exists()
    )  # a money session needs a stake
    assert 'class="error"' in response.content.decode()


def test_an_open_challenge_is_accepted_by_any_member_and_opens_the_board(
    logged_in, alice, bob, carol
):
    logged_in(alice).post("/play/", {"opponent": "", "length": 3, "clock": "none"})
    match = Match.objects.get()
    assert match.opponent is None
    lobby = logged_in(carol).get("/play/").content.decode()
    assert f"/play/{match.pk}/accept/" in lobby.split('id="challenges"')[1]
    response = logged_in(carol).post(f"/play/{match.pk}/accept/")
    assert response.status_code == 302 and response["Location"] == f"/play/{match.pk}/"
    match.refresh_from_db()
    assert match.opponent == carol and match.status == Match.Status.PLAYING


def test_declining_and_withdrawing(logged_in, alice, bob):
    invited = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=3)
    )
    logged_in(bob).post(f"/play/{invited.pk}/decline/")
    invited.refresh_from_db()
    assert invited.status == Match.Status.DECLINED
    mine = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=3)
    )
    logged_in(alice).post(f"/play/{mine.pk}/decline/")
    mine.refresh_from_db()
    assert mine.status == Match.Status.DECLINED


def test_accepting_someone_elses_invitation_is_refused_with_a_message(logged_in, alice, bob, carol):
    invited = services.match_create(
        creator=alice, opponent=bob, options=services.MatchOptions(length=3)
    )
    response = logged_in(carol).post(f"/play/{invited.pk}/accept/", follow=True)
    invited.refresh_from_db()
    assert invited.status == Match.Status.INVITED
    assert 'class="error"' in response.content.decode()


def test_the_board_page_for_the_player_on_turn(logged_in, alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    page = logged_in(player).get(f"/play/{match.pk}/").content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="board scale-to-fit' in page
    state = table_state(page)
    game = game_of(match)
    assert state["my_turn"] and state["phase"] == "move" and state["turn_no"] == game["turn_no"]
    assert state["topic"] == f"table:{match.table_id}" and state["version"] == match.table.version
    assert state["steps"]  # the opening roll can be played: landing points to show
    assert game["position_id"] in page and game["match_id"] in page
    assert match.commitment in page and "/play/dice/" in page
    assert f"/api/matches/{match.pk}/export.mat" in page
    assert 'name="play"' in page and 'data-act="resign"' in page
    for play in game["legal_plays"]:
        assert f'<option value="{play}">' in page


def test_a_watcher_sees_the_board_read_only(logged_in, alice, bob, carol):
    match = start(alice, bob)
    page = logged_in(carol).get(f"/play/{match.pk}/").content.decode()
    state = table_state(page)
    assert not state["my_turn"] and state["steps"] == {}
    assert "data-act=" not in page.split('id="controls"')[1].split("</div>")[0]
    assert "You are watching" in page and "<svg" in page


def test_the_fragment_follows_the_table_after_a_move(logged_in, alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    other = bob if player == alice else alice
    client = logged_in(other)
    before = table_state(client.get(f"/play/{match.pk}/table/").content.decode())
    match = act(match, player, "move", play=game_of(match)["legal_plays"][0])
    response = client.get(f"/play/{match.pk}/table/")
    assert response["Cache-Control"].startswith("max-age=0")
    after = table_state(response.content.decode())
    assert after["version"] > before["version"] and after["my_turn"]
    assert after["phase"] == "roll" and 'data-act="roll"' in response.content.decode()


def test_an_unknown_match_is_404(logged_in, alice):
    assert logged_in(alice).get("/play/999999/").status_code == 404
    assert logged_in(alice).get("/play/999999/table/").status_code == 404


def test_t4_b4_play_settings_saved_and_the_board_drawn_from_the_left(logged_in, alice, bob):
    client = logged_in(alice)
    assert client.get("/play/settings/").status_code == 200
    response = client.post(
        "/play/settings/", {"auto_roll": "on", "home_board": "left", "switch_sides": ""}
    )
    assert response.status_code == 302
    settings = PlaySettings.objects.get(player=alice)
    assert settings.auto_roll and not settings.auto_play_forced and settings.home_board == "left"
    match = start(alice, bob)
    assert "home-left" in client.get(f"/play/{match.pk}/").content.decode()
    assert "home-right" in logged_in(bob).get(f"/play/{match.pk}/").content.decode()


def test_the_lobby_lists_my_matches_and_those_being_played(logged_in, alice, bob, carol):
    ours = start(alice, bob)
    theirs = start(bob, carol)
    page = logged_in(alice).get("/play/").content.decode()
    mine = page.split('id="my-matches"')[1].split("</section>")[0]
    live = page.split('id="live"')[1].split("</section>")[0]
    assert f"/play/{ours.pk}/" in mine and f"/play/{theirs.pk}/" not in mine
    assert f"/play/{ours.pk}/" in live and f"/play/{theirs.pk}/" in live


def test_the_lobby_is_in_the_site_navigation(logged_in, alice):
    page = logged_in(alice).get("/").content.decode()
    assert 'href="/play/"' in page.split("<nav")[1].split("</nav>")[0]


def test_between_the_games_of_a_money_session_next_game_or_stop(logged_in, alice, bob, carol):

    session = start(alice, bob, length=0, rated=False, stake=Decimal("1.00"))
    player = on_turn(session, alice, bob)
    session = act(session, player, "resign", value="single")
    session = act(session, bob if player == alice else alice, "accept_resign")
    assert game_of(session)["phase"] == "over"
    page = logged_in(alice).get(f"/play/{session.pk}/").content.decode()
    assert 'data-act="continue"' in page and 'data-act="stop"' in page
    assert "Waiting for" not in page
    watched = logged_in(carol).get(f"/play/{session.pk}/").content.decode()
    assert "The game is over." in watched and 'data-act="continue"' not in watched
    # The buttons are the API's: the next game starts through it.
    api_client = logged_in(alice)
    turn_no = table_state(page)["turn_no"]
    response = api_client.post(
        f"/api/matches/{session.pk}/continue/",
        {"turn_no": turn_no},
        content_type="application/json",
    )
    assert response.status_code == 200 and response.json()["game"]["phase"] in ("move", "roll")


def test_a_money_session_from_the_lobby_s_default_form_is_unrated(logged_in, alice):
    """'Rated' is ticked by default; a money session (0 points) sent with it is opened
    unrated, not refused, and the form says so."""
    client = logged_in(alice)
    page = client.get("/play/").content.decode()
    rated = re.search(r'<input type="checkbox" name="rated"[^>]*>', page)
    assert rated is not None and "checked" in rated.group(0)
    assert "A money session (0 points) is never rated, ticked or not." in page
    defaults = {"opponent": "", "game": "standard", "rated": "on", "clock": "none"}
    response = client.post("/play/", {**defaults, "length": 0, "stake": "1.00"}, follow=True)
    assert response.redirect_chain == [("/play/", 302)]
    assert "Your open challenge is in the lobby." in response.content.decode()
    match = Match.objects.get()
    assert (match.length, match.rated, match.stake) == (0, False, Decimal("1.00"))


def test_a_match_to_points_keeps_the_rated_box_as_ticked(logged_in, alice):
    client = logged_in(alice)
    client.post("/play/", {"opponent": "", "length": 3, "clock": "none", "rated": "on"})
    client.post("/play/", {"opponent": "", "length": 5, "clock": "none"})
    assert list(Match.objects.order_by("length").values_list("length", "rated")) == [
        (3, True),
        (5, False),
    ]


def test_the_lobby_s_rated_box_comes_before_its_label(logged_in, alice):
    page = logged_in(alice).get("/play/").content.decode()
    assert re.search(
        r'<label class="check"><input type="checkbox" name="rated"[^>]*> Rated</label>', page
    )
