"""Match analysis: the candidate engines' bare calls and the service's whole path on the
same 7-point matches, side by side.

    .venv/bin/python bench/analysis.py                 # 3 matches, 0-ply and 1-ply
    .venv/bin/python bench/analysis.py --deep          # and 2-ply (gnubg: minutes)
    .venv/bin/python bench/analysis.py --plies 0       # 0-ply alone
    CELERY_BROKER_URL=redis://127.0.0.1:6379/6 .venv/bin/python bench/analysis.py  # on Redis

The matches are played by bgsage against itself through the rules core (the best play,
one time in ten the second best: a few errors to find) with seeded dice, exported with
``backgammon.matfile``. Then each candidate analyses each match on one thread:

- gnubg: ``import mat`` then ``analyse match`` (checker play and cube at the same plies),
  its own output sent to /dev/null;
- bgsage: ``analysis.engine.analyse_match``, every checker play and cube decision, the
  module the club's worker runs.

- the service's whole path: the match uploaded as a ``.mat`` (``imported_match_create``,
  which queues its analysis), the real Django worker starting the run, the real engine
  worker (``analysis.engine_worker``, a game a task) judging it, the Django worker
  storing it, and the per-player figures read as the API answers them; both workers the
  commands ``make run`` starts (``runclub``'s), on SQLite and the filesystem broker in a
  temporary ``VAR_DIR`` (or on the broker ``CELERY_BROKER_URL`` names), warmed up by
  one match first. Timed from the upload to the figures (wall clock), and the CPU the
  two workers and this process spent meanwhile.

Plies are GNU Backgammon's numbering (0: the network alone); bgsage and eXtreme Gammon
call the same depths 1-ply, 2-ply, 3-ply. The bare calls' times are the process's CPU
seconds (the machine is shared: wall time there measures the neighbours); the path's
wall time waits on the broker besides. Figures and the choice: docs/analysis.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.engine import Engine, analyse_match
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import MatchRecord, export_mat

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Send what C code prints on stdout to /dev/null (gnubg's commands chat there)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def gnubg_timer(plies: int) -> Callable[[MatchRecord, str], float]:
    import gnubg

    with quiet():
        gnubg.command("set threads 1")  # 0 hangs
        for part in ("chequerplay", "cubedecision"):
            gnubg.command(f"set analysis {part} evaluation plies {plies}")

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


def _cpu(pid: int) -> float:
    """The CPU seconds (user and system) process ``pid`` has spent."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    """Each match through the service's whole path: wall seconds, then the CPU seconds of
    the Django worker, the engine worker and this process (the upload, the waiting, the
    figures read); the workers' first task (which loads what they need) on ``warm_up``,
    not timed."""
    from django.contrib.auth.models import User

    from analysis import selectors, services
    from analysis.models import MatchAnalysis

    staff = User.objects.filter(username="bench").first() or User.objects.create_user(
        "bench", is_staff=True
    )

    with workers(plies) as pids:

        def run(record: MatchRecord) -> tuple[float, ...]:
            cpu = [_cpu(pid) for pid in pids] + [time.process_time()]
            started = time.perf_counter()
            imported = services.imported_match_create(user=staff, text=export_mat(record))
            while True:
                analysis = MatchAnalysis.objects.get(imported=imported)
                if analysis.status in ("done", "failed"):
                    break
                time.sleep(0.01)
            assert analysis.status == "done", analysis.error
            assert analysis.plies == plies
            detail = selectors.analysis_detail(analysis)
            assert [p["decisions"] for p in detail["players"]]
            wall = time.perf_counter() - started
            after = [_cpu(pid) for pid in pids] + [time.process_time()]
            return (wall, *(b - a for a, b in zip(cpu, after, strict=True)))

        run(warm_up)
        yield run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deep", action="store_true", help="time 2-ply too")
    parser.add_argument("--plies", type=int, nargs="+", help="these depths alone")
    args = parser.parse_args()

    print(f"playing {args.matches} 7-point matches...", file=sys.stderr)
    player = Engine(0)
    records = [
        play_match(player, (Player("alice", human), Player("bob", human)), 7, args.seed + i)
        for i in range(args.matches)
    ]
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
    bare: dict[int, list[float]] = {}
    for plies in depths:
        for name, timer in (("gnubg", gnubg_timer), ("bgsage", bgsage_timer)):
            print(f"timing {name} at {plies}-ply...", file=sys.stderr)
            run = timer(plies)
            times = [run(r, p) for r, p in zip(records, paths, strict=True)]
            if name == "bgsage":
                bare[plies] = times
            mean = sum(times) / len(times)
            per = 1000 * sum(times) / sum(decisions)
            cells = " ".join(f"{t:9.3f}" for t in times)
            print(f"{name:<8} {plies:>13} {cells} {mean:8.3f} {per:12.2f}", flush=True)

    broker = os.environ.get("CELERY_BROKER_URL", "filesystem (embedded default)")
    print(f"\nthe service's whole path (broker: {broker}) against bgsage's bare call")
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
            with path_timer(plies, warm_up=records[-1]) as through:
                measured = [through(r) for r in records]
            mean_bare = sum(bare[plies]) / len(records)
            for label, values in (
                ("bare CPU", bare[plies]),
                ("path wall", [m[0] for m in measured]),
                ("path CPU", [sum(m[1:]) for m in measured]),
                ("  Django w.", [m[1] for m in measured]),
                ("  engine w.", [m[2] for m in measured]),
                ("  web side", [m[3] for m in measured]),
            ):
                mean = sum(values) / len(values)
                cells = " ".join(f"{v:9.3f}" for v in values)
                print(
                    f"{plies:>13} {label:>11} {cells} {mean:8.3f} {mean / mean_bare:7.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
