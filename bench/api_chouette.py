"""Online chouettes under load, on the production layout, beside the matches' peak.

Not a test (nothing in CI runs it). It starts the service exactly as ``bench/api_play.py``
does (its ``service``: gunicorn with its workers and threads, a Celery worker and beat,
PostgreSQL, Redis, DEBUG off), on its own database ``club_bench_chouette`` and Redis DBs
10 (broker) and 11 (results), then prints, in one run:

- one chouette alone: its four members acting as soon as it is their turn (the latency the
  machine gives an action when nothing else runs);
- the chouettes' peak: T online chouettes of 4 to 6 players at once for a fixed time,
  every member acting through the API with their own token at a human pace (1 to 3 s:
  the box and the captain roll and move, the cube rounds, the box doubling all or some,
  each member taking, passing or beavering on their own, the crew proposing plays to
  the captain (H2), the next game started), every member and a big screen per table
  following the live channel (``chouette:<id>``: a member's board redraws from the
  chouette the answer carries, the big screen fetches the table page); p50, p95 and p99
  per request type, the
  live update of the table page (action sent -> the big screen learning of it) and of
  the members, errors, queries per action; then every game checked in the database
  (replayed from the log, points summing to zero); once per way of following
  (``--follow``: held requests, then streams, what the pages do), side by side;
- the matches' peak (``api_play.peak``, live by streams), in the same run;
- both peaks side by side, and the issue's targets.

    .venv/bin/python bench/api_chouette.py --quick   # a smoke check, about 3 minutes
    .venv/bin/python bench/api_chouette.py           # the figures (bench/README.md)

bench/README.md says what each figure measures and the last figures measured.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import api_play as play  # the matches benchmark: the service, its client, its peak

DATABASE = "club_bench_chouette"
REDIS_DBS = (10, 11)  # the broker's, the results'
SIZES = (4, 5, 6)  # players at a table, in turn
TURN_TIME = 60  # seconds to roll, move or answer: a clock runs, a bot at 1-3 s never meets it
STAKE = "5.00"
MAX_DOUBLE = 16  # bots offer no double on a cube already at this value
P_BOX_DOUBLE = 0.15  # per box turn where the box may double
P_MEMBER_DOUBLE = 0.08  # per member and team turn (multiple cubes)
P_TEAM_DOUBLE = 0.12  # per team turn (one cube: every member proposes it)
P_PROPOSE = 0.2  # per crew member and team move with a choice: a play proposed (H2)
ACTIONS = ("roll", "move", "double", "take", "pass", "beaver", "start", "propose")
PLAYED = ACTIONS[:6]  # the game's own actions: the targets' "every action"
PAGE_VERSION = re.compile(r'data-live-version="(\d+)"')


@dataclass(frozen=True)
class Plan:
    """How much of each part to run (``--quick`` or the full figures)."""

    tables: int  # chouettes at once at the peak
    seconds: float  # the chouettes' peak
    alone_s: float  # one chouette alone
    games: int  # matches at once at the matches' peak
    match_s: float  # the matches' peak


QUICK = Plan(tables=8, seconds=45, alone_s=10, games=40, match_s=15)
FULL = Plan(tables=30, seconds=240, alone_s=10, games=200, match_s=60)


# What each member does ---------------------------------------------------------------------


@dataclass
class Act:
    """An action a member sends: what it is (the path's last part, but ``propose``:
    ``proposals/``) and the body."""

    kind: str
    body: dict[str, Any]

    @property
    def path(self) -> str:
        return "proposals" if self.kind == "propose" else self.kind


@dataclass
class Talk:
    """What the players of a table know beyond the server's answer, as players at a real
    table say it aloud: who proposed the team's one cube this turn, whether the box has
    doubled this turn, who has proposed a play (none is in the game body that members
    fetch), and the newest version an action at the table was answered with (a member
    acts on a screen at least that new, as a player waits for the board to show the
    last action)."""

    seed: int
    said: set[str] = field(default_factory=set)
    acted: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def heard(self, version: int, said: str | None = None) -> None:
        with self.lock:
            self.acted = max(self.acted, version)
            if said is not None:
                self.said.add(said)


def chance(*key: object) -> float:
    """The same number in every member's thread for the same key: the members of a table
    agree on who doubles in a cube round, so the captain knows whom to wait for."""
    return random.Random(":".join(map(str, key))).random()


def decide(card: dict[str, Any], me: str, talk: Talk) -> Act | None:
    """What ``me`` does now at the table shown by ``card`` (``GET /api/chouettes/{id}/``),
    or None: nothing, wait for the table to move. Only the box or one member of the team
    acts at a time, except answers to a double, which each member gives side by side."""
    game, box = card["game"], card["box"]
    if game is None or game["phase"] == "over":
        return Act("start", {}) if me == box else None
    turn = {"turn_no": game["turn_no"]}
    rng = random.Random(f"{talk.seed}:{game['turn_no']}:{me}")
    phase, awaiting = game["phase"], game["awaiting"]
    if phase == "take_or_pass":
        return _answer(card, me, talk)
    if phase == "move":
        plays = game["legal_plays"]
        advisers = [] if awaiting == [box] else crew_proposing(card, talk)
        if me in advisers:
            return Act("propose", {**turn, "kind": "play", "play": rng.choice(plays)})
        if awaiting != [me] or advisers:
            return None  # the captain hears the crew out before he moves
        return Act("move", {**turn, "play": rng.choice(plays) if plays else ""})
    if phase != "roll":
        return None
    if awaiting == [box]:
        return _box_turn(card, talk, rng) if me == box else None
    doublers = team_doublers(card, talk)  # the team's cube round, then the captain's roll
    if doublers:
        return Act("double", turn) if doublers[0] == me else None
    return Act("roll", turn) if awaiting == [me] else None


def _said(game: dict[str, Any], who: str) -> str:
    return f"{game['number']}:{game['position_id']}:{who}"


def _may_double(cube: dict[str, Any], owner: str) -> bool:
    return cube["state"] == "live" and cube["owner"] in (None, owner) and cube["value"] < MAX_DOUBLE


def _box_turn(card: dict[str, Any], talk: Talk, rng: random.Random) -> Act:
    """The box doubles now and then, to every member it may or to some (multiple cubes),
    once a turn; else it rolls."""
    game = card["game"]
    turn = {"turn_no": game["turn_no"]}
    cubes = game["cubes"]
    live = [name for name, cube in cubes.items() if cube["state"] != "passed"]
    doubled = _said(game, "box") in talk.said
    if doubled or chance(talk.seed, game["number"], game["position_id"], "box") >= P_BOX_DOUBLE:
        return Act("roll", turn)
    open_ = [name for name in live if _may_double(cubes[name], "box")]
    if card["options"]["cube"] == "single":
        return Act("double", turn) if open_ and open_ == live else Act("roll", turn)
    if not open_:
        return Act("roll", turn)
    if rng.random() < 0.5:
        return Act("double", turn)  # to every member it may double
    return Act(
        "double", {**turn, "to": [name for name in open_ if rng.random() < 0.5] or open_[:1]}
    )


def team_doublers(card: dict[str, Any], talk: Talk) -> list[str]:
    """The members still to double in this cube round, in line order: each by their own
    chance on their own cube (multiple cubes), or all of them once the team has decided
    to (one cube, H4: each proposes it). The captain rolls when none is left."""
    game = card["game"]
    cubes = game["cubes"]
    key = (talk.seed, game["number"], game["position_id"])
    live = [name for name, cube in cubes.items() if cube["state"] != "passed"]
    if card["options"]["cube"] == "single":
        if not live or not all(_may_double(cubes[name], name) for name in live):
            return []
        if chance(*key, "team") >= P_TEAM_DOUBLE:
            return []
        return [name for name in live if _said(game, name) not in talk.said]
    return [
        name
        for name in live
        if _may_double(cubes[name], name) and chance(*key, name) < P_MEMBER_DOUBLE
    ]


def crew_proposing(card: dict[str, Any], talk: Talk) -> list[str]:
    """The crew members still to propose a play to the captain this turn (H2: each by
    their own chance, when the roll leaves a choice and the session has consulting)."""
    game = card["game"]
    if card["options"]["consulting"] != "full" or len(game["legal_plays"]) < 2:
        return []
    crew = [name for name, cube in game["cubes"].items() if cube["state"] != "passed"][1:]
    key = (talk.seed, game["number"], game["turn_no"])
    return [
        name
        for name in crew
        if chance(*key, name) < P_PROPOSE and f"{game['turn_no']}:propose:{name}" not in talk.said
    ]


def _answer(card: dict[str, Any], me: str, talk: Talk) -> Act | None:
    """A member answers the box's double on their own cube (take, pass, or beaver with
    multiple cubes and beavers on); the box answers the team's doubles in line order."""
    game = card["game"]
    cubes, awaiting = game["cubes"], game["awaiting"]
    if me not in awaiting:
        return None
    if me == card["box"]:
        holder = next(
            (
                name
                for name, cube in cubes.items()
                if cube["state"] == "offered" and name not in awaiting
            ),
            None,
        )
        if holder is None:
            return None
        offered = cubes[holder]["offered_at"]
        rng = random.Random(f"{talk.seed}:{offered}:{holder}:box")
        return Act("take" if rng.random() < 0.75 else "pass", {"turn_no": offered})
    offered = cubes[me]["offered_at"]
    rng = random.Random(f"{talk.seed}:{offered}:{me}")
    options = card["options"]
    beavers = options["beavers"] and options["cube"] == "multiple"
    draw = rng.random()
    kind = "beaver" if beavers and draw < 0.1 else "pass" if draw >= 0.7 else "take"
    return Act(kind, {"turn_no": offered})


