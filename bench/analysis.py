"""Match analysis: the candidate engines' bare calls and the service's whole path on the
same 7-point matches, side by side.

    .venv/bin/python bench/analysis.py                 # 3 matches, 0-ply and 1-ply
    .venv/bin/python bench/analysis.py --deep          # and 2-ply (bgsage's: a quarter
                                                       # hour; --repeat 1: five minutes)
    .venv/bin/python bench/analysis.py --plies 1 2 --engines gnubg  # the deep path alone
    .venv/bin/python bench/analysis.py --plies 0       # 0-ply alone
    CELERY_BROKER_URL=redis://127.0.0.1:6379/6 .venv/bin/python bench/analysis.py  # on Redis
    .venv/bin/python bench/analysis.py --beside-web    # the web's actions, analyses idle
                                                       # then running (PostgreSQL, Redis)

The matches are played by bgsage against itself through the rules core (the best play,
one time in ten the second best: a few errors to find) with seeded dice, exported with
``backgammon.matfile``. Then each candidate analyses each match on one thread, and the
service as a whole:

- gnubg: ``import mat`` then ``analyse match`` (checker play and cube at the same plies),
  its own output sent to /dev/null;
- bgsage: ``analysis.engine.analyse_match``, every checker play and cube decision, the
  module the club's worker runs;
- the service's whole path: the match uploaded as a ``.mat`` (``imported_match_create``,
  which reads it and starts its analysis, the games read sent to the engine worker),
  the real engine worker (``analysis.engine_worker``, a slice of games a task) judging
  it (with bgsage; deeper than 0-ply with gnubg, as the service does:
  analysis/gnubg_engine.py, and its bare call is then gnubg's), the real Django worker
  storing it, and the per-player figures read as the API answers them; both workers the
  commands ``make run`` starts (``runclub``'s), on SQLite and the filesystem broker in a
  temporary ``VAR_DIR`` (or on the broker ``CELERY_BROKER_URL`` names), warmed up by
  one match first. Timed (wall clock) from the upload to the figures, and from the
  analysis queued (the upload committed) to the figures: the path the issue names
  (queue, analyse, store, figures), ended by the store's own time and the figures'
  read (``path_timer``); and the CPU the two workers and this process spent meanwhile.

Plies are GNU Backgammon's numbering (0: the network alone); bgsage and eXtreme Gammon
call the same depths 1-ply, 2-ply, 3-ply. The bare calls' times are the process's CPU
seconds (the machine is shared: wall time there measures the neighbours); the path's
wall time waits on the broker besides. Each match is timed ``--repeat`` times (default
3) and its median kept; beside the path, the bare call of the engine it uses is timed
again, each match's bare call and path in turn, round after round: the shared
machine's passing slow spells (a 0-ply match of 0.02 s judged in 0.04 for a few
seconds) fall on both, not on the path alone.
Figures and the choice: docs/analysis.md.

``--beside-web``: is the web's action p99 unchanged while analyses run (issue 23)? The
production layout as ``bench/api_play.py`` starts it (gunicorn, the Celery worker and
the analysis worker, ``runclub``'s commands) on PostgreSQL and Redis, on a free port,
then its peak load twice in one run: games at a club's pace (each side acting every 1 to
3 s, followed live by streams), first with the analysis worker idle, then with a stream
of finished matches being analysed beside it (self-played 7-point matches uploaded as
``.mat`` files through ``analysis.services`` by a process of its own, kept a few
waiting, so the worker never rests; ``--pace``: so many a second instead, where a
club's busiest night finishes a match or a chouette game a minute or so). Each part
prints the actions' p50/p99 (the bench's and the web's own log), actions/s, the web's
CPU per action (comparable on a loaded machine, where wall times are not), the cores
busy by process and the analyses done; then the parts side by side (``--rounds``: idle
then busy, again, to see the machine's drift between parts, and each kind of part's
actions pooled), and the pooled p99's rise with a 95 % interval from resampling each
part's actions (how far it moves with which actions happened to be slow).
``--spinner`` adds a control part after each round: a process of the idle scheduling
class spinning beside the web, nothing of the service's, to tell the machine's part of
a rise from the analyses'. ``--control`` runs the busy part with nothing beside either:
the rise an idle web shows over itself, part after part, the noise a rise is read
against; ``--alternate`` runs every second round busy part first, so that what a part's
place in its round brings (the second part of a control ran faster) falls on both kinds.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.engine import Engine, analyse_match
from analysis.gnubg_engine import BGSAGE_DEEPEST, configure, quiet
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import MatchRecord, export_mat
from bench.busy_core import cpu_seconds, spun

ROOT = Path(__file__).resolve().parent.parent


def gnubg_timer(plies: int) -> Callable[[MatchRecord, str], float]:
    import gnubg

    with quiet():
        configure(plies)  # as the service sets it

    def run(record: MatchRecord, path: str) -> float:
        with quiet():
            gnubg.command(f"import mat {path}")
            started = time.process_time()
            gnubg.command("analyse match")
            return time.process_time() - started

    return run


def bgsage_timer(plies: int) -> Callable[[MatchRecord, str], float]:
    engine = Engine(plies)

    def run(record: MatchRecord, path: str) -> float:
        started = time.process_time()
        analyse_match(engine, record)
        return time.process_time() - started

    return run


def serving(plies: int) -> str:
    """The engine the service analyses a match with at ``plies`` (analysis.judging)."""
    return "gnubg" if plies > BGSAGE_DEEPEST else "bgsage"


def self_played(names: tuple[str, str], count: int, seed: int) -> list[MatchRecord]:
    """``count`` 7-point matches bgsage plays against itself (the best play, one time in
    ten the second best), seeded."""
    player = Engine(0)
    return [
        play_match(player, (Player(names[0], human), Player(names[1], human)), 7, seed + i)
        for i in range(count)
    ]


# The web beside the analyses ---------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One part of ``--beside-web``: the peak, the analyses done meanwhile, the load."""

    name: str
    peak: Any  # bench.api_play.Peak
    analysed: int
    load: str


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def analyses_fed(
    env: dict[str, str],
    texts: list[str],
    uploader_id: int,
    stop: Any,
    waiting: int,
    since: datetime,
    pace: float,
) -> None:
    """Keep ``waiting`` analyses queued or running until ``stop`` (an event): a stream
    of finished matches for the analysis worker; with ``pace``, that many matches a
    second instead (while fewer than ``waiting`` wait). Run in a process of
    its own (spawned: Django set up from ``env``), so that the bench's clients, threads of
    the bench's process, never wait for this one's interpreter. Each match is uploaded
    once through the service; then copies of the uploads arrive, each asked for
    (``imported_analysis_request``), so that the feeder does not read the files again
    (37 ms each). Analyses of an earlier run, queued before ``since``, are not counted:
    the broker was emptied."""
    from bench import api_play as play

    play.django_setup(env)
    from django.contrib.auth.models import User

    from analysis import services
    from analysis.models import MatchAnalysis

    uploader = User.objects.get(pk=uploader_id)
    uploads = [services.imported_match_create(user=uploader, text=text) for text in texts]
    pending = (MatchAnalysis.Status.QUEUED, MatchAnalysis.Status.RUNNING)
    sent = 0
    while not stop.is_set():
        queued = MatchAnalysis.objects.filter(queued_at__gte=since, status__in=pending)
        wanted = waiting - queued.count()
        for _ in range(min(wanted, 1) if pace else wanted):
            copy = uploads[sent % len(uploads)]
            copy.pk = None  # saved as a new row: Django's way to copy one
            copy.save()
            services.imported_analysis_request(import_id=copy.pk, user=uploader)
            sent += 1
        stop.wait(1 / pace if pace else 0.2)


