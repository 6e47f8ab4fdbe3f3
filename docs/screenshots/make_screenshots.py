"""The screenshots in docs/pages.md and the README, made again the same way each time.

A fresh demo club in a temporary ``VAR_DIR`` (``migrate`` and ``load_demo`` with DEBUG
on: SQLite, files for the cache and the broker, nothing fetched), a few scenes added to
it through the services (the demo online chouette's second game under way, an
eight-player knockout played online, two of its first round's tables decided on
boards), Django's development server on a free port, and Debian's Chromium driven by
Playwright: a PNG of the viewport of each page at each of its sizes, written to this
folder. The dice are the server's, so the
positions differ from one run to the next; the pages and their layout do not.

    .venv/bin/python docs/screenshots/make_screenshots.py
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PHONE_USER_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
# The browser tests' phone and laptop (tests/browser/helpers.py), the phone at twice its
# CSS pixels (a phone's screen is sharper than that, but the PNGs stay small), and a TV.
SIZES = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
        "user_agent": PHONE_USER_AGENT,
    },
    "laptop": {"viewport": {"width": 1280, "height": 800}},
    "tv": {"viewport": {"width": 1920, "height": 1080}},
}
DEMO_PASSWORDS = {"admin": "admin"}  # the players' is "demo" (club/.../load_demo.py)


@dataclass(frozen=True)
class Scene:
    """A page to show: who looks at it, at which sizes, and what to scroll to first."""

    name: str
    path: str
    user: str | None
    sizes: tuple[str, ...] = tuple(SIZES)
    scroll_to: str | None = None


def _environment(var_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    for name in ("DATABASE_URL", "CACHE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        env.pop(name, None)
    env.update(
        VAR_DIR=str(var_dir),
        DEBUG="1",
        DJANGO_SETTINGS_MODULE="config.settings",
        LANGUAGE_CODE="en",
    )
    return env


def _play_chouette_on(chouette_pk: int, *, until_game: int, moves: int) -> None:
    """Play the demo online chouette through the services: every game before
    ``until_game`` to its end, then ``moves`` rolls and plays of that one (the first
    legal play for whoever is on turn; nobody doubles)."""
    from chouette import online, selectors
    from chouette.models import Chouette
    from club import selectors as club_selectors
    from club.models import Player

    def game():
        return selectors.chouette_online_game(chouette=Chouette.objects.get(pk=chouette_pk))

    def act(current) -> None:
        player = club_selectors.player_get(username=current["awaiting"][0])
        play = (current["legal_plays"] or [""])[0] if current["phase"] == "move" else ""
        online.chouette_act(
            chouette=Chouette.objects.get(pk=chouette_pk),
            player=player,
            act="roll" if current["phase"] == "roll" else "move",
            turn_no=current["turn_no"],
            play=play,
        )

    for _ in range(2000):
        current = game()
        if current["number"] == until_game:
            break
        if current["phase"] == "over":
            chouette = Chouette.objects.get(pk=chouette_pk)
            online.chouette_game_start(
                chouette=chouette, by=Player.objects.get(pk=chouette.seats[0])
            )
        else:
            act(current)
    for _ in range(moves):
        act(game())


def _scenes() -> list[Scene]:
    """Build the demo club and the scenes' data (in this process, before any server)."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from chouette.models import Chouette
    from club import selectors as club_selectors
    from club import services as club_services
    from matches.models import Match
    from tournaments import services as tournaments
    from tournaments.models import Pairing

    call_command("migrate", verbosity=0, interactive=False)
    call_command("load_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    # The demo's own two matches (matches/demo.py), not the tournaments'.
    finished = Match.objects.get(status=Match.Status.FINISHED)
    playing = Match.objects.get(creator__user__username="carol", opponent__user__username="dave")
    online_chouette = Chouette.objects.get(mode=Chouette.Mode.ONLINE)
    _play_chouette_on(online_chouette.pk, until_game=2, moves=6)

    director = get_user_model().objects.get(username="admin")
    players = [
        club_selectors.player_get(username=name)
        for name in ("alice", "bob", "carol", "dave", "erin", "frank")
    ]
    for username, name in (("grace", "Grace"), ("heidi", "Heidi")):
        players.append(
            club_services.player_create(username=username, password="demo", display_name=name)
        )
    knockout = tournaments.tournament_create(
        created_by=director,
        name="Friday knockout",
        format="single_elimination",
        match_lengths="5, 7, 9",
        entry_fee=Decimal("10.00"),
        online=True,
    )
    for player in players:
        tournaments.entry_add(tournament=knockout, player=player, recorded_by=director)
    knockout = tournaments.tournament_start(tournament=knockout)
    # Two of round 1's tables decided on the club's boards; the others played online.
    first_round = Pairing.objects.filter(round__tournament=knockout, round__number=1)
    for pairing in first_round.filter(position__in=(1, 2)):
        on_board = tournaments.pairing_play_on_board(pairing=pairing)
        tournaments.pairing_result_record(
            pairing=on_board, winner=on_board.first, recorded_by=director
        )
    # A tournament the director is preparing: open for entries, its payout rows set.
    preparing = tournaments.tournament_create(
        created_by=director,
        name="Spring open",
        format="single_elimination",
        match_lengths="7",
        entry_fee=Decimal("20.00"),
        house_cut_percent=Decimal("10"),
        payout_table={"unit": "percent", "places": {"main": {"1": "50", "2": "30", "3": "20"}}},
    )
    tournaments.tournament_open(tournament=preparing)
    for player in players:
        tournaments.entry_add(tournament=preparing, player=player, recorded_by=director)

    return [
        Scene("board", f"/play/{playing.pk}/", playing.creator.username),
        Scene(
            "match-finished",
            f"/play/{finished.pk}/",
            finished.creator.username,
            scroll_to=".match-summary",
        ),
        Scene(
            "chouette-big-screen",
            f"/chouettes/{online_chouette.pk}/?screen=big",
            "admin",
            sizes=("laptop", "tv"),
        ),
        Scene("chouette-table", f"/chouettes/{online_chouette.pk}/", "admin", sizes=("phone",)),
        Scene(
            "bracket-big-screen",
            f"/tournaments/{knockout.pk}/?screen=big",
            None,
            sizes=("laptop", "tv"),
        ),
        Scene("bracket", f"/tournaments/{knockout.pk}/", None, sizes=("phone",)),
        Scene(
            "tournament-admin",
            f"/admin/tournaments/tournament/{preparing.pk}/change/",
            "admin",
            scroll_to=".payout-table",
        ),
        Scene(
            "tournament-admin-entries",
            f"/admin/tournaments/tournament/{preparing.pk}/change/",
            "admin",
            scroll_to="#entries-group",
        ),
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _server(env: dict[str, str]) -> Iterator[str]:
    """Django's development server (it serves the static files with DEBUG on), threaded:
    a live page holds one request open the whole time."""
    port = _free_port()
    address = f"http://127.0.0.1:{port}"
    log = open(Path(env["VAR_DIR"]) / "server.log", "w+")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{address}/login/", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the development server did not answer") from None
                time.sleep(0.2)
        yield address
    except Exception:
        log.seek(0)
        print(log.read()[-5000:], file=sys.stderr)  # the server's side of what failed
        raise
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _shoot(address: str, scenes: list[Scene]) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for scene in scenes:
            for size in scene.sizes:
                context = browser.new_context(base_url=address, **SIZES[size])
                page = context.new_page()
                if scene.user:
                    page.goto("/login/")
                    page.get_by_label("Username").fill(scene.user)
                    page.get_by_label("Password").fill(DEMO_PASSWORDS.get(scene.user, "demo"))
                    page.get_by_role("button", name="Log in").click()
                    page.wait_for_url("**/")
                answer = page.goto(scene.path)
                if answer is None or answer.status != 200:
                    raise RuntimeError(f"{scene.path}: {answer.status if answer else 'no answer'}")
                page.wait_for_load_state("load")
                if scene.scroll_to:
                    page.locator(scene.scroll_to).first.scroll_into_view_if_needed()
                page.evaluate("() => document.fonts.ready")
                path = OUT / f"{scene.name}-{size}.png"
                page.screenshot(path=str(path))
                written.append(path)
                context.close()
        browser.close()
    return written


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory(prefix="club-screenshots-") as var_dir:
        env = _environment(Path(var_dir))
        os.environ.clear()
        os.environ.update(env)
        scenes = _scenes()
        with _server(env) as address:
            for path in _shoot(address, scenes):
                print(f"{path.relative_to(ROOT)}  {path.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
