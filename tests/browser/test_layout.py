"""Every page fits the device: on a phone and on a laptop the page is exactly as wide as
the viewport, nothing but a scroll box of its own runs past the right edge, the key
content is on screen, and on a phone what is tapped is big enough to tap."""

from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import translation

from tests.browser.helpers import DEVICES, log_in, site_menu
from tests.factories import leg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Apple's and Android's guidance is 44-48 CSS px; WCAG 2.2's minimum (AA) is 24.
TOUCH_TARGET = 44

# The elements that stick out past the viewport's right edge, other than those inside a
# box that scrolls (or clips) sideways on its own; and whether the page itself clips,
# which would hide an overflow instead of fixing it.
OVERFLOW = """(width) => {
  const scrollsOnItsOwn = (el) => {
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== "visible") return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + [...el.classList].map((c) => "." + c).join("");
  const sticking = [];
  for (const el of document.body.querySelectorAll("*")) {
    const rect = el.getBoundingClientRect();
    if (rect.width && rect.right > width + 0.5 && !scrollsOnItsOwn(el)) {
      sticking.push(name(el) + " right=" + Math.round(rect.right));
    }
  }
  const clips = (el) => ["hidden", "clip"].includes(getComputedStyle(el).overflowX);
  return {
    innerWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    sticking: sticking.slice(0, 10),
    clipped: clips(document.documentElement) || clips(document.body),
  };
}"""


# What a finger taps on the club's own pages: the header and its menu, the home page's
# cards, form controls, the pager. (Links inside running text are exempt, as in WCAG.)
TAPPED = (
    "header .brand, header .menu-button, #site-menu a, #site-menu button, #site-menu select,"
    " main button, main select, main input:not([type=hidden]), nav.pages a, ul.cards a"
)

# The sizes of the visible elements ``selector`` matches.
SIZES = """(selector) => [...document.querySelectorAll(selector)]
  .filter((el) => el.checkVisibility())
  .map((el) => {
    const rect = el.getBoundingClientRect();
    return {what: el.outerHTML.slice(0, 80), width: rect.width, height: rect.height};
  })"""

# The sideways scroll boxes whose content is wider than they are.
SCROLLING = """() => [...document.querySelectorAll(".scroll-x")]
  .filter((box) => box.scrollWidth > box.clientWidth)
  .map((box) => box.innerHTML.slice(0, 80))"""


def assert_fits(page):
    width = page.viewport_size["width"]
    measured = page.evaluate(OVERFLOW, width)
    assert measured["sticking"] == [], measured
    assert not measured["clipped"], measured
    # A phone's browser zooms out to show a page wider than the screen: innerWidth then
    # grows with the page, so it must still be the device's own width.
    assert measured["innerWidth"] == width, measured
    assert measured["scrollWidth"] <= measured["innerWidth"], measured


def assert_on_screen(page, selector):
    element = page.locator(selector).first
    assert element.is_visible(), selector
    box = element.bounding_box()
    assert 0 <= box["x"] < page.viewport_size["width"], (selector, box)


def assert_big_enough_to_tap(page):
    small = [
        size
        for size in page.evaluate(SIZES, TAPPED)
        if size["width"] < TOUCH_TARGET - 0.5 or size["height"] < TOUCH_TARGET - 0.5
    ]
    assert small == []


@pytest.fixture
def club(make_player):
    """A small club with long names and memos: results, a chouette night, a payment."""
    from club import services

    director = make_player("director", staff=True, display_name="Director")
    alice = make_player("alice", display_name="Alexandra Papadopoulou-Konstantinidou")
    bob = make_player("bob", display_name="Bob")
    carol = make_player("carol", display_name="Carol")
    for winner, loser, length, ended_by in [
        (alice, bob, 5, "played"),
        (alice, carol, 7, "resigned"),
        (bob, alice, 3, "timeout"),
        (carol, alice, 11, "abandoned"),
    ]:
        services.match_result_record(winner=winner, loser=loser, length=length, ended_by=ended_by)
    # More than the fifty results a page of /results/ holds, so it has a pager.
    for _ in range(24):
        services.match_result_record(winner=bob, loser=carol, length=1, rated=False)
        services.match_result_record(winner=carol, loser=bob, length=1, rated=False)
    night = services.ledger_post(
        legs=[
            leg(alice, Decimal("30.00")),
            leg(bob, Decimal("-20.00")),
            leg(carol, Decimal("-10.00")),
        ],
        memo="Chouette night: fourteen games, three players, the cube at 8 twice",
        kind="chouette",
    )
    services.payment_record(
        payer=bob, payee="club", amount=Decimal("5.00"), recorded_by=director.user
    )
    # A match in play (the lobby lists it, the board page draws it) and an open challenge.
    from matches import services as matches

    match = matches.match_create(
        creator=alice, opponent=bob, options=matches.MatchOptions(length=5, clock="standard")
    )
    match = matches.match_accept(match=match, player=bob)
    matches.match_create(creator=carol, opponent=None, options=matches.MatchOptions(length=7))
    from tournaments import services as tournaments

    tournament = tournaments.tournament_create(
        created_by=director.user,
        name="The Papadopoulou-Konstantinidou memorial spring knockout",
        format="single_elimination",
        entry_fee=Decimal("10.00"),
    )
    tournaments.tournament_open(tournament=tournament)
    return {
        "tournament": tournament.pk,
        "alice": alice.pk,
        "transaction": night.pk,
        "match": match.pk,
        "chouette": _chouette(alice, bob, carol),
        "online": _online_chouette(alice, bob, carol),
    }


