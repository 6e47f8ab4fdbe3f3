"""The big screen (``?screen=big``, docs/pages.md): the chouette table and a tournament's
bracket on the room's TV, at 1920x1080 and at 1280x720. The board (or the bracket) fills
the screen's height, the scores and the line are in large type, nothing runs past its
box or is cut at the side, the page never scrolls, and the page still follows the live
channel, keeping its layout."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from chouette import online, selectors, services
from chouette.models import Chouette
from tests.browser.helpers import csp_violations, log_in
from tests.browser.test_chouette_online import game_of, play_through_services
from tournaments import services as tournaments
from tournaments.models import Pairing

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = {"1080p": (1920, 1080), "720p": (1280, 720)}
# The least share of the screen's height the board (the bracket's drawing) takes.
FILLS = 0.8
# The least size of the scores' and the line's type, as a share of the screen's height:
# 3.5% is 38 px at 1080p and 25 px at 720p, the same on the same TV. A 55-inch TV's
# picture is 68 cm high: 2.4 cm type, which subtends at 6 m what 16 px text on a laptop
# (about 4 mm) does at 1 m, the far side of a club's room read like a page at arm's length.
LARGE_TYPE = 0.035

# What breaks the layout: the page wider or taller than the screen (it would scroll), and
# every element whose content is wider than its box or that runs past the screen's right
# edge (text cut or hidden at the side). An SVG's inside is the drawing's own.
OVERFLOWS = """() => {
  const name = (el) => el.tagName.toLowerCase() + [...el.classList].map((c) => "." + c).join("")
    + " " + (el.textContent || "").trim().slice(0, 30);
  const over = [];
  for (const el of document.querySelectorAll("main *")) {
    if (el.closest("svg")) continue;
    const rect = el.getBoundingClientRect();
    if (el.clientWidth && el.scrollWidth > el.clientWidth + 1) over.push("wider " + name(el));
    if (rect.width && rect.right > innerWidth + 0.5) over.push("past the edge " + name(el));
  }
  const page = document.documentElement;
  return {
    over: over.slice(0, 10),
    page: [page.scrollWidth, page.scrollHeight, innerWidth, innerHeight],
  };
}"""

# The version of its topic the page shows.
SHOWN_VERSION = "Number(document.querySelector('[data-live-topic]').dataset.liveVersion)"

# The computed font size of each element ``selector`` matches, in CSS pixels.
FONT_SIZES = """(selector) => [...document.querySelectorAll(selector)]
  .map((el) => parseFloat(getComputedStyle(el).fontSize))"""

# The size a player's name in the bracket is drawn at, in CSS pixels: its font size in the
# drawing's units, times the drawing's scale on the screen.
BRACKET_TYPE = """() => {
  const name = document.querySelector("svg.bracket g.fixture text");
  return parseFloat(getComputedStyle(name).fontSize) * name.ownerSVGElement.getScreenCTM().a;
}"""
# A bracket's names are smaller than the chouette's scores: a 16-player bracket's four
# rounds and eight first-round boxes share the screen. 2% of the height is 22 px at
# 1080p, 1.4 cm type on a 55-inch TV, read from 3-4 m; fewer players are drawn larger.
BRACKET_LARGE_TYPE = 0.02

# The box holding every fixture the bracket draws (what is drawn, not the SVG's box).
DRAWN = """() => {
  const rects = [...document.querySelectorAll("svg.bracket g.fixture")]
    .map((g) => g.getBoundingClientRect());
  const top = Math.min(...rects.map((r) => r.top));
  const bottom = Math.max(...rects.map((r) => r.bottom));
  const left = Math.min(...rects.map((r) => r.left));
  const right = Math.max(...rects.map((r) => r.right));
  return {top, bottom, left, right, height: bottom - top, width: right - left};
}"""


@pytest.fixture
def screen(browser, live_server, request):
    """A TV's page at each size; its test fails on any Content-Security-Policy violation."""
    opened = []

    def open_screen(size):
        width, height = SCREENS[size]
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": width, "height": height}
        )
        opened.append((context, csp_violations(context)))
        return context.new_page()

    yield open_screen
    for context, violations in opened:
        context.close()
        assert violations == [], violations


def assert_nothing_cut(page):
    measured = page.evaluate(OVERFLOWS)
    assert measured["over"] == [], measured
    width, height, inner_width, inner_height = measured["page"]
    assert width <= inner_width and height <= inner_height, measured


