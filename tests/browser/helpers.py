"""The devices the browser tests run on, and what they do on every one: open the site
menu, log in."""

from tests.factories import PASSWORD
from tests.waiting import wait_until

PHONE_USER_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
DEVICES = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "screen": {"width": 390, "height": 844},
        "device_scale_factor": 3,
        "is_mobile": True,
        "has_touch": True,
        "user_agent": PHONE_USER_AGENT,
    },
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}


def site_menu(page):
    """The header's menu, opened first where it sits behind the Menu button (a phone)."""
    button = page.locator("header .menu-button")
    menu = page.locator("#site-menu")
    if button.is_visible() and not menu.is_visible():
        button.click()
        menu.wait_for(state="visible")
    return menu


def log_in(page, username):
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")


def page_waits_until(page, condition) -> bool:
    """``wait_until`` for a browser test: the page waits between two looks, so the events
    Playwright reports (requests, DevTools messages) come in meanwhile."""
    return wait_until(
        condition, every=0.02, pause=lambda seconds: page.wait_for_timeout(seconds * 1000)
    )


def stream_events(page) -> list[int]:
    """The ids (versions) of the live stream's events ``page`` receives from now on, as
    Chromium's DevTools report them: what the page's script has been told."""
    ids: list[int] = []
    session = page.context.new_cdp_session(page)
    session.on(
        "Network.eventSourceMessageReceived", lambda event: ids.append(int(event["eventId"]))
    )
    session.send("Network.enable")
    return ids


# Each Content-Security-Policy violation on a page of the context, handed to Python (a
# binding: a policy does not stop it).
REPORT_VIOLATIONS = """document.addEventListener("securitypolicyviolation", (event) => {
  window.reportCspViolation(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} at `
    + `${event.sourceFile}:${event.lineNumber} on ${document.location.pathname}`);
});"""


def csp_violations(context) -> list[str]:
    """The Content-Security-Policy violations the pages of ``context`` report from now on:
    both the ``securitypolicyviolation`` events and Chromium's console lines about them."""
    reported: list[str] = []

    def report(violation: str) -> None:
        reported.append(violation)

    context.expose_function("reportCspViolation", report)
    context.add_init_script(REPORT_VIOLATIONS)

    def console(message):
        if "Content Security Policy" in message.text:
            reported.append(f"console: {message.text}")

    context.on("console", console)
    return reported
