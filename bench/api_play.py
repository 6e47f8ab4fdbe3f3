"""Server play under load: the production layout on loopback, driven through the HTTP API.

Not a test (nothing in CI runs it). It starts what ``manage.py runclub`` and
``docker-compose.yml`` start (gunicorn with its workers and threads, the Celery workers
and beat) as subprocesses, on PostgreSQL (database ``club_bench_play``) and Redis (DB 12 the
broker, 13 the results, 11 the cache), DEBUG off, then prints, in one run:

- one match alone, then throughput: bots playing complete matches as fast as they can,
  actions/s by type;
- a club's peak: G games at once, each side acting every 1 to 3 s, both players' live
  connections open and a watcher on every fourth game; p50/p95/p99 per action and for the
  live update (action sent -> the other side's live request answering), errors, and the
  database queries per action by turn number; once per live mechanism (streams, what the
  pages do; held requests; plain polling every second; conditional polling every
  second), so they compare;
- clocks: C games on a short clock at once, each expiry's lateness past its deadline, and
  that each was applied exactly once (the action log).

    .venv/bin/python bench/api_play.py --quick     # a smoke check, about 3 minutes
    .venv/bin/python bench/api_play.py --quick --games 100 --mechanisms stream,held
                                                   # the peak at another size
    .venv/bin/python bench/api_play.py             # the figures (bench/README.md)

bench/README.md says what each figure measures and the last figures measured.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BIND = "127.0.0.1:8765"  # a free port's instead unless --port says (target_set)
BASE = f"http://{BIND}"
DATABASE = "club_bench_play"
POSTGRES = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379")
CACHE_DB = 11  # the Redis DB of the service's cache (CACHE_URL), as compose gives it one
# The project tree the service runs from: this one, or another checkout (``--tree``: a
# ``git worktree`` of main, so the same bench measures both; ``target_options``).
TREE = ROOT
LIVE_WAIT = 25  # seconds a held live request waits at most (web.live.MAX_WAIT)
BASELINE_S = 10.0  # seconds of one match alone, before the throughput part
POLL_EVERY = 1.0  # seconds between two polls (the plain and conditional mechanisms)
STREAM_SILENCE = 40  # seconds without a byte on a stream before the client gives it up
MECHANISMS = ("stream", "held", "poll", "conditional")
# Seconds a game at the peak waits after an answer before its next action: with G games
# the peak asks G / PACE_MEAN actions a second at most (100 for 200 games), and less by
# the time each answer takes and each new match's start.
PACE = (1.0, 3.0)
PACE_MEAN = sum(PACE) / 2
# DATABASE_POOL of the production layout (docker-compose.yml): each web process shares
# 16 connections among its threads (bench/README.md: 0 against a pool).
POOL = 16


@dataclass(frozen=True)
class Plan:
    """How much of each part to run (``--quick`` or the full figures)."""

    bots: int  # matches played at once in the throughput part
    throughput_s: float
    games: int  # games at once at the peak
    peak_s: float  # per live mechanism
    clock_games: int
    clock_reserve: float  # seconds of reserve on the clocks' custom clock


QUICK = Plan(bots=4, throughput_s=10, games=40, peak_s=15, clock_games=60, clock_reserve=8)
FULL = Plan(bots=8, throughput_s=30, games=200, peak_s=60, clock_games=500, clock_reserve=25)


# The service ----------------------------------------------------------------------------


def service_env(
    var_dir: Path, pool: int, *, database: str = DATABASE, redis_dbs: tuple[int, int] = (12, 13)
) -> dict[str, str]:
    """The environment of every process: production's settings, the bench's database and
    Redis DBs (the broker's, the results'; another bench passes its own)."""
    broker, results = redis_dbs
    return {
        **os.environ,
        "DATABASE_POOL": str(pool),
        "DJANGO_SETTINGS_MODULE": "bench.api_play_settings",
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + os.urandom(16).hex(),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"{POSTGRES}/{database}",
        "CELERY_BROKER_URL": f"{REDIS}/{broker}",
        "CELERY_RESULT_BACKEND": f"{REDIS}/{results}",
        "CACHE_URL": f"{REDIS}/{CACHE_DB}",
        # gunicorn's processes as docker-compose.yml gives them (runclub's one process is the
        # embedded default's footprint; one process's GIL is one core for the whole web).
        "WEB_CONCURRENCY": "2",
        # The throughput part's bots act as fast as the server answers (about 26 writes a
        # second each here): far past any player's pace, so the per-user write throttle
        # (300 a minute, config/settings.py) is raised for them, not switched off.
        "API_WRITE_RATE": "200/s",
        "VAR_DIR": str(var_dir),
        # The engine worker reads no settings: the web's FIFO as runclub's environment
        # names it (engine_environment).
        "WEB_ACTIONS_FIFO": str(var_dir / "web-actions"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(TREE), os.environ.get("PYTHONPATH")])),
    }


def database_prepare(
    env: dict[str, str], *, database: str = DATABASE, redis_dbs: tuple[int, int] = (12, 13)
) -> None:
    """Create the database if need be, migrate it, empty the bench's Redis DBs and
    collect the static files."""
    query = f"SELECT 1 FROM pg_database WHERE datname='{database}'"
    found = subprocess.run(
        ["psql", f"{POSTGRES}/postgres", "-tAc", query], capture_output=True, text=True, check=True
    )
    exists = found.stdout.strip()
    if not exists:
        subprocess.run(
            ["psql", POSTGRES + "/postgres", "-c", f"CREATE DATABASE {database}"], check=True
        )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=TREE,
        env=env,
        check=True,
    )
    import redis

    for db in (*redis_dbs, CACHE_DB):
        redis.Redis.from_url(f"{REDIS}/{db}").flushdb()
    # The pages' static files, with their manifest, as the Docker image's build collects
    # them (DEBUG off: without it every page is a 500).
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=TREE,
        env=env,
        check=True,
    )


def django_setup(env: dict[str, str]) -> None:
    """This process talks to the same database (players, tokens, the action log), with a
    cheap password hasher: the bench signs in with tokens."""
    os.environ.update(env)
    import django
    from django.conf import settings

    django.setup()
    # The client retries once on a keep-alive connection the server closed (Client).
    logging.getLogger("urllib3").setLevel(logging.ERROR)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@contextmanager
def service(env: dict[str, str], log_dir: Path) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """The web server, the Celery workers and beat, as ``runclub`` starts them; stopped after."""
    children = {}
    for name, command in tree_commands(env).items():
        log = open(log_dir / f"{name}.log", "wb")  # noqa: SIM115 (closed with the process)
        children[name] = subprocess.Popen(
            command, cwd=TREE, env=env, stdout=log, stderr=log, start_new_session=True
        )
    try:
        wait_for_web(children["web"])
        yield children
    finally:
        for child in children.values():
            child.send_signal(signal.SIGTERM)
        for child in children.values():
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()


def tree_commands(env: dict[str, str]) -> dict[str, list[str]]:
    """``runclub.service_commands`` as the service's tree has it (``--tree``: another
    checkout's commands may differ from this one's)."""
    code = (
        "import json, sys; from web.management.commands.runclub import service_commands; "
        "print(json.dumps(service_commands(sys.argv[1])))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code, BIND],
        cwd=TREE,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    commands: dict[str, list[str]] = json.loads(found.stdout)
    return commands


def wait_for_web(web: subprocess.Popen[bytes]) -> None:
    for _ in range(120):
        if web.poll() is not None:
            raise SystemExit("the web server exited; see its log")
        try:
            if requests.get(f"{BASE}/healthz", timeout=10).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise SystemExit("the web server did not answer /healthz")


def _cpu_ticks(pid: int) -> int:
    """CPU (user + system, clock ticks) a process has used so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return int(fields[11]) + int(fields[12])


