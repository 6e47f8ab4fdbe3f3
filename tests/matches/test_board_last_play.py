"""The last play marked on the board (issue 22): where its checkers left and landed, in
each viewer's numbering (B1), and its dice, greyed, until the next roll."""

import xml.etree.ElementTree as ET

import pytest

from backgammon.game import Game, GameOptions, NoMove, action_to_dict
from backgammon.moves import Step
from matches import selectors
from matches.board import board_svg, last_play_marks, picture_for
from matches.demo import play_on
from matches.models import Action
from matches.selectors import LastPlay
from tests.matches.conftest import act, game_of, on_turn, start

SVG = "{http://www.w3.org/2000/svg}"


def marks(svg: str) -> tuple[set[int], set[int]]:
    """The points marked as the last play's origins and landings."""
    groups = [g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("data-point")]
    left = {int(g.get("data-point")) for g in groups if "last-from" in g.get("class")}
    landed = {int(g.get("data-point")) for g in groups if "last-to" in g.get("class")}
    return left, landed


def board_of(page: str) -> str:
    """The board's SVG on a page."""
    begin = page.index('<svg xmlns="http://www.w3.org/2000/svg" class="board')
    return page[begin : page.index("</svg>", begin) + 6]


def dice_of(svg: str) -> list[tuple[str, bool, str]]:
    """Each die drawn: its face, whether greyed as used, and its colour."""
    root = ET.fromstring(svg)
    return [
        (g.get("data-die"), "used" in g.get("class"), g.find(f"{SVG}rect").get("fill"))
        for g in root.iter(f"{SVG}g")
        if g.get("data-die")
    ]


def test_b1_the_last_play_marked_in_each_viewers_numbering():
    """Side 0 played 8/5 6/5 with 3-1: side 0 sees 8 and 6 left, 5 landed; side 1 sees
    the same points by its own numbers (25 - p): 17 and 19 left, 20 landed."""
    game = Game.start(GameOptions(), [(3, 1)])
    played = LastPlay(0, (Step(8, 5, False), Step(6, 5, False)), (3, 1))
    after = game.play("8/5 6/5")
    assert marks(board_svg(picture_for(after, 0, last_play=played))) == ({8, 6}, {5})
    assert marks(board_svg(picture_for(after, 1, last_play=played))) == ({17, 19}, {20})
    # No play yet, no mark.
    assert marks(board_svg(picture_for(game, 0))) == (set(), set())


def test_the_last_plays_dice_greyed_in_the_movers_colour_until_the_next_roll():
    game = Game.start(GameOptions(), [(3, 1)])
    after = game.play("8/5 6/5")  # side 1 to roll: no dice of its own yet
    played = LastPlay(0, (Step(8, 5, False), Step(6, 5, False)), (3, 1))
    for viewer in (0, 1):
        dice = dice_of(board_svg(picture_for(after, viewer, last_play=played)))
        assert dice == [("3", True, "#f4efe6"), ("1", True, "#f4efe6")]
    rolled = after.roll((6, 5))  # the new roll replaces them
    dice = dice_of(board_svg(picture_for(rolled, 0, last_play=played)))
    assert dice == [("6", False, "#2b2b2b"), ("5", False, "#2b2b2b")]


def test_a_point_passed_through_is_neither_left_nor_landed():
    steps = (Step(24, 21, False), Step(21, 20, False))
    assert last_play_marks(steps, mover=0, viewer=0) == ({24}, {20})
    # From the bar (25) and to the tray (0) keep their places on the board.
    entering = (Step(25, 22, True), Step(3, 0, False))
    assert last_play_marks(entering, mover=1, viewer=0) == ({25, 22}, {3, 0})


@pytest.mark.django_db
def test_t3_a_play_made_step_by_step_is_marked_once_confirmed(logged_in, alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    other = bob if player == alice else alice
    dice = game_of(match)["dice"]
    match = act(match, player, "move_step", origin=8, die=dice[0])
    assert selectors.last_play(match.table) is None  # not confirmed yet
    match = act(match, player, "undo")
    # From the 8 every die lands on an open point (the 13's 1 is the opponent's 13).
    match = act(match, player, "move_step", origin=8, die=dice[0])
    match = act(match, player, "move_step", origin=8, die=dice[1])
    match = act(match, player, "confirm")
    landed = {8 - dice[0], 8 - dice[1]}
    side = 0 if player == match.creator else 1
    assert selectors.last_play(match.table) == LastPlay(
        side, (Step(8, 8 - dice[0], False), Step(8, 8 - dice[1], False)), tuple(dice)
    )
    # Each player's page marks it by their own numbers.
    mine = logged_in(player).get(f"/play/{match.pk}/").content.decode()
    assert marks(board_of(mine)) == ({8}, landed)
    theirs = logged_in(other).get(f"/play/{match.pk}/").content.decode()
    assert marks(board_of(theirs)) == ({17}, {25 - point for point in landed})


def test_a_roll_that_could_not_be_played_is_passed_over(alice, bob):
    """The log records a roll that could not be played (a dance) as a NoMove after the
    Roll: not an action to apply, so the last play is the one before it (the board page
    once failed on it)."""
    match = play_on(start(alice, bob, length=3), actions=1)  # the opening play
    before = selectors.last_play(match.table)
    assert before is not None
    table = match.table
    last = Action.objects.filter(table=table, game_number=table.game_number).latest("seq")
    Action.objects.create(
        table=table,
        game_number=table.game_number,
        seq=last.seq + 1,
        turn_no=last.turn_no,
        kind="no_move",
        payload=action_to_dict(NoMove()),
        at=last.at,
    )
    assert selectors.last_play(table) == before
