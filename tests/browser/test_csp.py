"""The Content-Security-Policy in a real browser: every page of the club, of its admin and
its API docs opens with no violation reported, and what runs on them still works."""

import pytest
from django.contrib import admin
from django.urls import reverse
from playwright.sync_api import expect

from tests.browser.helpers import DEVICES, csp_violations, page_waits_until
from tests.browser.test_layout import OTHER_PAGES, PAGES, _open, club  # noqa: F401
from tests.browser.test_tournaments import knockout
from tournaments.models import Round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tournament(club, make_player):  # noqa: F811
    """A knockout of four drawn, its first round under way (the bracket's SVG drawn)."""
    from club.models import Player

    staff = Player.objects.get(user__username="director")
    field = [Player.objects.get(user__username=name) for name in ("alice", "bob", "carol")]
    field.append(make_player("dave", display_name="Dave"))
    started = knockout(staff, field)
    return {"tournament": started.pk, "round": Round.objects.get(tournament=started).pk}


# Pages the layout tests do not open: a drawn tournament, publicly and in the admin.
MORE_PAGES = [
    ("tournament", "/tournaments/{tournament}/", "alice"),
    ("dice", "/play/dice/", "alice"),
    ("admin-tournament", "/admin/tournaments/tournament/{tournament}/change/", "director"),
    ("admin-round", "/admin/tournaments/round/{round}/change/", "director"),
]


def admin_pages() -> list[tuple[str, str, str]]:
    """Every model's list in the admin, and its first row's page."""
    pages = []
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        name = "admin-{}-{}".format(*info)
        pages.append((name, reverse("admin:{}_{}_changelist".format(*info)), "director"))
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            change = reverse("admin:{}_{}_change".format(*info), args=[first.pk])
            pages.append((f"{name}-row", change, "director"))
    return pages


def test_no_page_reports_a_violation(browser, live_server, club, tournament):  # noqa: F811
    """The club's pages (those the layout tests open, a drawn tournament's), every list of
    the admin and its first row, the API docs: the policy blocks nothing on any."""
    context = browser.new_context(base_url=live_server.url, **DEVICES["laptop"])
    violations = csp_violations(context)
    page = context.new_page()
    values = {**club, **tournament}
    pages = [(name, path, user) for name, path, user, _content in PAGES + OTHER_PAGES]
    pages += MORE_PAGES + admin_pages()
    assert len(pages) > 60
    blocked = {}
    for name, path, user in pages:
        context.clear_cookies()
        before = len(violations)
        _open(page, values, path, user)
        if len(violations) > before:
            blocked[name] = violations[before:]
    context.close()
    assert blocked == {}
    assert violations == []  # none came in late, after its page was left


def test_a_violation_is_seen(browser, live_server, db):
    """The watch the page tests rely on: markup with a style attribute, put in a page by
    its script, is blocked and reported."""
    context = browser.new_context(base_url=live_server.url, **DEVICES["laptop"])
    violations = csp_violations(context)
    page = context.new_page()
    page.goto("/")
    page.locator("main").evaluate(
        """(main) => { main.innerHTML += '<p id="red" style="color: red">red</p>'; }"""
    )
    assert page_waits_until(page, lambda: any("style-src" in v for v in violations))
    color = page.locator("#red").evaluate("(p) => getComputedStyle(p).color")
    assert color != "rgb(255, 0, 0)"
    context.close()


def test_the_api_docs_try_an_operation(page, club):  # noqa: F811
    """Swagger UI runs from its own script (?script) under the policy: it lists the
    operations, opens one and sends it to the API (same origin)."""
    page.goto("/api/docs/")
    page.get_by_role("button", name="GET /api/leaderboard/", exact=True).click()
    operation = page.locator(".opblock.is-open")
    operation.get_by_role("button", name="Try it out").click()
    operation.get_by_role("button", name="Execute").click()
    # Nobody is logged in: the API's own answer, a 401, comes back.
    expect(operation.locator(".live-responses-table .response .response-col_status")).to_have_text(
        "401"
    )
