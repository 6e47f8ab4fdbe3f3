"""Faults of the production layout, on real processes (tests/integration/stack.py), in
CI's PostgreSQL + Redis run (docs/operations.md, "Faults"):

- the Celery workers killed with ``kill -9`` while 100 clocks run: each deadline that
  passed while they were down is applied once, after they are back;
- Redis stopped and started again, empty, mid-game: play goes on, each action answered
  either applied (and in the log once) or refused in JSON (and nowhere in the log);
- the database's connections dropped, then the database unreachable: the API answers
  503 JSON with ``Retry-After`` and changes nothing, then serves again, nobody restarted.
"""

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest
from django.db import connection
from django.utils import timezone

from matches.models import Action, Match
from tests.integration.stack import (
    Answer,
    Player,
    logged_actions,
    match_accept,
    match_invite,
    match_start,
    members_create,
    next_action,
    redis_server,
    stack,
    stack_environment,
    table_of,
    tcp_proxy,
)
from tests.integration.worker import database_url_for_processes
from tests.waiting import PATIENCE, wait_until

CLOCKS = 100
DELAY = 6  # seconds: the clocks' delay, no reserve


def _forfeits(match: dict) -> list[Action]:
    return list(Action.objects.filter(table_id=table_of(match), kind="forfeit"))


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_workers_killed_while_100_clocks_run_apply_each_timeout_once_when_back(tmp_path):
    members = members_create("clock", 2 * CLOCKS)
    with redis_server() as redis, stack(stack_environment(redis, tmp_path), tmp_path) as club:
        web = club.web("web")
        club.worker("worker")
        club.beat()
        club.ready()
        pairs = [(members[2 * i], members[2 * i + 1]) for i in range(CLOCKS)]
        clock = {"delay": DELAY, "reserve": 0}
        with ThreadPoolExecutor(8) as requests:
            invited = list(requests.map(lambda p: match_invite(*p, at=web, clock=clock), pairs))
            # The clocks start at the acceptances, all at once.
            clocked = list(
                requests.map(
                    lambda p, match_id: match_accept(p[1], match_id, at=web), pairs, invited
                )
            )
        # The worker killed while the clocks run, holding their timeout tasks (reserved
        # until their deadlines).
        club.kill("worker")
        killed_at = timezone.now()
        deadlines = {m["id"]: datetime.fromisoformat(m["clock"]["deadline"]) for m in clocked}
        expiring = [m for m in clocked if deadlines[m["id"]] > killed_at]
        assert expiring, "the last deadline comes after the kill"

        def deadlines_passed() -> bool:
            return timezone.now() > max(deadlines.values())

        assert wait_until(deadlines_passed, timeout=PATIENCE + DELAY)
        # Nobody applied the deadlines that passed while the workers were down.
        waiting = Match.objects.filter(pk__in=[m["id"] for m in expiring])
        assert set(waiting.values_list("status", flat=True)) == {Match.Status.PLAYING}

        restarted_at = timezone.now()
        club.worker("worker")

        def all_timed_out() -> bool:
            ids = [m["id"] for m in clocked]
            return not Match.objects.filter(pk__in=ids, status=Match.Status.PLAYING).exists()

        # One sweep applies the 100 one after the other: a few seconds, a minute on a
        # machine loaded many times over.
        assert wait_until(all_timed_out, timeout=4 * PATIENCE, every=0.2), club.log("worker")

    for match in clocked:
        forfeits = _forfeits(match)
        assert [(f.actor, f.by_server) for f in forfeits] == [(None, True)], match["id"]
        assert forfeits[0].at >= deadlines[match["id"]]
        assert Match.objects.get(pk=match["id"]).ended_by == "timeout"
    for match in expiring:
        assert _forfeits(match)[0].at >= restarted_at


GAMES = 4  # played at once while Redis stops and starts again
CLOCKED = 5  # accepted while Redis is down: their timeout tasks are never sent


def _healthz(base: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=PATIENCE) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as refusal:
        return refusal.code, json.load(refusal)


