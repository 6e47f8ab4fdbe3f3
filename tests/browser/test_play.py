"""The board page in a real browser (issue 8, items 7 to 10): two players in two browser
contexts and a member watching in a third, on a phone and on a laptop. What one side
does appears on the other's board and the watcher's within a second, without reloading;
a tapped checker shows where it may go."""

import time
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from matches import selectors
from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import DEVICES, log_in, page_waits_until, stream_events
from tests.matches.conftest import act, game_of, on_turn, start
from web import live

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The page's own state (the board fragment's JSON) and a marker that survives only as
# long as the page is not reloaded.
VERSION = "() => JSON.parse(document.getElementById('table-state').textContent).version"
NOT_RELOADED = "() => window.notReloaded === true"


@pytest.fixture
def people(make_player):
    return {name: make_player(name) for name in ("alice", "bob", "carol")}


@pytest.fixture
def open_board(browser, live_server, device):
    """A function opening a match's board for a player in a browser context of their own."""
    contexts = []

    def open_for(username, match):
        context = browser.new_context(base_url=live_server.url, **DEVICES[device])
        contexts.append(context)
        page = context.new_page()
        log_in(page, username)
        page.goto(f"/play/{match.pk}/")
        page.wait_for_selector("svg.board")
        page.evaluate("() => { window.notReloaded = true; }")
        return page

    yield open_for
    for context in contexts:
        context.close()


@pytest.fixture
def shoot(device):
    """Save a screenshot of one of this test's own pages (``screenshot`` takes the
    conftest's ``page``)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{device}.png"), full_page=True)

    return take


def seen_within(pages, version, seconds):
    """Every page shows ``version`` within ``seconds`` of now, none of them reloaded."""
    started = time.monotonic()
    for page in pages:
        left = seconds - (time.monotonic() - started)
        page.wait_for_function(f"() => ({VERSION})() >= {version}", timeout=max(left, 0) * 1000)
        assert page.evaluate(NOT_RELOADED)
    return time.monotonic() - started


def test_each_move_reaches_the_other_player_and_the_watcher_within_a_second(
    open_board, people, device, shoot
):
    alice, bob, _carol = people["alice"], people["bob"], people["carol"]
    match = start(alice, bob)
    pages = {name: open_board(name, match) for name in ("alice", "bob", "carol")}
    for _ in range(3):  # a move, then a roll and a move of the other side
        player = on_turn(match, alice, bob)
        moving = game_of(match)["phase"] == "move"
        play = {"play": game_of(match)["legal_plays"][0]} if moving else {}
        match = act(match, player, "move" if moving else "roll", **play)
        version = selectors.match_detail(match)["version"]
        others = [pages[name] for name in pages if name != player.username]
        assert seen_within(others, version, 1.0) < 1.0
    watcher = pages["carol"]
    assert watcher.locator(".watching").is_visible()
    assert watcher.locator("#controls button").count() == 0
    position_id = game_of(match)["position_id"]
    assert watcher.locator(".ids").inner_text().count(position_id) == 1
    shoot(watcher, "play-watcher")
    shoot(pages["alice"], "play-player")


def play_on(match, alice, bob):
    """The side on turn rolls, or makes its first legal play."""
    moving = game_of(match)["phase"] == "move"
    play = {"play": game_of(match)["legal_plays"][0]} if moving else {}
    return act(match, on_turn(match, alice, bob), "move" if moving else "roll", **play)


def test_the_pages_follow_across_the_streams_end_and_reopening(open_board, people, monkeypatch):
    """The live stream ends (here after a second, not five minutes) and the browser opens
    it again by itself with the last version it had: moves made after several such ends
    still reach the other player and the watcher, with no reload and no "lost" notice."""
    monkeypatch.setattr(live, "STREAM_FOR", 1.0)
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    pages = [open_board(name, match) for name in ("bob", "carol")]
    stream = reverse("api-live-stream")
    for _ in range(2):
        for page in pages:  # the stream ended and the page opened it again
            with page.expect_request(lambda request: urlsplit(request.url).path == stream):
                pass
        player = on_turn(match, alice, bob)
        match = play_on(match, alice, bob)
        version = selectors.match_detail(match)["version"]
        others = pages if player == alice else pages[1:]  # bob's page, then carol's
        assert seen_within(others, version, 5.0) < 5.0
    assert all(page.locator("#live-lost").is_hidden() for page in pages)


def test_a_move_announced_while_the_last_board_is_on_its_way_is_drawn_too(open_board, people):
    """Two actions close together: the board fetched for the first is still on its way
    (held here, as a slow network would) when the second is announced. The page fetches
    again once the first board is in, and shows the second, not stopping a version short."""
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    page = open_board("carol", match)
    fragment = reverse("play-table", kwargs={"pk": match.pk})
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))  # the board as it is now, answered later

    page.route(lambda url: urlsplit(url).path == fragment, hold_the_first)
    announced = stream_events(page)
    match = play_on(match, alice, bob)
    assert page_waits_until(page, lambda: held)
    match = play_on(match, alice, bob)
    second = selectors.match_detail(match)["version"]
    assert page_waits_until(page, lambda: second in announced)  # while the first is held
    route, first_board = held[0]
    route.fulfill(response=first_board)
    assert seen_within([page], selectors.match_detail(match)["version"], 5.0) < 5.0


def test_the_players_own_step_is_drawn_once_so_a_tapped_checker_stays_tapped(open_board, people):
    """The answer to the page's own action names the version it made: the page draws it
    once. Here the answer is held until the stream's event for that version has come
    and been drawn: the answer then fetches nothing, so no second redraw lands under the
    player's next tap and drops the checker tapped."""
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    page = open_board(player.username, match)
    fragment = reverse("play-table", kwargs={"pk": match.pk})
    fetched = []
    page.on(
        "request", lambda r: fetched.append(r.url) if urlsplit(r.url).path == fragment else None
    )

    held = []
    page.route(
        lambda url: urlsplit(url).path.endswith("/move_step/"),
        lambda route: held.append((route, route.fetch())),  # the step is made, unanswered
    )
    state = state_of(page)
    origin, landings = next(iter(state["steps"].items()))
    page.locator(f'svg.board [data-point="{origin}"]').click()
    page.locator(f'svg.board [data-point="{next(iter(landings))}"]').click()
    assert page_waits_until(page, lambda: held)
    acted(page, state["version"])  # the stream's event for the step came and was drawn
    route, answer = held[0]
    route.fulfill(response=answer)
    page.wait_for_timeout(1000)  # nothing to wait for: the time a wrong redraw would take
    assert len(fetched) == 1
    origin = next(iter(state_of(page)["steps"]), None)
    if origin is not None:  # a second step to tap: the tap is kept
        page.locator(f'svg.board [data-point="{origin}"]').click()
        page.wait_for_timeout(500)
        assert page.locator("svg.board .selected").get_attribute("data-point") == origin