# A table's players and their screens ------------------------------------------------------


class View:
    """What one member's screen shows: the newest chouette body their live connection
    fetched or their own action was answered with."""

    def __init__(self) -> None:
        self.card: dict[str, Any] | None = None
        self.changed = threading.Condition()

    @property
    def version(self) -> int:
        return -1 if self.card is None else self.card["version"]

    def show(self, card: dict[str, Any]) -> None:
        with self.changed:
            if card["version"] > self.version:
                self.card = card
                self.changed.notify_all()

    def at_least(self, version: int, timeout: float) -> dict[str, Any] | None:
        """The card once it is at ``version`` or newer; None after ``timeout``."""
        with self.changed:
            if self.changed.wait_for(lambda: self.version >= version, timeout):
                return self.card
            return None


@dataclass
class Follower:
    """A live connection (a member's board or the table's big screen): when it learnt of
    each version (``api_play.live_delays`` reads it)."""

    client: play.Client
    table: str  # the topic
    role: str  # "member" or "table page"
    seen: list[tuple[float, int]] = field(default_factory=list)


@dataclass
class Seat:
    name: str
    client: play.Client  # the member's own token, their actions
    view: View
    follower: Follower  # the same token, its own connection


@dataclass
class Table:
    pk: int
    topic: str
    talk: Talk
    seats: list[Seat]
    screen: Follower  # the big screen's session (a watcher signed in)


