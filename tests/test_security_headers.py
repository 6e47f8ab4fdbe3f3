"""The security headers (docs/operations.md, "Headers").

The Content-Security-Policy: every answer carries it, it allows no inline script or
style, and nothing inline is left for it to block: not in a template, not in the HTML
the Python code writes (the boards', charts' and brackets' SVG, the admin's links), not
in any page as served. HSTS and secure cookies: on behind a TLS proxy, off on the
embedded default's plain HTTP."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from club.models import MatchResult, Player
from tests.browser.test_layout import club  # noqa: F401 (the layout tests' small club)
from tests.club.test_deployment import _manage_in_production
from tests.factories import PASSWORD
from tournaments import services as tournaments

ROOT = Path(__file__).resolve().parent.parent
APPS = ["web", "club", "matches", "chouette", "tournaments", "analysis"]
POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'"},
    "connect-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "form-action": {"'self'"},
    "frame-ancestors": {"'none'"},
}
# Swagger UI's stylesheet draws its icons as data: images (web/api_docs.py).
DOCS_POLICY = {**POLICY, "img-src": {"'self'", "data:"}}


def policy(header: str | None) -> dict[str, set[str]]:
    """A Content-Security-Policy header's directives and their sources."""
    directives = [directive.split() for directive in (header or "").split(";") if directive.strip()]
    return {name: set(sources) for name, *sources in directives}


class InlineFinder(HTMLParser):
    """What a strict policy blocks in a piece of HTML: a script without ``src`` (JSON
    data aside, which is never run), a ``<style>`` element, a ``style`` attribute, an
    event handler attribute (``onchange=...``), a ``javascript:`` address."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        where = f"<{tag}> at line {self.getpos()[0]}"
        if tag == "style":
            self.found.append(f"{where}: a <style> element")
        if tag == "script" and "src" not in values and values.get("type") != "application/json":
            self.found.append(f"{where}: an inline script")
        for name, value in attrs:
            if value is None:  # a bare word: a template tag's inside a tag, not an attribute
                continue
            handler = re.fullmatch(r"on[a-z]+", name)
            if name == "style" or handler or value.strip().lower().startswith("javascript:"):
                self.found.append(f"{where}: {name}={value!r}")


def inline_bits(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    finder.close()
    return finder.found


def templates() -> list[Path]:
    folders = [ROOT / "templates", *(ROOT / app / "templates" for app in APPS)]
    return sorted(path for folder in folders if folder.is_dir() for path in folder.rglob("*.html"))


def test_the_policy_allows_no_inline_script_or_style():
    directives = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    for sources in directives.values():
        assert not {"'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'"} & set(sources)
    assert directives["script-src"] == directives["style-src"] == ["'self'"]
    assert directives["object-src"] == directives["frame-ancestors"] == ["'none'"]


def test_the_finder_finds_every_kind_of_inline_bit():
    """The greps below would pass on anything if the finder saw nothing."""
    found = inline_bits(
        '<script>go()</script><script src="/s.js"></script>'
        '<script type="application/json" id="data">{}</script><style>p {}</style>'
        '<select onchange="this.form.submit()"></select><svg><rect style="fill: red"/></svg>'
        '<a href="javascript:go()">go</a><option {% if x %} selected{% endif %}>'
    )
    assert [bit.split(": ", 1)[1] for bit in found] == [
        "an inline script",
        "a <style> element",
        "onchange='this.form.submit()'",
        "style='fill: red'",
        "href='javascript:go()'",
    ]


def test_no_template_has_an_inline_script_style_or_handler():
    found = {
        str(path.relative_to(ROOT)): bits
        for path in templates()
        if (bits := inline_bits(path.read_text()))
    }
    assert len(templates()) > 30
    assert found == {}


def test_no_python_code_writes_inline_style_script_or_handler():
    """The HTML and SVG the apps write in Python (format_html in the admin, the board's
    and the charts' SVG): attributes and elements a strict policy would block."""
    written = re.compile(r"""style=\\?["']|<style|<script|\son[a-z]+=\\?["']|javascript:""")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if written.search(line)
    ]
    assert found == []