def assert_large_type(page, selector):
    sizes = page.evaluate(FONT_SIZES, selector)
    least = LARGE_TYPE * page.viewport_size["height"]
    assert sizes and min(sizes) >= least, (selector, sizes, least)


NAMES = ["Alexandra", "Bartholomew", "Carolina", "Dimitrios", "Evangelia"]


@pytest.fixture
def table(make_player):
    """An online chouette of five with long names: one game played to its end, the
    second on the board; and the club's account the TV logs in with."""
    members = {name.lower(): make_player(name.lower(), display_name=name) for name in NAMES}
    make_player("screen", display_name="The club's screen")
    chouette = services.chouette_create(
        players=list(members.values()),
        order=list(members.values()),
        recorded_by=members["alexandra"].user,
        options=services.ChouetteOptions(stake=Decimal("1.00"), mode="online", cube="multiple"),
    )
    online.chouette_game_start(chouette=chouette, by=members["alexandra"])
    play_through_services(chouette, members, lambda game: game["phase"] == "over")
    online.chouette_game_start(
        chouette=Chouette.objects.get(pk=chouette.pk), by=members["alexandra"]
    )
    return chouette, members


@pytest.mark.parametrize("size", list(SCREENS))
def test_the_chouette_table_fills_the_tv_and_follows_the_game(screen, table, size, tmp_path):
    chouette, members = table
    page = screen(size)
    log_in(page, "screen")
    page.goto(f"/chouettes/{chouette.pk}/")
    page.get_by_role("link", name="Big screen").click()
    page.wait_for_url(f"**/chouettes/{chouette.pk}/?screen=big")
    expect(page.locator("header.site")).to_have_count(0)  # no site chrome
    expect(page.locator("footer.site")).to_have_count(0)
    expect(page.locator("section.games h2")).to_have_text("1 game")
    page.screenshot(path=tmp_path / f"chouette-big-screen-{size}.png")

    width, height = SCREENS[size]
    board = page.locator("svg.board").bounding_box()
    assert board["height"] >= FILLS * height, board
    assert board["y"] >= 0 and board["y"] + board["height"] <= height, board
    assert board["x"] >= 0 and board["x"] + board["width"] <= width, board
    assert_nothing_cut(page)
    games = page.locator("section.games .scroll-x")
    assert games.evaluate("(box) => box.scrollWidth <= box.clientWidth")
    for name in NAMES:  # every name whole in the games table's head
        expect(page.locator("table.games thead")).to_contain_text(name)
    last_game = page.locator("table.games tbody tr").first.bounding_box()
    assert last_game["y"] + last_game["height"] <= height, last_game  # on the screen
    assert_large_type(page, "table.scores td")
    assert_large_type(page, ".seats .name, ol.crew li")

    # A move on the server: the page redraws its region in place, still the big screen.
    page.evaluate("() => { window.notReloaded = true; }")
    version = page.evaluate(f"() => {SHOWN_VERSION}")
    game = game_of(chouette)
    online.chouette_act(
        chouette=Chouette.objects.get(pk=chouette.pk),
        player=members[game["awaiting"][0]],
        act="roll" if game["phase"] == "roll" else "move",
        turn_no=game["turn_no"],
        **({} if game["phase"] == "roll" else {"play": (game["legal_plays"] or [""])[0]}),
    )
    page.wait_for_function(f"() => {SHOWN_VERSION} > {version}", timeout=10_000)
    assert page.evaluate("() => window.notReloaded === true")
    expect(page.get_by_role("link", name="Normal page")).to_be_visible()
    assert page.locator("svg.board").bounding_box()["height"] >= FILLS * height
    assert_nothing_cut(page)
    page.screenshot(path=tmp_path / f"chouette-big-screen-{size}-after-a-move.png")


def test_a_recorded_chouette_without_a_board_fits_the_tv_too(screen, make_player, tmp_path):
    players = [make_player(name.lower(), display_name=name) for name in NAMES]
    chouette = services.chouette_create(
        players=players,
        order=players,
        recorded_by=players[0].user,
        options=services.ChouetteOptions(stake=Decimal("1.00")),
    )
    for winner in ("box", "team", "team", "box"):
        chouette.refresh_from_db()
        line = list(selectors.chouette_seating(chouette=chouette).line)
        services.chouette_game_record(
            chouette=chouette,
            record={
                "winner": winner,
                "result": "gammon",
                "members": [{"player": name, "stake": 2, "outcome": "played"} for name in line],
            },
            recorded_by=players[0].user,
        )
    for size in SCREENS:
        page = screen(size)
        log_in(page, "alexandra")
        page.goto(f"/chouettes/{chouette.pk}/?screen=big")
        expect(page.locator("section.games h2")).to_have_text("4 games")
        page.screenshot(path=tmp_path / f"chouette-recorded-big-screen-{size}.png")
        assert_nothing_cut(page)
        assert_large_type(page, "table.scores td")
        assert_large_type(page, ".seats .name, ol.crew li")