class Playing:
    """A match played by a thread of its own until ``stop``: the statuses answered, and
    what broke the thread (a request that got no answer, an answer not JSON), if any."""

    def __init__(self, player: Player, base: str) -> None:
        self.player = player
        self.base = base
        self.answers: list[int] = []
        self.broken: BaseException | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _play(self) -> None:
        try:
            while not self.stop.is_set() and self.player.playing:
                self.answers.append(self.player.act(self.base).status)
        except BaseException as exc:
            self.broken = exc

    def confirmed(self) -> int:
        return len(self.player.confirmed)


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_redis_restarted_mid_game_loses_and_doubles_no_action(tmp_path):
    members = members_create("redis", 2 * (GAMES + CLOCKED))
    pairs = [(members[2 * i], members[2 * i + 1]) for i in range(GAMES + CLOCKED)]
    with redis_server() as redis, stack(stack_environment(redis, tmp_path), tmp_path) as club:
        web = club.web("web")
        club.worker("worker")
        club.beat()
        club.ready()
        invited = [
            match_invite(a, b, at=web, clock={"delay": 1, "reserve": 0}) for a, b in pairs[GAMES:]
        ]
        tables = []
        for a, b in pairs[:GAMES]:
            match = match_start(a, b, create_at=web, accept_at=web)
            tables.append(Playing(Player(match, {a.username: a, b.username: b}), web))
        try:

            def each_played(more: int, since: list[int]) -> bool:
                return all(
                    t.confirmed() >= n + more or not t.player.playing
                    for t, n in zip(tables, since, strict=True)
                )

            assert wait_until(lambda: each_played(3, [0] * GAMES))
            redis.stop()
            down = [t.confirmed() for t in tables]
            status, body = _healthz(web)
            assert status == 503 and body["problems"][0].startswith("broker: "), body
            clocked = [
                match_accept(b, match_id, at=web)
                for (_a, b), match_id in zip(pairs[GAMES:], invited, strict=True)
            ]
            assert wait_until(lambda: each_played(3, down))
            redis.start()
            back = [t.confirmed() for t in tables]
            assert wait_until(lambda: _healthz(web)[0] == 200)
            assert wait_until(lambda: each_played(3, back))
        finally:
            for table in tables:
                table.stop.set()
            for table in tables:
                table.thread.join(PATIENCE)

        def all_timed_out() -> bool:
            ids = [m["id"] for m in clocked]
            return not Match.objects.filter(pk__in=ids, status=Match.Status.PLAYING).exists()

        assert wait_until(all_timed_out, timeout=2 * PATIENCE, every=0.2), club.log("worker")

    for table in tables:
        assert table.broken is None, table.broken
        assert logged_actions(table.player.match) == table.player.confirmed
        assert set(table.answers) <= {200, 503}, table.player.refused
    for match in clocked:
        forfeits = _forfeits(match)
        assert [(f.actor, f.by_server) for f in forfeits] == [(None, True)], match["id"]


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_database_dropped_then_unreachable_answers_503_json_then_serves_again(tmp_path):
    a, b = members_create("db", 2)
    database = connection.settings_dict
    upstream = (database["HOST"] or "127.0.0.1", int(database["PORT"] or 5432))
    with redis_server() as redis, tcp_proxy(upstream) as proxy:
        through_proxy = database_url_for_processes(host="127.0.0.1", port=proxy.port)
        env = stack_environment(redis, tmp_path, database_url=through_proxy)
        env["DATABASE_POOL_TIMEOUT"] = "2"  # a request's wait for a connection, then 503
        with stack(env, tmp_path) as club:
            web = club.web("web")
            club.ready()
            server = club.processes["web"].pid
            match = match_start(a, b, create_at=web, accept_at=web)
            player = Player(match, {a.username: a, b.username: b})
            for _ in range(4):
                assert player.act(web).status == 200

            # The server drops the web processes' connections (a restart, a failover).
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                assert cursor.fetchall(), "the web processes held connections"
            answers: list[Answer] = []

            def served() -> bool:
                answers.append(player.act(web))
                return answers[-1].status == 200

            assert wait_until(served, every=0)
            for refusal in answers[:-1]:
                _assert_unavailable(refusal)

            # The database gone from the network: every request a 503, nothing applied.
            proxy.cut()
            member = player.by_name[player.match["game"]["turn"]]
            kind, body = next_action(player.match)
            for _ in range(3):
                path = f"/api/matches/{player.match['id']}/{kind}/"
                _assert_unavailable(member.call(web, "POST", path, body))
            status, health = _healthz(web)
            assert status == 503 and health["problems"][0].startswith("database: "), health

            # Back: served again by the same processes, none restarted.
            proxy.mend()
            assert wait_until(lambda: all(_healthz(web)[0] == 200 for _ in range(4)))
            for _ in range(4):
                assert player.act(web).status == 200
            assert club.processes["web"].pid == server and club.processes["web"].poll() is None

    assert logged_actions(player.match) == player.confirmed


def _assert_unavailable(answer: Answer) -> None:
    assert answer.status == 503, answer
    assert answer.body["error"] == "unavailable" and answer.headers["Retry-After"] == "2"