def test_a_tapped_checker_shows_its_landing_points_and_a_second_tap_drops_it(
    open_board, people, shoot
):
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    page = open_board(player.username, match)
    steps = page.evaluate(
        "() => JSON.parse(document.getElementById('table-state').textContent).steps"
    )
    origin, landings = next(iter(steps.items()))
    page.locator(f'svg.board [data-point="{origin}"]').click()
    assert page.locator("svg.board .selected").get_attribute("data-point") == origin
    marked = page.locator("svg.board .landing").evaluate_all("gs => gs.map(g => g.dataset.point)")
    assert sorted(marked) == sorted(landings)
    shoot(page, "play-landing-points")
    page.locator(f'svg.board [data-point="{origin}"]').click()
    assert page.locator("svg.board .landing").count() == 0


def test_the_board_fits_and_scales_on_the_device(open_board, people, device):
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    page = open_board("alice", match)
    width = page.evaluate("() => window.innerWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    board = page.locator("svg.board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= width + 0.5
    assert board["width"] >= min(width - 40, 600)  # it takes the room there is
    viewport = DEVICES[device]["viewport"]
    assert board["height"] <= viewport["height"]


def state_of(page):
    return page.evaluate("() => JSON.parse(document.getElementById('table-state').textContent)")


def acted(page, before):
    """Wait until ``page`` (the one that acted) shows a version past ``before``."""
    page.wait_for_function(f"() => ({VERSION})() > {before}", timeout=10_000)
    return state_of(page)["version"]


def test_two_players_roll_and_move_by_tapping_and_typing_each_seen_by_the_others(
    open_board, people, shoot
):
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    first = on_turn(match, alice, bob)
    second = bob if first == alice else alice
    pages = {name: open_board(name, match) for name in (first.username, second.username, "carol")}
    mover, other, watcher = pages[first.username], pages[second.username], pages["carol"]

    # The opening roll, played checker by checker: tap a checker, tap where it goes.
    while not mover.get_by_role("button", name="Confirm the play").is_visible():
        state = state_of(mover)
        origin, landings = next(iter(state["steps"].items()))
        mover.locator(f'svg.board [data-point="{origin}"]').click()
        mover.locator(f'svg.board [data-point="{next(iter(landings))}"]').click()
        acted(mover, state["version"])
    assert mover.locator(".pending").is_visible()
    before = state_of(mover)["version"]
    mover.get_by_role("button", name="Confirm the play").click()
    version = acted(mover, before)
    assert seen_within([other, watcher], version, 1.0) < 1.0
    assert state_of(other)["my_turn"] and state_of(other)["phase"] == "roll"

    # The other side rolls, then types its play in the notation box.
    other.get_by_role("button", name="Roll").click()
    version = acted(other, version)
    assert seen_within([mover, watcher], version, 1.0) < 1.0
    assert other.locator("svg.board .die").count() in (2, 4)
    play = other.locator("#legal-plays option").first.get_attribute("value")
    other.get_by_label("Play", exact=True).fill(play)
    other.get_by_role("button", name="Play it").click()
    version = acted(other, version)
    assert seen_within([mover, watcher], version, 1.0) < 1.0
    assert state_of(mover)["my_turn"] and not state_of(watcher)["my_turn"]
    shoot(other, "play-after-two-turns")


def test_a_refused_action_says_why_and_changes_nothing(open_board, people):
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    page = open_board(on_turn(match, alice, bob).username, match)
    before = state_of(page)["version"]
    page.get_by_label("Play", exact=True).fill("24/1")
    page.get_by_role("button", name="Play it").click()
    page.locator("#play-error").wait_for(state="visible")
    assert page.locator("#play-error").inner_text()
    assert state_of(page)["version"] == before


def test_the_board_says_whose_turn_and_marks_the_last_play_as_it_arrives(open_board, people):
    """Issue 22: the page drawn again when the other side moves says "Your turn." to the
    player now on turn only, marks the play just made (where it left, where it landed)
    with its dice greyed, and ties each name to a checker of its colour."""
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    first = on_turn(match, alice, bob)
    second = bob if first == alice else alice
    mover, other = open_board(first.username, match), open_board(second.username, match)
    assert mover.locator(".your-turn").is_visible() and other.locator(".your-turn").count() == 0
    assert other.locator(".waiting").inner_text() == f"Waiting for {first.display_name}."
    for page in (mover, other):
        for side, player in enumerate((alice, bob)):
            row = page.locator(f'.scoreboard [data-player="{player.username}"]')
            assert row.locator(".name").inner_text().startswith(player.display_name)
            assert row.locator(f"svg.swatch circle.side-{side}").is_visible()
    assert other.locator("svg.board .last-from").count() == 0
    match = play_on(match, alice, bob)
    version = selectors.match_detail(match)["version"]
    seen_within([mover, other], version, 5.0)
    other.locator(".your-turn").wait_for(state="visible")
    assert mover.locator(".your-turn").count() == 0
    for page in (mover, other):
        assert page.locator("svg.board .last-from").count() >= 1
        assert page.locator("svg.board .last-to").count() >= 1
        assert page.locator("svg.board .die.used").count() == 2


def test_a_double_arrives_saying_the_value_the_cube_goes_to(open_board, people):
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    match = play_on(match, alice, bob)  # the opening play; the other side may double
    doubler = on_turn(match, alice, bob)
    taker = bob if doubler == alice else alice
    pages = {player: open_board(player.username, match) for player in (doubler, taker)}
    before = state_of(pages[doubler])["version"]
    pages[doubler].get_by_role("button", name="Double").click()
    acted(pages[doubler], before)
    offer = pages[taker].locator(".offer")
    offer.wait_for(state="visible")
    assert offer.inner_text() == f"{doubler.display_name} doubles to 2. Take or pass?"
    assert pages[taker].get_by_role("button", name="Take").is_visible()
    assert pages[doubler].locator(".offer").inner_text() == f"{doubler.display_name} doubles to 2."


def test_a_typed_play_with_a_wrong_first_step_names_that_step(open_board, people):
    """M1: both dice typed as one step, then another step: the error names the first."""
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob)
    page = open_board(on_turn(match, alice, bob).username, match)
    high, low = sorted(game_of(match)["dice"], reverse=True)
    first = f"13/{13 - high - low}"
    page.get_by_label("Play", exact=True).fill(f"{first} 6/5")
    page.get_by_role("button", name="Play it").click()
    page.locator("#play-error").wait_for(state="visible")
    assert page.locator("#play-error").inner_text().startswith(f"{first} takes the dice left")


def test_the_finished_matchs_summary_arrives_without_a_reload(open_board, people):
    """A match to 1 ended by a passed double: the doubler's page, drawn again live, shows
    the final score, how it ended, both rating changes and the links."""
    alice, bob = people["alice"], people["bob"]
    match = start(alice, bob, length=1, rated=True)
    match = play_on(match, alice, bob)
    doubler = on_turn(match, alice, bob)
    taker = bob if doubler == alice else alice
    match = act(match, doubler, "double")
    page = open_board(doubler.username, match)
    match = act(match, taker, "pass")
    summary = page.locator("#match-summary")
    summary.wait_for(state="visible")
    assert page.evaluate(NOT_RELOADED)
    assert summary.locator(".result").inner_text() == f"{doubler.display_name} won the match."
    assert "Final score:" in summary.locator(".final-score").inner_text()
    assert "a double passed" in summary.locator(".how-it-ended").inner_text()
    assert summary.locator(".rating-changes li").count() == 2
    assert summary.locator('a[href$="export.mat"]').is_visible()
