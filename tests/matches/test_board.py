"""The board drawn as SVG (matches/board.py): what each point, the bar, the trays, the dice
and the cube show, from either side, with the home board on either side (B1, B4), and
the tavli boards (plakoto's pins, fevga's starts, acey-deucey's waiting checkers)."""

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from backgammon.game import Game, GameOptions, Opening
from backgammon.position import Position, board_from_points
from backgammon.tavli.rules import ACEY_DEUCEY, FEVGA, PLAKOTO
from backgammon.variants import Variants
from matches.board import (
    HEIGHT,
    ME,
    THEM,
    WIDTH,
    board_svg,
    can_confirm,
    landing_steps,
    picture_for,
    picture_from_position,
    picture_from_tavli,
    point_x,
)
from tests.backgammon.tavli_helpers import diagram

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def group(root: ET.Element, point: int) -> ET.Element:
    (found,) = [g for g in root.iter(f"{SVG}g") if g.get("data-point") == str(point)]
    return found


def checkers(element: ET.Element, side: int) -> list[ET.Element]:
    return [c for c in element.iter(f"{SVG}circle") if f"side-{side}" in c.get("class", "")]


def title(element: ET.Element) -> str:
    return element.find(f"{SVG}title").text


def opening_game() -> Game:
    """Side 0 to play a 3-1 from the start."""
    return Game.start(GameOptions(), [(3, 1)])


def test_b2_start_position_every_checker_on_its_point_from_side_0():
    root = parse(board_svg(picture_for(opening_game(), 0)))
    mine = {24: 2, 13: 5, 8: 3, 6: 5}
    theirs = {1: 2, 12: 5, 17: 3, 19: 5}  # the opponent's 24, 13, 8, 6 (B1: 25 - p)
    for point in range(1, 25):
        g = group(root, point)
        assert len(checkers(g, 0)) == mine.get(point, 0), point
        assert len(checkers(g, 1)) == min(theirs.get(point, 0), 5), point
        assert g.get("data-mine") == str(mine.get(point, 0))


def test_b1_the_other_side_sees_its_own_numbering_and_colours():
    root = parse(board_svg(picture_for(opening_game(), 1)))
    # Side 1's checkers (dark) are now the viewer's, on its own 24, 13, 8 and 6.
    assert len(checkers(group(root, 6), 1)) == 5
    assert group(root, 6).get("data-mine") == "5"
    assert len(checkers(group(root, 19), 0)) == 5
    assert group(root, 19).get("data-mine") == "0"


@pytest.mark.parametrize("home", ["right", "left"])
def test_b4_home_board_bottom_right_or_left(home):
    xs = {point: point_x(point, home) for point in range(1, 25)}
    home_points = [xs[p] for p in range(1, 7)]
    if home == "right":
        assert xs[1] == max(xs.values()) and xs[12] == min(xs.values())
        assert home_points == sorted(home_points, reverse=True)  # 1 at the right edge
    else:
        assert xs[1] == min(xs.values()) and xs[12] == max(xs.values())
        assert home_points == sorted(home_points)
    assert xs[24] == xs[1] and xs[13] == xs[12]  # 24 faces 1 across the board
    root = parse(board_svg(picture_for(opening_game(), 0), home=home))
    point_1 = group(root, 1).find(f"{SVG}polygon").get("points").split()
    ys = [float(corner.split(",")[1]) for corner in point_1]
    assert max(ys) > HEIGHT / 2  # 1..12 along the bottom
    tray = group(root, 0).find(f"{SVG}rect")
    assert (float(tray.get("x")) > WIDTH / 2) == (home == "right")  # trays on the home side
    assert f"home-{home}" in root.get("class")


def test_a_high_stack_shows_five_checkers_and_the_count():
    board = board_from_points({6: 9, 5: 6})
    picture = picture_from_position(Position(board, board_from_points({24: 15})))
    root = parse(board_svg(picture))
    six = group(root, 6)
    assert len(checkers(six, 0)) == 5
    assert [t.text for t in six.iter(f"{SVG}text") if t.get("class") == "count"] == ["9"]
    assert title(six) == "Point 6: 9 checkers of you"