@dataclass
class Tally:
    """What happened at the tables: actions by what they were, 5xx answers."""

    counts: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1


def heard(talk: Talk, me: str, card: dict[str, Any], act: Act, answer: dict[str, Any]) -> str:
    """The table learns that ``me``'s action on ``card`` was answered with ``answer``: its
    version, and a double said aloud. What the action was, for the tally."""
    game = card["game"]
    said, by = None, "the box" if me == card["box"] else "a member"
    what = act.kind
    if act.kind == "double":
        said = _said(game, "box" if me == card["box"] else me)
        what = f"double by {by}" + (", to some" if "to" in act.body else "")
    elif act.kind in ("take", "pass", "beaver"):
        what = f"{act.kind} by {by}"
    elif act.kind == "propose":  # answered with the proposal, not the table
        talk.heard(talk.acted, f"{game['turn_no']}:propose:{me}")
        return what
    talk.heard(answer["version"], said)
    return what


def chouette_fetch(client: play.Client, pk: int, kind: str) -> dict[str, Any] | None:
    status, card, _ = client.call("GET", f"/api/chouettes/{pk}/", kind)
    return card if status == 200 else None


def send(
    seat: Seat, table: Table, act: Act, card: dict[str, Any], sent: list[play.Sent], tally: Tally
) -> None:
    """Send the action with the member's token; on its answer the table knows the new
    version (and what was said); an error is recorded and the member looks again."""
    game = card["game"]
    status, answer, start = seat.client.call(
        "POST",
        f"/api/chouettes/{table.pk}/{act.path}/",
        act.kind,
        act.body,
        turn=game["turn_no"] if game else 0,
    )
    if status not in (200, 201):
        fresh = chouette_fetch(seat.client, table.pk, "fetch")
        if fresh is not None:
            seat.view.show(fresh)
        return
    tally.add(heard(table.talk, seat.name, card, act, answer))
    if act.kind == "propose":
        return
    sent.append(play.Sent(answer["topic"], answer["version"], start, seat.name))
    seat.view.show(answer)


def seat_play(
    seat: Seat,
    table: Table,
    stop: threading.Event,
    pace: tuple[float, float],
    sent: list[play.Sent],
    tally: Tally,
) -> None:
    """One member at the table: when the screen shows something to do, wait the human
    pace, look again, and do it if it is still to do."""
    rng = random.Random()
    while not stop.is_set():
        card = seat.view.at_least(table.talk.acted, timeout=5.0)
        if card is None:  # the live connection brought nothing: look directly
            fresh = chouette_fetch(seat.client, table.pk, "fetch")
            if fresh is not None:
                seat.view.show(fresh)
            continue
        act = decide(card, seat.name, table.talk)
        if act is None:
            seat.view.at_least(card["version"] + 1, timeout=1.0)
            continue
        if pace[1] and stop.wait(rng.uniform(*pace)):
            return
        card = seat.view.at_least(table.talk.acted, timeout=5.0)
        if card is not None and decide(card, seat.name, table.talk) == act and not stop.is_set():
            send(seat, table, act, card, sent, tally)


