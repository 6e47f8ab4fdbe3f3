"""The tavli games on the play pages (issue 11 item 5): the lobby offers every game and
the tavli match, the board page names the game, gives no gnubg IDs or .mat link, lets a
step be clicked in any game (pinned checkers excepted, waiting checkers entering) and
asks for acey-deucey's double after a 1-2."""

import dataclasses

import pytest

from backgammon.game import Game, GameOptions, Opening
from backgammon.tavli.rules import ACEY_DEUCEY, PLAKOTO
from backgammon.variants import Variants
from matches import board, selectors, services
from matches.models import Match
from tests.backgammon.tavli_helpers import diagram
from tests.matches.conftest import act, on_turn, start
from tests.matches.test_pages import table_state

pytestmark = pytest.mark.django_db


def tavli_game(rules, text: str | None = None) -> Game:
    game = Game.start(GameOptions(variant=Variants.by_name(rules.name)), Opening.winner_starts(0))
    if text is not None:
        game = dataclasses.replace(game, board=diagram(rules, text))
    return game


def test_pl3_a_pinned_checker_offers_no_step_to_click():
    game = tavli_game(
        PLAKOTO,
        """
        X: 14 .  .  .  .  .  1p .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
        O: .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14
        """,
    ).roll((3, 1))
    assert board.landing_steps(game) == {24: {21: 3, 23: 1}}


def test_ad1_waiting_checkers_enter_by_a_click():
    game = tavli_game(ACEY_DEUCEY).roll((5, 3))
    assert board.landing_steps(game) == {25: {20: 5, 22: 3}}
    svg = board.board_svg(board.picture_for(game, 0), names=("x", "o"))
    assert '<g class="waiting" data-point="25" data-mine="15">' in svg
    assert svg.count('class="waiting"') == 2  # the opponent's waiting: not clickable
    after = game.move_step(25, 5)
    assert board.landing_steps(after) == {25: {22: 3}, 20: {17: 3}}


def test_the_lobby_offers_every_game_and_the_tavli_matches(logged_in, alice, bob):
    client = logged_in(alice)
    lobby = client.get("/play/").content.decode()
    for value in ("plakoto", "fevga", "gulbara", "acey-deucey", "tavli:greek", "tavli:bulgarian"):
        assert f'value="{value}"' in lobby
    client.post("/play/", {"opponent": "bob", "length": 3, "clock": "none", "game": "fevga"})
    client.post(
        "/play/", {"opponent": "bob", "length": 5, "clock": "none", "game": "tavli:bulgarian"}
    )
    fevga, tavli = Match.objects.order_by("pk")
    assert selectors.match_state(fevga).options.variant.name == "fevga"
    assert selectors.match_state(tavli).tavli == "bulgarian"
    client.post(
        "/play/",
        {"opponent": "bob", "length": 3, "clock": "none", "game": "plakoto", "rated": "on"},
    )
    plakoto = Match.objects.order_by("pk").last()
    assert plakoto is not None and plakoto.rated  # a tavli rating exists (docs/ratings.md)
    assert selectors.match_rating_kind(plakoto) == "tavli"
    assert not fevga.rated and selectors.match_rating_kind(fevga) == "tavli"


def test_the_board_page_of_a_tavli_match(logged_in, alice, bob):
    match = start(alice, bob, tavli="greek", rated=False)
    player = on_turn(match, alice, bob)
    match = act(match, player, "roll")
    page = logged_in(player).get(f"/play/{match.pk}/").content.decode()
    assert "Tavli, Greek: portes, plakoto, fevga in turn · now Portes" in page
    assert "export.mat" not in page and "Position ID" not in page
    assert table_state(page)["steps"]  # the roll's steps can be clicked
    assert 'name="play"' in page


def test_tv1_a_tavli_board_offers_no_double(logged_in, alice, bob):
    match = start(alice, bob, options={"variant": "plakoto"}, rated=False)
    player = on_turn(match, alice, bob)
    page = logged_in(player).get(f"/play/{match.pk}/").content.decode()
    assert 'data-act="roll"' in page and 'data-act="double"' not in page
    backgammon = start(alice, bob)  # the opening roll is played: then the other is on roll
    mover = on_turn(backgammon, alice, bob)
    plays = selectors.match_detail(backgammon)["game"]["legal_plays"]
    backgammon = act(backgammon, mover, "move", play=plays[0])
    roller = on_turn(backgammon, alice, bob)
    page = logged_in(roller).get(f"/play/{backgammon.pk}/").content.decode()
    assert 'data-act="roll"' in page and 'data-act="double"' in page


def test_ad4_the_page_asks_for_the_double_after_a_1_2(logged_in, alice, bob, monkeypatch):
    # Fixed dice (the server's seed and a player's): fresh ones now and then rolled no 1-2
    # in 200 actions.
    monkeypatch.setattr(services.core_dice, "new_server_seed", lambda: bytes(range(32)))
    match = start(alice, bob, options={"variant": "acey-deucey"}, rated=False, seed="ad4")
    for _turn in range(200):
        player = on_turn(match, alice, bob)
        detail = selectors.match_detail(match)["game"]
        if detail["awaiting_double"]:
            break
        if detail["phase"] == "roll":
            match = act(match, player, "roll")
        else:
            plays = detail["legal_plays"]
            match = act(match, player, "move", play=plays[0] if plays else "")
    else:
        pytest.fail("no 1-2 in 200 actions")
    page = logged_in(player).get(f"/play/{match.pk}/").content.decode()
    assert 'data-act="name_double"' in page and '<option value="6">6-6</option>' in page
    match = act(match, player, "name_double", die=6)
    assert not selectors.match_detail(match)["game"]["awaiting_double"]
