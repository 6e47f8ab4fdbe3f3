"""Server play under load: the production layout on loopback, driven through the HTTP API.

Not a test (nothing in CI runs it). It starts what ``manage.py runclub`` and
``docker-compose.yml`` start (gunicorn with its workers and threads, a Celery worker and
beat) as subprocesses, on PostgreSQL (database ``club_bench_play``) and Redis (DB 12 the
broker, 13 the results), DEBUG off, then prints, in one run:

- throughput: bots playing complete matches as fast as they can, actions/s by type;
- a club's peak: G games at once, each side acting every 1 to 3 s, both players' live
  connections open and a watcher on every fourth game; p50/p95/p99 per action and for the
  live update (action sent -> the other side's live request answering), errors, and the
  database queries per action by turn number; once per live mechanism (held requests,
  plain polling every second, conditional polling every second), so they compare;
- clocks: C games on a short clock at once, each expiry's lateness past its deadline, and
  that each was applied exactly once (the action log).

    .venv/bin/python bench/api_play.py --quick     # about a minute, a smoke check
    .venv/bin/python bench/api_play.py             # the figures (bench/README.md)

bench/README.md says what each figure measures and the last figures measured.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
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
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BIND = "127.0.0.1:8765"
BASE = f"http://{BIND}"
DATABASE = "club_bench_play"
POSTGRES = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379")
LIVE_WAIT = 25  # seconds a held live request waits at most (club.live.MAX_WAIT)
POLL_EVERY = 1.0  # seconds between two polls (the plain and conditional mechanisms)
MECHANISMS = ("held", "poll", "conditional")


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


def service_env(var_dir: Path) -> dict[str, str]:
    """The environment of every process: production's settings, the bench's database."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.api_play_settings",
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + os.urandom(16).hex(),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"{POSTGRES}/{DATABASE}",
        "CELERY_BROKER_URL": f"{REDIS}/12",
        "CELERY_RESULT_BACKEND": f"{REDIS}/13",
        "VAR_DIR": str(var_dir),
        "PYTHONPATH": str(ROOT),
    }