def live_url(topic: str, since: int) -> str:
    return f"/api/live/?topic={topic}&since={since}&wait={play.LIVE_WAIT}"


def member_hold(seat: Seat, table: Table, stop: threading.Event) -> None:
    """A member's board follows the table by held live requests; on a newer version, the
    board redraws from the chouette the answer carries (its ``state``: no fetch after
    it)."""
    follower, since = seat.follower, seat.view.version
    kind = "live (member)"
    while not stop.is_set():
        since = max(since, seat.view.version)
        status, answer, _ = follower.client.call(
            "GET", live_url(table.topic, since), kind, timeout=play.LIVE_WAIT + 10
        )
        if status != 200:
            stop.wait(1)
            continue
        card = answer["state"]
        if card is None and answer["version"] > since:
            follower.client.record.error(f"{kind}: version {answer['version']} without its state")
        if card is not None and card["version"] > since:
            follower.seen.append((time.monotonic(), card["version"]))
            seat.view.show(card)
        since = max(since, answer["version"])


def screen_hold(table: Table, since: int, stop: threading.Event) -> None:
    """The big screen following by held live requests: on a newer version, the page's
    live region fetched again (``?live=region``), and its version the next request's
    ``since``."""
    screen = table.screen
    while not stop.is_set():
        status, body, _ = screen.client.call(
            "GET", live_url(table.topic, since), "live (table page)", timeout=play.LIVE_WAIT + 10
        )
        if status != 200:
            stop.wait(1)
            continue
        if body["version"] > since:
            screen.seen.append((time.monotonic(), body["version"]))
            shown = page_fetch(screen.client, f"/chouettes/{table.pk}/?live=region")
            since = shown if shown is not None else body["version"]


def member_stream(seat: Seat, table: Table, stop: threading.Event) -> None:
    """A member's board follows the table as the page does: one stream of its versions;
    on a newer one, the board redraws from the chouette the event carries."""
    follower = seat.follower
    events = play.stream_events(
        follower.client, table.topic, seat.view.version, stop, "stream (member)"
    )
    for answer in events:
        card = answer["state"]
        if card is None:
            follower.client.record.error(f"stream: version {answer['version']} without its state")
        elif card["version"] > seat.view.version:
            follower.seen.append((time.monotonic(), card["version"]))
            seat.view.show(card)


def screen_stream(table: Table, since: int, stop: threading.Event) -> None:
    """The big screen as the table page follows (static/club/live_region.js): one stream
    of the table's versions; on a newer one, the page's live region fetched again."""
    screen = table.screen
    for answer in play.stream_events(
        screen.client, table.topic, since, stop, "stream (table page)"
    ):
        if answer["version"] > since:
            screen.seen.append((time.monotonic(), answer["version"]))
            shown = page_fetch(screen.client, f"/chouettes/{table.pk}/?live=region")
            since = shown if shown is not None else answer["version"]


# How members and big screens follow: by held requests, or (what the pages do) by streams.
FOLLOW = {"held": (member_hold, screen_hold), "stream": (member_stream, screen_stream)}
FOLLOWING = {"held": "held requests (/api/live/)", "stream": "streams (/api/live/stream/)"}


def page_fetch(client: play.Client, path: str) -> int | None:
    """The table page's live region as the big screen fetches it: its live version,
    timed."""
    start = time.monotonic()
    try:
        response = client.session.get(play.BASE + path, timeout=30)
    except requests.RequestException as exc:
        client.record.error(f"table page: {type(exc).__name__}")
        return None
    client.record.add("table page", time.monotonic() - start)
    if response.status_code != 200:
        client.record.error(f"table page: {response.status_code}")
        return None
    found = PAGE_VERSION.search(response.text)
    return int(found.group(1)) if found else None


# Setting the tables ------------------------------------------------------------------------


def screen_client(username: str, token: str, record: play.Record) -> play.Client:
    """A big screen: a member signed in with a session cookie (the page is not for tokens)."""
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import connection

    key = play.session_key_for(User.objects.get(username=username))
    # This runs in a pool's thread: its connection goes back to the pool, not away with it.
    connection.close()
    client = play.Client(username, token, record)
    del client.session.headers["Authorization"]
    client.session.cookies.set(settings.SESSION_COOKIE_NAME, key)
    return client


