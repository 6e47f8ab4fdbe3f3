"""The pages in a real browser: logging in, moving around, changing language."""

import pytest
from django.conf import settings

from tests.browser.helpers import log_in, site_menu
from tests.factories import PASSWORD, leg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_logs_in_and_out_from_the_home_page(page, make_player, screenshot):
    make_player("alice", display_name="Alice")
    page.goto("/")
    site_menu(page).get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")
    assert site_menu(page).locator(".account").inner_text().startswith("Alice")
    screenshot("home-logged-in")
    site_menu(page).get_by_role("button", name="Log out").click()
    assert site_menu(page).get_by_role("link", name="Log in").is_visible()


def test_wrong_password_is_said_in_the_players_words(page, make_player):
    make_player("alice")
    page.goto("/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("not-it")
    page.get_by_role("button", name="Log in").click()
    assert page.get_by_text("Wrong username or password").is_visible()


def test_too_many_wrong_passwords_lock_the_login_with_a_clear_message(page, make_player):
    """docs/operations.md, "Guessing and throttling": the page says why and for how long,
    and the right password is refused until then."""
    make_player("alice")
    page.goto("/login/")
    for password in ["not-it"] * settings.AXES_FAILURE_LIMIT + [PASSWORD]:
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
    assert page.get_by_text("Too many wrong passwords for this account").is_visible()
    assert page.get_by_text("locked for 15 more minutes").is_visible()
    assert site_menu(page).get_by_role("link", name="Log in").is_visible()


def test_every_navigation_link_opens_a_page(page, db):
    page.goto("/")
    for name in ("Play", "Chouettes", "Tournaments", "Players", "Ledger"):
        site_menu(page).get_by_role("link", name=name, exact=True).click()
        assert page.locator("h1").first.is_visible(), name
        assert page.title(), name


def test_switching_language_keeps_the_page(page, db):
    page.goto("/players/")
    with page.expect_navigation():
        site_menu(page).get_by_label("Language").select_option("bg")
    assert page.url.endswith("/players/")
    assert page.locator("html").get_attribute("lang") == "bg"


def test_leaderboard_player_page_chart_and_statement(page, make_player, screenshot):
    from decimal import Decimal

    from club import services

    alice, bob, carol = (make_player(n) for n in ("alice", "bob", "carol"))
    for winner, loser, length in [(alice, bob, 5), (alice, carol, 7), (bob, alice, 3)]:
        services.match_result_record(winner=winner, loser=loser, length=length)
    services.ledger_post(
        legs=[leg(alice, Decimal("12.50")), leg(bob, Decimal("-12.50"))], memo="Chouette night"
    )
    log_in(page, "alice")

    page.goto("/players/")
    rows = page.locator("table tbody tr")
    assert rows.first.inner_text().find("Alice") >= 0
    screenshot("leaderboard")

    rows.first.get_by_role("link").first.click()
    chart = page.locator("#rating-chart svg.rating-chart")
    assert chart.is_visible()
    assert chart.locator("polyline, path").count() >= 1
    tavli_chart = page.locator("#tavli-rating-chart svg.rating-chart")
    assert tavli_chart.is_visible()  # no tavli match yet: the empty chart says so
    assert tavli_chart.locator("polyline").count() == 0
    screenshot("player-alice")

    page.goto("/players/alice/statement/")
    assert page.get_by_text("Chouette night").is_visible()
    assert page.get_by_text("12.50").first.is_visible()
    screenshot("statement-alice")


def test_a_player_cannot_open_someone_elses_statement(page, make_player):
    make_player("alice")
    make_player("bob")
    log_in(page, "alice")
    response = page.goto("/players/bob/statement/")
    assert response.status == 403


def test_staff_settle_up_records_each_payment_until_nobody_owes(page, make_player, screenshot):
    from decimal import Decimal

    from club import selectors, services

    make_player("director", staff=True)
    alice, bob, carol = (make_player(n) for n in ("alice", "bob", "carol"))
    services.ledger_post(
        legs=[
            leg(alice, Decimal("30.00")),
            leg(bob, Decimal("-20.00")),
            leg(carol, Decimal("-10.00")),
        ],
        memo="Chouette night",
        kind="chouette",
    )
    log_in(page, "director")
    page.goto("/ledger/trial-balance/")
    screenshot("trial-balance")
    page.goto("/ledger/settle-up/")
    screenshot("settle-up")
    buttons = page.get_by_role("button", name="Record as paid")
    assert buttons.count() == 2
    while buttons.count():
        buttons.first.click()
        page.wait_for_load_state()
    assert page.get_by_text("nobody owes anything").is_visible()
    balances = [selectors.player_balance(player=p) for p in (alice, bob, carol)]
    assert balances == [Decimal("0.00")] * 3