def _route_paths(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name != "admin":  # the admin's pages: admin_paths()
                yield from _route_paths(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield prefix + str(pattern.pattern)


def page_paths(values: dict[str, int]) -> list[str]:
    """Every named path of the site, its parameters filled with the club's rows: the
    match in play, the online chouette, the drawn tournament, a result."""
    ids = [
        ("api/matches/", "match"),
        ("play/", "match"),
        ("api/chouettes/", "online"),
        ("chouettes/", "online"),
        ("tournaments/", "tournament"),
        ("api/tournaments/", "tournament"),
        ("api/results/", "result"),
        ("analysis/", "match"),  # an analysis' progress: a 404 with the club's rows
    ]
    paths = []
    for route in _route_paths(get_resolver().url_patterns):
        path = "/" + route.replace("<username:username>", "alice")
        if "<id:pk>" in path:
            key = next(key for start, key in ids if route.startswith(start))
            path = path.replace("<id:pk>", str(values[key]))
        assert "<" not in path, path
        paths.append(path)
    return paths


def admin_paths() -> list[str]:
    """Every model's list, add page and first row in the admin."""
    paths = [reverse("admin:index")]
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        paths += [reverse("admin:{}_{}_changelist".format(*info))]
        paths += [reverse("admin:{}_{}_add".format(*info))]
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            paths.append(reverse("admin:{}_{}_change".format(*info), args=[first.pk]))
    return paths


@pytest.fixture
def values(club, make_player):  # noqa: F811
    """The club, with a knockout of four drawn (its bracket's SVG on its pages)."""
    staff = Player.objects.get(user__username="director")
    field = [Player.objects.get(user__username=name) for name in ("alice", "bob", "carol")]
    field.append(make_player("dave", display_name="Dave"))
    tournament = tournaments.tournament_create(
        created_by=staff.user, name="Club cup", format="single_elimination", match_lengths="1"
    )
    for player in field:
        tournaments.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    tournaments.tournament_start(tournament=tournament)
    return {**club, "tournament": tournament.pk, "result": MatchResult.objects.first().pk}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("who", ["anonymous", "alice", "director"])
def test_every_page_and_api_answer_carries_the_policy_and_nothing_inline(values, who):
    """Every path of the site and of the admin, read by anyone, a player and the staff
    (what they may not see is a 403, a 404 or a redirect: that answer carries it too);
    every HTML page as served has nothing inline for it to block."""
    client = Client()
    if who != "anonymous":
        client.force_login(Player.objects.get(user__username=who).user)
    paths = page_paths(values) + admin_paths()
    assert len(paths) > 140
    wrong, inline, pages = {}, {}, 0
    for path in paths:
        response = client.get(path)
        expected = DOCS_POLICY if path == reverse("api-docs") else POLICY
        if policy(response.get("Content-Security-Policy")) != expected:
            wrong[path] = (response.status_code, response.get("Content-Security-Policy"))
        if response["Content-Type"].startswith("text/html") and not response.streaming:
            pages += 1
            if bits := inline_bits(response.content.decode()):
                inline[path] = bits
    assert wrong == {}
    assert pages > 30
    assert inline == {}


# HSTS and secure cookies (docs/operations.md, "Behind a TLS proxy").
TLS_SETTINGS = (
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_PROXY_SSL_HEADER",
    "CSRF_TRUSTED_ORIGINS",
)


def tls_settings(**environment: str) -> list[str]:
    """The TLS settings as ``config.settings`` reads them from ``environment`` (and no
    DEBUG unless it says so), one line each."""
    code = "from django.conf import settings; "
    code += "".join(f"print(repr(settings.{name})); " for name in TLS_SETTINGS)
    result = _manage_in_production("shell", "-c", code, **environment)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-len(TLS_SETTINGS) :]


def test_the_embedded_default_serves_plain_http():
    """make run (DEBUG on) on http://127.0.0.1:8000: no redirect, no HSTS, cookies sent
    over plain HTTP, or nobody could log in."""
    assert tls_settings(DEBUG="1") == [
        "False",
        "0",
        "False",
        "False",
        "('HTTP_X_FORWARDED_PROTO', 'https')",
        "[]",
    ]


def test_production_expects_a_tls_proxy_and_each_setting_can_be_said_otherwise():
    production = {"SECRET_KEY": "p" * 60}
    assert tls_settings(**production)[:4] == ["True", "31536000", "True", "True"]
    plain_http = tls_settings(
        **production,
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="0",
        SESSION_COOKIE_SECURE="off",
        CSRF_COOKIE_SECURE="no",
        CSRF_TRUSTED_ORIGINS="https://club.example.org,https://www.club.example.org",
    )
    assert plain_http[:4] == ["False", "0", "False", "False"]
    assert plain_http[5] == "['https://club.example.org', 'https://www.club.example.org']"


TLS_ON = {
    "SECURE_SSL_REDIRECT": True,
    "SECURE_HSTS_SECONDS": 31536000,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
    "SECURE_HSTS_PRELOAD": True,
    "SESSION_COOKIE_SECURE": True,
    "CSRF_COOKIE_SECURE": True,
}
BEHIND_THE_PROXY = {"HTTP_X_FORWARDED_PROTO": "https"}


@override_settings(**TLS_ON)
def test_plain_http_is_sent_to_https_but_the_health_check_is_not(client, db):
    response = client.get("/players/")
    assert response.status_code == 301
    assert response["Location"] == "https://testserver/players/"
    assert "Strict-Transport-Security" not in response
    # The proxy's or compose's health check asks the web server itself, over HTTP.
    assert client.get("/healthz").status_code in (200, 503)


@override_settings(**TLS_ON)
def test_behind_the_proxy_https_is_remembered_and_cookies_stay_on_it(client, make_player):
    make_player("alice")
    page = client.get("/login/", **BEHIND_THE_PROXY)
    assert page.status_code == 200
    assert page["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert page.cookies["csrftoken"]["secure"] is True
    logged_in = client.post(
        "/login/", {"username": "alice", "password": PASSWORD}, **BEHIND_THE_PROXY
    )
    assert logged_in.status_code == 302
    assert logged_in.cookies["sessionid"]["secure"] is True
    assert logged_in.cookies["sessionid"]["httponly"] is True


@override_settings(
    SECURE_SSL_REDIRECT=False,
    SECURE_HSTS_SECONDS=0,
    SESSION_COOKIE_SECURE=False,
    CSRF_COOKIE_SECURE=False,
)
def test_on_plain_http_the_cookies_are_not_secure_and_nothing_is_remembered(client, make_player):
    """What the embedded default (DEBUG on) and a club's own LAN without TLS use."""
    make_player("alice")
    page = client.get("/login/")
    assert "Strict-Transport-Security" not in page
    assert page.cookies["csrftoken"]["secure"] == ""
    logged_in = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert logged_in.status_code == 302
    assert logged_in.cookies["sessionid"]["secure"] == ""