def table_open(
    index: int, players: list[tuple[str, str]], watcher: tuple[str, str], record: play.Record
) -> Table | None:
    """An online chouette opened by its first player (the box), the order as entered;
    options varied by table: two in three with multiple cubes and beavers, Jacoby on
    every other table, a clock of ``TURN_TIME`` for each action."""
    multiple = index % 3 != 2
    options = {
        "cube": "multiple" if multiple else "single",
        "beavers": multiple,
        "jacoby": index % 2 == 0,
        "turn_time": TURN_TIME,
    }
    names = [name for name, _token in players]
    opener = play.Client(*players[0], record)
    status, card, _ = opener.call(
        "POST",
        "/api/chouettes/",
        "create",
        {"players": names, "order": names, "stake": STAKE, "mode": "online", "options": options},
    )
    if status != 201:
        return None
    seats = []
    for name, token in players:
        view = View()
        view.show(card)
        follower = Follower(play.Client(name, token, record), card["topic"], "member")
        seats.append(Seat(name, play.Client(name, token, record), view, follower))
    screen = Follower(screen_client(*watcher, record), card["topic"], "table page")
    return Table(card["id"], card["topic"], Talk(seed=index), seats, screen)


@dataclass
class Peak:
    """What one part measured."""

    follow: str  # how its members and big screens followed (FOLLOW)
    record: play.Record
    seconds: float
    tables: int
    members: int
    live: dict[str, list[float]]
    missed: int
    cpu: float  # seconds of CPU the web server used
    client_cpu: float  # and this process
    cores: dict[str, float]  # cores busy, by process group (play.cores_used)
    server: dict[str, list[play.Logged]]  # the web's own time per action (its request log)
    tally: Tally
    ids: list[int]


def chouettes_run(
    users: list[tuple[str, str]],
    tables: int,
    seconds: float,
    pace: tuple[float, float],
    children: dict[str, Any],
    web_log: Path,
    follow: str,
) -> Peak:
    """``tables`` chouettes played at once for ``seconds``: a thread per member acting,
    one per member following live, one per big screen, following as ``follow`` says
    (``FOLLOW``)."""
    member_follow, screen_follow = FOLLOW[follow]
    record, tally = play.Record(), Tally()
    groups, at = [], 0
    for index in range(tables):
        size = SIZES[index % len(SIZES)]
        groups.append((index, users[at : at + size], users[at + size]))
        at += size + 1
    with ThreadPoolExecutor(8) as pool:
        opened = list(pool.map(lambda group: table_open(*group, record), groups))
    # A table that could not open is an error already recorded; the others play.
    seated = [table for table in opened if table is not None]
    stop = threading.Event()
    sent: list[play.Sent] = []
    threads = []
    for table in seated:
        for seat in table.seats:
            threads.append(
                threading.Thread(target=seat_play, args=(seat, table, stop, pace, sent, tally))
            )
            threads.append(threading.Thread(target=member_follow, args=(seat, table, stop)))
        threads.append(
            threading.Thread(target=screen_follow, args=(table, table.seats[0].view.version, stop))
        )
    before = play.cpu_snapshot(children)
    logged = web_log.stat().st_size
    start = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    until = time.monotonic()
    cores = play.cores_used(before, play.cpu_snapshot(children), until - start)
    cpu, own = cores["web"] * (until - start), cores["the bench"] * (until - start)
    server = play.server_times(web_log, logged, web_log.stat().st_size)
    stop.set()
    for thread in threads:
        thread.join()
    followers = [seat.follower for table in seated for seat in table.seats] + [
        t.screen for t in seated
    ]
    live, missed = {}, 0
    for role in ("table page", "member"):
        live[role], not_seen = play.live_delays(sent, followers, role, until)
        missed += not_seen
    members = sum(len(table.seats) for table in seated)
    return Peak(
        follow,
        record,
        until - start,
        len(seated),
        members,
        live,
        missed,
        cpu,
        own,
        cores,
        server,
        tally,
        [t.pk for t in seated],
    )


# Checking what was played -------------------------------------------------------------------


@dataclass
class Checked:
    sessions: int
    games: int  # games finished and recorded
    timeouts: int  # actions the server applied for a late player
    problems: list[str]


