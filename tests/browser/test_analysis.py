"""The analysis' pages in a real browser: the review pages (a match's, an imported
match's) stepped with the keyboard and their buttons, one decision at a time; the
analysis' progress on the finished match's page and an imported match's review,
updating by itself as the analysis advances, finishes or fails, and asked for again
(no reload: the live channel)."""

import pytest
from playwright.sync_api import expect

from analysis import jobs, services
from analysis.engine import Engine
from analysis.models import MatchAnalysis
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import export_mat
from matches.demo import play_on
from tests.analysis.running import analyse_now, deliver
from tests.browser.helpers import log_in
from tests.matches.conftest import start

LIVE = 10_000  # ms: a live update's deadline (it takes a tick and a fetch)

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


@pytest.fixture
def finished(make_player, monkeypatch):
    """A 1-point match alice and bob played to the end, its analysis queued (no task)."""
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    alice, bob = make_player("alice"), make_player("bob")
    match = play_on(start(alice, bob, length=1))
    services.analysis_queue(match_id=match.pk)
    return match


def test_the_match_page_follows_the_analysis_to_its_end(page, finished, screenshot):
    analysis = MatchAnalysis.objects.get(match=finished)
    log_in(page, "alice")
    page.goto(f"/play/{finished.pk}/")
    region = page.locator("[data-analysis-region]")
    expect(region).to_contain_text("Analysis queued")
    job = services.analysis_start(analysis_id=analysis.pk, plies=0)  # the Django worker's
    services.analysis_progress_set(analysis_id=analysis.pk, progress=0.4)
    expect(region).to_contain_text("Analysis running: 40%", timeout=LIVE)
    expect(region.locator("progress")).to_have_attribute("value", "40")
    screenshot("analysis-running")
    deliver(jobs.JUDGE, {"job": job})  # the engine worker's part, and the answers'
    analysis.refresh_from_db()
    assert analysis.status == "done"
    expect(region).to_contain_text("Analysis done: your PR", timeout=LIVE)
    expect(region).to_contain_text("Bob's PR")
    screenshot("analysis-done")
    region.get_by_role("link", name="Review").click()
    expect(page).to_have_url(f"{page.url.split('/play/')[0]}/play/{finished.pk}/review/")
    expect(page.locator(".review-position")).to_contain_text("1 / ")


def failed_then_asked_again(page, analysis, waiting="Analysis queued"):
    """The page's progress region says the analysis is ``waiting``, then that it failed,
    and why, as soon as it does; its "Analyse again" queues it again, and the region
    says so."""
    region = page.locator("[data-analysis-region]")
    expect(region).to_contain_text(waiting)
    services.analysis_fail(analysis_id=analysis.pk, message="The engine failed: boom")
    expect(region).to_contain_text("The analysis failed: The engine failed: boom", timeout=LIVE)
    region.get_by_role("button", name="Analyse again").click()
    expect(region).to_contain_text("Analysis queued", timeout=LIVE)
    analysis.refresh_from_db()
    assert analysis.status == "queued" and analysis.error == ""


def test_a_failed_analysis_is_asked_for_again_from_the_match_page(page, finished):
    analysis = MatchAnalysis.objects.get(match=finished)
    log_in(page, "bob")
    page.goto(f"/play/{finished.pk}/")
    failed_then_asked_again(page, analysis)


def alices_upload(make_player, monkeypatch, *, length, seed):
    """A match of ``length`` points between alice and bob that alice uploads, its
    analysis, started by the upload, and the job sent for it (no worker takes it: the
    test runs it)."""
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    sent = []
    monkeypatch.setattr(services, "judge_send", sent.append)
    alice, _bob = make_player("alice"), make_player("bob")
    record = play_match(Engine(0), (Player("alice", human), Player("bob", human)), length, seed)
    imported = services.imported_match_create(user=alice.user, text=export_mat(record))
    (job,) = sent
    return imported, MatchAnalysis.objects.get(imported=imported), job


def test_an_imported_matchs_review_comes_when_done_and_steps_with_the_keyboard(
    page, make_player, monkeypatch
):
    imported, analysis, job = alices_upload(make_player, monkeypatch, length=3, seed=4)
    log_in(page, "bob")
    page.goto(f"/play/imported/{imported.pk}/review/")
    expect(page.locator("[data-analysis-region]")).to_contain_text("Analysis running: 0%")
    # Done while the page is open: it shows the decisions by itself.
    assert analyse_now(analysis, job=job) == "done"
    count = analysis.decisions.count()
    position = page.locator(".review-position")
    expect(position).to_have_text(f"1 / {count}", timeout=LIVE)
    visible = page.locator("#review .decision:visible")
    first = visible.locator("dd.played").inner_text()
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"2 / {count}")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"2 / {count}")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"1 / {count}")
    assert visible.locator("dd.played").inner_text() == first
    page.get_by_role("link", name="Game 3").click()
    expect(visible).to_have_attribute("data-game", "3")
    expect(visible.locator("svg.board")).to_be_visible()


def test_a_failed_imports_analysis_is_asked_for_again_from_its_review(
    page, make_player, monkeypatch
):
    imported, analysis, _job = alices_upload(make_player, monkeypatch, length=1, seed=2)
    log_in(page, "alice")
    page.goto(f"/play/imported/{imported.pk}/review/")
    failed_then_asked_again(page, analysis, waiting="Analysis running: 0%")
