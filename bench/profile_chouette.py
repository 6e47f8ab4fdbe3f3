"""Where an online chouette's requests' time goes: CPU per layer, per request type.

Not a test. ``profile_action.py``'s method (its ``Meter``, production's settings on
PostgreSQL, DEBUG off, the connection closed after every request) on online chouettes
of four players with a clock, played through the whole request path with Django's test
client, each request type the bench (``api_chouette.py``) makes: every action of the box
and the captain (start, roll, move); after each one the ``GET /api/chouettes/{id}/``
every follower makes and the table page the big screen fetches (``page``: what
static/club/live_region.js asks for, ``?live=region``, with a session); and, while the
captain moves, a crew member's proposal (``propose``). A layer missing from the code
under test (an older version) is left out of the table.

    .venv/bin/python bench/profile_chouette.py                # DATABASE_POOL=0

The database is ``club_profile_chouette`` on ``BENCH_POSTGRES`` (created, migrated).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
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
    args = parser.parse_args()
    profile.DATABASE = "club_profile_chouette"
    profile.environment(args.pool)
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
    meters = {kind: profile.Meter() for kind in ("action", "get", "page", "propose")}
    profile.LAYERS = layers
    for meter in meters.values():
        profile.instrument(meter)
    totals = {kind: [0, 0.0, 0] for kind in meters}  # requests, CPU, queries

    def timed(kind: str, send: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        count = 0

        def counted(execute: Callable[..., Any], sql: str, *rest: Any) -> Any:
            nonlocal count
            count += 1
            return execute(sql, *rest)

        connection.close()
        meters[kind].on = True
        started = time.thread_time()
        with connection.execute_wrapper(counted):
            response = send(*args, **kwargs)
        totals[kind][1] += time.thread_time() - started
        connection.close()
        meters[kind].on = False
        assert response.status_code in (200, 201), response.content
        totals[kind][0] += 1
        totals[kind][2] += count
        return response

    box = clients[names[0]]
    body: dict[str, Any] = {}
    while totals["action"][0] < args.actions:
        if not body or body["status"] != "open" or body["game"] is None:
            body = box.post(
                "/api/chouettes/",
                {"players": names, "order": names, "stake": "1.00", "mode": "online",
                 "options": {"cube": "multiple", "turn_time": 600}},
                content_type="application/json",
            ).json()  # fmt: skip
            path, page = f"/api/chouettes/{body['id']}/", f"/chouettes/{body['id']}/"
            body = timed("action", box.post, path + "start/", {}).json()
        game = body["game"]
        if game["phase"] == "over":
            body = timed("action", box.post, path + "start/", {}).json()
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
            kind, sent = (
                ("roll", {"turn_no": game["turn_no"]})
                if game["phase"] == "roll"
                else ("move", {"turn_no": game["turn_no"], "play": play})
            )
            body = timed(
                "action", mover.post, path + f"{kind}/", sent, content_type="application/json"
            ).json()
        timed("get", clients[names[2]].get, path)
        timed("page", screen.get, page + "?live=region")
    for kind, meter in meters.items():
        requests, cpu, queries = totals[kind]
        if not requests:
            continue
        print(f"{requests} {kind}s, DATABASE_POOL={args.pool}")
        print(f"  CPU a request: {1000 * cpu / requests:.2f} ms", end="; ")
        print(f"queries a request: {queries / requests:.1f}")
        print(f"  {'layer':34} {'CPU ms':>8} {'wall ms':>8} {'calls':>7}  (per request)")
        for label, _module, _path in layers:
            calls = meter.calls.get(label, 0)
            if calls:
                print(
                    f"  {label:34} {1000 * meter.cpu[label] / requests:8.2f} "
                    f"{1000 * meter.wall[label] / requests:8.2f} {calls / requests:7.2f}"
                )


if __name__ == "__main__":
    main()