def _chouette(*players):
    """A recorded chouette of three with two games (the box wins, then the team)."""
    from chouette import selectors, services

    chouette = services.chouette_create(
        players=players,
        order=players,
        recorded_by=players[0].user,
        options=services.ChouetteOptions(stake=Decimal("2.00")),
    )
    for winner in ("box", "team"):
        chouette.refresh_from_db()
        line = selectors.chouette_seating(chouette=chouette).line
        services.chouette_game_record(
            chouette=chouette,
            record={
                "winner": winner,
                "result": "gammon",
                "members": [{"player": name, "stake": 2, "outcome": "played"} for name in line],
            },
            recorded_by=players[0].user,
        )
    return chouette.pk


def _online_chouette(*players):
    """An online chouette of three with its first game started (alice the box)."""
    from chouette import online, services

    chouette = services.chouette_create(
        players=players,
        order=players,
        recorded_by=players[0].user,
        options=services.ChouetteOptions(stake=Decimal("2.00"), mode="online", cube="multiple"),
    )
    online.chouette_game_start(chouette=chouette, by=players[0])
    return chouette.pk


# (screenshot name, path, who is logged in, what must be on screen)
PAGES = [
    ("home", "/", None, ["h1", "ul.cards"]),
    ("home-player", "/", "alice", ["h1", "ul.cards"]),
    ("login", "/login/", None, ["h1", "form.stacked button"]),
    ("players", "/players/", "alice", ["table.leaderboard"]),
    ("player", "/players/alice/", "alice", ["svg.rating-chart", "main table"]),
    ("results", "/results/", "alice", ["main table", "nav.pages a"]),
    ("ledger", "/ledger/", "alice", ["table.statement"]),
    ("statement", "/players/alice/statement/", "alice", ["table.statement"]),
    ("ledger-staff", "/ledger/", "director", [".staff-links"]),
    ("trial-balance", "/ledger/trial-balance/", "director", ["table.trial-balance tfoot"]),
    ("settle-up", "/ledger/settle-up/", "director", ["table.settle-up button"]),
    ("play", "/play/", "alice", ["h1", "#live table", "#challenges button"]),
    ("play-board", "/play/{match}/", "alice", ["svg.board", ".scoreboard .clock"]),
    ("play-watch", "/play/{match}/", "carol", ["svg.board", ".watching"]),
    ("play-settings", "/play/settings/", "alice", ["form.play-settings button"]),
    ("play-dice", "/play/dice/", "alice", ["h1", "#dice-check"]),
    ("chouettes", "/chouettes/", "alice", ["h1", "form.open-chouette button"]),
    ("chouette-table", "/chouettes/{chouette}/", "alice", ["section.seats", "table.scores"]),
    ("chouette-record", "/chouettes/{chouette}/record/", "alice", ["form.record-game button"]),
    ("chouette-play-box", "/chouettes/{online}/play/", "alice", ["svg.board", "table.cubes"]),
    ("chouette-play-crew", "/chouettes/{online}/play/", "carol", ["svg.board", "p.role"]),
    ("tournaments", "/tournaments/", "alice", ["h1"]),
    ("tournament", "/tournaments/{tournament}/", "alice", ["h1"]),
    ("match-review", "/play/{match}/review/", "alice", ["h1"]),
    ("match-import", "/play/import/", "alice", ["h1", "main form.stacked button"]),
    ("chouette-review", "/chouettes/{online}/review/", "alice", ["h1"]),
]
# Pages drawn by Django's admin and by Swagger UI: their own layout, checked for fit.
OTHER_PAGES = [
    ("api-docs", "/api/docs/", None, [".swagger-ui .info", ".swagger-ui .opblock"]),
    ("admin-index", "/admin/", "director", ["#content-main"]),
    ("admin-results", "/admin/club/matchresult/", "director", ["#result_list"]),
    ("admin-result-add", "/admin/club/matchresult/add/", "director", ["#matchresult_form"]),
    ("admin-transactions", "/admin/club/transaction/", "director", ["#result_list"]),
    ("admin-transaction", "/admin/club/transaction/{transaction}/change/", "director", ["h1"]),
    ("admin-players", "/admin/club/player/", "director", ["#result_list"]),
    ("admin-player", "/admin/club/player/{alice}/change/", "director", ["#player_form"]),
    ("admin-payment-add", "/admin/club/payment/add/", "director", ["#payment_form"]),
]


def translation_of(text, language):
    with translation.override(language):
        return translation.gettext(text)


def _open(page, club, path, user):
    if user:
        log_in(page, user)
    response = page.goto(path.format(**club))
    assert response.status == 200
    if page.locator("[data-live-topic]").count():
        # A live page always holds one request open (the live channel): the network is
        # never idle, so wait for the page itself.
        page.wait_for_load_state("load")
    else:
        page.wait_for_load_state("networkidle")


