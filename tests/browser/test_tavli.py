"""A fevga and a plakoto board in a real browser (issue 11 item 5), on a phone and on a
laptop: fevga's two starts on opposite corners and both sides running the same way round
the board, a pinned plakoto checker drawn under its pinner, and move entry by clicking
for both players, each in a browser context of their own, each seeing the other's turn
arrive without reloading; the database checked after each turn."""

import pytest
from playwright.sync_api import expect

from backgammon.notation import format_play
from matches import selectors
from matches.models import Action
from tests.browser.test_play import NOT_RELOADED, acted, open_board, seen_within, shoot, state_of
from tests.matches.conftest import act, game_of, on_turn, start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["open_board", "shoot"]  # the fixtures test_play.py defines, used here too

# Each point of the board as the page draws it: the viewer's own point number, how many
# checkers of each side it shows, whether the first is drawn pinned, and where it is.
POINTS = """(side) => [...document.querySelectorAll('svg.board g.point')].map(g => {
  const box = g.querySelector('rect.hit').getBoundingClientRect();
  const circles = [...g.querySelectorAll('circle.checker')];
  return {
    point: Number(g.dataset.point),
    mine: circles.filter(c => c.classList.contains('side-' + side)).length,
    theirs: circles.filter(c => c.classList.contains('side-' + (1 - side))).length,
    title: g.querySelector('title').textContent,
    x: box.x + box.width / 2,
    y: box.y + box.height / 2,
  };
})"""


@pytest.fixture
def players(make_player):
    return make_player("alice"), make_player("bob")


def points_of(page, side):
    return {row["point"]: row for row in page.evaluate(POINTS, side)}


def board_box(page):
    return page.locator("svg.board").bounding_box()


def play_a_turn_by_clicking(page):
    """Roll with the button, then click each step's checker and its landing point until
    the play can be confirmed, and confirm it; the page's version after the turn."""
    version = state_of(page)["version"]
    page.get_by_role("button", name="Roll").click()
    version = acted(page, version)
    confirm = page.get_by_role("button", name="Confirm the play")
    while state_of(page)["my_turn"] and not confirm.is_visible():
        state = state_of(page)
        origin, landings = next(iter(state["steps"].items()))
        page.locator(f'svg.board [data-point="{origin}"]').click()
        page.locator(f'svg.board [data-point="{next(iter(landings))}"]').click()
        version = acted(page, state["version"])
    if confirm.is_visible():
        confirm.click()
        version = acted(page, version)
    return version


def turns_clicked(match):
    """The turns confirmed after being played step by step (clicks), as the log has them."""
    return Action.objects.filter(table=match.table, kind="confirm").count()


def facing(point):
    """FV1: a point of one side's numbering as the other side numbers it in fevga."""
    return (point + 11) % 24 + 1


def assert_seen_turned_half_round(mover_page, mover_side, other_page, other_side):
    """Both sides run the same way round: the mover's checkers, seen on the other's
    board, stand on the facing points, where the mover's own board turned half a turn
    about its centre puts them."""
    mine, theirs = points_of(mover_page, mover_side), points_of(other_page, other_side)
    box_a, box_b = board_box(mover_page), board_box(other_page)
    centre_a = (box_a["x"] + box_a["width"] / 2, box_a["y"] + box_a["height"] / 2)
    centre_b = (box_b["x"] + box_b["width"] / 2, box_b["y"] + box_b["height"] / 2)
    scale = box_b["width"] / box_a["width"]
    for point, row in mine.items():
        seen = theirs[facing(point)]
        assert seen["theirs"] == row["mine"], (point, row, seen)
        for axis, (a, b) in enumerate(((row["x"], seen["x"]), (row["y"], seen["y"]))):
            turned = centre_b[axis] - (a - centre_a[axis]) * scale
            assert abs(turned - b) < 2, (point, axis, turned, b)


def assert_ran_anticlockwise(page, side):
    """The side's checkers that left its 24 (top right) went left along the top, then
    right along the bottom: anticlockwise, as the other side's do."""
    points = points_of(page, side)
    start = points[24]
    moved = [p for p, row in points.items() if row["mine"] and p != 24]
    assert moved
    for point in moved:
        row = points[point]
        if point >= 13:
            assert row["x"] < start["x"] and abs(row["y"] - start["y"]) < 1
        else:
            assert row["y"] > start["y"]