def games_check(ids: list[int]) -> Checked:
    """Every game of the sessions replayed from the action log: a finished one is listed
    with the points the replay gives each member (the box their sum, negated), which sum
    to zero; the game on the table replays to the stored state."""
    from chouette.models import Chouette, ChouetteGame
    from matches.models import Action
    from matches.selectors import replay_game

    problems, finished, timeouts = [], 0, 0
    for chouette in Chouette.objects.filter(pk__in=ids).select_related("table"):
        table = chouette.table
        games: dict[int, list[Action]] = defaultdict(list)
        for row in Action.objects.filter(table=table).order_by("game_number", "seq"):
            games[row.game_number].append(row)
            timeouts += row.by_server
        rows = {
            row.number: {p.player.user.username: p.points for p in row.points.all()}
            for row in ChouetteGame.objects.filter(chouette=chouette).prefetch_related(
                "points__player__user"
            )
        }
        for number, log in games.items():
            where = f"chouette {chouette.pk} game {number}"
            try:
                game = replay_game(log)
            except Exception as exc:  # a log that does not replay is what this looks for
                problems.append(f"{where}: the log does not replay: {exc}")
                continue
            if number == table.game_number:
                stored = dict(table.state or {})
                replayed = {**game.to_dict(), "history": []}
                if replayed != stored:
                    problems.append(f"{where}: the stored state is not the log's")
            if not game.over:
                if number != table.game_number:
                    problems.append(f"{where}: not over, yet another game followed")
                continue
            points = rows.get(number)
            if points is None:
                problems.append(f"{where}: over but not listed")
                continue
            finished += 1
            if sum(points.values()):
                problems.append(f"{where}: points sum to {sum(points.values())}")
            for holder, won_by_box in game.points_by_holder().items():
                if points.get(str(holder)) != -won_by_box:
                    listed = points.get(str(holder))
                    problems.append(f"{where}: {holder} listed {listed}, the log {-won_by_box}")
    return Checked(len(ids), finished, timeouts, problems)


# The report -------------------------------------------------------------------------------


def server_errors(record: play.Record) -> int:
    return sum(bool(re.match(r"[^:]*: 5\d\d\b", error)) for error in record.errors)


