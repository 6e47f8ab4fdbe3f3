"""Where one board action's time goes: CPU per layer of a request, in this process.

Not a test. It plays matches through the whole Django request path (middleware, DRF token
auth, parsing, the view, the service, the answer's serialization and JSON rendering)
with Django's test client on PostgreSQL, production's settings (DEBUG off), and times
each layer by wrapping its function with a CPU-time counter. Inclusive times: a layer's
figure contains the layers it calls (the database time is inside the service's and the
view's). What it leaves out: gunicorn's HTTP parsing and socket work (measured apart in
bench/README.md).

    .venv/bin/python bench/profile_action.py                # DATABASE_POOL=0
    .venv/bin/python bench/profile_action.py --pool 4       # with Django's pool
    .venv/bin/python bench/profile_action.py --pool 4 --cprofile 40   # cProfile's top 40

``--cprofile N``: the requests under cProfile (CPU time) instead of the layers' counters, its N
costliest functions printed by inclusive time and by own time (where the layers' ms go).

    .venv/bin/python bench/profile_action.py --pool 4 --live 300   # GET /api/live/ instead

    .venv/bin/python bench/profile_action.py --pool 4 --before main   # main beside this tree

``--before REF``: the same actions in child processes, alternately on ``REF`` (a ``git
worktree`` of it in a temporary directory, removed after; or an existing checkout's path)
and on this tree, ``--rounds`` times (default 4), the first tree alternating; printed side
by side: each round's CPU per action, the medians of the layers, the queries and, from
one more pass of each under cProfile, the Python function calls per action (a count no
load moves). On a shared machine the runs' totals move with the load; the rounds taken
alternately put both trees under the same.

``--live N``: the CPU and queries of N live requests (``GET /api/live/``) in each of three
cases: a re-poll with nothing new and ``wait=0``, a client behind (the state at once), and
a held request the watcher wakes, sent again at once after each wake as a follower does
(the woken case's own thread only: the watcher's reads are apart, once per process).
With ``--cprofile N`` the three cases' own profiles.

The database is ``club_profile_action`` on ``BENCH_POSTGRES`` (created, migrated).
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE = "club_profile_action"
POSTGRES = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")

# (label, module, attribute path): the layers timed, in the order printed.
LAYERS = (
    ("whole request (handler)", "django.core.handlers.base", "BaseHandler.get_response"),
    (
        "token auth (Token + user)",
        "rest_framework.authentication",
        "TokenAuthentication.authenticate",
    ),
    ("  of it: the cache's read", "club.auth", "_cached"),
    ("  of it: the cache's write (a miss)", "club.auth", "_store"),
    ("request body parsing", "rest_framework.request", "Request._parse"),
    ("the player of the user", "matches.api", "_player"),
    ("match read by the view", "matches.api", "_match_get"),
    ("the service (transaction)", "matches.services", "match_act"),
    ("  lock + read table, match", "matches.services", "_locked"),
    ("  load Game/MatchState", "matches.services", "MatchTurn.__post_init__"),
    ("  the core's action", "matches.table_engine", "rules_apply"),
    ("  play settings read", "matches.services", "_settings"),
    ("  write table, log, match", "matches.services", "MatchTurn.save"),
    ("answer: match_detail", "matches.selectors", "match_detail"),
    ("  legal plays", "backgammon.game", "Game.legal_plays"),
    ("  position and match IDs", "matches.selectors", "_ids"),
    ("  Game.from_dict", "backgammon.game", "Game.from_dict"),
    ("answer: serializer", "rest_framework.serializers", "Serializer.to_representation"),
    ("JSON rendering", "rest_framework.renderers", "JSONRenderer.render"),
    ("state handed to live (cache)", "web.live", "state_share"),
    ("request log line", "logging", "Logger.info"),
    ("Celery send (timeout task)", "matches.table_engine", "_schedule"),
    ("database: every query", "django.db.backends.utils", "CursorWrapper._execute"),
    ("database: connection setup", "django.db.backends.base.base", "BaseDatabaseWrapper.connect"),
    ("database: connection close", "django.db.backends.base.base", "BaseDatabaseWrapper.close"),
    ("database: commit", "django.db.backends.base.base", "BaseDatabaseWrapper.commit"),
)


class Meter:
    """CPU (thread time) and wall time, and calls, per label, only while ``on``."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.depth: dict[str, int] = defaultdict(int)
        self.on = False

    def wrap(self, label: str, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.on or self.depth[label]:  # a recursive call is counted once
                return func(*args, **kwargs)
            self.depth[label] += 1
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                self.cpu[label] += time.thread_time() - cpu
                self.wall[label] += time.perf_counter() - wall
                self.calls[label] += 1
                self.depth[label] -= 1

        return timed


class QueryCount:
    """The queries a connection sends while this wraps it (``execute_wrapper``)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], sql: str, *rest: Any) -> Any:
        self.count += 1
        return execute(sql, *rest)


def instrument(meter: Meter) -> None:
    """Each layer's function wrapped; one the tree does not have (an older or newer tree,
    ``--before``) is left out."""
    for label, module_name, path in LAYERS:
        owner: Any = importlib.import_module(module_name)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part, None)
        if not hasattr(owner, name):
            continue
        meter.cpu[label] = 0.0  # timed, if never called
        found = owner.__dict__.get(name) if isinstance(owner, type) else None
        if isinstance(found, classmethod):
            setattr(owner, name, classmethod(meter.wrap(label, found.__func__)))
        else:
            setattr(owner, name, meter.wrap(label, getattr(owner, name)))


def environment(pool: int, database: str | None = None) -> None:
    """Production's settings on ``database`` (default ``DATABASE``), created if need be."""
    database = database or DATABASE
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "0",
            "SECRET_KEY": "profile-" + os.urandom(16).hex(),
            "ALLOWED_HOSTS": "testserver",
            "SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": f"{POSTGRES}/{database}",
            "DATABASE_POOL": str(pool),
            "CELERY_BROKER_URL": os.environ.get("PROFILE_BROKER", "memory://"),
            "CELERY_RESULT_BACKEND": "cache+memory://",
            "VAR_DIR": tempfile.mkdtemp(prefix="profile-action-"),
            "LOG_LEVEL": "INFO",
        }
    )
    found = subprocess.run(
        [
            "psql",
            f"{POSTGRES}/postgres",
            "-tAc",
            f"SELECT 1 FROM pg_database WHERE datname='{database}'",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    if not found.stdout.strip():
        subprocess.run(
            ["psql", f"{POSTGRES}/postgres", "-c", f"CREATE DATABASE {database}"], check=True
        )


def django_ready() -> None:
    """Django set up on ``environment``'s database, migrated, with a quick password hasher
    and the request log silenced (its lines are not what is timed)."""
    import logging

    import django
    from django.conf import settings
    from django.core.management import call_command

    django.setup()
    call_command("migrate", "--noinput", verbosity=0)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    logging.getLogger("club.request").handlers = [logging.NullHandler()]
    logging.getLogger("club.request").propagate = False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool", type=int, default=0, help="DATABASE_POOL (0: none)")
    parser.add_argument("--actions", type=int, default=600, help="actions to time")
    parser.add_argument("--clock", default="none", help="the matches' clock preset")
    parser.add_argument(
        "--timeouts",
        type=int,
        default=0,
        help="time this many timeouts instead (each ends a match)",
    )
    parser.add_argument(
        "--cprofile", type=int, default=0, help="print cProfile's N costliest functions"
    )
    parser.add_argument(
        "--live", type=int, default=0, help="time this many live requests of each case instead"
    )
    parser.add_argument("--database", default=DATABASE, help="the PostgreSQL database to use")
    parser.add_argument("--before", help="a git ref (or a checkout's path) to run beside this tree")
    parser.add_argument("--rounds", type=int, default=4, help="--before: runs of each tree")
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # --before's child: its tree
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child's answer
    args = parser.parse_args()
    if args.before:
        compare(args)
        return
    if args.tree:
        sys.path.insert(0, str(args.tree))
    environment(args.pool, args.database)
    django_ready()
    from django.db import connection
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from bench.api_play import choose
    from club.services import player_create

    run = f"{int(time.time()) % 100000:05d}"
    clients = []
    for side in range(2):
        player = player_create(username=f"prof{run}s{side}", password="profile-password")
        token = Token.objects.create(user=player.user).key
        clients.append((player.user.username, Client(HTTP_AUTHORIZATION=f"Token {token}")))
    by_name = dict(clients)
    if args.timeouts:
        timeouts(clients, args.timeouts)
        return
    if args.live:
        live_requests(clients, args.live, args.cprofile)
        return
    meter = Meter()
    profile = cProfile.Profile(time.thread_time) if args.cprofile else None
    if profile is None:
        instrument(meter)
    rng = random.Random(1)
    queries: list[int] = []
    timed = 0
    total_cpu = 0.0
    while timed < args.actions:
        match = match_started(clients, args.clock)
        while match["status"] == "playing" and timed < args.actions:
            kind, body = choose(match, rng)
            counted = QueryCount()
            connection.close()  # as production's request_finished does (the pool: given back)
            meter.on = True
            if profile is not None:
                profile.enable()
            started = time.thread_time()
            with connection.execute_wrapper(counted):
                response = by_name[match["game"]["turn"]].post(
                    f"/api/matches/{match['id']}/{kind}/", body, content_type="application/json"
                )
            total_cpu += time.thread_time() - started
            connection.close()
            if profile is not None:
                profile.disable()
            meter.on = False
            assert response.status_code == 200, response.content
            match = response.json()
            queries.append(counted.count)
            timed += 1
    if args.json:
        calls = pstats.Stats(profile).total_calls if profile is not None else 0  # type: ignore[attr-defined]
        layers = {label: 1000 * cpu / timed for label, cpu in meter.cpu.items()}
        answer = {"cpu": 1000 * total_cpu / timed, "queries": sum(queries) / timed}
        print(json.dumps({**answer, "calls": calls / timed, "layers": layers}))
        return
    print(f"{timed} actions, DATABASE_POOL={args.pool}, clock {args.clock}")
    print(f"  CPU per action: {1000 * total_cpu / timed:.2f} ms", end="; ")
    print(f"queries per action: {sum(queries) / timed:.1f}")
    if profile is not None:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(args.cprofile)
        stats.sort_stats("tottime").print_stats(args.cprofile)
        return
    print(f"  {'layer':34} {'CPU ms':>8} {'wall ms':>8} {'calls':>7}  (per action; inclusive)")
    for label, _module, _path in LAYERS:
        calls = meter.calls.get(label, 0)
        print(
            f"  {label:34} {1000 * meter.cpu[label] / timed:8.2f} "
            f"{1000 * meter.wall[label] / timed:8.2f} {calls / timed:7.2f}"
        )


def compare(args: argparse.Namespace) -> None:
    """``--before``: both trees' runs alternately in child processes, side by side."""
    tree, made = Path(args.before), False
    if not tree.is_dir():
        tree, made = Path(tempfile.mkdtemp(prefix="profile-before-")) / "tree", True
        git = ["git", "-C", str(ROOT)]
        subprocess.run([*git, "worktree", "add", "--detach", str(tree), args.before], check=True)
    trees = {f"before ({args.before})": tree, "this tree": ROOT}
    common = ["--pool", str(args.pool), "--actions", str(args.actions), "--clock", args.clock]
    common += ["--database", args.database, "--json"]

    def run(where: Path, *extra: str) -> dict[str, Any]:
        command = [sys.executable, str(Path(__file__).resolve()), "--tree", str(where)]
        # Its working directory the tree: Celery's Django fixup puts it first on sys.path.
        done = subprocess.run(
            [*command, *common, *extra], capture_output=True, text=True, cwd=where
        )
        if done.returncode:
            raise SystemExit(done.stderr)
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in trees}
    calls: dict[str, float] = {}
    try:
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
        for index in range(args.rounds):
            order = list(trees) if index % 2 == 0 else list(reversed(trees))
            for label in order:
                runs[label].append(run(trees[label]))
                figure = runs[label][-1]["cpu"]
                load = os.getloadavg()[0]
                print(f"  round {index + 1}, {label}: {figure:.2f} ms (load {load:.1f})")
        for label, where in trees.items():
            calls[label] = run(where, "--cprofile", "1")["calls"]
    finally:
        if made:
            git = ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)]
            subprocess.run(git, check=False)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"{args.actions} actions a run, DATABASE_POOL={args.pool}, clock {args.clock}")
    print(f"  {'CPU ms per action':34} " + " ".join(f"{label:>20}" for label in trees))
    rounds = {label: " ".join(f"{r['cpu']:.2f}" for r in runs[label]) for label in trees}
    print(f"  {'each round':34} " + " ".join(f"{rounds[label]:>20}" for label in trees))

    def line(name: str, values: list[float | None], form: str = "{:.2f}") -> None:
        shown = ["-" if value is None else form.format(value) for value in values]
        print(f"  {name:34} " + " ".join(f"{text:>20}" for text in shown))

    line("median", [statistics.median(r["cpu"] for r in runs[label]) for label in trees])
    line(
        "queries per action",
        [statistics.median(r["queries"] for r in runs[label]) for label in trees],
    )
    line("Python calls per action (cProfile)", [calls[label] for label in trees], "{:,.0f}")
    print("  layers (median CPU ms per action; inclusive)")
    for label, _module, _path in LAYERS:
        values = [
            statistics.median(r["layers"][label] for r in runs[name])
            if label in runs[name][0]["layers"]
            else None
            for name in trees
        ]
        line("  " + label, values)