def _tree(pid: int) -> list[int]:
    """A process and all its descendants (gunicorn's workers, a Celery pool's children)."""
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        found.append(parent)
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                pending += [int(child) for child in (task / "children").read_text().split()]
            except FileNotFoundError:
                continue
    return found


# A PostgreSQL backend's process title: "postgres: [<cluster>: ]<user> <database> <client>
# <what it does>", the client "<address>(<port>)" or "[local]".
BACKEND_TITLE = re.compile(r"postgres: (?:\S+: )?\S+ (?P<database>\S+) (?:\S+\(\d+\)|\[local\]) ")


def _servers(database: str) -> dict[str, list[int]]:
    """The PostgreSQL and Redis processes on the machine: PostgreSQL's backends serving
    ``database`` (their title names it), its shared processes (the postmaster, the WAL
    writer, the checkpointer, autovacuum: they serve every database on the server), and
    Redis (one server for every DB: other work's commands count in it too). Backends of
    other databases (other work on a shared machine) are left to "other"."""
    servers: dict[str, list[int]] = {"PostgreSQL": [], "PostgreSQL, shared": [], "Redis": []}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if name.startswith("redis-server"):
            servers["Redis"].append(int(entry.name))
        elif name.startswith("postgres"):
            backend = BACKEND_TITLE.match(title)
            if backend is None:
                servers["PostgreSQL, shared"].append(int(entry.name))
            elif backend["database"] == database:
                servers["PostgreSQL"].append(int(entry.name))
    return servers


def cpu_snapshot(children: dict[str, subprocess.Popen[bytes]]) -> dict[str, float]:
    """CPU seconds used so far by the web server (gunicorn's master and workers), each
    Celery process by its name in ``runclub.service_commands`` (``worker``: the timeouts,
    the sweeps and beat; ``analysis``), PostgreSQL and Redis (``_servers``), this bench,
    the time the hypervisor gave this machine's cores to others (``steal``: another
    guest's load, which slows a part without running in it), and the whole machine busy
    (``/proc/stat``, the steal in it): taken before and after a part,
    ``cores_used`` says where the cores went and ``cpu_per_action_line`` what an action
    cost each of them, a figure other work on the machine does not move (it runs on
    other processes), where the part's latencies are the load's."""
    tick = os.sysconf("SC_CLK_TCK")
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[1]
    groups = {
        "web": _tree(children["web"].pid),
        **{name: _tree(child.pid) for name, child in children.items() if name != "web"},
        **_servers(database),
        "the bench": [os.getpid()],
    }
    used = {group: sum(map(_cpu_ticks, pids)) / tick for group, pids in groups.items()}
    user, nice, system, _idle, _iowait, irq, softirq, steal, *_rest = map(
        int, Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    )
    used["steal"] = steal / tick
    used["machine"] = (user + nice + system + irq + softirq + steal) / tick
    return used