def test_pip_counts_bar_and_trays():
    mine = board_from_points({6: 2, 25: 1})  # 12 off, one on the bar
    theirs = board_from_points({24: 14})
    picture = picture_from_position(Position(mine, theirs))
    assert picture.pips == (2 * 6 + 25, 14 * 24)
    assert picture.bar == (1, 0) and picture.off == (12, 1)
    svg = board_svg(picture, names=("alice", "bob"))
    root = parse(svg)
    pips = [t for t in root.iter(f"{SVG}text") if t.get("class") == "pips"]
    assert {t.find(f"{SVG}title").tail for t in pips} == {"37", "336"}
    assert {title(t) for t in pips} == {"Pip count of alice: 37", "Pip count of bob: 336"}
    assert title(group(root, 25)) == "The bar: 1 of alice, 0 of bob"
    assert len(checkers(group(root, 25), 0)) == 1
    tray = group(root, 0)
    assert len([r for r in tray.iter(f"{SVG}rect") if "side-0" in r.get("class", "")]) == 12
    assert len([r for r in tray.iter(f"{SVG}rect") if "side-1" in r.get("class", "")]) == 1
    assert "Borne off: 12 of alice, 1 of bob" == title(tray)
    assert "alice 37 pips, bob 336 pips" in root.get("aria-label")


def dice_of(root: ET.Element) -> list[tuple[str, bool]]:
    return [
        (g.get("data-die"), "used" in g.get("class"))
        for g in root.iter(f"{SVG}g")
        if g.get("data-die")
    ]


def test_t3_dice_shown_while_played_the_used_one_faded():
    game = opening_game()
    assert dice_of(parse(board_svg(picture_for(game, 0)))) == [("3", False), ("1", False)]
    stepped = game.move_step(8, 3)
    root = parse(board_svg(picture_for(stepped, 0)))
    assert dice_of(root) == [("3", True), ("1", False)]
    # The unconfirmed step is on the board already.
    assert group(root, 5).get("data-mine") == "1" and group(root, 8).get("data-mine") == "2"
    # The opponent sees the same dice, in the roller's half of the field.
    assert dice_of(parse(board_svg(picture_for(stepped, 1)))) == [("3", True), ("1", False)]


def test_m1_a_double_shows_four_dice():
    game = opening_game().play("8/5 6/5").roll((4, 4)).move_step(13, 4)
    assert dice_of(parse(board_svg(picture_for(game, 1)))) == [
        ("4", True),
        ("4", False),
        ("4", False),
        ("4", False),
    ]
    assert dice_of(parse(board_svg(picture_for(game.undo(), 1)))) == [("4", False)] * 4


def cube_of(root: ET.Element) -> tuple[str, str, float]:
    (cube,) = [g for g in root.iter(f"{SVG}g") if "cube" in g.get("class", "").split()]
    face = cube.find(f"{SVG}text").text
    return title(cube), face, float(cube.find(f"{SVG}rect").get("y"))


def test_c1_c4_the_cube_centred_offered_then_owned_by_the_taker():
    game = opening_game().play("8/5 6/5")
    text, face, y = cube_of(parse(board_svg(picture_for(game, 1))))
    assert face == "64" and text == "The cube in the centre, at 1"
    assert y < HEIGHT / 2 < y + 32
    offered = game.double()
    text, face, _ = cube_of(parse(board_svg(picture_for(offered, 0))))
    assert face == "2" and text == "Doubled to 2, waiting for an answer"
    taken = offered.take()
    assert picture_for(taken, 0).cube.owner == ME and picture_for(taken, 1).cube.owner == THEM
    _, face, y_taker = cube_of(parse(board_svg(picture_for(taken, 0), names=("bob", "alice"))))
    _, _, y_doubler = cube_of(parse(board_svg(picture_for(taken, 1))))
    assert face == "2" and y_taker > HEIGHT / 2 > y_doubler  # at its owner's end


