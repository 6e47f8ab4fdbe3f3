"""A club night, compressed, on the embedded default (``make run``: SQLite, the filesystem
broker, ``manage.py runclub``).

Not a test (nothing in CI runs it). It starts ``manage.py runclub`` in a temporary
``VAR_DIR`` on a free port (or drives one already running: ``--attach``), makes 40
members with their API tokens and, for ``--minutes``, drives through the HTTP API at a
club's pace (1 to 3 s an action):

- 8 pairs playing 5-point matches on a clock ({"delay": 5, "reserve": 30}), one after the
  other, both players following their match's live stream; now and then a player leaves
  the board until the clock runs out (the worker applies the timeout: how long after
  its deadline is measured);
- a Swiss round, again and again: the director (a staff member) creates it, enters 4
  members (an entry fee each, to the prize pool) and starts it through the tournaments'
  services, as the admin's actions do; its 2 online matches are played on their clocks;
  a big screen follows the bracket page (its live stream, the page's region fetched);
- 3 online chouettes (4, 5 and 6 players, ``bench/api_chouette.py``'s bots), every
  member and a big screen per table following its live stream;
- the staff recording cash payments (``POST /api/ledger/payments/``) every few seconds.

That is 10 matches on clocks at a time, 3 chouettes, a Swiss round, payments and 4 big
screens. It prints the actions and errors (target 0), p50 and p99 per action type, the
resident memory of the service's process tree (``bench/footprint.py``) at the start and
the end, the trial balance (the ledger's legs, target 0.00) and every game of the night
replayed from its action log to the position stored (``matches.selectors.replay_game``).

    .venv/bin/python bench/club_night.py                # 30 minutes
    .venv/bin/python bench/club_night.py --minutes 3    # a quick run

bench/README.md ("A club night") has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import api_chouette as chouette  # the chouette bots, their tables, big screens
from bench import api_play as play  # the members' client, match bots, live streams
from bench import footprint  # the service on the embedded default, its memory

PAIRS = 8  # matches on clocks besides the Swiss round's two
SWISS_PLAYERS = 4
TABLE_SIZES = (4, 5, 6)  # the chouettes
MEMBERS = 2 * PAIRS + SWISS_PLAYERS + sum(TABLE_SIZES) + len(TABLE_SIZES) + 2  # 40
MATCH_LENGTH = 5
CLOCK = {"delay": 5, "reserve": 30}
PACE = (1.0, 3.0)  # seconds a member takes to act
P_DAWDLE = 0.003  # per action: the player leaves the board until the clock runs out
PAYMENT_EVERY = (3.0, 8.0)
SAMPLE_EVERY = 30.0  # seconds between two looks at the service's memory
SWISS_CLOCK = "blitz"
SWISS_FEE = Decimal("10.00")


@dataclass
class Tally:
    """What happened besides the requests: matches finished, timeouts waited for..."""

    counts: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, what: str, count: int = 1) -> None:
        with self.lock:
            self.counts[what] += count


@dataclass
class Replayed:
    tables: int
    games: int
    problems: list[str]


@dataclass
class Night:
    record: play.Record
    tally: Tally
    seconds: float
    actions: int
    memory: list[tuple[float, footprint.Memory]]  # (seconds into the night, the tree)
    largest: footprint.Memory
    trial_total: str
    legs_total: Decimal
    replayed: Replayed


# The members ---------------------------------------------------------------------------------


def members_make(run: str) -> tuple[list[tuple[str, str]], tuple[str, str]]:
    """The 39 members and the staff member who directs and takes the cash: (username, token)."""
    from rest_framework.authtoken.models import Token

    from club.services import player_create

    members = play.players_create(run, MEMBERS - 1)
    staff = player_create(username=f"n{run}staff", password="bench-password", is_staff=True)
    return members, (staff.user.username, Token.objects.create(user=staff.user).key)


# Matches on clocks ---------------------------------------------------------------------------


def follow(client: play.Client, topic: str, since: int, stop: threading.Event, kind: str) -> None:
    """A page following ``topic`` by its live stream (what the match page does)."""
    for _answer in play.stream_events(client, topic, since, stop, kind):
        pass


def match_play(
    match: dict[str, Any],
    clients: tuple[play.Client, play.Client],
    stop: threading.Event,
    rng: random.Random,
    tally: Tally,
) -> None:
    """A match to its end at a club's pace, both players' pages following it; a player
    now and then leaves until the clock runs out, the server then applying the timeout."""
    by_name = {client.username: client for client in clients}
    left = threading.Event()
    for client in clients:
        threading.Thread(
            target=follow,
            args=(client, match["topic"], match["version"], left, "stream (match page)"),
            daemon=True,
        ).start()
    try:
        while match["status"] == "playing" and not stop.is_set():
            if rng.random() < P_DAWDLE and match["clock"]["deadline"]:
                tally.add("player away until the clock ran out")
                match = clock_run_out(match, clients[0], stop)
                if match is None:
                    return
                continue
            if stop.wait(rng.uniform(*PACE)):
                return
            match = play.play_action(by_name, match, rng) or play.match_fetch(
                clients[0], match["id"]
            )
            if match is None:
                return
        if match["status"] != "playing":
            tally.add("matches finished")
    finally:
        left.set()


def clock_run_out(
    match: dict[str, Any], client: play.Client, stop: threading.Event
) -> dict[str, Any] | None:
    """The player to act has left the board: nobody acts until the server applies the
    timeout, seen by fetching the match every quarter second from the deadline on; how
    long after the deadline it was seen is recorded (``timeout seen after its deadline``:
    the worker's lateness, plus up to a quarter second), and when the server's log says it
    applied it (``timeout applied after its deadline``: the worker's alone)."""
    deadline = datetime.fromisoformat(match["clock"]["deadline"]).timestamp()
    if stop.wait(max(0.0, deadline - time.time())):
        return None
    while not stop.is_set():
        fresh = play.match_fetch(client, match["id"])
        if fresh is None:
            return None
        if fresh["status"] != "playing":
            client.record.add("timeout seen after its deadline", time.time() - deadline)
            applied = timeout_applied_at(match["id"])
            if applied is not None:
                client.record.add("timeout applied after its deadline", applied - deadline)
            return fresh
        stop.wait(0.25)
    return None


def timeout_applied_at(match_id: int) -> float | None:
    """When the server logged the timeout that ended ``match_id`` (its forfeit row's
    time), None if a timeout did not end it."""
    from django.db import connection

    from matches.models import Action

    try:
        forfeit = (
            Action.objects.filter(table__match__pk=match_id, kind="forfeit", by_server=True)
            .order_by("-at")
            .first()
        )
        return None if forfeit is None else forfeit.at.timestamp()
    finally:
        connection.close()  # this thread's connection


def pair_play(
    clients: tuple[play.Client, play.Client], stop: threading.Event, seed: int, tally: Tally
) -> None:
    """Two members playing matches on a clock, one after the other, all night."""
    rng = random.Random(seed)
    while not stop.is_set():
        match = play.match_start(clients, length=MATCH_LENGTH, clock=CLOCK)
        if match is None:
            stop.wait(1)
            continue
        match_play(match, clients, stop, rng, tally)


# The Swiss round -----------------------------------------------------------------------------


def swiss_start(director: str, names: list[str], number: int) -> tuple[int, int, list[int]]:
    """The director's actions (the admin's): a one-round Swiss created, registration
    opened, the members entered (their fees posted), the draw made and the round started
    with its online matches. The tournament, its version and its matches."""
    from django.contrib.auth.models import User
    from django.db import connection

    from club.models import Player
    from tournaments import services
    from tournaments.models import Pairing

    try:
        staff = User.objects.get(username=director)
        tournament = services.tournament_create(
            created_by=staff,
            name=f"Club night Swiss {number}",
            format="swiss",
            swiss_rounds=1,
            online=True,
            clock=SWISS_CLOCK,
            match_lengths="3",
            entry_fee=SWISS_FEE,
        )
        tournament = services.tournament_open(tournament=tournament)
        for player in Player.objects.filter(user__username__in=names):
            services.entry_add(tournament=tournament, player=player, recorded_by=staff)
        tournament = services.tournament_start(tournament=tournament)
        matches = list(
            Pairing.objects.filter(round__tournament=tournament, match__isnull=False).values_list(
                "match_id", flat=True
            )
        )
        tournament.refresh_from_db()
        return tournament.pk, tournament.version, matches
    finally:
        connection.close()  # this thread's connection


def swiss_finish(director: str, pk: int) -> bool:
    """Once every pairing has its result (the online matches' reach the tournament by a
    signal, or beat's collect), the director finishes the tournament: the payouts posted
    out of the prize pool. Whether it is finished."""
    from django.contrib.auth.models import User
    from django.db import connection

    from tournaments import services
    from tournaments.models import Pairing, Tournament

    try:
        if Pairing.objects.filter(round__tournament_id=pk, winner__isnull=True).exists():
            return False
        services.tournament_finish(
            tournament=Tournament.objects.get(pk=pk),
            recorded_by=User.objects.get(username=director),
        )
        return True
    finally:
        connection.close()


def screen_follow(
    screen: play.Client, topic: str, page: str, since: int, stop: threading.Event, kind: str
) -> None:
    """A big screen as the bracket and table pages follow (static/club/live_region.js):
    the topic's stream; on a newer version, the page's live region fetched again."""
    for answer in play.stream_events(screen, topic, since, stop, kind):
        if answer["version"] > since:
            shown = chouette.page_fetch(screen, f"{page}?live=region")
            since = shown if shown is not None else answer["version"]


def swiss_run(
    director: tuple[str, str],
    players: list[play.Client],
    screen: play.Client,
    stop: threading.Event,
    seed: int,
    tally: Tally,
) -> None:
    """Swiss rounds one after the other all night, a big screen on the bracket."""
    rng = random.Random(seed)
    number = 0
    while not stop.is_set():
        number += 1
        start = time.monotonic()
        try:
            pk, version, match_ids = swiss_start(
                director[0], [client.username for client in players], number
            )
        except Exception as error:  # what the director would read: the bench's error
            players[0].record.error(f"swiss round: {type(error).__name__}: {error}")
            stop.wait(5)
            continue
        players[0].record.add("swiss round start (services)", time.monotonic() - start)
        watched = threading.Event()
        threading.Thread(
            target=screen_follow,
            args=(
                screen,
                f"tournament:{pk}",
                f"/tournaments/{pk}/",
                version,
                watched,
                "stream (bracket page)",
            ),
            daemon=True,
        ).start()
        by_name = {client.username: client for client in players}
        tables = []
        for match_id in match_ids:
            match = play.match_fetch(players[0], match_id)  # a member may watch any match
            if match is None:
                continue
            first, second = match["players"]
            pair = (by_name[first], by_name[second])
            tables.append(threading.Thread(target=match_play, args=(match, pair, stop, rng, tally)))
        for table in tables:
            table.start()
        for table in tables:
            table.join()
        while not stop.is_set():
            try:
                if swiss_finish(director[0], pk):
                    tally.add("Swiss rounds finished")
                    break
            except Exception as error:  # what the director would read: the bench's error
                players[0].record.error(f"swiss finish: {type(error).__name__}: {error}")
                break
            stop.wait(1)
        watched.set()


# The rest of the night ------------------------------------------------------------------------


def payments_run(
    staff: play.Client, names: list[str], stop: threading.Event, seed: int, tally: Tally
) -> None:
    """The staff taking and paying out cash: a member pays the club, or the club a member."""
    rng = random.Random(seed)
    while not stop.wait(rng.uniform(*PAYMENT_EVERY)):
        member = rng.choice(names)
        payer, payee = (member, "club") if rng.random() < 0.6 else ("club", member)
        amount = f"{rng.randint(1, 40)}.{rng.choice(['00', '50'])}"
        status, _body, _ = staff.call(
            "POST",
            "/api/ledger/payments/",
            "payment",
            {"payer": payer, "payee": payee, "amount": amount, "memo": "Club night"},
        )
        if status == 201:
            tally.add("payments")


def memory_watch(
    supervisor: int, stop: threading.Event, seen: list[tuple[float, footprint.Memory]]
) -> None:
    start = time.monotonic()
    while True:
        seen.append((time.monotonic() - start, footprint.tree_memory(supervisor)))
        if stop.wait(SAMPLE_EVERY):
            return


# After the night -----------------------------------------------------------------------------


def games_replay() -> Replayed:
    """Every game of every table (matches and chouettes) replayed from its action log,
    every rule checked; the game on the table must replay to the position stored."""
    from matches.models import Action, Table
    from matches.selectors import replay_game

    problems, games, tables = [], 0, 0
    for table in Table.objects.all():
        logs: dict[int, list[Action]] = defaultdict(list)
        for row in Action.objects.filter(table=table).order_by("game_number", "seq"):
            logs[row.game_number].append(row)
        tables += bool(logs)
        for number, log in logs.items():
            games += 1
            try:
                game = replay_game(log)
            except Exception as error:  # a log that does not replay is what this looks for
                problems.append(f"table {table.pk} game {number}: does not replay: {error}")
                continue
            stored = table.state if number == table.game_number else None
            if stored and {**game.to_dict(), "history": []} != {**stored, "history": []}:
                problems.append(f"table {table.pk} game {number}: stored is not the log's")
    return Replayed(tables, games, problems)


def legs_total() -> Decimal:
    from django.db.models import Sum

    from club.models import Leg

    return Leg.objects.aggregate(total=Sum("amount"))["total"] or Decimal("0.00")


# The night -----------------------------------------------------------------------------------


def night(base: str, env: dict[str, str], supervisor: int, *, minutes: float, seed: int) -> Night:
    """The night against the service at ``base`` (``env``: its environment, for this
    process to reach its database; ``supervisor``: the pid whose tree is measured)."""
    play.BASE = base  # every client of the benches reads it
    play.django_setup(env)
    run = f"{seed}{os.getpid() % 10000}"
    members, staff_login = members_make(run)
    record, tally = play.Record(), Tally()
    clients = [play.Client(name, token, record) for name, token in members]
    staff = play.Client(*staff_login, record)
    stop = threading.Event()
    threads: list[threading.Thread] = []
    at = 0
    for index in range(PAIRS):
        pair = (clients[at], clients[at + 1])
        at += 2
        threads.append(threading.Thread(target=pair_play, args=(pair, stop, seed + index, tally)))
    swiss_players, at = clients[at : at + SWISS_PLAYERS], at + SWISS_PLAYERS
    bracket_screen = chouette.screen_client(*members[at], record)
    at += 1
    threads.append(
        threading.Thread(
            target=swiss_run, args=(staff_login, swiss_players, bracket_screen, stop, seed, tally)
        )
    )
    sent: list[play.Sent] = []
    chouette_tally = chouette.Tally()
    for index, size in enumerate(TABLE_SIZES):
        table = chouette.table_open(index, members[at : at + size], members[at + size], record)
        at += size + 1
        if table is None:
            continue
        for seat in table.seats:
            threads.append(
                threading.Thread(
                    target=chouette.seat_play, args=(seat, table, stop, PACE, sent, chouette_tally)
                )
            )
            threads.append(
                threading.Thread(
                    target=chouette.member_stream, args=(seat, table, stop), daemon=True
                )
            )
        threads.append(
            threading.Thread(
                target=chouette.screen_stream,
                args=(table, table.seats[0].view.version, stop),
                daemon=True,
            )
        )
    names = [name for name, _token in members]
    threads.append(threading.Thread(target=payments_run, args=(staff, names, stop, seed, tally)))
    memory: list[tuple[float, footprint.Memory]] = []
    watcher = threading.Thread(target=memory_watch, args=(supervisor, stop, memory))
    from django.db import connection

    connection.close()  # the threads open their own
    print(f"{len(members) + 1} members; the night runs {minutes:g} min...", flush=True)
    start = time.monotonic()
    watcher.start()
    for thread in threads:
        thread.start()
    stop.wait(minutes * 60)
    stop.set()
    seconds = time.monotonic() - start
    for thread in threads:
        if not thread.daemon:
            thread.join(timeout=120)
    watcher.join()
    memory.append((time.monotonic() - start, footprint.tree_memory(supervisor)))
    tally.counts.update({f"chouette: {what}": n for what, n in chouette_tally.counts.items()})
    status, books, _ = staff.call("GET", "/api/ledger/trial-balance/", "trial balance")
    trial_total = books["total"] if status == 200 else f"HTTP {status}"
    return Night(
        record=record,
        tally=tally,
        seconds=seconds,
        actions=record.requests,
        memory=memory,
        largest=max((m for _t, m in memory), key=lambda m: m.rss_mb),
        trial_total=trial_total,
        legs_total=legs_total(),
        replayed=games_replay(),
    )


def load_average() -> str:
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


def report(result: Night, minutes: float) -> None:
    record = result.record
    print(
        f"\nA club night on the embedded default: {MEMBERS} members, {minutes:g} min "
        f"({result.seconds:.0f} s), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.node()} ({os.cpu_count()} cores), load average {load_average()}"
    )
    print(f"\nrequests {record.requests}, errors {len(record.errors)}")
    for error in record.errors[:10]:
        print(f"  {error}")
    print(f"\n{'request':<32}{'count':>8}{'p50':>10}{'p99':>10}")
    for kind, times in sorted(record.latencies.items(), key=lambda kv: -len(kv[1])):
        print(
            f"{kind:<32}{len(times):>8}{play.ms(play.percentile(times, 50)):>10}"
            f"{play.ms(play.percentile(times, 99)):>10}"
        )
    print("\nwhat happened:")
    for what, count in sorted(result.tally.counts.items()):
        print(f"  {what}: {count}")
    first, last = result.memory[0], result.memory[-1]
    seen = sorted((memory for _t, memory in result.memory), key=lambda memory: memory.rss_mb)
    print(
        f"\nthe service's process tree: start   {first[1].line()}\n"
        f"                            end     {last[1].line()}\n"
        f"                            median  {seen[len(seen) // 2].line()}\n"
        f"                            largest {result.largest.line()}"
    )
    print(
        f"\ntrial balance (GET /api/ledger/trial-balance/): {result.trial_total}; "
        f"the sum of every leg: {result.legs_total}"
    )
    replayed = result.replayed
    print(
        f"replayed from the action log: {replayed.games} games of {replayed.tables} tables, "
        f"{len(replayed.problems)} problems"
    )
    for problem in replayed.problems[:10]:
        print(f"  {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--attach", help="the base URL of a runclub already running")
    parser.add_argument("--var-dir", help="its VAR_DIR (with --attach)")
    parser.add_argument("--supervisor", type=int, help="its supervisor's pid (with --attach)")
    parser.add_argument("--summary", help="write the errors and actions as JSON here")
    args = parser.parse_args()
    if args.attach:
        env = footprint.embedded_env(Path(args.var_dir), footprint.ROOT)
        result = night(args.attach, env, args.supervisor, minutes=args.minutes, seed=args.seed)
    else:
        with (
            tempfile.TemporaryDirectory(prefix="club-night-") as folder,
            footprint.runclub(footprint.ROOT, Path(folder)) as running,
        ):
            result = night(
                running.base,
                running.env,
                running.supervisor.pid,
                minutes=args.minutes,
                seed=args.seed,
            )
    report(result, args.minutes)
    if args.summary:
        Path(args.summary).write_text(
            json.dumps({"errors": len(result.record.errors), "actions": result.actions})
        )


if __name__ == "__main__":
    main()