def cores_used(
    before: dict[str, float], after: dict[str, float], seconds: float
) -> dict[str, float]:
    """Cores each group kept busy between two snapshots, and stolen; "other" is the
    machine's rest (other programs, processes that ended meanwhile, the kernel's own)."""
    cores = {group: (after[group] - before[group]) / seconds for group in before}
    machine = cores.pop("machine")
    cores["other"] = max(0.0, machine - sum(cores.values()))
    cores["machine"] = machine
    return cores


def cores_line(cores: dict[str, float]) -> str:
    parts = ", ".join(f"{group} {used:.2f}" for group, used in cores.items() if group != "machine")
    return f"cores busy {cores['machine']:.2f} of {os.cpu_count()} ({parts})"


def cpu_per_action_line(cores: dict[str, float], seconds: float, actions: int) -> str:
    """CPU milliseconds per action, by process (``cores_used`` over the part's actions):
    what one action, with everything it brings about (its followers' live answers, the
    worker's timeouts, the queries), cost each process."""
    groups = [group for group in cores if group not in ("machine", "other", "steal")]
    parts = ", ".join(
        f"{group} {1000 * cores[group] * seconds / max(1, actions):.2f}" for group in groups
    )
    total = sum(cores[group] for group in groups)
    return f"CPU ms per action: {1000 * total * seconds / max(1, actions):.2f} in all ({parts})"


def players_create(run: str, count: int) -> list[tuple[str, str]]:
    """``count`` members and their API tokens: (username, token)."""
    from rest_framework.authtoken.models import Token

    from club.services import player_create

    made = []
    for i in range(count):
        player = player_create(username=f"b{run}p{i}", password="bench-password")
        made.append((player.user.username, Token.objects.create(user=player.user).key))
    return made


# Measuring --------------------------------------------------------------------------------


def session_key_for(user: Any) -> str:
    """A session signed in for ``user``, made in the database as logging in would (the
    password hasher would cost a second a login): its key, for the session cookie. The
    backend named in it is the first that can load a user, as Django's test client picks
    it (the guessing guard, first in the list, only refuses)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        load_backend,
    )

    backend = next(
        path for path in settings.AUTHENTICATION_BACKENDS if hasattr(load_backend(path), "get_user")
    )
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = backend
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    key: str = store.session_key
    return key


@dataclass
class Record:
    """What one part measured: latencies per kind, errors, queries per (kind, turn)."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    queries: dict[tuple[str, int], list[int]] = field(default_factory=lambda: defaultdict(list))
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(
        self, kind: str, seconds: float, *, turn: int | None = None, queries: int | None = None
    ) -> None:
        with self.lock:
            self.requests += 1
            self.latencies[kind].append(seconds)
            if turn is not None and queries is not None:
                self.queries[(kind, turn)].append(queries)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)


class Client:
    """One member's HTTP client (its own connection, its token)."""

    def __init__(self, username: str, token: str, record: Record) -> None:
        self.username = username
        self.token = token
        self.record = record
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        # Like a browser, send again once when the server closed an idle keep-alive
        # connection just as the request went out (a turn_no makes a repeat harmless).
        retry = Retry(total=1, connect=1, read=1, status=0, allowed_methods=None)
        self.session.mount("http://", HTTPAdapter(max_retries=retry))

    def call(
        self,
        method: str,
        path: str,
        kind: str,
        body: dict[str, Any] | None = None,
        *,
        turn: int | None = None,
        timeout: float = 30,
    ) -> tuple[int, Any, float]:
        """Send a request, record its time (and queries at ``turn``), and any error."""
        start = time.monotonic()
        try:
            response = self.session.request(method, BASE + path, json=body, timeout=timeout)
        except requests.RequestException as exc:
            self.record.error(f"{kind}: {type(exc).__name__}")
            return 0, None, start
        elapsed = time.monotonic() - start
        queries = response.headers.get("X-Queries")
        self.record.add(kind, elapsed, turn=turn, queries=int(queries) if queries else None)
        if response.status_code >= 400:
            self.record.error(f"{kind}: {response.status_code} {response.text[:200]}")
        is_json = response.headers.get("Content-Type", "").startswith("application/json")
        return response.status_code, response.json() if is_json else None, start


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


# Playing ----------------------------------------------------------------------------------


