"""The live channel measured on the embedded default: streams and held requests against
plain polling.

Starts the web server as ``manage.py runclub`` does (gunicorn, gthread workers) on a
database of its own (``DATABASE_URL``; default a SQLite file under ``var/``, as
``make run``), plays ``--boards`` matches in this process (each side acting every 1 to 3
seconds through the services, as another web process or the Celery worker would), and
opens every board like the board page does: both players and, on every fourth board, a
watcher, each logged in with a session. Then, for each mechanism in turn:

- ``polling``: the board fragment every second, compared with the version it had;
- ``held``: ``GET /api/live/?topic=&since=&wait=25``, then the board fragment when the
  version moved (what ``static/matches/play.js`` did before the stream);
- ``stream``: ``GET /api/live/stream/?topic=&since=``, one stream of the table's versions,
  the board fragment fetched on a newer one (what ``static/matches/play.js`` does).

It prints, side by side: the update delay (from an action's commit to a client holding
the new version), the requests per second the server answered, and the CPU seconds the
web server spent. Run: ``.venv/bin/python bench/live.py [--boards 40] [--seconds 20]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import api_play as play  # noqa: E402  (the path above first): signed-in sessions

VERSION = re.compile(r'"version": (\d+)')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User and system CPU of ``pid`` and its children (gunicorn's workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


class Board:
    """One match: its topic, the time each version was committed, its clients."""

    def __init__(self, match: object, topic: str, version: int) -> None:
        self.match = match
        self.topic = topic
        self.version = version
        self.committed: dict[int, float] = {version: time.monotonic()}
        self.lock = threading.Lock()


class Run:
    def __init__(self) -> None:
        self.delays: list[float] = []
        self.requests = 0
        self.errors = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def seen(self, board: Board, old: int, new: int) -> None:
        now = time.monotonic()
        with board.lock:
            # The delay of the oldest version the client had not seen.
            first = min((v for v in board.committed if v > old), default=None)
            at = board.committed.get(first) if first is not None else None
        if at is not None:
            with self.lock:
                self.delays.append(now - at)

    def count(self, ok: bool) -> None:
        with self.lock:
            self.requests += 1
            self.errors += not ok


def session_for(base: str, user: object) -> requests.Session:
    """A logged-in session for ``user`` (``api_play.session_key_for``)."""
    from django.conf import settings

    session = requests.Session()
    session.cookies.set(settings.SESSION_COOKIE_NAME, play.session_key_for(user))
    return session


def redraw(
    base: str, session: requests.Session, board: Board, run: Run, version: int, new: int
) -> int:
    """The board fragment fetched again for a newer version, as the page does; the
    version the client has now."""
    page = session.get(f"{base}/play/{board.match.pk}/table/", timeout=30)
    run.count(page.ok)
    run.seen(board, version, new)
    return new


def held_client(base: str, session: requests.Session, board: Board, run: Run) -> None:
    version = board.version
    while not run.stop.is_set():
        params = {"topic": board.topic, "since": version, "wait": 25}
        try:
            answer = session.get(f"{base}/api/live/", params=params, timeout=30)
            run.count(answer.ok)
            new = answer.json()["version"]
            if new > version:
                version = redraw(base, session, board, run, version, new)
        except requests.RequestException:
            run.count(False)
            time.sleep(1)


def stream_client(base: str, session: requests.Session, board: Board, run: Run) -> None:
    """What static/matches/play.js does: one stream of the table's versions
    (``/api/live/stream/``), opened again when it ends; the board fragment fetched on a
    newer version."""
    version = board.version
    while not run.stop.is_set():
        params = {"topic": board.topic, "since": version}
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(version)}
        try:
            with session.get(
                f"{base}/api/live/stream/", params=params, headers=headers, stream=True, timeout=40
            ) as stream:
                run.count(stream.ok)
                for line in stream.iter_lines(chunk_size=None, decode_unicode=True):
                    if run.stop.is_set():
                        return
                    if not line.startswith("data: "):
                        continue
                    new = json.loads(line[len("data: ") :])["version"]
                    if new > version:
                        version = redraw(base, session, board, run, version, new)
        except requests.RequestException:
            run.count(False)
            time.sleep(1)


def polling_client(base: str, session: requests.Session, board: Board, run: Run) -> None:
    version = board.version
    time.sleep(random.random())  # clients do not poll in step
    while not run.stop.is_set():
        try:
            page = session.get(f"{base}/play/{board.match.pk}/table/", timeout=30)
            run.count(page.ok)
            found = VERSION.search(page.text)
            new = int(found.group(1)) if found else version
            if new > version:
                run.seen(board, version, new)
                version = new
        except requests.RequestException:
            run.count(False)
        run.stop.wait(1.0)


def mover(boards: list[Board], people: dict[str, object], run: Run) -> None:
    """Every board's side on turn acts every 1 to 3 seconds, through the services."""
    from matches import selectors, services

    due = {id(board): time.monotonic() + random.uniform(1, 3) for board in boards}
    while not run.stop.is_set():
        for board in boards:
            if time.monotonic() < due[id(board)]:
                continue
            detail = selectors.match_detail(board.match)
            game = detail["game"]
            if detail["status"] != "playing" or game is None or game["turn"] is None:
                continue
            player = people[game["turn"]]
            if game["phase"] == "roll":
                kwargs = {"act": "roll"}
            elif game["phase"] == "move":
                kwargs = {"act": "move", "play": (game["legal_plays"] or [""])[0]}
            else:
                kwargs = {"act": "take" if game["phase"] == "take_or_pass" else "reject_resign"}
            board.match = services.match_act(
                match=board.match, player=player, turn_no=game["turn_no"], **kwargs
            )
            board.match.table.refresh_from_db()
            with board.lock:
                board.committed[board.match.table.version] = time.monotonic()
            due[id(board)] = time.monotonic() + random.uniform(1, 3)
        time.sleep(0.02)


