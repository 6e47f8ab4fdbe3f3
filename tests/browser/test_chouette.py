"""A recorded chouette in real browsers: the scorekeeper enters a game on a phone and the
big screen's table page follows it live, without a reload."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from chouette import services
from chouette.models import ChouetteGame, GamePoints
from club.models import SourceKind, Transaction
from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import DEVICES, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_big_screen_follows_a_game_entered_on_the_scorekeepers_phone(
    browser, live_server, make_player
):
    players = [make_player(name, display_name=name.title()) for name in ("alice", "bob", "carol")]
    keeper = make_player("keeper", display_name="Keeper")
    chouette = services.chouette_create(
        players=players,
        order=players,
        recorded_by=keeper.user,
        options=services.ChouetteOptions(stake=Decimal("1.00")),
    )
    screen = browser.new_context(base_url=live_server.url, viewport={"width": 1920, "height": 1080})
    phone = browser.new_context(base_url=live_server.url, **DEVICES["phone"])
    big, hand = screen.new_page(), phone.new_page()
    log_in(big, "alice")
    big.goto(f"/chouettes/{chouette.pk}/")
    expect(big.locator("section.games h2")).to_have_text("0 games")
    log_in(hand, "keeper")
    hand.goto(f"/chouettes/{chouette.pk}/record/")
    hand.get_by_label("Team", exact=True).check()
    hand.get_by_label("Gammon", exact=True).check()
    hand.get_by_role("button", name="Record the game").click()
    expect(hand.locator(".messages")).to_contain_text("The game is recorded.")
    recorded = ChouetteGame.objects.get(chouette=chouette)
    points = GamePoints.objects.filter(game=recorded)
    assert len(points) == 3 and sum(row.points for row in points) == 0, list(points.values())
    # The big screen moves on by itself: the count, the new box and the scores.
    expect(big.locator("section.games h2")).to_have_text("1 game", timeout=5000)
    expect(big.locator(".seat.box .name")).to_have_text("Bob")
    expect(big.locator("table.scores")).to_contain_text("-2")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    big.screenshot(path=str(SCREENSHOTS / "chouette-big-screen.png"), full_page=True)
    hand.screenshot(path=str(SCREENSHOTS / "chouette-scorekeeper-phone.png"), full_page=True)
    screen.close()
    phone.close()


def box_wins(*members):
    return {
        "winner": "box",
        "result": "single",
        "members": [{"player": name, "stake": 1, "outcome": "played"} for name in members],
    }


def test_closing_asks_first_and_a_cancelled_confirmation_leaves_the_ledger_as_it_was(
    browser, live_server, make_player
):
    players = [make_player(name, display_name=name.title()) for name in ("alice", "bob", "carol")]
    keeper = make_player("keeper", display_name="Keeper")
    chouette = services.chouette_create(
        players=players,
        order=players,
        recorded_by=keeper.user,
        options=services.ChouetteOptions(stake=Decimal("1.00")),
    )
    phone = browser.new_context(base_url=live_server.url, **DEVICES["phone"])
    hand = phone.new_page()
    log_in(hand, "keeper")
    hand.goto(f"/chouettes/{chouette.pk}/record/")
    close = hand.get_by_role("button", name="Close and settle")
    join = hand.get_by_role("button", name="Join")
    colour = "(button) => getComputedStyle(button).color"
    assert close.evaluate(colour) != join.evaluate(colour)  # it looks different
    # A game entered elsewhere (another phone, the API): the page's region follows it.
    services.chouette_game_record(
        chouette=chouette, record=box_wins("bob", "carol"), recorded_by=keeper.user, version=0
    )
    expect(hand.locator("section.games h2")).to_have_text("1 game", timeout=5000)
    expect(hand.locator(".seat.box .name")).to_have_text("Alice")
    close.click()
    expect(hand.get_by_role("heading", level=1)).to_have_text(
        f"Close chouette #{chouette.pk} and settle?"
    )
    expect(hand.locator("table.settlement")).to_contain_text("receives 2.00")
    expect(hand.locator("table.settlement")).to_contain_text("pays 1.00")
    assert not Transaction.objects.exists()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    hand.screenshot(path=str(SCREENSHOTS / "chouette-close-confirmation.png"), full_page=True)
    hand.get_by_role("link", name="Cancel").click()
    expect(hand.get_by_role("button", name="Record the game")).to_be_visible()
    assert not Transaction.objects.exists()
    chouette.refresh_from_db()
    assert chouette.status == "open"
    hand.screenshot(path=str(SCREENSHOTS / "chouette-scorekeeper-actions.png"), full_page=True)
    hand.get_by_role("button", name="Close and settle").click()
    confirmation = hand.locator("section.confirmation")
    expect(confirmation).to_be_visible()
    confirmation.get_by_role("button", name="Close and settle").click()
    expect(hand.locator(".messages")).to_contain_text("closed and settled in the ledger")
    assert Transaction.objects.filter(kind=SourceKind.CHOUETTE).count() == 1
    phone.close()