def choose(match: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A bot's action for the side that must act: doubles now and then, takes most
    doubles, rolls, plays a random legal play."""
    game = match["game"]
    body: dict[str, Any] = {"turn_no": game["turn_no"]}
    if game["phase"] == "take_or_pass":
        return ("take" if rng.random() < 0.7 else "pass"), body
    if game["phase"] == "roll":
        return ("double" if game.get("can_double") and rng.random() < 0.1 else "roll"), body
    if game["phase"] == "move":
        plays = game["legal_plays"]
        return "move", {**body, "play": rng.choice(plays) if plays else ""}
    if game["phase"] == "resign_offered":
        return "reject_resign", body
    raise RuntimeError(f"no action in phase {game['phase']}")


def match_start(
    clients: tuple[Client, Client], *, length: int, clock: Any = "none"
) -> dict[str, Any] | None:
    """The first client invites the second, who accepts: the match, or None on an error."""
    first, second = clients
    status, created, _ = first.call(
        "POST",
        "/api/matches/",
        "create",
        {"opponent": second.username, "length": length, "clock": clock},
    )
    if status != 201:
        return None
    status, match, _ = second.call("POST", f"/api/matches/{created['id']}/accept/", "accept", {})
    return match if status == 200 else None


@dataclass
class Sent:
    """An action whose effect the other side's live connection must show."""

    table: str
    version: int
    at: float
    actor: str


def play_action(
    by_name: dict[str, Client],
    match: dict[str, Any],
    rng: random.Random,
    sent: list[Sent] | None = None,
) -> dict[str, Any] | None:
    """The side that must act acts: the new match body, or None on an error (then the
    caller fetches it again)."""
    kind, body = choose(match, rng)
    client = by_name[match["game"]["turn"]]
    status, answer, start = client.call(
        "POST", f"/api/matches/{match['id']}/{kind}/", kind, body, turn=match["game"]["turn_no"]
    )
    if status != 200:
        return None
    if sent is not None:
        sent.append(Sent(answer["topic"], answer["version"], start, client.username))
    return answer


def match_fetch(client: Client, match_id: int, kind: str = "fetch") -> dict[str, Any] | None:
    status, answer, _ = client.call("GET", f"/api/matches/{match_id}/", kind)
    return answer if status == 200 else None


def bot_pair(clients: tuple[Client, Client], until: float, seed: int, *, length: int = 3) -> int:
    """Two bots play complete matches as fast as they can until ``until``: matches finished."""
    rng = random.Random(seed)
    by_name = {client.username: client for client in clients}
    finished = 0
    while time.monotonic() < until:
        match = match_start(clients, length=length)
        while match is not None and match["status"] == "playing" and time.monotonic() < until:
            match = play_action(by_name, match, rng) or match_fetch(clients[0], match["id"])
        finished += match is not None and match["status"] == "finished"
    return finished


def throughput(
    users: list[tuple[str, str]], bots: int, seconds: float
) -> tuple[Record, float, int]:
    record = Record()
    pairs = [
        (Client(*users[2 * i], record), Client(*users[2 * i + 1], record)) for i in range(bots)
    ]
    start = time.monotonic()
    until = start + seconds
    with ThreadPoolExecutor(len(pairs)) as pool:
        finished = sum(pool.map(lambda i: bot_pair(pairs[i], until, seed=i), range(len(pairs))))
    return record, time.monotonic() - start, finished


# The peak: games at a human pace with their live connections -----------------------------


def paced_game(
    clients: tuple[Client, Client],
    stop: threading.Event,
    rng: random.Random,
    sent: list[Sent],
    ready: dict[str, Any],
) -> None:
    """One game at a club's pace: the side that must act waits 1 to 3 s, then acts. A
    finished match is followed by a new one between the same players."""
    by_name = {client.username: client for client in clients}
    match = ready["match"]
    while not stop.is_set():
        if match["status"] != "playing":
            match = match_start(clients, length=7)
            if match is None:
                return
            ready["match"] = match
            continue
        if stop.wait(rng.uniform(*PACE)):
            return
        match = play_action(by_name, match, rng, sent) or match_fetch(clients[0], match["id"])
        if match is None:
            return


@dataclass
class Listener:
    """A live connection: who (a player or a watcher), on which table; when it saw each version."""

    client: Client
    table: str
    match_id: int
    role: str  # "player" or "watcher"
    seen: list[tuple[float, int]] = field(default_factory=list)


def listen(listener: Listener, mechanism: str, since: int, stop: threading.Event) -> None:
    """Follow a table as a page does: on a newer version, note when and redraw; polling
    from the match fetched, the live mechanisms from the state their answer carries (no
    fetch after it)."""
    client, topic = listener.client, listener.table
    if mechanism == "stream":
        for answer in stream_events(client, topic, since, stop, "stream (opened)"):
            body = answer["state"]
            if body is None:
                client.record.error(f"stream: version {answer['version']} without its state")
            elif body["version"] > since:
                listener.seen.append((time.monotonic(), body["version"]))
                since = body["version"]
        return
    if mechanism != "held":
        stop.wait(random.uniform(0, POLL_EVERY))
    while not stop.is_set():
        if mechanism == "poll":
            status, body, _ = client.call("GET", f"/api/matches/{listener.match_id}/", "poll (1 s)")
        else:
            wait = LIVE_WAIT if mechanism == "held" else 0
            kind = "live (held)" if mechanism == "held" else "live (conditional)"
            status, answer, _ = client.call(
                "GET",
                f"/api/live/?topic={topic}&since={since}&wait={wait}",
                kind,
                timeout=LIVE_WAIT + 10,
            )
            body = answer["state"] if status == 200 else None
            if status == 200 and body is None and answer["version"] > since:
                client.record.error(f"{kind}: version {answer['version']} without its state")
        if status == 200 and body is not None and body["version"] > since:
            listener.seen.append((time.monotonic(), body["version"]))
            since = body["version"]
        if status != 200:
            stop.wait(1)
        elif mechanism != "held":
            stop.wait(POLL_EVERY)


def stream_events(
    client: Client, topic: str, since: int, stop: threading.Event, kind: str
) -> Iterator[dict[str, Any]]:
    """The topic's live answers as a page's EventSource gets them from
    ``GET /api/live/stream/``: one stream at a time, opened again when it ends with the
    last version had (``since`` and ``Last-Event-ID``, as the browser sends it). The time
    each stream took to open is recorded as ``kind``."""
    last = since
    while not stop.is_set():
        start = time.monotonic()
        try:
            response = client.session.get(
                BASE + f"/api/live/stream/?topic={topic}&since={last}",
                headers={"Accept": "text/event-stream", "Last-Event-ID": str(last)},
                stream=True,
                timeout=(10, STREAM_SILENCE),
            )
        except requests.RequestException as exc:
            client.record.error(f"{kind}: {type(exc).__name__}")
            stop.wait(1)
            continue
        with response:
            if response.status_code != 200:
                client.record.error(f"{kind}: {response.status_code} {response.text[:200]}")
                stop.wait(1)
                continue
            client.record.add(kind, time.monotonic() - start)
            try:
                for line in response.iter_lines(chunk_size=None, decode_unicode=True):
                    if stop.is_set():
                        return
                    if line.startswith("data: "):
                        answer = json.loads(line[len("data: ") :])
                        last = max(last, answer["version"])
                        yield answer
            except requests.RequestException as exc:
                if not stop.is_set():
                    client.record.error(f"{kind}: {type(exc).__name__}")


def streams_settle(mechanism: str) -> None:
    """After a part that followed by streams, wait until the server has written to each
    stream its clients closed (a comment at most ``web.live.HEARTBEAT`` later), which
    frees its thread: the next part starts with all of them."""
    if mechanism == "stream":
        from web import live

        time.sleep(live.HEARTBEAT + 1)


def live_delays(
    sent: list[Sent], listeners: list[Listener], role: str, until: float
) -> tuple[list[float], int]:
    """For each action, the time until each other listener of its table (of ``role``) saw
    its version or a later one; and how many never saw it (actions sent in the last 5 s
    of the part are left out)."""
    by_table: dict[str, list[Listener]] = defaultdict(list)
    for listener in listeners:
        if listener.role == role:
            by_table[listener.table].append(listener)
    delays, missed = [], 0
    for action in sent:
        if action.at > until - 5:
            continue
        for listener in by_table[action.table]:
            if listener.client.username == action.actor:
                continue
            seen = [at for at, version in listener.seen if version >= action.version]
            if seen:
                delays.append(min(seen) - action.at)
            else:
                missed += 1
    return delays, missed


@dataclass
class Peak:
    mechanism: str
    record: Record
    seconds: float
    live: dict[str, list[float]]
    missed: int
    cpu: float  # seconds of CPU the web server used
    client_cpu: float  # and this process (the bots, the pages)
    server: dict[str, list[Logged]]  # the web's own time per action (its request log)
    cores: dict[str, float]  # cores busy, by process group (cores_used)


# A line of the web's request log (web.logging): an action's (a match's, a chouette's)
# own time inside Django, from its first middleware to its answer, and where it went; what
# the bench sees beyond it is waiting (for a gunicorn thread, a core, the bench's own
# threads) and the loopback.
ACTION_LINE = re.compile(
    r"msg=request method=POST path=/api/(?:matches|chouettes)/\d+/(?P<kind>[a-z_]+)/ "
    r"status=\d+ ms=(?P<ms>[\d.]+) cpu_ms=(?P<cpu>[\d.]+) db_ms=(?P<db>[\d.]+)"
)


@dataclass(frozen=True)
class Logged:
    """An action as the web logged it (seconds): all told, its thread computing, waiting
    on the database (row locks included); the rest is waiting for the interpreter held by
    the process's other threads, or for a pooled connection."""

    wall: float
    cpu: float
    db: float

    @property
    def waiting(self) -> float:
        return max(0.0, self.wall - self.cpu - self.db)


def server_times(web_log: Path, start: int, end: int) -> dict[str, list[Logged]]:
    """The actions the web logged between two sizes of its log."""
    with web_log.open("rb") as log:
        log.seek(start)
        text = log.read(end - start).decode(errors="replace")
    times: dict[str, list[Logged]] = defaultdict(list)
    for found in ACTION_LINE.finditer(text):
        ms = (float(found[key]) / 1000 for key in ("ms", "cpu", "db"))
        times[found["kind"]].append(Logged(*ms))
    return times


def report_server(server: dict[str, list[Logged]]) -> None:
    """The actions' times inside Django, and where the slowest 1% of each kind went."""
    print("  the same actions as the web logged them (inside Django; the rest is waiting):")
    kinds = by_count(server)
    rows = [[kind, *spread([logged.wall for logged in server[kind]])] for kind in kinds]
    table(["action (server)", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows)
    print(
        "  where the slowest 1% of each went (mean ms): its thread in Python, the database, waiting"
    )
    rows = []
    for kind in kinds:
        ordered = sorted(server[kind], key=lambda logged: logged.wall)
        slowest = ordered[len(ordered) - max(1, len(ordered) // 100) :]
        parts = [
            statistics.mean(getattr(logged, part) for logged in slowest)
            for part in ("wall", "cpu", "db", "waiting")
        ]
        rows.append([kind, f"{len(slowest):,}", *(ms(part) for part in parts)])
    table(["slowest 1% (server)", "count", "all", "Python", "database", "waiting"], rows)


def peak(
    users: list[tuple[str, str]],
    plan: Plan,
    mechanism: str,
    children: dict[str, subprocess.Popen[bytes]],
    web_log: Path,
) -> Peak:
    record = Record()
    pairs = [
        (Client(*users[2 * i], record), Client(*users[2 * i + 1], record))
        for i in range(plan.games)
    ]
    watchers = [Client(*users[2 * plan.games + i], record) for i in range(plan.games // 4 + 1)]
    with ThreadPoolExecutor(16) as pool:
        starts = list(pool.map(lambda pair: match_start(pair, length=7), pairs))
    # A match that could not start is an error already recorded; the others play.
    pairs, starts = zip(*[(p, m) for p, m in zip(pairs, starts, strict=True) if m], strict=True)
    stop = threading.Event()
    sent: list[Sent] = []
    listeners: list[Listener] = []
    threads = []
    for i, (pair, match) in enumerate(zip(pairs, starts, strict=True)):
        table, since = match["topic"], match["version"]
        audience = [(client, "player") for client in pair]
        if i % 4 == 0:
            audience.append((watchers[i // 4], "watcher"))
        for client, role in audience:
            listener = Listener(
                Client(client.username, client.token, record), table, match["id"], role
            )
            listeners.append(listener)
            threads.append(threading.Thread(target=listen, args=(listener, mechanism, since, stop)))
        threads.append(
            threading.Thread(
                target=paced_game, args=(pair, stop, random.Random(i), sent, {"match": match})
            )
        )
    before = cpu_snapshot(children)
    logged = web_log.stat().st_size
    start = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(plan.peak_s)
    until = time.monotonic()
    cores = cores_used(before, cpu_snapshot(children), until - start)
    cpu, own = cores["web"] * (until - start), cores["the bench"] * (until - start)
    server = server_times(web_log, logged, web_log.stat().st_size)
    stop.set()
    for thread in threads:
        thread.join()
    live, missed = {}, 0
    for role in ("player", "watcher"):
        live[role], not_seen = live_delays(sent, listeners, role, until)
        missed += not_seen
    return Peak(mechanism, record, until - start, live, missed, cpu, own, server, cores)


# Clocks -----------------------------------------------------------------------------------


@dataclass
class Clocks:
    games: int
    lateness: list[float]
    applied: dict[int, int]  # table id -> timeouts in its log
    unfinished: int
    errors: list[str]


def clocks(users: list[tuple[str, str]], plan: Plan) -> Clocks:
    """Games on a short custom clock that nobody plays: each must be lost on time once,
    within a second of its deadline."""
    from matches.models import Action, Match

    record = Record()
    pairs = [
        (Client(*users[2 * i], record), Client(*users[2 * i + 1], record))
        for i in range(plan.clock_games)
    ]
    clock = {"delay": 1, "reserve": plan.clock_reserve}
    with ThreadPoolExecutor(16) as pool:
        started = [
            m for m in pool.map(lambda pair: match_start(pair, length=3, clock=clock), pairs) if m
        ]
    deadlines = {m["id"]: datetime.fromisoformat(m["clock"]["deadline"]) for m in started}
    last = max(deadlines.values())
    while (datetime.now(last.tzinfo) - last).total_seconds() < 10:
        time.sleep(1)
    matches = Match.objects.filter(pk__in=deadlines).values_list("pk", "table_id", "status")
    table_of = {pk: table for pk, table, _status in matches}
    unfinished = sum(status != Match.Status.FINISHED for _pk, _table, status in matches)
    timeouts = Action.objects.filter(table_id__in=table_of.values(), kind="forfeit", actor=None)
    applied: dict[int, int] = defaultdict(int)
    at_of: dict[int, datetime] = {}
    for table, at in timeouts.values_list("table_id", "at"):
        applied[table] += 1
        at_of[table] = at
    lateness = [
        (at_of[table_of[pk]] - deadline).total_seconds()
        for pk, deadline in deadlines.items()
        if table_of[pk] in at_of
    ]
    return Clocks(
        len(started),
        lateness,
        {table_of[pk]: applied[table_of[pk]] for pk in deadlines},
        unfinished,
        record.errors,
    )


# The report -------------------------------------------------------------------------------

ACTIONS = ("roll", "move", "double", "take", "pass")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def table(header: list[str], rows: list[list[str]], first: int = 22) -> None:
    """Print rows under a header: the first column left-aligned, the others right."""
    for cells in [header, *rows]:
        print(f"  {cells[0]:{first}}" + "".join(f"{cell:>9}" for cell in cells[1:]))


def spread(values: list[float]) -> list[str]:
    """Count, p50, p95, p99 and max (ms)."""
    points = [percentile(values, p) for p in (50, 95, 99)] + [max(values)]
    return [f"{len(values):,}", *(ms(point) for point in points)]


def by_count(latencies: dict[str, list[float]]) -> list[str]:
    return sorted(latencies, key=lambda kind: -len(latencies[kind]))


def report_throughput(record: Record, seconds: float, finished: int, *, bots: int) -> None:
    what = "one match alone (the machine's latency)" if bots == 1 else f"{bots} matches at once"
    print(f"\nThroughput: {what}, to 3, bots acting as fast as they can")
    print(f"  {seconds:.0f} s, {finished} matches finished, {len(record.errors)} errors")
    rows = []
    for kind in by_count(record.latencies):
        values = record.latencies[kind]
        rows.append([kind, f"{len(values):,}", f"{len(values) / seconds:.1f}", *spread(values)[1:]])
    rows.append(["all", f"{record.requests:,}", f"{record.requests / seconds:.1f}"])
    table(["action", "count", "per s", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows)


def report_peak(result: Peak, plan: Plan) -> None:
    record, seconds = result.record, result.seconds
    print(f"\nPeak, live by {result.mechanism}: {plan.games} games at once, each side acting")
    print(f"  every 1-3 s, both players and a watcher on every 4th game following, {seconds:.0f} s")
    print(
        f"  requests {record.requests:,} ({record.requests / seconds:.0f}/s), errors "
        f"{len(record.errors)}, web CPU {result.cpu / seconds:.2f} cores "
        f"({1000 * result.cpu / max(1, record.requests):.0f} ms a request); the bench's own "
        f"CPU {result.client_cpu / seconds:.2f} cores"
    )
    actions = sum(len(record.latencies.get(kind, [])) for kind in ACTIONS)
    print(f"  {cores_line(result.cores)}")
    print(f"  {cpu_per_action_line(result.cores, seconds, actions)}")
    print(
        f"  actions {actions / seconds:.1f}/s (the pace asks {plan.games / PACE_MEAN:.0f}/s at "
        f"most: each game acts {PACE_MEAN:.0f} s after its last answer on average); web CPU "
        f"{1000 * result.cpu / max(1, actions):.0f} ms "
        "an action, its followers' live answers and the rest of the web's work included"
    )
    for error in record.errors[:5]:
        print(f"    error: {error[:150]}")
    rows = [[kind, *spread(record.latencies[kind])] for kind in by_count(record.latencies)]
    for role, delays in result.live.items():
        if delays:
            rows.append([f"live update, {role}", *spread(delays)])
    table(["request", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows)
    print(f"  live updates never seen: {result.missed}")
    report_server(result.server)


def report_queries(records: list[Record]) -> None:
    """Mean queries per action by turn number (in tens): flat if a request reads stored state."""
    counts: dict[tuple[str, int], list[int]] = defaultdict(list)
    for record in records:
        for (kind, turn), values in record.queries.items():
            if kind in ACTIONS:
                counts[(kind, turn // 10)].extend(values)
    buckets = sorted({bucket for _kind, bucket in counts})
    print("\nQueries per action by turn number (mean; the turn number grows through the match)")
    rows = []
    for kind in ACTIONS:
        cells = [counts.get((kind, bucket)) for bucket in buckets]
        rows.append([kind, *(f"{statistics.mean(c):.1f}" if c else "" for c in cells)])
    table(["action", *(f"{b * 10}-{b * 10 + 9}" for b in buckets)], rows, first=10)


def report_comparison(peaks: list[Peak]) -> None:
    print("\nLive mechanisms side by side (the same peak; ms, web CPU in cores)")
    rows = []
    for result in peaks:
        delays = result.live["player"] + result.live["watcher"]
        actions = [v for kind in ACTIONS for v in result.record.latencies.get(kind, [])]
        rows.append([
            result.mechanism,
            *(ms(percentile(delays, p)) for p in (50, 95, 99)),
            f"{result.record.requests / result.seconds:.0f}",
            f"{result.cpu / result.seconds:.2f}",
            ms(percentile(actions, 99)),
            f"{len(result.record.errors)}",
            f"{result.missed}",
        ])  # fmt: skip
    header = ["mechanism", "live p50", "p95", "p99", "req/s", "web CPU", "act p99", "errors"]
    table([*header, "unseen"], rows)


def report_clocks(result: Clocks, plan: Plan) -> None:
    print(
        f"\nClocks: {result.games} games at once on a custom clock (delay 1 s, reserve "
        f"{plan.clock_reserve:.0f} s), nobody playing"
    )
    once = sum(count == 1 for count in result.applied.values())
    more = sum(count > 1 for count in result.applied.values())
    print(
        f"  lost on time exactly once: {once}; more than once: {more}; "
        f"unfinished: {result.unfinished}; errors {len(result.errors)}"
    )
    late = result.lateness
    if not late:
        return
    points = "  ".join(f"p{p} {percentile(late, p):.2f}" for p in (50, 95, 99))
    print(f"  lateness past the deadline (s): min {min(late):.2f}  {points}  max {max(late):.2f}")
    print(f"  within 1 s: {sum(x <= 1.0 for x in late)} of {len(late)}")
    low = float("-inf")
    for edge in (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, float("inf")):
        count = sum(low < x <= edge for x in late)
        label = f"<= {edge:g} s" if edge != float("inf") else "> 5 s"
        print(f"    {label:10} {count:5} {'#' * round(50 * count / len(late))}")
        low = edge


def target_options(parser: argparse.ArgumentParser) -> None:
    """The options that say where the service runs from and what it uses (``target_set``):
    on a shared machine a database and Redis DBs of one's own, and another tree to measure
    beside this one."""
    parser.add_argument(
        "--tree", type=Path, help="the project tree the service runs from (default: this one)"
    )
    parser.add_argument("--database", help="the PostgreSQL database (created, migrated)")
    parser.add_argument(
        "--port", type=int, default=0, help="the web server's port (default: a free one)"
    )
    parser.add_argument(
        "--redis",
        help="the Redis DBs: broker,results,cache (the cache may share the results' DB); "
        f"default 12,13,{CACHE_DB}",
    )


def free_port() -> int:
    """A port nobody listens on now (a shared machine: other work's servers have theirs)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def target_set(
    args: argparse.Namespace, database: str, redis_dbs: tuple[int, int]
) -> tuple[str, tuple[int, int]]:
    """``target_options``' choices applied: the tree and the cache's DB set here, the
    database and the broker's and results' DBs returned (the given defaults else)."""
    global TREE, CACHE_DB, BIND, BASE
    BIND = f"127.0.0.1:{args.port or free_port()}"
    BASE = f"http://{BIND}"
    if args.tree:
        TREE = args.tree.resolve()
    if args.redis:
        broker, results, CACHE_DB = (int(db) for db in args.redis.split(","))
        redis_dbs = (broker, results)
    return args.database or database, redis_dbs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games, about 3 minutes")
    parser.add_argument(
        "--mechanisms", default=",".join(MECHANISMS), help="live mechanisms to compare"
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=POOL,
        help=f"DATABASE_POOL for the service (default {POOL}, docker-compose.yml's; 0: none)",
    )
    parser.add_argument(
        "--games", type=int, help="games at once at the peak (default: 40 quick, 200 full)"
    )
    parser.add_argument("--seconds", type=float, help="length of each peak (default: 15 quick, 60)")
    parser.add_argument(
        "--peak-only",
        action="store_true",
        help="the peak alone: no throughput part before it, no clocks after",
    )
    target_options(parser)
    args = parser.parse_args()
    database, redis_dbs = target_set(args, DATABASE, (12, 13))
    plan = QUICK if args.quick else FULL
    if args.games:
        plan = replace(plan, games=args.games)
    if args.seconds:
        plan = replace(plan, peak_s=args.seconds)
    mechanisms = args.mechanisms.split(",")
    var_dir = Path(tempfile.mkdtemp(prefix="bench-play-"))
    env = service_env(var_dir, args.pool, database=database, redis_dbs=redis_dbs)
    database_prepare(env, database=database, redis_dbs=redis_dbs)
    django_setup(env)
    run = f"{int(time.time()) % 100000:05d}"
    needed = max(2 * plan.bots, 2 * plan.games + plan.games // 4 + 1, 2 * plan.clock_games)
    print(f"Creating {needed} members...", file=sys.stderr)
    users = players_create(run, needed)
    print(f"Machine: {os.cpu_count()} cores, {load_average()} at the start; logs in {var_dir}")
    print(f"Service tree: {TREE} ({tree_commit()})")
    with service(env, var_dir) as children:
        print("Web: " + " ".join(tree_commands(env)["web"][2:]))
        print(f"Database connections: DATABASE_POOL={args.pool} (0: one a request, closed after)")
        records = []
        if not args.peak_only:
            print("Throughput...", file=sys.stderr)
            alone = throughput(users, 1, BASELINE_S)
            report_throughput(*alone, bots=1)
            record, seconds, finished = throughput(users, plan.bots, plan.throughput_s)
            report_throughput(record, seconds, finished, bots=plan.bots)
            records.append(record)
        peaks = []
        for mechanism in mechanisms:
            print(f"Peak, {mechanism}...", file=sys.stderr)
            peaks.append(peak(users, plan, mechanism, children, var_dir / "web.log"))
            report_peak(peaks[-1], plan)
            streams_settle(mechanism)
        report_queries([*records, *(p.record for p in peaks)])
        report_comparison(peaks)
        if not args.peak_only:
            print("Clocks...", file=sys.stderr)
            report_clocks(clocks(users, plan), plan)
    print(f"\nAt the end: {load_average()}")


def tree_commit() -> str:
    """The service tree's commit, and whether its work tree differs from it."""
    head = subprocess.run(
        ["git", "-C", str(TREE), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "-C", str(TREE), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head[:60]}{', with changes' if changed else ''}"


def load_average() -> str:
    return "load average " + " ".join(f"{load:.1f}" for load in os.getloadavg())


if __name__ == "__main__":
    main()