def measure(name, client, base, boards, sessions, people, seconds, web_pid):
    run = Run()
    for board in boards:  # every client starts from the board as it stands
        board.match.table.refresh_from_db()
        board.version = board.match.table.version
        board.committed = {board.version: time.monotonic()}
    threads = [
        threading.Thread(target=client, args=(base, session, board, run), daemon=True)
        for board, session in sessions
    ]
    moving = threading.Thread(target=mover, args=(boards, people, run), daemon=True)
    cpu_before = cpu_seconds(web_pid)
    for thread in threads:
        thread.start()
    moving.start()
    time.sleep(seconds)
    run.stop.set()
    moving.join()
    cpu = cpu_seconds(web_pid) - cpu_before
    delays = sorted(run.delays) or [float("nan")]

    def pct(p: float) -> float:
        return delays[min(len(delays) - 1, int(p * len(delays)))] * 1000

    return {
        "mechanism": name,
        "updates seen": len(run.delays),
        "delay p50 ms": pct(0.50),
        "delay p95 ms": pct(0.95),
        "delay p99 ms": pct(0.99),
        "delay max ms": delays[-1] * 1000,
        "requests/s": run.requests / seconds,
        "errors": run.errors,
        "web CPU s": cpu,
        "mean delay ms": statistics.fmean(delays) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    var = ROOT / "var"
    var.mkdir(exist_ok=True)
    database = var / "bench-live.sqlite3"
    database.unlink(missing_ok=True)
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{database}")
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, check=True)

    import django

    django.setup()
    from matches import services
    from tests.factories import PlayerFactory, UserFactory
    from web.management.commands.runclub import service_commands

    people, boards = {}, []
    for number in range(args.boards):
        first, second = (
            PlayerFactory(user=UserFactory(username=f"p{number}{side}")) for side in "ab"
        )
        people[first.username], people[second.username] = first, second
        options = services.MatchOptions(length=7, rated=False)
        match = services.match_create(creator=first, opponent=second, options=options)
        match = services.match_accept(match=match, player=second)
        boards.append(Board(match, f"table:{match.table_id}", match.table.version))
    watchers = [PlayerFactory(user=UserFactory(username=f"w{n}")) for n in range(args.boards)]

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (var / "bench-live-web.log").open("w")
    web = subprocess.Popen(
        service_commands(f"127.0.0.1:{port}")["web"], cwd=ROOT, stdout=log, stderr=log
    )
    try:
        for _ in range(100):
            try:
                requests.get(f"{base}/healthz", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.2)
        sessions = []
        for number, board in enumerate(boards):
            names = [f"p{number}a", f"p{number}b"]
            watching = [watchers[number]] if number % 4 == 0 else []
            for player in [people[name] for name in names] + watching:
                sessions.append((board, session_for(base, player.user)))
        print(f"{len(boards)} boards, {len(sessions)} clients, {args.seconds:g} s each, "
              f"database {os.environ['DATABASE_URL'].split(':')[0]}")  # fmt: skip
        results = [
            measure(name, client, base, boards, sessions, people, args.seconds, web.pid)
            # Polling first: its clients stop within a second, held ones up to 25 s later,
            # streams up to 15 s (their next comment) later.
            for name, client in (
                ("polling", polling_client),
                ("held", held_client),
                ("stream", stream_client),
            )
        ]
        print(f"{'':16}" + "".join(f"{r['mechanism']:>12}" for r in results))
        for key in results[0]:
            if key == "mechanism":
                continue
            print(f"{key:16}" + "".join(f"{r[key]:>12.1f}" for r in results))
        del watchers
    finally:
        web.terminate()  # held requests may keep it up to 25 s: then it is killed
        try:
            web.wait(timeout=5)
        except subprocess.TimeoutExpired:
            web.kill()


if __name__ == "__main__":
    main()