def test_titles_name_the_players_and_escape_them():
    svg = board_svg(picture_for(opening_game(), 0), names=("<b>al</b>", "bob & co"))
    root = parse(svg)
    assert title(group(root, 24)) == "Point 24: 2 checkers of <b>al</b>"
    assert title(group(root, 19)) == "Point 19: 5 checkers of bob & co"
    assert title(group(root, 2)) == "Point 2: empty"
    assert "<b>" not in svg


def test_every_point_has_a_title_and_a_target_to_click():
    root = parse(board_svg(picture_for(opening_game(), 0)))
    for point in range(0, 26):
        g = group(root, point)
        assert title(g)
        assert g.find(f"{SVG}rect").get("class") == "hit"


def test_pl3_a_pinned_checker_lies_under_its_pinner():
    board = diagram(
        PLAKOTO,
        """
        X: 13 .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  .  .  .  .  .  .
        O: .  .  .  .  .  .  .  .  .  .  .  .  1p .  .  .  .  .  .  .  .  .  .  14
        """,
    )
    root = parse(board_svg(picture_from_tavli(board, PLAKOTO), names=("x", "o")))
    twelve = group(root, 12)
    circles = list(twelve.iter(f"{SVG}circle"))
    assert [c.get("class") for c in circles] == [
        "checker side-1 pinned",
        "checker side-0",
        "checker side-0",
    ]
    assert title(twelve) == "Point 12: 2 of x, pinning one of o"


def test_fv1_fevga_starts_on_opposite_corners():
    game = Game.start(GameOptions(variant=Variants.FEVGA.value), [(5, 2)])
    picture = picture_for(game, 0)
    assert picture.stacks[23] == (ME,) * 15  # my 24, top right
    assert picture.stacks[11] == (THEM,) * 15  # their 24 is my 12: bottom left
    assert picture.cube is None  # TV1: no cube
    assert point_x(24, "right") > point_x(12, "right")
    assert picture_from_tavli(FEVGA.start_board(), FEVGA).stacks == picture.stacks


def test_ad1_acey_deucey_checkers_wait_beside_the_board():
    picture = picture_from_tavli(ACEY_DEUCEY.start_board(), ACEY_DEUCEY)
    assert picture.waiting == (15, 15) and all(not stack for stack in picture.stacks)
    root = parse(board_svg(picture, names=("x", "o")))
    waiting = [g for g in root.iter(f"{SVG}g") if g.get("class") == "waiting"]
    assert sorted(title(g) for g in waiting) == [
        "Waiting to enter: 15 of o",
        "Waiting to enter: 15 of x",
    ]
    assert picture.pips == (15 * 25, 15 * 25)


def test_the_opening_of_a_tavli_game_waits_for_a_roll_without_dice():
    game = Game.start(GameOptions(variant=Variants.PLAKOTO.value), Opening.winner_starts(0))
    assert picture_for(game, 0).dice == ()
    assert dice_of(parse(board_svg(picture_for(game.roll((6, 5)), 0)))) == [
        ("6", False),
        ("5", False),
    ]


def test_t3_m5_landing_steps_lead_only_to_legal_plays():
    game = opening_game()  # 3-1 from the start
    steps = landing_steps(game)
    assert steps[8] == {5: 3, 7: 1} and steps[6] == {3: 3, 5: 1} and steps[24] == {21: 3, 23: 1}
    assert 25 not in steps and 2 not in steps
    after = game.move_step(8, 3)
    assert landing_steps(after)[6] == {5: 1} and not can_confirm(game) and not can_confirm(after)
    assert can_confirm(after.move_step(6, 1))
    assert landing_steps(after.move_step(6, 1).confirm()) == {}  # the other side rolls now


def test_e1_f4_from_the_bar_first_and_bearing_off_with_the_smallest_die():
    on_bar = Position(board_from_points({25: 1, 6: 14}), board_from_points({24: 15}))
    game = Game.start(GameOptions(), [(5, 3)])
    assert set(landing_steps(dataclasses.replace(game, board=on_bar))) == {25}
    home = Position(board_from_points({2: 1, 1: 1}), board_from_points({24: 15}))
    # Both dice bear off from 2; from 1 only once 2 is empty (F4).
    assert landing_steps(dataclasses.replace(game, board=home)) == {2: {0: 3}}