def match_started(clients: list[tuple[str, Any]], clock: Any = "none") -> dict[str, Any]:
    """A match to 3 on ``clock`` that the first client creates and the second accepts, as
    the accept answers it (the game under way)."""
    created = (
        clients[0][1]
        .post(
            "/api/matches/",
            {"opponent": clients[1][0], "length": 3, "clock": clock},
            content_type="application/json",
        )
        .json()
    )
    answer = clients[1][1].post(
        f"/api/matches/{created['id']}/accept/", {}, content_type="application/json"
    )
    return dict(answer.json())


def live_requests(clients: list[tuple[str, Any]], count: int, cprofile: int) -> None:
    """CPU and queries per ``GET /api/live/`` on a match being played, in three cases: a
    re-poll with no move (``wait=0``), a client one version behind (answered at once with
    the state: handed over by the writer, else read) and a held request woken by a move
    (the table's version bumped in the database, so the watcher reads the state itself, in
    its own thread, not timed here), sent again right after each wake as a follower's
    board does."""
    import threading

    from django.db import connection
    from django.db.models import F

    from matches.models import Table
    from web import live

    match = match_started(clients)
    client, topic = clients[0][1], match["topic"]
    table = Table.objects.filter(pk=match["id"])

    def version() -> int:
        return int(table.values_list("version", flat=True).get())

    def one(params: dict[str, Any], profile: cProfile.Profile | None) -> tuple[float, int, Any]:
        """A request's CPU (this thread's), its queries and its JSON."""
        counted = QueryCount()
        connection.close()  # as production's request_finished does (the pool: given back)
        if profile is not None:
            profile.enable()
        started = time.thread_time()
        with connection.execute_wrapper(counted):
            response = client.get("/api/live/", params)
        cpu = time.thread_time() - started
        if profile is not None:
            profile.disable()
        connection.close()
        assert response.status_code == 200, response.content
        return cpu, counted.count, response.json()

    def woken(since: int, profile: cProfile.Profile | None) -> tuple[float, int, Any]:
        out: list[tuple[float, int, Any]] = []
        held = threading.Thread(
            target=lambda: out.append(one({"topic": topic, "since": since, "wait": 10}, profile))
        )
        held.start()
        while topic not in live._WATCHER._waiting:  # held: the move may come
            time.sleep(0.001)
        table.update(version=F("version") + 1)
        held.join()
        assert out[0][2]["version"] == since + 1 and out[0][2]["state"] is not None, out
        return out[0]

    cases: list[tuple[str, Callable[[cProfile.Profile | None], tuple[float, int, Any]]]] = [
        (
            "re-poll, no move, wait=0",
            lambda p: one({"topic": topic, "since": version(), "wait": 0}, p),
        ),
        ("behind, the state at once", lambda p: one({"topic": topic, "since": version() - 1}, p)),
        ("held, woken by a move", lambda p: woken(version(), p)),
    ]
    print(f"{count} live requests per case on {topic}")
    for label, case in cases:
        profile = cProfile.Profile(time.thread_time) if cprofile else None
        case(None)  # warm
        cpu, queries = 0.0, 0
        for _ in range(count):
            spent, counted, _body = case(profile)
            cpu += spent
            queries += counted
        print(f"  {label:28} CPU {1000 * cpu / count:6.2f} ms; queries {queries / count:.2f}")
        if profile is not None:
            stats = pstats.Stats(profile)
            stats.sort_stats("cumulative").print_stats(cprofile)
            stats.sort_stats("tottime").print_stats(cprofile)


def timeouts(clients: list[tuple[str, Any]], count: int) -> None:
    """CPU of ``count`` timeouts, as the clock worker applies them: each match on a short
    clock is started through the API, then lost on time (the forfeit, the result, both
    ratings) by ``table_engine.table_timeout`` with the engine's clock moved past it."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from matches import table_engine
    from matches.models import Table
    from web import clock

    short_clock = {"delay": 1, "reserve": 1}
    tables = [match_started(clients, short_clock)["id"] for _ in range(count)]
    due = Table.objects.filter(match__pk__in=tables).values_list("pk", "turn_no")
    later = timezone.now() + timedelta(seconds=5)
    clock.now = lambda: later  # type: ignore[assignment]  # past every deadline
    cpu, applied = 0.0, 0
    for pk, turn_no in due:
        connection.close()
        started = time.thread_time()
        applied += table_engine.table_timeout(table_id=pk, turn_no=turn_no)
        cpu += time.thread_time() - started
    print(f"{applied} timeouts applied; CPU per timeout {1000 * cpu / max(1, applied):.2f} ms")


if __name__ == "__main__":
    main()