@pytest.mark.parametrize(("name", "path", "user", "content"), PAGES, ids=[p[0] for p in PAGES])
def test_every_club_page_fits_the_device(page, device, club, screenshot, name, path, user, content):
    _open(page, club, path, user)
    screenshot(f"layout-{name}")
    assert_fits(page)
    for selector in content:
        assert_on_screen(page, selector)
    # With this club's data every table fits: none has to be scrolled to be read.
    assert page.evaluate(SCROLLING) == []
    if device == "phone":
        assert_big_enough_to_tap(page)
    else:
        # A wide screen has no Menu button: the nav is in the header itself.
        assert not page.locator("header .menu-button").is_visible()
        assert page.locator("header nav").is_visible()
    menu = site_menu(page)
    assert menu.get_by_role("link", name="Players").is_visible()
    assert_fits(page)
    if device == "phone":
        assert_big_enough_to_tap(page)
        screenshot(f"layout-{name}-menu")


@pytest.mark.parametrize(
    ("name", "path", "user", "content"), OTHER_PAGES, ids=[p[0] for p in OTHER_PAGES]
)
def test_admin_and_api_docs_fit_the_device(page, club, screenshot, name, path, user, content):
    _open(page, club, path, user)
    screenshot(f"layout-{name}")
    assert_fits(page)
    for selector in content:
        assert_on_screen(page, selector)


@pytest.mark.parametrize("language", ["bg", "el", "ro"])
def test_the_club_pages_fit_in_every_language(page, club, language):
    """The translations' longer words still fit: no table has to scroll to be read."""
    log_in(page, "director")
    cookie = {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": page.url}
    page.context.add_cookies([cookie])
    for _name, path, _user, _content in PAGES:
        page.goto(path.format(**club))
        assert page.locator("html").get_attribute("lang") == language
        assert_fits(page)
        assert page.evaluate(SCROLLING) == [], path
    menu_button = page.locator("header .menu-button").text_content()
    assert menu_button == translation_of("Menu", language)
    site_menu(page)
    assert_fits(page)


def test_api_docs_fit_with_an_operation_open(page, club):
    page.goto("/api/docs/")
    page.get_by_role("button", name="POST /api/ledger/payments/", exact=True).click()
    assert_on_screen(page, ".opblock.is-open .opblock-body")
    assert_fits(page)


# What pages still to come will hold: a bracket far wider than any screen, a board drawn
# as an SVG with a viewBox. (The bracket's width set through the DOM: the
# Content-Security-Policy refuses a style attribute in markup.)
FUTURE_CONTENT = """(main) => {
  main.insertAdjacentHTML("beforeend",
    '<div class="scroll-x" id="bracket"><div>Round of 64</div></div>'
    + '<svg class="scale-to-fit" id="board" viewBox="0 0 1000 800">'
    + '<rect width="1000" height="800"/></svg>');
  main.querySelector("#bracket div").style.width = "120rem";
}"""


def test_the_building_blocks_keep_pages_to_come_on_the_screen(page, db):
    """docs/pages.md's blocks: .scroll-x scrolls a bracket inside itself, .scale-to-fit
    scales a board to the width and keeps it on the screen, main.page-wide is the whole
    width for a big screen."""
    page.goto("/tournaments/")
    main = page.locator("main")
    main.evaluate(FUTURE_CONTENT)
    assert_fits(page)
    bracket = page.locator("#bracket")
    assert bracket.evaluate("(box) => box.scrollWidth > box.clientWidth")
    bracket.evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
    assert bracket.evaluate("(box) => box.scrollLeft") > 0
    board = page.locator("#board").bounding_box()
    space = main.evaluate(
        "(main) => main.clientWidth - 2 * parseFloat(getComputedStyle(main).paddingLeft)"
    )
    assert board["width"] == pytest.approx(space, abs=1)
    assert board["height"] < page.viewport_size["height"]

    main.evaluate("(main) => { main.className = 'page-wide'; }")
    assert main.bounding_box()["width"] == page.viewport_size["width"]
    assert_fits(page)


def test_the_phone_menu_opens_and_closes_without_javascript(browser, live_server, make_player):
    """The phone's menu is an HTML popover: it needs no script to open, to close on Escape
    or a tap outside, or to take the player where they tapped."""
    make_player("alice", display_name="Alice")
    context = browser.new_context(
        base_url=live_server.url, java_script_enabled=False, **DEVICES["phone"]
    )
    page = context.new_page()
    page.goto("/")
    menu, button = page.locator("#site-menu"), page.locator("header .menu-button")
    assert button.is_visible() and not menu.is_visible()
    button.click()
    assert menu.is_visible()
    page.keyboard.press("Escape")
    assert not menu.is_visible()
    button.click()
    page.mouse.click(page.viewport_size["width"] / 2, page.viewport_size["height"] - 10)
    assert not menu.is_visible()
    button.click()
    menu.get_by_role("link", name="Log in").click()
    page.wait_for_url("**/login/")
    context.close()