def database_prepare(env: dict[str, str]) -> None:
    """Create the database if need be, migrate it, and empty the bench's Redis DBs."""
    exists = subprocess.run(
        ["psql", POSTGRES + "/postgres", "-tAc", f"SELECT 1 FROM pg_database WHERE datname='{DATABASE}'"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not exists:
        subprocess.run(["psql", POSTGRES + "/postgres", "-c", f"CREATE DATABASE {DATABASE}"], check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    import redis

    for db in (12, 13):
        redis.Redis.from_url(f"{REDIS}/{db}").flushdb()


def django_setup(env: dict[str, str]) -> None:
    """This process talks to the same database (players, tokens, the action log), with a
    cheap password hasher: the bench signs in with tokens."""
    os.environ.update(env)
    import django
    from django.conf import settings

    django.setup()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@contextmanager
def service(env: dict[str, str], log_dir: Path) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """The web server, the Celery worker and beat, as ``runclub`` starts them; stopped after."""
    from club.management.commands.runclub import service_commands

    children = {}
    for name, command in service_commands(BIND).items():
        log = open(log_dir / f"{name}.log", "wb")  # noqa: SIM115 (closed with the process)
        children[name] = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
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


def web_cpu_seconds(web: subprocess.Popen[bytes]) -> float:
    """CPU time (user + system) used so far by gunicorn's master and its workers."""
    tick = os.sysconf("SC_CLK_TCK")
    pids = [web.pid]
    children = Path(f"/proc/{web.pid}/task/{web.pid}/children")
    if children.exists():
        pids += [int(pid) for pid in children.read_text().split()]
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick


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


@dataclass
class Record:
    """What one part measured: latencies per kind, errors, queries per (kind, turn)."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    queries: dict[tuple[str, int], list[int]] = field(default_factory=lambda: defaultdict(list))
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float, *, turn: int | None = None, queries: int | None = None) -> None:
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

    def call(self, method: str, path: str, kind: str, body: dict[str, Any] | None = None,
             *, turn: int | None = None, timeout: float = 30) -> tuple[int, Any, float]:
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


def match_start(clients: tuple[Client, Client], *, length: int, clock: Any = "none") -> dict[str, Any] | None:
    """The first client invites the second, who accepts: the match, or None on an error."""
    first, second = clients
    status, created, _ = first.call("POST", "/api/matches/", "create", {"opponent": second.username, "length": length, "clock": clock})
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


def play_action(by_name: dict[str, Client], match: dict[str, Any], rng: random.Random,
                sent: list[Sent] | None = None) -> dict[str, Any] | None:
    """The side that must act acts: the new match body, or None on an error (then the
    caller fetches it again)."""
    kind, body = choose(match, rng)
    client = by_name[match["game"]["turn"]]
    status, answer, start = client.call("POST", f"/api/matches/{match['id']}/{kind}/", kind, body, turn=match["game"]["turn_no"])
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


def throughput(users: list[tuple[str, str]], plan: Plan) -> tuple[Record, float, int]:
    record = Record()
    pairs = [(Client(*users[2 * i], record), Client(*users[2 * i + 1], record)) for i in range(plan.bots)]
    start = time.monotonic()
    until = start + plan.throughput_s
    with ThreadPoolExecutor(len(pairs)) as pool:
        finished = sum(pool.map(lambda i: bot_pair(pairs[i], until, seed=i), range(len(pairs))))
    return record, time.monotonic() - start, finished


# The peak: games at a human pace with their live connections -----------------------------


def paced_game(clients: tuple[Client, Client], stop: threading.Event, rng: random.Random,
               sent: list[Sent], ready: dict[str, Any]) -> None:
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
        if stop.wait(rng.uniform(1.0, 3.0)):
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
    """Follow a table as a page does: on a newer version, note when, and fetch the match."""
    client, topic = listener.client, listener.table
    if mechanism != "held":
        stop.wait(random.uniform(0, POLL_EVERY))
    while not stop.is_set():
        if mechanism == "poll":
            status, body, _ = client.call("GET", f"/api/matches/{listener.match_id}/", "poll (1 s)")
        else:
            wait = LIVE_WAIT if mechanism == "held" else 0
            kind = "live (held)" if mechanism == "held" else "live (conditional)"
            status, body, _ = client.call("GET", f"/api/live/?topic={topic}&since={since}&wait={wait}", kind, timeout=LIVE_WAIT + 10)
        if status != 200:
            stop.wait(1)
            continue
        if body["version"] > since:
            listener.seen.append((time.monotonic(), body["version"]))
            since = body["version"]
            if mechanism != "poll":
                fetched = match_fetch(client, listener.match_id, "fetch (after live)")
                since = fetched["version"] if fetched else since
        if mechanism != "held":
            stop.wait(POLL_EVERY)


def live_delays(sent: list[Sent], listeners: list[Listener], role: str, until: float) -> tuple[list[float], int]:
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
    cpu: float


def peak(users: list[tuple[str, str]], plan: Plan, mechanism: str, web: subprocess.Popen[bytes]) -> Peak:
    record = Record()
    pairs = [(Client(*users[2 * i], record), Client(*users[2 * i + 1], record)) for i in range(plan.games)]
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
            listener = Listener(Client(client.username, client.token, record), table, match["id"], role)
            listeners.append(listener)
            threads.append(threading.Thread(target=listen, args=(listener, mechanism, since, stop)))
        threads.append(threading.Thread(target=paced_game, args=(pair, stop, random.Random(i), sent, {"match": match})))
    cpu = web_cpu_seconds(web)
    start = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(plan.peak_s)
    until = time.monotonic()
    cpu = web_cpu_seconds(web) - cpu
    stop.set()
    for thread in threads:
        thread.join()
    live, missed = {}, 0
    for role in ("player", "watcher"):
        live[role], not_seen = live_delays(sent, listeners, role, until)
        missed += not_seen
    return Peak(mechanism, record, until - start, live, missed, cpu)


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
    pairs = [(Client(*users[2 * i], record), Client(*users[2 * i + 1], record)) for i in range(plan.clock_games)]
    clock = {"delay": 1, "reserve": plan.clock_reserve}
    with ThreadPoolExecutor(16) as pool:
        started = [m for m in pool.map(lambda pair: match_start(pair, length=3, clock=clock), pairs) if m]
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
    lateness = [(at_of[table_of[pk]] - deadline).total_seconds() for pk, deadline in deadlines.items() if table_of[pk] in at_of]
    return Clocks(len(started), lateness, {table_of[pk]: applied[table_of[pk]] for pk in deadlines}, unfinished, record.errors)


# The report -------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def latency_rows(latencies: dict[str, list[float]]) -> list[str]:
    rows = []
    for kind in sorted(latencies, key=lambda k: -len(latencies[k])):
        values = latencies[kind]
        rows.append(f"  {kind:22} {len(values):7,} {ms(percentile(values, 50)):>7} {ms(percentile(values, 95)):>7} {ms(percentile(values, 99)):>7} {ms(max(values)):>7}")
    return rows


def report_throughput(record: Record, seconds: float, finished: int, plan: Plan) -> None:
    print(f"\nThroughput: {plan.bots} matches to 3 at once, bots acting as fast as they can, {seconds:.0f} s")
    print(f"  {finished} matches finished, {len(record.errors)} errors")
    print(f"  {'action':22} {'count':>7} {'per s':>7} {'p50 ms':>7} {'p99 ms':>7}")
    total = 0
    for kind in sorted(record.latencies, key=lambda k: -len(record.latencies[k])):
        values = record.latencies[kind]
        total += len(values)
        print(f"  {kind:22} {len(values):7,} {len(values) / seconds:7.1f} {ms(percentile(values, 50)):>7} {ms(percentile(values, 99)):>7}")
    print(f"  {'all':22} {total:7,} {total / seconds:7.1f}")


def report_peak(result: Peak, plan: Plan) -> None:
    record = result.record
    print(f"\nPeak, live by {result.mechanism}: {plan.games} games at once, each side acting every 1-3 s, "
          f"both players and a watcher on every 4th game following, {result.seconds:.0f} s")
    print(f"  requests {record.requests:,} ({record.requests / result.seconds:.0f}/s), errors {len(record.errors)}, "
          f"web CPU {result.cpu:.1f} s ({result.cpu / result.seconds:.2f} cores)")
    for error in record.errors[:5]:
        print(f"    error: {error}")
    print(f"  {'request':22} {'count':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7}")
    held = {k: v for k, v in record.latencies.items() if k != "live (held)"}
    for row in latency_rows(held):
        print(row)
    for role, delays in result.live.items():
        if delays:
            print(f"  {'live update, ' + role:22} {len(delays):7,} {ms(percentile(delays, 50)):>7} {ms(percentile(delays, 95)):>7} "
                  f"{ms(percentile(delays, 99)):>7} {ms(max(delays)):>7}")
    print(f"  live updates never seen: {result.missed}")


def report_queries(record: Record) -> None:
    """Mean queries per action by turn number (in tens): flat if a request reads stored state."""
    buckets = sorted({turn // 10 for _kind, turn in record.queries})
    kinds = sorted({kind for kind, _turn in record.queries})
    print("\nQueries per action by turn number (mean; the turn number grows through the match)")
    print(f"  {'action':10}" + "".join(f"{f'{b * 10}-{b * 10 + 9}':>8}" for b in buckets))
    for kind in kinds:
        cells = []
        for bucket in buckets:
            counts = [q for (k, turn), qs in record.queries.items() if k == kind and turn // 10 == bucket for q in qs]
            cells.append(f"{statistics.mean(counts):8.1f}" if counts else f"{'':8}")
        print(f"  {kind:10}" + "".join(cells))


def report_clocks(result: Clocks, plan: Plan) -> None:
    print(f"\nClocks: {result.games} games on a custom clock (delay 1 s, reserve {plan.clock_reserve:.0f} s) at once, nobody playing")
    once = sum(count == 1 for count in result.applied.values())
    twice = sum(count > 1 for count in result.applied.values())
    print(f"  lost on time exactly once: {once}; more than once: {twice}; unfinished: {result.unfinished}; errors {len(result.errors)}")
    if result.lateness:
        late = result.lateness
        within = sum(x <= 1.0 for x in late)
        print(f"  lateness past the deadline (s): min {min(late):.2f}  p50 {percentile(late, 50):.2f}  "
              f"p95 {percentile(late, 95):.2f}  p99 {percentile(late, 99):.2f}  max {max(late):.2f}")
        print(f"  within 1 s: {within} of {len(late)}")
        edges = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0]
        low = float("-inf")
        for edge in [*edges, float("inf")]:
            count = sum(low < x <= edge for x in late)
            label = f"<= {edge:g} s" if edge != float("inf") else f"> {edges[-1]:g} s"
            print(f"    {label:10} {count:5} {'#' * round(50 * count / len(late))}")
            low = edge


def report_comparison(peaks: list[Peak]) -> None:
    print("\nLive mechanisms side by side (the same peak)")
    print(f"  {'mechanism':22} {'live p50':>9} {'p95':>7} {'p99':>7} {'req/s':>7} {'web CPU':>8} {'action p99':>11} {'errors':>7}")
    for result in peaks:
        delays = result.live["player"] + result.live["watcher"]
        actions = [v for k, values in result.record.latencies.items() if k in ("roll", "move", "double", "take", "pass") for v in values]
        print(f"  {result.mechanism:22} {ms(percentile(delays, 50)):>9} {ms(percentile(delays, 95)):>7} {ms(percentile(delays, 99)):>7} "
              f"{result.record.requests / result.seconds:7.0f} {result.cpu / result.seconds:8.2f} {ms(percentile(actions, 99)):>11} {len(result.record.errors):>7}")
    print("  (ms; web CPU in cores; a held request is counted once, when it answers)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games, about a minute")
    parser.add_argument("--mechanisms", default=",".join(MECHANISMS), help="live mechanisms to compare")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    mechanisms = args.mechanisms.split(",")
    var_dir = Path(tempfile.mkdtemp(prefix="bench-play-"))
    env = service_env(var_dir)
    database_prepare(env)
    django_setup(env)
    run = f"{int(time.time()) % 100000:05d}"
    needed = 2 * max(plan.bots, plan.games + plan.games // 4 + 1, plan.clock_games)
    print(f"Creating {needed} members...", file=sys.stderr)
    users = players_create(run, needed)
    load = os.getloadavg()
    print(f"Machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start; logs in {var_dir}")
    with service(env, var_dir) as children:
        from club.management.commands.runclub import service_commands

        print("Web: " + " ".join(service_commands(BIND)["web"][2:]))
        print("Throughput...", file=sys.stderr)
        record, seconds, finished = throughput(users, plan)
        report_throughput(record, seconds, finished, plan)
        peaks = []
        for mechanism in mechanisms:
            print(f"Peak, {mechanism}...", file=sys.stderr)
            peaks.append(peak(users, plan, mechanism, children["web"]))
            report_peak(peaks[-1], plan)
        report_queries(merged([record] + [p.record for p in peaks]))
        report_comparison(peaks)
        print("Clocks...", file=sys.stderr)
        report_clocks(clocks(users, plan), plan)
    load = os.getloadavg()
    print(f"\nLoad average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


def merged(records: list[Record]) -> Record:
    total = Record()
    for record in records:
        for key, values in record.queries.items():
            if key[0] in ("roll", "move", "double", "take", "pass"):
                total.queries[key].extend(values)
    return total


if __name__ == "__main__":
    main()
