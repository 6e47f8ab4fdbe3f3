"""Where an online chouette's requests' time goes: CPU per layer, per request type.

Not a test. ``profile_action.py``'s method (its ``Meter``, production's settings on
PostgreSQL, DEBUG off, the connection closed after every request) on online chouettes
of four players with a clock, played through the whole request path with Django's test
client, each request type the bench (``api_chouette.py``) makes: every action of the box
and the captain (start, roll, move), the box's double when it may (``--double-rate``)
and each member's answer on their own cube (take, or pass ``--pass-rate`` of the time);
after each one the ``GET /api/chouettes/{id}/`` every follower makes and the table page
the big screen fetches (``page``: what static/club/live_region.js asks for,
``?live=region``, with a session); and, while the captain moves, a crew member's
proposal (``propose``). Each type is printed apart, with the time its row locks are
held (``Held``: from its first ``SELECT ... FOR UPDATE`` to the commit). A layer missing
from the code under test (an older version) is left out of the table.

    .venv/bin/python bench/profile_chouette.py                # DATABASE_POOL=0
    .venv/bin/python bench/profile_chouette.py --double-rate 0.8

The database is ``club_profile_chouette`` on ``BENCH_POSTGRES`` (created, migrated).
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.profile_action as profile  # noqa: E402  (the path above first)

LAYERS = (
    ("whole request (handler)", "django.core.handlers.base", "BaseHandler.get_response"),
    ("token auth (token+user+player)", "club.auth", "TokenAuthentication.authenticate_credentials"),
    ("request body parsing", "rest_framework.request", "Request._parse"),
    ("session read by the view", "chouette.selectors", "chouette_get"),
    ("session read for a GET", "chouette.selectors", "chouette_card_get"),
    ("the service (transaction)", "chouette.online", "chouette_act"),
    ("  lock + read table, session", "chouette.online", "_load"),
    ("  the names (seats)", "chouette.selectors", "chouette_names"),
    ("  players + points (standing)", "chouette.selectors", "chouette_standing"),
    ("  write session, table, log", "chouette.online", "_save"),
    ("the proposal (transaction)", "chouette.online", "chouette_propose"),
    ("session auth (session+user)", "django.contrib.auth", "get_user"),
    ("page: the table's context", "chouette.views", "_table_context"),
    ("page: template rendering", "django.template.backends.django", "Template.render"),
    ("answer: chouette_card", "chouette.api", "chouette_card"),
    ("  scores", "chouette.selectors", "chouette_scores"),
    ("  games played", "chouette.selectors", "chouette_games_played"),
    ("  the game body", "chouette.selectors", "chouette_online_game"),
    ("answer: serializer", "rest_framework.serializers", "Serializer.to_representation"),
    ("JSON rendering", "rest_framework.renderers", "JSONRenderer.render"),
    ("Celery send (timeout task)", "chouette.online", "_schedule"),
    ("database: every query", "django.db.backends.utils", "CursorWrapper._execute"),
    ("database: connection setup", "django.db.backends.base.base", "BaseDatabaseWrapper.connect"),
)


def present(layers: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """The layers the code under test has."""
    kept = []
    for label, module_name, path in layers:
        owner: Any = importlib.import_module(module_name)
        for part in path.split("."):
            owner = getattr(owner, part, None)
        if owner is not None:
            kept.append((label, module_name, path))
    return tuple(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool", type=int, default=0, help="DATABASE_POOL (0: none)")
    parser.add_argument("--actions", type=int, default=300, help="actions to time")
    parser.add_argument(
        "--double-rate", type=float, default=0.3, help="how often the box doubles when it may"
    )
    parser.add_argument(
        "--pass-rate", type=float, default=0.25, help="how often a member passes a double"
    )
    parser.add_argument("--database", default="club_profile_chouette", help="its database")
    args = parser.parse_args()
    profile.environment(args.pool, args.database)
    profile.django_ready()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from club.services import player_create

    run = f"{int(time.time()) % 100000:05d}"
    clients = {}
    for seat in range(4):
        player = player_create(username=f"chp{run}s{seat}", password="profile-password")
        token = Token.objects.create(user=player.user).key
        clients[player.user.username] = Client(HTTP_AUTHORIZATION=f"Token {token}")
    names = list(clients)
    call_command("collectstatic", "--noinput", verbosity=0)  # a whole page needs the manifest
    screen = Client()  # the big screen: a member signed in with a session
    screen.force_login(player.user)
    layers = present(LAYERS)
    meter = profile.Meter()  # one meter; each request's figures go to its type's totals
    profile.LAYERS = layers
    profile.instrument(meter)
    lock = Held()
    lock.instrument()
    rng = random.Random(1)
    totals: dict[str, Totals] = defaultdict(Totals)

    def timed(kind: str, send: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        count = 0

        def counted(execute: Callable[..., Any], sql: str, *rest: Any) -> Any:
            nonlocal count
            count += 1
            lock.query(sql)
            return execute(sql, *rest)

        connection.close()
        meter.on = lock.on = True
        started = time.thread_time()
        with connection.execute_wrapper(counted):
            response = send(*args, **kwargs)
        cpu = time.thread_time() - started
        connection.close()
        meter.on = lock.on = False
        assert response.status_code in (200, 201), response.content
        totals[kind].add(meter, lock, cpu=cpu, queries=count)
        return response

    box = clients[names[0]]
    body: dict[str, Any] = {}
    actions = 0
    while actions < args.actions:
        if not body or body["status"] != "open" or body["game"] is None:
            body = box.post(
                "/api/chouettes/",
                {"players": names, "order": names, "stake": "1.00", "mode": "online",
                 "options": {"cube": "multiple", "turn_time": 600}},
                content_type="application/json",
            ).json()  # fmt: skip
            path, page = f"/api/chouettes/{body['id']}/", f"/chouettes/{body['id']}/"
            body = timed("start", box.post, path + "start/", {}).json()
            actions += 1
        game = body["game"]
        if game["phase"] == "over":
            body = timed("start", box.post, path + "start/", {}).json()
            actions += 1
        elif game["phase"] == "take_or_pass" and game["awaiting"]:
            # Every member the box doubled answers on their own cube (H5), one by one as
            # they would within the same second; a pass now and then.
            for name in game["awaiting"]:
                act = "pass" if rng.random() < args.pass_rate else "take"
                sent = {"turn_no": game["cubes"][name]["offered_at"]}
                body = timed(act, clients[name].post, path + f"{act}/", sent,
                             content_type="application/json").json()  # fmt: skip
                actions += 1
        else:
            mover = clients[game["awaiting"][0]]
            plays = game["legal_plays"]
            play = plays[0] if plays else ""
            captain = game["captain"]  # who moves for the team now (H7)
            if game["phase"] == "move" and game["awaiting"] == [captain]:
                crew = [
                    n
                    for n, cube in game["cubes"].items()
                    if n != captain and cube["state"] == "live"
                ]
                for name in crew[:1]:
                    sent = {"turn_no": game["turn_no"], "kind": "play", "play": play}
                    timed("propose", clients[name].post, path + "proposals/", sent,
                          content_type="application/json")  # fmt: skip
            doubling = (
                game["phase"] == "roll"
                and game["awaiting"] == body["players"][:1]  # the box rolls next
                and any(
                    cube["state"] == "live" and cube["owner"] in (None, "box") and cube["value"] < 8
                    for cube in game["cubes"].values()
                )
                and rng.random() < args.double_rate
            )
            kind, sent = (
                ("double", {"turn_no": game["turn_no"]})
                if doubling
                else ("roll", {"turn_no": game["turn_no"]})
                if game["phase"] == "roll"
                else ("move", {"turn_no": game["turn_no"], "play": play})
            )
            body = timed(
                kind, mover.post, path + f"{kind}/", sent, content_type="application/json"
            ).json()
            actions += 1
        timed("get", clients[names[2]].get, path)
        timed("page", screen.get, page + "?live=region")
    print(f"DATABASE_POOL={args.pool}; held: from the first SELECT ... FOR UPDATE to the commit")
    for kind in ORDER:
        if kind in totals:
            totals[kind].report(kind, layers)


ORDER = ("start", "roll", "move", "double", "take", "pass", "propose", "get", "page")


class Held:
    """The time a request holds its row locks: from its first ``SELECT ... FOR UPDATE``
    to the commit (or rollback) that ends the transaction, wall and CPU, with the
    queries sent meanwhile."""

    def __init__(self) -> None:
        self.on = False
        self.since: tuple[float, float] | None = None
        self.cpu = self.wall = 0.0
        self.queries = 0

    def query(self, sql: str) -> None:
        if not self.on:
            return
        if self.since is None and "FOR UPDATE" in sql:
            self.since = (time.thread_time(), time.perf_counter())
        if self.since is not None:
            self.queries += 1

    def released(self) -> None:
        if self.since is not None:
            cpu, wall = self.since
            self.cpu += time.thread_time() - cpu
            self.wall += time.perf_counter() - wall
            self.since = None

    def take(self) -> tuple[float, float, int]:
        taken = (self.cpu, self.wall, self.queries)
        self.cpu = self.wall = 0.0
        self.queries = 0
        return taken

    def instrument(self) -> None:
        from django.db.backends.base.base import BaseDatabaseWrapper

        for name in ("commit", "rollback"):
            ending = getattr(BaseDatabaseWrapper, name)

            def ended(wrapper: Any, *args: Any, _ending: Any = ending, **kwargs: Any) -> Any:
                try:
                    return _ending(wrapper, *args, **kwargs)
                finally:
                    self.released()

            setattr(BaseDatabaseWrapper, name, ended)


@dataclass
class Totals:
    """One request type's figures: requests, CPU, queries, the lock held, the layers."""

    requests: int = 0
    cpu: float = 0.0
    queries: int = 0
    held_cpu: float = 0.0
    held_wall: float = 0.0
    held_queries: int = 0
    layers_cpu: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    layers_wall: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    layers_calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, meter: Any, lock: Held, *, cpu: float, queries: int) -> None:
        self.requests += 1
        self.cpu += cpu
        self.queries += queries
        held_cpu, held_wall, held_queries = lock.take()
        self.held_cpu += held_cpu
        self.held_wall += held_wall
        self.held_queries += held_queries
        for label, value in meter.cpu.items():
            self.layers_cpu[label] += value
            self.layers_wall[label] += meter.wall[label]
            self.layers_calls[label] += meter.calls[label]
        meter.cpu.clear()
        meter.wall.clear()
        meter.calls.clear()

    def report(self, kind: str, layers: tuple[tuple[str, str, str], ...]) -> None:
        n = self.requests
        print(f"{n} {kind}s")
        print(f"  CPU a request: {1000 * self.cpu / n:.2f} ms", end="; ")
        print(f"queries a request: {self.queries / n:.1f}")
        if self.held_queries:
            print(
                f"  lock held: {1000 * self.held_wall / n:.2f} ms wall, "
                f"{1000 * self.held_cpu / n:.2f} ms CPU, {self.held_queries / n:.1f} queries "
                f"(outside it: {1000 * (self.cpu - self.held_cpu) / n:.2f} ms CPU)"
            )
        print(f"  {'layer':34} {'CPU ms':>8} {'wall ms':>8} {'calls':>7}  (per request)")
        for label, _module, _path in layers:
            calls = self.layers_calls.get(label, 0)
            if calls:
                print(
                    f"  {label:34} {1000 * self.layers_cpu[label] / n:8.2f} "
                    f"{1000 * self.layers_wall[label] / n:8.2f} {calls / n:7.2f}"
                )


if __name__ == "__main__":
    main()
