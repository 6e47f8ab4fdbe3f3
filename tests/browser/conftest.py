"""Real-browser tests: Debian's Chromium driven by Playwright against a live server.

They run with ``make test-browser`` (``.ci/run`` installs Chromium first). Every test that
takes a ``page`` runs twice: on a phone (390x844 CSS pixels, device scale factor 3, touch,
a mobile user agent) and on a laptop (1280x800). Screenshots land in ``var/screenshots/``,
named ``<name>-<device>.png``, for a person to look at.
"""

import logging
import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests.browser.helpers import DEVICES, csp_violations

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(settings.VAR_DIR) / "screenshots"


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests
    # make beside it are still synchronous, so Django's async guard must stand aside.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture(scope="session", autouse=True)
def live_watcher_quiet_once_the_database_is_gone(django_db_setup):
    """A stream the browser left open keeps the live watcher reading after the last test,
    from a test database about to be dropped; its failures would be logged with a
    traceback, which Python 3.11 formats with ast.parse, racing pytest's own ast.parse of
    the modules it imports at the session's end ("AST constructor recursion depth
    mismatch"). Torn down before the database is, this silences that logger first."""
    yield
    logging.getLogger("club.live").disabled = True


@pytest.fixture(params=list(DEVICES))
def device(request) -> str:
    """The device a test's page is opened on: every page test runs on each."""
    return request.param


@pytest.fixture
def page(browser, live_server, device):
    """A page on ``device``; its test fails if the Content-Security-Policy blocked
    anything on it (an inline script or style left somewhere)."""
    context = browser.new_context(base_url=live_server.url, **DEVICES[device])
    violations = csp_violations(context)
    page = context.new_page()
    yield page
    context.close()
    assert violations == [], violations


@pytest.fixture
def screenshot(page, device):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}-{device}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