def report_alone(result: Peak) -> None:
    record, seconds = result.record, result.seconds
    print(
        f"\nOne chouette alone (the machine's latency): {result.members} members acting as "
        "soon as it is their turn"
    )
    print(
        f"  {seconds:.0f} s, {len(record.errors)} errors, web CPU {result.cpu / seconds:.2f} cores"
    )
    rows = []
    for kind in play.by_count(record.latencies):
        values = record.latencies[kind]
        rows.append(
            [kind, f"{len(values):,}", f"{len(values) / seconds:.1f}", *play.spread(values)[1:]]
        )
    play.table(["request", "count", "per s", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows)


def report_peak(result: Peak, checked: Checked) -> None:
    record, seconds = result.record, result.seconds
    print(
        f"\nChouettes' peak: {result.tables} online chouettes at once ({result.members} members), "
        f"each member acting\n  every 1-3 s, every member and a big screen per table following "
        f"live by {FOLLOWING[result.follow]}, {seconds:.0f} s"
    )
    print(
        f"  requests {record.requests:,} ({record.requests / seconds:.0f}/s), errors "
        f"{len(record.errors)} (5xx: {server_errors(record)}), web CPU {result.cpu / seconds:.2f} "
        f"cores ({1000 * result.cpu / max(1, record.requests):.0f} ms a request); the bench's own "
        f"CPU {result.client_cpu / seconds:.2f} cores"
    )
    actions = len(actions_of(record, PLAYED))
    print(f"  {play.cores_line(result.cores)}")
    print(f"  {play.cpu_per_action_line(result.cores, seconds, actions)}")
    print(
        f"  actions {actions / seconds:.1f}/s; web CPU "
        f"{1000 * result.cpu / max(1, actions):.0f} ms "
        "an action, its followers' requests and the rest of the web's work included"
    )
    for error in record.errors[:8]:
        print(f"    error: {error[:150]}")
    rows = [
        [kind, *play.spread(record.latencies[kind])] for kind in play.by_count(record.latencies)
    ]
    for role, delays in result.live.items():
        if delays:
            rows.append([f"live update, {role}", *play.spread(delays)])
    play.table(["request", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows)
    print(f"  live updates never seen: {result.missed}")
    play.report_server(result.server)
    counts = result.tally.counts
    print("  what was played: " + ", ".join(f"{what} {counts[what]}" for what in sorted(counts)))
    print("  queries per action (mean, max):")
    per_kind = queries_by_kind(record)
    print(
        "    "
        + "  ".join(f"{kind} {statistics.mean(q):.1f} ({max(q)})" for kind, q in per_kind.items())
    )
    print(
        f"  checked: {checked.sessions} sessions, {checked.games} games finished and listed, "
        f"each replayed from the log to its listed points; {checked.timeouts} server actions "
        f"(timeouts); problems: {len(checked.problems)}"
    )
    for problem in checked.problems[:10]:
        print(f"    {problem}")


def queries_by_kind(record: play.Record) -> dict[str, list[int]]:
    found: dict[str, list[int]] = defaultdict(list)
    for (kind, _turn), values in record.queries.items():
        if kind in ACTIONS:
            found[kind].extend(values)
    return {kind: found[kind] for kind in ACTIONS if found[kind]}


def actions_of(record: play.Record, kinds: tuple[str, ...]) -> list[float]:
    return [value for kind in kinds for value in record.latencies.get(kind, [])]


def report_side_by_side(chouettes: Peak, matches: play.Peak, plan: Plan) -> None:
    """Both peaks of this run in one table."""
    print("\nChouettes and matches at their peaks, side by side (this run; ms unless said)")

    def both(label: str, value: Any) -> list[str]:
        return [label, value(chouettes, "chouette"), value(matches, "match")]

    def point(values: list[float], q: float) -> str:
        return play.ms(play.percentile(values, q)) if values else "-"

    def p(kinds: tuple[str, ...], q: float) -> Any:
        return lambda result, _kind: point(actions_of(result.record, kinds), q)

    def live(roles: tuple[str, ...], q: float) -> Any:
        return lambda result, _kind: point([v for r in roles for v in result.live.get(r, [])], q)

    def queries(result: Any, _kind: str) -> str:
        values = [
            v for (kind, _t), vs in result.record.queries.items() if kind in ACTIONS for v in vs
        ]
        return f"{statistics.mean(values):.1f}" if values else ""

    rows = [
        both("tables at once", lambda r, k: f"{r.tables if k == 'chouette' else plan.games}"),
        both("players", lambda r, k: f"{r.members if k == 'chouette' else 2 * plan.games}"),
        both("seconds", lambda r, k: f"{r.seconds:.0f}"),
        both("requests/s", lambda r, k: f"{r.record.requests / r.seconds:.0f}"),
        both("actions/s", lambda r, k: f"{len(actions_of(r.record, PLAYED)) / r.seconds:.1f}"),
        both("web CPU, cores", lambda r, k: f"{r.cpu / r.seconds:.2f}"),
        both("web CPU a request", lambda r, k: f"{1000 * r.cpu / max(1, r.record.requests):.0f}"),
        both("errors", lambda r, k: f"{len(r.record.errors)}"),
        both("  of them 5xx", lambda r, k: f"{server_errors(r.record)}"),
        both("action p50", p(PLAYED, 50)),
        both("action p95", p(PLAYED, 95)),
        both("action p99", p(PLAYED, 99)),
        *(both(f"  {kind} p99", p((kind,), 99)) for kind in PLAYED),
        both("live, big screen p50", live(("table page", "watcher"), 50)),
        both("live, big screen p95", live(("table page", "watcher"), 95)),
        both("live, big screen p99", live(("table page", "watcher"), 99)),
        both("live, players p99", live(("member", "player"), 99)),
        both("live updates never seen", lambda r, k: f"{r.missed}"),
        both("queries an action", queries),
    ]
    play.table(["", "chouettes", "matches"], rows, first=26)
    print("  big screen: the chouette's table page; a match's watcher (every 4th game)")


def report_followings(peaks: list[Peak]) -> None:
    """The chouettes' peak once per way of following, side by side."""
    print(
        "\nThe chouettes' peak by how the followers follow, side by side (this run; ms unless said)"
    )

    def point(values: list[float], q: float) -> str:
        return play.ms(play.percentile(values, q)) if values else "-"

    def worst(peak: Peak) -> tuple[str, str]:
        """The action type with the longest p99, and that p99 (two cells: a column is narrow)."""
        kinds = [kind for kind in PLAYED if peak.record.latencies.get(kind)]
        p99 = {kind: play.percentile(peak.record.latencies[kind], 99) for kind in kinds}
        kind = max(p99, key=lambda k: p99[k])
        return kind, play.ms(p99[kind])

    def actions(peak: Peak) -> int:
        return len(actions_of(peak.record, PLAYED))

    rows = [
        ["tables, members", *(f"{p.tables}, {p.members}" for p in peaks)],
        ["requests/s", *(f"{p.record.requests / p.seconds:.0f}" for p in peaks)],
        ["actions/s", *(f"{actions(p) / p.seconds:.1f}" for p in peaks)],
        ["cores busy, all", *(f"{p.cores['machine']:.2f}" for p in peaks)],
        ["web CPU, cores", *(f"{p.cpu / p.seconds:.2f}" for p in peaks)],
        ["web CPU an action", *(f"{1000 * p.cpu / max(1, actions(p)):.0f}" for p in peaks)],
        ["errors", *(f"{len(p.record.errors)}" for p in peaks)],
        *(
            [f"action p{q}", *(point(actions_of(p.record, PLAYED), q) for p in peaks)]
            for q in (50, 95, 99)
        ),
        ["worst action type", *(worst(p)[0] for p in peaks)],
        ["  its p99", *(worst(p)[1] for p in peaks)],
        *(
            [f"live, {role} p{q}", *(point(p.live.get(role, []), q) for p in peaks)]
            for role in ("table page", "member")
            for q in (50, 99)
        ),
        ["live updates never seen", *(f"{p.missed}" for p in peaks)],
    ]
    play.table(["", *(p.follow for p in peaks)], rows, first=26)


def report_targets(result: Peak) -> None:
    worst = max(
        (
            (kind, play.percentile(result.record.latencies[kind], 99))
            for kind in PLAYED
            if result.record.latencies.get(kind)
        ),
        key=lambda pair: pair[1],
        default=("none", float("nan")),
    )
    screen = result.live.get("table page", [])
    errors = len(result.record.errors)

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print(f"\nThe issue's targets, at the chouettes' peak (following by {result.follow}):")
    kind, p99 = worst
    print(f"  p99 under 100 ms for every action: worst {kind} {play.ms(p99)} ms: {met(p99 < 0.1)}")
    screen_p99 = play.percentile(screen, 99)
    shown = play.ms(screen_p99)
    print(f"  the table page's live update under 1 s: p99 {shown} ms: {met(screen_p99 < 1.0)}")
    print(f"  zero errors: {errors}: {met(errors == 0)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer tables, about 3 minutes")
    parser.add_argument("--tables", type=int, help="chouettes at once at the peak")
    parser.add_argument("--seconds", type=float, help="length of the chouettes' peak")
    parser.add_argument("--no-matches", action="store_true", help="leave out the matches' peak")
    parser.add_argument(
        "--follow",
        default="held,stream",
        help="how members and big screens follow, one peak each, the pages' way (stream) last "
        "(default: held,stream)",
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=play.POOL,
        help=f"DATABASE_POOL for the service (default {play.POOL}, docker-compose.yml's; 0: none)",
    )
    play.target_options(parser)
    args = parser.parse_args()
    database, redis_dbs = play.target_set(args, DATABASE, REDIS_DBS)
    followings = args.follow.split(",")
    if not followings or any(follow not in FOLLOW for follow in followings):
        parser.error(f"--follow takes some of {', '.join(FOLLOW)}, separated by commas")
    plan = QUICK if args.quick else FULL
    tables = args.tables or plan.tables
    seconds = args.seconds or plan.seconds
    var_dir = Path(tempfile.mkdtemp(prefix="bench-chouette-"))
    env = play.service_env(var_dir, args.pool, database=database, redis_dbs=redis_dbs)
    play.database_prepare(env, database=database, redis_dbs=redis_dbs)
    play.django_setup(env)
    run = f"{int(time.time()) % 100000:05d}"
    at_tables = sum(SIZES[i % len(SIZES)] + 1 for i in range(tables))
    at_matches = 0 if args.no_matches else 2 * plan.games + plan.games // 4 + 1
    needed = 6 + len(followings) * at_tables + at_matches
    print(f"Creating {needed} members...", file=sys.stderr)
    users = play.players_create(run, needed)
    print(f"Machine: {os.cpu_count()} cores, {play.load_average()} at the start; logs in {var_dir}")
    print(f"Service tree: {play.TREE} ({play.tree_commit()})")
    with play.service(env, var_dir) as children:
        print("Web: " + " ".join(play.tree_commands(env)["web"][2:]))
        print(f"Database connections: DATABASE_POOL={args.pool} (0: one a request, closed after)")
        print("One chouette alone...", file=sys.stderr)
        web_log = var_dir / "web.log"
        report_alone(
            chouettes_run(users[:6], 1, plan.alone_s, (0.0, 0.0), children, web_log, followings[-1])
        )
        peaks = []
        for index, follow in enumerate(followings):
            print(
                f"Chouettes' peak ({tables} tables, {seconds:.0f} s, {follow})...", file=sys.stderr
            )
            seated = users[6 + index * at_tables : 6 + (index + 1) * at_tables]
            peaks.append(
                chouettes_run(seated, tables, seconds, (1.0, 3.0), children, web_log, follow)
            )
            report_peak(peaks[-1], games_check(peaks[-1].ids))
            print(f"  load average then: {play.load_average()}")
            play.streams_settle(follow)
        if len(peaks) > 1:
            report_followings(peaks)
        peak = peaks[-1]
        if not args.no_matches:
            print(f"Matches' peak ({plan.games} games, {plan.match_s:.0f} s)...", file=sys.stderr)
            match_plan = play.Plan(
                bots=0,
                throughput_s=0,
                games=plan.games,
                peak_s=plan.match_s,
                clock_games=0,
                clock_reserve=0,
            )
            matches = play.peak(
                users[6 + len(followings) * at_tables :], match_plan, "stream", children, web_log
            )
            play.report_peak(matches, match_plan)
            print(f"  load average then: {play.load_average()}")
            report_side_by_side(peak, matches, plan)
        report_targets(peak)
    print(f"\nAt the end: {play.load_average()}")


if __name__ == "__main__":
    main()
