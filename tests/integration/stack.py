"""The production layout as real processes, for the tests of faults and of several hosts:
a Redis server of the test's own (which it may stop and start again), gunicorn, the
Celery workers and beat with the commands ``runclub`` and docker-compose run, a TCP proxy
in front of PostgreSQL that the test can cut, and members playing through the HTTP API.

Every process is started in its own session and killed with its whole group when the
test ends, passed or failed (``Stack``)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from redis import Redis, RedisError
from rest_framework.authtoken.models import Token

from club.services import player_create
from matches.models import Action
from tests.integration.worker import database_url_for_processes
from tests.processes import alive, free_port, in_group
from tests.waiting import PATIENCE, wait_until
from web.management.commands.runclub import service_commands


class RedisServer:
    """A ``redis-server`` on a free port, nothing saved to disk: stopped, it comes back
    empty (the harshest restart: every queued task and cached entry gone)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        assert wait_until(self.answers), "redis-server did not start"

    def answers(self) -> bool:
        try:
            with Redis(port=self.port, socket_timeout=2) as client:
                return bool(client.ping())
        except RedisError:
            return False

    def stop(self) -> None:
        """Kill it (SIGKILL), as a crash or an out-of-memory kill would."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=PATIENCE)


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def stack_environment(
    redis: RedisServer, var_dir: Path, *, database_url: str | None = None
) -> dict[str, str]:
    """What every process of the layout runs with: the test's database, the test's Redis
    (broker 0, results 1, the cache 2, as docker-compose numbers them), DEBUG off, a pool
    of 4 connections a process (compose's ``DATABASE_POOL``, smaller)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url or database_url_for_processes(),
        "DATABASE_POOL": "4",
        "CELERY_BROKER_URL": redis.url(0),
        "CELERY_RESULT_BACKEND": redis.url(1),
        "CACHE_URL": redis.url(2),
        "VAR_DIR": str(var_dir),
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    env.pop("DEBUG", None)
    return env


def _with_option(command: list[str], option: str, value: str) -> list[str]:
    at = command.index(option)
    return [*command[: at + 1], value, *command[at + 2 :]]


class Stack:
    """The processes a test started (by name), each in its own session, with its output
    in ``logs/<name>.log``."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.bases: dict[str, str] = {}

    def start(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        with open(self.log_dir / f"{name}.log", "ab") as log:
            process = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        self.processes[name] = process
        return process

    def web(self, name: str) -> str:
        """A gunicorn instance (runclub's command) on a free port: its base address,
        which answers once ``ready``."""
        port = free_port()
        self.start(name, service_commands(f"127.0.0.1:{port}")["web"])
        self.bases[name] = f"http://127.0.0.1:{port}"
        return self.bases[name]

    def ready(self) -> None:
        """Wait until every web instance answers ``/healthz``."""
        for name, base in self.bases.items():
            healthy = wait_until(lambda: _healthy(base), timeout=2 * PATIENCE, every=0.2)  # noqa: B023
            assert healthy, self.log(name)

    def worker(self, name: str) -> None:
        """A worker of the timeouts and the ordinary tasks (the sweeps), without beat (the
        several-workers layout), named ``name`` as a host's would be."""
        command = service_commands("127.0.0.1:0", beat_apart=True)["worker"]
        self.start(name, _with_option(command, "--hostname", f"{name}@%h"))

    def beat(self) -> None:
        command = service_commands("127.0.0.1:0", beat_apart=True)["beat"]
        schedule = str(self.log_dir / "beat-schedule")
        self.start("beat", _with_option(command, "--schedule", schedule))

    def kill(self, name: str) -> None:
        """``kill -9`` the process and everything of its group (a worker's pool)."""
        process = self.processes[name]
        group = in_group(process.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=PATIENCE)
        assert wait_until(lambda: not [pid for pid in group if alive(pid)])

    def log(self, name: str) -> str:
        """The end of the process's output, for a failing assertion's message."""
        return (self.log_dir / f"{name}.log").read_text(errors="replace")[-4000:]

    def stop(self, *, grace: float = 5) -> None:
        """SIGTERM to every group, then, ``grace`` seconds later, SIGKILL to what is left
        of them (a gunicorn worker holding a live stream would take its 30 s)."""
        running = [p for p in self.processes.values() if p.poll() is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for process in running:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for process in self.processes.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def stack(env: dict[str, str], log_dir: Path) -> Iterator[Stack]:
    started = Stack(env, log_dir)
    try:
        yield started
    finally:
        started.stop()


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as answer:
            return answer.status == 200
    except OSError:
        return False


# Members playing through the API ----------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


@dataclass
class Member:
    """A member and their API token."""

    username: str
    token: str

    def call(self, base: str, method: str, path: str, body: Any = None) -> Answer:
        """The server's answer, which must be JSON (an error's too)."""
        request = urllib.request.Request(
            base + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={
                "Authorization": f"Token {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=PATIENCE) as answer:
                return Answer(answer.status, json.load(answer), dict(answer.headers))
        except urllib.error.HTTPError as refusal:
            raw = refusal.read()
            headers = dict(refusal.headers)
            assert headers.get("Content-Type") == "application/json", (refusal.code, raw[:300])
            return Answer(refusal.code, json.loads(raw), headers)


def members_create(prefix: str, count: int) -> list[Member]:
    """``count`` members with tokens, committed (the servers read them)."""
    made = []
    for i in range(count):
        player = player_create(username=f"{prefix}{i}", password="faults-password")
        made.append(Member(player.user.username, Token.objects.create(user=player.user).key))
    return made


def match_invite(first: Member, second: Member, *, at: str, clock: Any = "none") -> int:
    """``first`` invites ``second`` (on the server ``at``) to a match to 3: its id."""
    invitation = {"opponent": second.username, "length": 3, "clock": clock}
    created = first.call(at, "POST", "/api/matches/", invitation)
    assert created.status == 201, created
    return int(created.body["id"])


def match_accept(second: Member, match_id: int, *, at: str) -> dict[str, Any]:
    """``second`` accepts (on the server ``at``): the match's body, its clock running."""
    accepted = second.call(at, "POST", f"/api/matches/{match_id}/accept/", {})
    assert accepted.status == 200, accepted
    return accepted.body


def match_start(
    first: Member, second: Member, *, create_at: str, accept_at: str, clock: Any = "none"
) -> dict[str, Any]:
    """``first`` invites ``second`` (on the server ``create_at``), who accepts (on
    ``accept_at``): the match's body."""
    match_id = match_invite(first, second, at=create_at, clock=clock)
    return match_accept(second, match_id, at=accept_at)


def next_action(match: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What the side on turn does: rolls, plays the first legal play, takes a double."""
    game = match["game"]
    body: dict[str, Any] = {"turn_no": game["turn_no"]}
    match game["phase"]:
        case "roll":
            return "roll", body
        case "move":
            plays = game["legal_plays"]
            return "move", {**body, "play": plays[0] if plays else ""}
        case "take_or_pass":
            return "take", body
        case "resign_offered":
            return "reject_resign", body
    raise AssertionError(f"no action in phase {game['phase']}")


@dataclass
class Player:
    """Both members of one match, playing it through the API and keeping what the server
    confirmed (``(actor, kind)`` of each action answered 200), to hold against the
    action log."""

    match: dict[str, Any]
    by_name: dict[str, Member]
    confirmed: list[tuple[str, str]] = field(default_factory=list)
    refused: list[Answer] = field(default_factory=list)

    def act(self, base: str) -> Answer:
        """The side on turn acts on ``base``; a refusal (JSON, never applied) is kept
        and the match read again."""
        kind, body = next_action(self.match)
        member = self.by_name[self.match["game"]["turn"]]
        answer = member.call(base, "POST", f"/api/matches/{self.match['id']}/{kind}/", body)
        if answer.status == 200:
            self.match = answer.body
            self.confirmed.append((member.username, kind))
        else:
            self.refused.append(answer)
            fetched = member.call(base, "GET", f"/api/matches/{self.match['id']}/")
            if fetched.status == 200:
                self.match = fetched.body
        return answer

    @property
    def playing(self) -> bool:
        return self.match["status"] == "playing"


def table_of(match: dict[str, Any]) -> int:
    """The id of the match's table (its live topic is ``table:<id>``)."""
    return int(match["topic"].removeprefix("table:"))


def logged_actions(match: dict[str, Any]) -> list[tuple[str, str]]:
    """The members' actions in the match's log, in order: ``(actor, kind)``. A roll that
    cannot be played is followed by its ``no_move`` (E2, written with the roll, not sent
    by the member): left out, as the members' answers know nothing of it."""
    rows = (
        Action.objects.filter(table_id=table_of(match), actor__isnull=False)
        .exclude(kind="no_move")
        .order_by("game_number", "seq")
    )
    return list(rows.values_list("actor__user__username", "kind"))


# The live stream --------------------------------------------------------------------


def stream_follow(base: str, member: Member, topic: str, since: int) -> queue.Queue[dict[str, Any]]:
    """Open ``GET /api/live/stream/`` as a page does; each event's data arrives on the
    queue returned (a daemon thread reads it; the server ends it within minutes)."""
    request = urllib.request.Request(
        f"{base}/api/live/stream/?topic={topic}&since={since}",
        headers={"Authorization": f"Token {member.token}", "Accept": "text/event-stream"},
    )
    response = urllib.request.urlopen(request, timeout=2 * PATIENCE)
    assert response.status == 200 and response.headers["Content-Type"].startswith(
        "text/event-stream"
    )
    events: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        with response, contextlib.suppress(OSError, ValueError):
            for line in response:
                if line.startswith(b"data: "):
                    events.put(json.loads(line[len(b"data: ") :]))

    threading.Thread(target=read, daemon=True).start()
    return events


# A TCP proxy in front of PostgreSQL -------------------------------------------------


class TcpProxy:
    """Forwards a free port of 127.0.0.1 to ``upstream``: ``cut`` closes every connection
    and refuses new ones (a database gone from the network), ``mend`` listens again."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None

    def mend(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            if self._listener is not None:
                # shutdown, not only close, wakes the thread waiting in accept (Linux).
                with contextlib.suppress(OSError):
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _address = listener.accept()
            except OSError:  # cut
                return
            try:
                server = socket.create_connection(self.upstream, timeout=PATIENCE)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets |= {client, server}
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        peers = {client: server, server: client}
        try:
            while True:
                readable, _, _ = select.select(list(peers), [], [])
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except (OSError, ValueError):  # cut: the sockets were closed under us
            return
        finally:
            with self._lock:
                self._sockets -= {client, server}
            client.close()
            server.close()


@contextmanager
def tcp_proxy(upstream: tuple[str, int]) -> Iterator[TcpProxy]:
    proxy = TcpProxy(upstream)
    proxy.mend()
    try:
        yield proxy
    finally:
        proxy.cut()
