"""The lobby in a real browser (issue 22, finding 1): two players in two browser
contexts. An invitation appears in the invited player's lobby without a reload; when it
is accepted, the inviter's lobby goes to the board by itself."""

import re

import pytest

from matches.models import Match
from tests.browser.helpers import DEVICES, csp_violations, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOT_RELOADED = "() => window.notReloaded === true"


@pytest.fixture
def open_lobby(browser, live_server, device):
    """A function opening the lobby for a player in a browser context of their own; no
    page of them may break the Content-Security-Policy."""
    contexts = []

    def open_for(username):
        context = browser.new_context(base_url=live_server.url, **DEVICES[device])
        contexts.append((context, csp_violations(context)))
        page = context.new_page()
        log_in(page, username)
        page.goto("/play/")
        page.wait_for_selector("[data-live-region]")
        page.evaluate("() => { window.notReloaded = true; }")
        return page

    yield open_for
    for context, violations in contexts:
        context.close()
        assert violations == [], violations


def invite(page, username):
    page.locator("#new-match").get_by_label("Opponent").fill(username)
    page.locator("#new-match").get_by_role("button").click()
    page.wait_for_selector("#sent")
    page.evaluate("() => { window.notReloaded = true; }")


def test_an_invitation_appears_and_its_acceptance_takes_the_inviter_to_the_board(
    open_lobby, make_player
):
    make_player("alice"), make_player("bob")
    alice, bob = open_lobby("alice"), open_lobby("bob")

    invite(bob, "alice")  # bob's own lobby reloads with the post; alice's must not
    alice.locator("#invitations").get_by_text("bob").wait_for()
    assert alice.evaluate(NOT_RELOADED)

    invite(alice, "bob")
    mine = Match.objects.get(creator__user__username="alice")
    invitation = bob.locator("#invitations tr", has_text="alice")
    invitation.wait_for()
    assert bob.evaluate(NOT_RELOADED)

    invitation.get_by_role("button", name="Accept").click()
    bob.wait_for_url(f"**/play/{mine.pk}/")
    alice.wait_for_url(f"**/play/{mine.pk}/")
    alice.wait_for_selector("svg.board")
    # bob's invitation to alice, still waiting, went nowhere: only her own takes her.
    assert Match.objects.get(creator__user__username="bob").status == Match.Status.INVITED


def test_a_member_picks_a_practice_robot_and_is_taken_to_the_board(open_lobby, make_player, robots):
    make_player("alice")
    alice = open_lobby("alice")
    form = alice.locator("#new-match")
    form.get_by_label("Or a practice robot").select_option("beginner")
    form.get_by_role("button").click()
    alice.wait_for_url(re.compile(r"/play/[0-9]+/$"))  # the board, not the lobby
    alice.wait_for_selector("svg.board")
    match = Match.objects.get(creator__user__username="alice")
    assert alice.url.endswith(f"/play/{match.pk}/")
    assert "Robot (beginner)" in alice.locator("h1").inner_text()
    assert match.status == Match.Status.PLAYING and not match.rated
    alice.goto("/play/")
    alice.locator("#my-matches .robot-mark").wait_for()