FIELD = [f"Player {name}" for name in "ABCDEFGHIJKLMNOP"]


@pytest.mark.parametrize("size", list(SCREENS))
def test_the_bracket_fills_the_tv_and_follows_the_results(
    screen, staff, make_player, size, tmp_path
):
    players = [
        make_player(f"p{index}", display_name=name, rating=1800.0 - 10 * index)
        for index, name in enumerate(FIELD)
    ]
    tournament = tournaments.tournament_create(
        created_by=staff.user, name="Club cup", format="single_elimination", match_lengths="1"
    )
    for player in players:
        tournaments.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    tournament = tournaments.tournament_start(tournament=tournament)
    page = screen(size)  # a visitor: the room's TV need not log in to a bracket
    page.goto(f"/tournaments/{tournament.pk}/")
    page.get_by_role("link", name="Big screen").click()
    page.wait_for_url(f"**/tournaments/{tournament.pk}/?screen=big")
    expect(page.locator("header.site")).to_have_count(0)
    page.screenshot(path=tmp_path / f"bracket-big-screen-{size}.png")

    width, height = SCREENS[size]
    drawn = page.evaluate(DRAWN)
    assert drawn["height"] >= FILLS * height, drawn
    assert drawn["top"] >= 0 and drawn["bottom"] <= height, drawn
    assert drawn["left"] >= 0 and drawn["right"] <= width, drawn
    assert_nothing_cut(page)
    # The players' names: the drawing's type scaled with it to the screen.
    assert page.evaluate(BRACKET_TYPE) >= BRACKET_LARGE_TYPE * height

    page.evaluate("() => { window.notReloaded = true; }")
    first = Pairing.objects.select_related("first", "second").get(
        round__tournament=tournament, round__number=1, position=1
    )
    tournaments.pairing_result_record(pairing=first, winner=first.first, recorded_by=staff.user)
    expect(
        page.locator(f'svg.bracket g.fixture[data-pairing="{first.key}"] text.won')
    ).to_have_count(1, timeout=10_000)
    assert page.evaluate("() => window.notReloaded === true")
    expect(page.get_by_role("link", name="Normal page")).to_be_visible()
    assert page.evaluate(DRAWN)["height"] >= FILLS * height
    assert_nothing_cut(page)
    page.screenshot(path=tmp_path / f"bracket-big-screen-{size}-after-a-result.png")


def test_a_swiss_shows_its_standings_and_last_round_on_the_tv(screen, staff, make_player, tmp_path):
    players = [
        make_player(f"p{index}", display_name=name, rating=1800.0 - 10 * index)
        for index, name in enumerate([*NAMES, "Fotini", "Georgios", "Haralambos"])
    ]
    swiss = tournaments.tournament_create(
        created_by=staff.user, name="Tuesday Swiss", format="swiss", swiss_rounds=3
    )
    for player in players:
        tournaments.entry_add(tournament=swiss, player=player, recorded_by=staff.user)
    swiss = tournaments.tournament_start(tournament=swiss)
    for pairing in Pairing.objects.filter(round__tournament=swiss).select_related("first"):
        tournaments.pairing_result_record(
            pairing=pairing, winner=pairing.first, recorded_by=staff.user
        )
    for size in SCREENS:
        page = screen(size)
        page.goto(f"/tournaments/{swiss.pk}/?screen=big")
        # The last round only: the first is the ordinary page's to show.
        expect(page.locator("section.round h2:visible")).to_have_text("Round 2 (to 5)")
        expect(page.get_by_role("heading", name="Round 1 (to 5)")).to_be_hidden()
        expect(page.locator("table.standings tbody tr")).to_have_count(len(players))
        page.screenshot(path=tmp_path / f"swiss-big-screen-{size}.png")
        assert_nothing_cut(page)
        assert_large_type(page, "table.standings td")
        last_player = page.locator("table.standings tbody tr").last.bounding_box()
        assert last_player["y"] + last_player["height"] <= SCREENS[size][1], last_player