@contextlib.contextmanager
def beside(children: dict[str, Any], name: str, process: Any, stop: Any) -> Iterator[None]:
    """``process`` running for the block, its CPU counted as ``name``'s apart from the
    bench's; stopped by ``stop`` after it."""
    process.start()
    children[name] = process
    try:
        yield
    finally:
        stop.set()
        process.join()
        del children[name]


def analyses_done(since: datetime, until: datetime) -> int:
    from analysis.models import MatchAnalysis

    return MatchAnalysis.objects.filter(
        status=MatchAnalysis.Status.DONE, finished_at__gte=since, finished_at__lt=until
    ).count()


def wait_for_a_run(since: datetime, deadline_s: float = 60) -> None:
    """Until the analysis worker runs the uploads sent ``since`` (the first time, it
    starts and loads the engine)."""
    from analysis.models import MatchAnalysis

    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if MatchAnalysis.objects.filter(
            queued_at__gte=since,
            status__in=(MatchAnalysis.Status.RUNNING, MatchAnalysis.Status.DONE),
        ).exists():
            return
        time.sleep(0.5)
    raise SystemExit("the analysis worker ran nothing within a minute; see analysis.log")


def wait_for_the_queue_drained(since: datetime, deadline_s: float = 120) -> None:
    """Until the analyses queued ``since`` are all run: the next idle part starts idle."""
    from analysis.models import MatchAnalysis

    deadline = time.monotonic() + deadline_s
    pending = (MatchAnalysis.Status.QUEUED, MatchAnalysis.Status.RUNNING)
    while MatchAnalysis.objects.filter(queued_at__gte=since, status__in=pending).exists():
        if time.monotonic() > deadline:
            raise SystemExit("analyses still waiting after two minutes; see analysis.log")
        time.sleep(0.5)


