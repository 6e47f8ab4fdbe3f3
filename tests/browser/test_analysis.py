"""The analysis' pages in a real browser: the review page stepped with the keyboard and
its buttons, one decision at a time."""

import pytest

from analysis import services
from analysis.models import MatchAnalysis
from matches.demo import play_on
from tests.analysis.running import analyse_now
from tests.browser.helpers import log_in
from tests.matches.conftest import start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_review_page_steps_through_the_decisions(page, make_player, monkeypatch, screenshot):
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    alice, bob = make_player("alice"), make_player("bob")
    match = play_on(start(alice, bob, length=1))
    services.analysis_queue(match_id=match.pk)
    analysis = MatchAnalysis.objects.get(match=match)
    assert analyse_now(analysis) == "done"
    marks = list(analysis.decisions.order_by("game_number", "seq").values_list("mark", flat=True))
    log_in(page, "alice")
    page.goto(f"/play/{match.pk}/review/")
    decisions = page.locator("#review .decision")
    visible = page.locator("#review .decision:visible")
    assert decisions.count() == len(marks) and visible.count() == 1
    position = page.locator(".review-position")
    assert position.inner_text() == f"1 / {len(marks)}"
    page.keyboard.press("ArrowRight")
    assert position.inner_text() == f"2 / {len(marks)}"
    assert decisions.nth(1).is_visible() and not decisions.nth(0).is_visible()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # stays on the first
    assert position.inner_text() == f"1 / {len(marks)}"
    page.get_by_role("button", name="Forward").click()
    assert position.inner_text() == f"2 / {len(marks)}"
    # b: the next blunder after the second decision (none: it stays where it is).
    after = [i for i in range(2, len(marks)) if marks[i] == "blunder"]
    page.keyboard.press("b")
    assert position.inner_text() == f"{(after[0] if after else 1) + 1} / {len(marks)}"
    assert ("mark-blunder" in visible.get_attribute("class")) == bool(after)
    assert visible.locator("svg.board").is_visible()
    screenshot("review")