def test_fv1_fevga_starts_on_opposite_corners_and_both_sides_run_the_same_way(
    open_board, players, device, shoot
):
    alice, bob = players
    match = start(alice, bob, length=1, rated=False, options={"variant": "fevga"})
    first = on_turn(match, alice, bob)
    second = bob if first == alice else alice
    side = {first: selectors.players(match).index(first.username)}
    side[second] = 1 - side[first]
    mover, other = open_board(first.username, match), open_board(second.username, match)

    for page, player in ((mover, first), (other, second)):
        box, points = board_box(page), points_of(page, side[player])
        mine, theirs = points[24], points[12]  # FV1: the opponent's 24 faces my 12
        assert mine["mine"] >= 1 and "15 checkers of" in mine["title"]
        assert theirs["theirs"] >= 1 and "15 checkers of" in theirs["title"]
        assert abs(mine["x"] - theirs["x"]) > box["width"] / 2  # opposite corners
        assert abs(mine["y"] - theirs["y"]) > box["height"] / 3
        expect(
            page.locator('svg.board g.point[data-point="24"] circle.checker').first
        ).to_be_visible()
    shoot(mover, "tavli-fevga-start")

    # The first player's turn, by clicking; the other sees it arrive.
    version = play_a_turn_by_clicking(mover)
    assert seen_within([other], version, 2.0) < 2.0
    assert_ran_anticlockwise(mover, side[first])
    assert_seen_turned_half_round(mover, side[first], other, side[second])
    match.refresh_from_db()
    assert game_of(match)["turn"] == second.username and turns_clicked(match) == 1

    # The second player's turn, by clicking: the same way round on their own board.
    version = play_a_turn_by_clicking(other)
    assert seen_within([mover], version, 2.0) < 2.0
    assert_ran_anticlockwise(other, side[second])
    assert_seen_turned_half_round(other, side[second], mover, side[first])
    assert mover.evaluate(NOT_RELOADED) and other.evaluate(NOT_RELOADED)
    match.refresh_from_db()
    assert game_of(match)["turn"] == first.username and turns_clicked(match) == 2
    board = selectors.match_detail(match)["game"]["board"]
    assert board["mine"][24] < 15 and board["opponent"][24] < 15  # both have left home
    shoot(other, "tavli-fevga-after-two-turns")


def play_until_pinned(match, alice, bob):
    """Play plakoto through the services, pinning whenever a play can, until a checker
    is pinned and the side to act must roll."""
    for _action in range(600):
        detail = game_of(match)
        if detail["board"]["pins"] and detail["phase"] == "roll":
            return match
        player = on_turn(match, alice, bob)
        if detail["phase"] == "roll":
            match = act(match, player, "roll")
            continue
        plays = selectors.table_game(match.table).legal_plays()
        pinning = [play for play in plays if play.result.opponent.pinned]
        chosen = (pinning or plays)[0]
        match = act(match, player, "move", play=format_play(chosen.steps))
    raise AssertionError("no pin in 600 actions")


def test_pl2_a_pinned_checker_is_drawn_under_its_pinner_and_both_play_by_clicking(
    open_board, players, device, shoot
):
    alice, bob = players
    match = start(alice, bob, length=1, rated=False, options={"variant": "plakoto"})
    match = play_until_pinned(match, alice, bob)
    first = on_turn(match, alice, bob)
    second = bob if first == alice else alice
    pages = {player: open_board(player.username, match) for player in (first, second)}

    for page in pages.values():
        pinned = page.locator("svg.board circle.checker.pinned")
        expect(pinned.first).to_be_visible()
        point = pinned.first.locator("xpath=..")
        circles = point.locator("circle.checker")
        assert circles.count() >= 2  # the pinned checker and its pinner(s) above it
        classes = [circles.nth(n).get_attribute("class") for n in range(2)]
        assert "pinned" in classes[0] and "pinned" not in classes[1]
        assert classes[0].split()[1] != classes[1].split()[1]  # the other side's colour
        assert "pinning one of" in point.locator("title").text_content()
        under, over = (circles.nth(n).bounding_box() for n in range(2))
        assert (
            abs(under["x"] - over["x"]) < 1
            and abs(under["y"] - over["y"]) >= 0.9 * (under["height"])
        )  # stacked on the same point, the pinner next to it, both in sight
    shoot(pages[first], "tavli-plakoto-pin")

    version = play_a_turn_by_clicking(pages[first])
    assert seen_within([pages[second]], version, 2.0) < 2.0
    match.refresh_from_db()
    clicked = turns_clicked(match)
    assert game_of(match)["turn"] == second.username and clicked <= 1
    version = play_a_turn_by_clicking(pages[second])
    assert seen_within([pages[first]], version, 2.0) < 2.0
    match.refresh_from_db()
    after = game_of(match)
    # The turn is the first's again, unless that play won the one-point match (a pin of
    # the first's last checker at home, a checker borne off last: the dice decide).
    assert after["turn"] == first.username or after["phase"] == "over"
    assert turns_clicked(match) >= clicked
    assert all(page.evaluate(NOT_RELOADED) for page in pages.values())