def peak_part(
    name: str, play: Any, users: list[tuple[str, str]], plan: Any, children: Any, log: Path
) -> Part:
    """``api_play.py``'s peak with live streams, and the analyses finished meanwhile."""
    load = play.load_average()
    print(f"{name}...", file=sys.stderr)
    since = datetime.now(UTC)
    result = play.peak(users, plan, "stream", children, log)
    analysed = analyses_done(since, datetime.now(UTC))
    play.streams_settle("stream")
    return Part(name, result, analysed, load)


def report_part(part: Part, play: Any) -> None:
    result = part.peak
    seconds = result.seconds
    actions, logged = _actions(part, play), _logged(part, play)
    print(f"\n{part.name} ({part.load} at its start), {seconds:.0f} s")
    print(f"  {play.cores_line(result.cores)}")
    print(
        f"  actions {len(actions):,} ({len(actions) / seconds:.1f}/s), errors "
        f"{len(result.record.errors)}; analyses done {part.analysed} "
        f"({part.analysed / seconds:.2f}/s)"
    )
    for error in result.record.errors[:5]:
        print(f"    error: {error[:150]}")
    rows = [[kind, *play.spread(result.record.latencies[kind])]
            for kind in play.by_count(result.record.latencies)]  # fmt: skip
    rows.append(["actions (bench)", *play.spread(actions)])
    rows.append(["actions (web's log)", *play.spread(logged)])
    play.table(["request", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows)
    play.report_server(result.server)


def report_side_by_side(parts: list[Part], play: Any) -> None:
    """Each part's figures; then, over several rounds, each kind of part's actions
    pooled, whose p99 (over three rounds of 60 s, the 36th slowest of 3,600 actions)
    moves less from one run to the next than one part's (the 12th slowest of 1,200)."""
    print("\nThe web's actions, the analysis worker idle and busy (ms; CPU ms an action)")
    rows = [_side_row(part.name, [part], play) for part in parts]
    names = list(dict.fromkeys(part.name for part in parts))
    if len(parts) > len(names):
        for name in names:
            alike = [part for part in parts if part.name == name]
            rows.append(_side_row(f"{name}, all {len(alike)}", alike, play))
    header = ["analysis", "p50", "p99", "web p99", "acts/s", "CPU/act", "thr CPU", "anal/s"]
    play.table([*header, "load"], rows, first=max(len(row[0]) for row in rows))
    print(
        "  p50, p99: as the bench's clients saw them; web p99: inside Django (its log);\n"
        "  CPU/act: the web processes' CPU over the part divided by its actions (the live\n"
        "  answers and the pages' other requests included); thr CPU: the action's own\n"
        "  thread's CPU (the log's mean); anal/s: analyses finished a second; load: the\n"
        "  1-minute load average at the part's start; \"all N\": the N parts' actions pooled"
    )
    idle, *others = names
    print(f'\nThe p99\'s rise over "{idle}" (its actions pooled), ms, and 95 % of resamplings')
    for name in others:
        for seen, actions in (("as the clients saw it", _actions), ("inside Django", _logged)):
            rise, low, high = p99_rise(
                [actions(part, play) for part in parts if part.name == idle],
                [actions(part, play) for part in parts if part.name == name],
                play.percentile,
            )
            print(f"  {name}, {seen}: {1000 * rise:+.1f} ({1000 * low:+.1f} to {1000 * high:+.1f})")
    print(
        "  Each part's actions drawn again with replacement, 2,000 times: how far the p99\n"
        "  moves with which actions happened to be slow; not the machine's drift between\n"
        "  parts, which the idle parts' own p99s show."
    )


def _actions(part: Part, play: Any) -> list[float]:
    return [v for kind in play.ACTIONS for v in part.peak.record.latencies.get(kind, [])]


def _log_lines(part: Part, play: Any) -> list[Any]:
    """The part's actions as the web logged them (``api_play.Logged``)."""
    return [t for kind in play.ACTIONS for t in part.peak.server.get(kind, [])]


def _logged(part: Part, play: Any) -> list[float]:
    return [t.wall for t in _log_lines(part, play)]


def p99_rise(
    idle: list[list[float]],
    busy: list[list[float]],
    percentile: Callable[[list[float], float], float],
    draws: int = 2000,
) -> tuple[float, float, float]:
    """The pooled p99 (by ``percentile``, the figures' own) of the ``busy`` parts'
    latencies less the ``idle`` parts', and the 2.5th and 97.5th percentiles of that
    difference over ``draws`` resamplings, each part drawn again from itself (with
    replacement) so that each keeps its size."""
    rng = random.Random(23)

    def p99(parts: list[list[float]]) -> float:
        return percentile([v for part in parts for v in part], 99)

    def drawn(parts: list[list[float]]) -> list[list[float]]:
        return [rng.choices(part, k=len(part)) for part in parts]

    rises = sorted(p99(drawn(busy)) - p99(drawn(idle)) for _ in range(draws))
    return p99(busy) - p99(idle), rises[int(0.025 * draws)], rises[int(0.975 * draws)]


def _side_row(name: str, parts: list[Part], play: Any) -> list[str]:
    """A row of ``report_side_by_side``: the actions of ``parts`` together (the load at
    the start of a single part's)."""
    results = [part.peak for part in parts]
    actions = [v for part in parts for v in _actions(part, play)]
    logged = [t for part in parts for t in _log_lines(part, play)]
    seconds = sum(r.seconds for r in results)
    return [
        name,
        play.ms(play.percentile(actions, 50)),
        play.ms(play.percentile(actions, 99)),
        play.ms(play.percentile([t.wall for t in logged], 99)),
        f"{len(actions) / seconds:.1f}",
        f"{1000 * sum(r.cpu for r in results) / max(1, len(actions)):.1f}",
        f"{1000 * statistics.fmean(t.cpu for t in logged):.1f}" if logged else "",
        f"{sum(part.analysed for part in parts) / seconds:.2f}",
        parts[0].load.removeprefix("load average ").split()[0] if len(parts) == 1 else "",
    ]


def renice(pids: list[int], nice: int) -> None:
    """Every thread of these processes at ``nice`` (Linux keeps a nice value a thread;
    threads and children made later inherit their maker's)."""
    for pid in pids:
        for thread in Path(f"/proc/{pid}/task").iterdir():
            os.setpriority(os.PRIO_PROCESS, int(thread.name), nice)


def engine_worker(pid: int, play: Any) -> list[int]:
    """The engine worker's processes, its governor left out: a session of its own, which
    must wake at once (``analysis.engine_governor.start``)."""
    return [child for child in play._tree(pid) if os.getpgid(child) == os.getpgid(pid)]


def into_cpu_group(pids: list[int], *, shares: int = 0, idle: bool = False) -> None:
    """Every thread of these processes in a CPU cgroup of ``shares`` (cgroup v1's cpu
    controller, what compose's ``cpu_shares`` sets for a container; root only), or marked
    ``idle`` (``cpu.idle``: the group gives way to the others as a thread of the idle
    class does, where a group of the lowest weight still takes its turn; systemd's
    ``CPUWeight=idle``). Threads made later join their maker's group."""
    group = Path("/sys/fs/cgroup/cpu/bench-analysis")
    if not group.parent.is_dir():
        raise SystemExit("--analysis-cpu-shares and -idle need cgroup v1's cpu controller")
    group.mkdir(exist_ok=True)
    if idle or (group / "cpu.idle").exists():  # a kernel older than 5.15 has none
        (group / "cpu.idle").write_text("1" if idle else "0")
    if shares:
        (group / "cpu.shares").write_text(str(shares))
    for pid in pids:
        for thread in Path(f"/proc/{pid}/task").iterdir():
            (group / "tasks").write_text(thread.name)


def beside_web(args: argparse.Namespace) -> None:
    """The web's peak with the analysis worker idle, then busy, side by side."""
    from dataclasses import replace

    from bench import api_play as play

    port = free_port()
    play.BIND = f"127.0.0.1:{port}"
    play.BASE = f"http://{play.BIND}"
    play.CACHE_DB = args.redis_db
    redis_dbs = (args.redis_db, args.redis_db)
    plan = replace(play.QUICK, games=args.games, peak_s=args.seconds)
    plies = args.plies[0] if args.plies else 0
    var_dir = Path(tempfile.mkdtemp(prefix="bench-analysis-web-"))
    env = play.service_env(var_dir, play.POOL, database=args.database, redis_dbs=redis_dbs)
    env["ANALYSIS_PLIES"] = str(plies)
    play.database_prepare(env, database=args.database, redis_dbs=redis_dbs)
    play.django_setup(env)
    run = f"{int(time.time()) % 100000:05d}"
    users = play.players_create(run, 2 * plan.games + plan.games // 4 + 1)
    from club.services import player_create

    names = (f"a{run}x", f"a{run}y")
    uploader = player_create(username=names[0], password="bench-password").user
    player_create(username=names[1], password="bench-password")
    print(f"self-playing {args.matches} 7-point matches...", file=sys.stderr)
    texts = [export_mat(record) for record in self_played(names, args.matches, args.seed)]
    print(f"Machine: {os.cpu_count()} cores, {play.load_average()} at the start; logs in {var_dir}")
    print(f"Service tree: {play.TREE} ({play.tree_commit()}); web on {play.BIND}")
    placement = f"worker at nice {args.analysis_nice}, CPU shares "
    placement += f"{args.analysis_cpu_shares or 'as started'}"
    placement += ", its cgroup idle" if args.analysis_cpu_idle else ""
    pace = f", {args.pace:g} a second" if args.pace else ""
    print(
        f"Load: {plan.games} games at once, each side acting every 1-3 s, followed by streams, "
        f"{plan.peak_s:.0f} s a part; analyses at {plies}-ply ({placement}), "
        f"{args.waiting} kept waiting, {args.matches} matches uploaded in turn{pace}"
    )
    started = datetime.now(UTC)  # the database may hold an earlier run's analyses
    with play.service(env, var_dir) as children:
        engine = engine_worker(children["analysis"].pid, play)
        if args.analysis_nice:
            renice(engine, args.analysis_nice)
        if args.analysis_cpu_shares or args.analysis_cpu_idle:
            into_cpu_group(engine, shares=args.analysis_cpu_shares, idle=args.analysis_cpu_idle)
        log = var_dir / "web.log"
        spawned = multiprocessing.get_context("spawn")

        def idle_part() -> Part:
            return peak_part("analysis idle", play, users, plan, children, log)

        def busy_part() -> Part:
            if args.control:
                return peak_part("analysis idle, again", play, users, plan, children, log)
            stop = spawned.Event()
            fed_from = datetime.now(UTC)
            feeder = spawned.Process(
                target=analyses_fed,
                args=(env, texts, uploader.pk, stop, args.waiting, started, args.pace),
                name="feeder",
            )
            with beside(children, "feeder", feeder, stop):
                wait_for_a_run(fed_from)
                part = peak_part("analyses running", play, users, plan, children, log)
            wait_for_the_queue_drained(started)
            return part

        parts = []
        for number in range(args.rounds):
            in_turn = [idle_part, busy_part]
            for run_part in in_turn[::-1] if args.alternate and number % 2 else in_turn:
                parts.append(run_part())
                report_part(parts[-1], play)
            if args.spinner:
                stop = spawned.Event()
                spinner = spawned.Process(target=spun, args=(stop,), name="spinner")
                with beside(children, "spinner", spinner, stop):
                    parts.append(peak_part("a spinner", play, users, plan, children, log))
                report_part(parts[-1], play)
        report_side_by_side(parts, play)
    print(f"\nAt the end: {play.load_average()}")


@contextlib.contextmanager
def service(var_dir: Path) -> Iterator[None]:
    """This process as the web's side of the embedded default under ``var_dir``: Django
    set up, the database migrated, a staff member who uploads the matches."""
    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1", VAR_DIR=str(var_dir))
    os.environ.pop("SECRET_KEY", None)
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    import config  # noqa: F401  (the Celery app the analyses are sent with)

    call_command("migrate", "--noinput", verbosity=0)
    yield


@contextlib.contextmanager
def workers(plies: int) -> Iterator[tuple[int, ...]]:
    """The Django worker and the engine worker as ``make run`` starts them (analysing at
    ``plies``); their process ids."""
    from web.management.commands.runclub import engine_environment, service_commands

    commands = service_commands("127.0.0.1:0", beat_apart=True)
    env = {**os.environ, **engine_environment(), "ANALYSIS_PLIES": str(plies)}
    started = [
        subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for command in (commands["worker"], commands["analysis"])
    ]
    try:
        yield tuple(p.pid for p in started)
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.wait(timeout=30)


@contextlib.contextmanager
def path_timer(
    plies: int, warm_up: MatchRecord
) -> Iterator[Callable[[MatchRecord], tuple[float, ...]]]:
    """Each match through the service's whole path: wall seconds from the upload, and
    from its analysis queued (the upload committed, its run's job sent: the path the
    issue names, queue, analyse, store, figures), then the CPU seconds of the Django
    worker, the engine worker and this process (the upload, the waiting, the figures
    read); the workers' first task (which loads what they need) on ``warm_up``, not
    timed.

    The path ends with the figures stored, at the time the store wrote in its
    transaction (``finished_at``), and read as the API answers them, that read timed
    apart: how soon a client learns of the end is the client's. It asks as often as a
    page's live channel does (``web.live.TICK``, a tenth of a second: a page learns of
    the end through it), not more: Linux counts a core that runs only idle-class work
    as idle when it places a thread that wakes, so each poll lands on the engine's core
    and stops its thread meanwhile. Polled every 2-3 ms, a 2-game match took the engine
    worker 24-26 ms where its bare call took 15-16; every 20 ms, the path took 1.39-1.48
    times the bare call, every 0.1 s 1.27-1.33 (7 December 2026)."""
    from django.contrib.auth.models import User
    from django.test import override_settings

    from analysis import selectors, services
    from analysis.models import MatchAnalysis
    from web.live import TICK

    staff = User.objects.filter(username="bench").first() or User.objects.create_user(
        "bench", is_staff=True
    )

    with workers(plies) as pids, override_settings(ANALYSIS_PLIES=plies):  # the upload's too

        def run(record: MatchRecord) -> tuple[float, ...]:
            cpu = [cpu_seconds(pid) for pid in pids] + [time.process_time()]
            started = time.time()
            imported = services.imported_match_create(user=staff, text=export_mat(record))
            queued = time.time()  # committed: the run's job sent
            while True:
                analysis = MatchAnalysis.objects.get(imported=imported)
                if analysis.status in ("done", "failed"):
                    break
                time.sleep(TICK)
            assert analysis.status == "done", analysis.error
            assert analysis.plies == plies and analysis.finished_at is not None
            reading = time.perf_counter()
            detail = selectors.analysis_detail(analysis)
            assert [p["decisions"] for p in detail["players"]]
            ended = analysis.finished_at.timestamp() + time.perf_counter() - reading
            after = [cpu_seconds(pid) for pid in pids] + [time.process_time()]
            used = (b - a for a, b in zip(cpu, after, strict=True))
            return (ended - started, ended - queued, *used)

        run(warm_up)
        yield run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeat", type=int, default=3, help="each match timed this many times, the median kept"
    )
    parser.add_argument("--deep", action="store_true", help="time 2-ply too")
    parser.add_argument(
        "--engines",
        nargs="+",
        choices=["gnubg", "bgsage"],
        default=["gnubg", "bgsage"],
        help="the candidates' bare calls timed (default both; the path's peer is timed beside it)",
    )
    parser.add_argument(
        "--plies", type=int, nargs="+", help="these depths alone (--beside-web: the first)"
    )
    web = parser.add_argument_group("--beside-web")
    web.add_argument(
        "--beside-web",
        action="store_true",
        help="the web's actions with the analysis worker idle, then busy",
    )
    web.add_argument("--games", type=int, default=40, help="games at once (default 40)")
    web.add_argument("--seconds", type=float, default=60, help="each part's length (default 60)")
    web.add_argument("--waiting", type=int, default=4, help="analyses kept waiting (default 4)")
    web.add_argument(
        "--pace",
        type=float,
        default=0,
        help="finished matches a second (default 0: as many as the worker takes, never resting)",
    )
    web.add_argument(
        "--analysis-nice",
        type=int,
        default=0,
        help="run the analysis worker at this nice value (default 0: as runclub starts it)",
    )
    web.add_argument(
        "--analysis-cpu-shares",
        type=int,
        default=0,
        help="run the analysis worker in a CPU cgroup of these shares (compose's cpu_shares)",
    )
    web.add_argument(
        "--analysis-cpu-idle",
        action="store_true",
        help="run the analysis worker in a CPU cgroup marked idle (cpu.idle; root only)",
    )
    web.add_argument(
        "--spinner",
        action="store_true",
        help="a third part: a bare idle-class spinner beside the web, no analysis",
    )
    web.add_argument(
        "--control",
        action="store_true",
        help="the busy part idle too: the rise an idle web shows over itself",
    )
    web.add_argument(
        "--rounds", type=int, default=1, help="idle then busy, this many times (default 1)"
    )
    web.add_argument(
        "--alternate",
        action="store_true",
        help="every second round busy then idle: a part's place in its round weighs on neither",
    )
    web.add_argument(
        "--database", default="club_bench_analysis", help="the PostgreSQL database (created)"
    )
    web.add_argument(
        "--redis-db", type=int, default=14, help="the Redis DB: broker, results and cache"
    )
    args = parser.parse_args()
    if args.beside_web:
        beside_web(args)
        return

    print(f"playing {args.matches} 7-point matches...", file=sys.stderr)
    player = Engine(0)
    records = self_played(("alice", "bob"), args.matches, args.seed)
    folder = tempfile.mkdtemp(prefix="bench-analysis-")
    paths = []
    for i, record in enumerate(records):
        path = os.path.join(folder, f"match{i}.mat")
        Path(path).write_text(export_mat(record))
        paths.append(path)
    decisions = [sum(len(g) for g in analyse_match(player, r)) for r in records]
    sizes = zip(records, decisions, strict=True)
    print("matches: " + ", ".join(f"{len(r.games)} games {d} decisions" for r, d in sizes))

    depths = args.plies or ([0, 1, 2] if args.deep else [0, 1])
    print(
        f"{'engine':<8} {'plies (gnubg)':>13} "
        + " ".join(f"{'match ' + str(i + 1):>9}" for i in range(len(records)))
        + f" {'mean s':>8} {'ms/decision':>12}"
    )
    timers = {"gnubg": gnubg_timer, "bgsage": bgsage_timer}
    for plies in depths:
        for name, timer in timers.items():
            if name not in args.engines:
                continue
            print(f"timing {name} at {plies}-ply...", file=sys.stderr)
            run = timer(plies)
            times = [
                statistics.median(run(r, p) for _ in range(args.repeat))
                for r, p in zip(records, paths, strict=True)
            ]
            mean = sum(times) / len(times)
            per = 1000 * sum(times) / sum(decisions)
            cells = " ".join(f"{t:9.3f}" for t in times)
            print(f"{name:<8} {plies:>13} {cells} {mean:8.3f} {per:12.2f}", flush=True)

    broker = os.environ.get("CELERY_BROKER_URL", "filesystem (embedded default)")
    print(
        f"\nthe service's whole path (broker: {broker}) against the bare call of the engine "
        "it uses at that depth, each match's bare call and path in turn"
    )
    print(
        f"{'plies (gnubg)':>13} {'':>11} "
        + " ".join(f"{'match ' + str(i + 1):>9}" for i in range(len(records)))
        + f" {'mean s':>8} {'x bare':>7}"
    )
    with (
        tempfile.TemporaryDirectory(prefix="bench-analysis-var-") as var_dir,
        service(Path(var_dir)),
    ):
        for plies in depths:
            print(f"timing the whole path at {plies}-ply...", file=sys.stderr)
            bare_call = timers[serving(plies)](plies)
            with path_timer(plies, warm_up=records[-1]) as through:
                rounds = [
                    [(bare_call(r, p), *through(r)) for r, p in zip(records, paths, strict=True)]
                    for _ in range(args.repeat)
                ]
            # Each match's median over the rounds, figure by figure.
            measured = [
                tuple(map(statistics.median, zip(*runs, strict=True)))
                for runs in zip(*rounds, strict=True)
            ]
            mean_bare = sum(m[0] for m in measured) / len(records)
            for label, values in (
                (f"{serving(plies)} CPU", [m[0] for m in measured]),
                ("path wall", [m[1] for m in measured]),
                ("from queue", [m[2] for m in measured]),
                ("path CPU", [sum(m[3:]) for m in measured]),
                ("  Django w.", [m[3] for m in measured]),
                ("  engine w.", [m[4] for m in measured]),
                ("  web side", [m[5] for m in measured]),
            ):
                mean = sum(values) / len(values)
                cells = " ".join(f"{v:9.3f}" for v in values)
                print(
                    f"{plies:>13} {label:>11} {cells} {mean:8.3f} {mean / mean_bare:7.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
