"""The embedded default's memory: ``manage.py runclub`` before and after, side by side.

Not a test (nothing in CI runs it). For each layout (the code of ``--before``, a git ref,
exported with ``git archive``: main's unless told; and this worktree's), it starts
``manage.py runclub`` as ``make run`` does (SQLite and the filesystem broker in a temporary
``VAR_DIR``, DEBUG on, a free port), then sums over the whole process tree (the
supervisor and every descendant) the resident memory (RSS, which counts a page shared
by several processes once in each) and the proportional one (PSS, from
``/proc/<pid>/smaps_rollup``: a shared page divided among its sharers, the tree's real
cost): idle after the start, then under a club night (``bench/club_night.py``, the
members, matches, chouettes, Swiss round, payments and big screens) of ``--minutes``,
and at the end of it. The two layouts are measured one after the other, each alone on
the machine.

    .venv/bin/python bench/footprint.py                 # main against this worktree
    .venv/bin/python bench/footprint.py --minutes 1     # a quicker soak
    .venv/bin/python bench/footprint.py --before HEAD~3

bench/README.md ("Footprint") has the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IDLE_SETTLE = 20.0  # seconds after /healthz first answers: the workers' first sweeps run
SAMPLE_EVERY = 5.0  # seconds between two looks at the tree during the night


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def embedded_env(var_dir: Path, root: Path) -> dict[str, str]:
    """``make run``'s environment (DEBUG on, nothing else set: SQLite, the filesystem
    broker), its files under ``var_dir``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")
    }
    env.update(
        DEBUG="1",
        VAR_DIR=str(var_dir),
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(root),
    )
    env.pop("SECRET_KEY", None)
    return env


@dataclass
class Running:
    supervisor: subprocess.Popen[bytes]
    base: str
    env: dict[str, str]
    log: Path


@contextlib.contextmanager
def runclub(root: Path, var_dir: Path) -> Iterator[Running]:
    """``manage.py runclub`` of the code at ``root`` on the embedded default, migrated,
    answering ``/healthz``; stopped (SIGTERM, as a service manager does) after."""
    env = embedded_env(var_dir, root)
    python = sys.executable
    subprocess.run(
        [python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=root, env=env, check=True
    )
    bind = f"127.0.0.1:{free_port()}"
    log = var_dir / "runclub.log"
    with open(log, "wb") as output:
        supervisor = subprocess.Popen(
            [python, "manage.py", "runclub", "--bind", bind],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    running = Running(supervisor, f"http://{bind}", env, log)
    try:
        healthy_wait(running)
        yield running
    finally:
        supervisor.send_signal(signal.SIGTERM)
        try:
            supervisor.wait(timeout=60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(supervisor.pid, signal.SIGKILL)
            supervisor.wait()


def healthy_wait(running: Running, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running.supervisor.poll() is not None:
            raise SystemExit(f"runclub exited; see {running.log}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(running.base + "/healthz", timeout=5) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.5)
    raise SystemExit(f"runclub did not answer /healthz; see {running.log}")


def tree(pid: int) -> list[int]:
    """A process and all its descendants."""
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        found.append(parent)
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                pending += [int(child) for child in (task / "children").read_text().split()]
    return found


@dataclass(frozen=True)
class Memory:
    processes: int
    rss_mb: float
    pss_mb: float
    each: tuple[tuple[str, float, float], ...]  # (what, RSS MB, PSS MB) per process

    def line(self) -> str:
        return f"{self.rss_mb:6.0f} MB RSS {self.pss_mb:6.0f} MB PSS {self.processes:3d} processes"


def _what(pid: int) -> str:
    """A process's command, short: ``celery worker --queues timeouts,celery``."""
    words = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    words = [Path(w).name if w.startswith("/") else w for w in words if w]
    return " ".join(words[:12])[:90]


def tree_memory(pid: int) -> Memory:
    """RSS and PSS (MB) summed over the process tree of ``pid``."""
    each = []
    for member in tree(pid):
        fields: dict[str, int] = {}
        try:
            for row in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines()[1:]:
                name, value, *_unit = row.split()
                fields[name.rstrip(":")] = int(value)
            each.append((_what(member), fields["Rss"] / 1024, fields["Pss"] / 1024))
        except (FileNotFoundError, ProcessLookupError, KeyError):  # ended meanwhile
            continue
    return Memory(
        len(each), sum(rss for _w, rss, _p in each), sum(pss for _w, _r, pss in each), tuple(each)
    )


@dataclass
class Measured:
    name: str
    idle: Memory
    soak: Memory  # the largest seen during the soak
    median: Memory  # the median sample of the soak (by RSS)
    more: float  # the share of the soak's samples with more processes than idle
    after: Memory  # at the soak's end
    errors: int
    actions: int


def measure(name: str, root: Path, minutes: float, seed: int) -> Measured:
    """One layout: idle, then a club night (``bench/club_night.py`` in its own process,
    against the running service), the tree sampled every few seconds."""
    with tempfile.TemporaryDirectory(prefix="footprint-") as folder:
        var_dir = Path(folder)
        with runclub(root, var_dir) as running:
            time.sleep(IDLE_SETTLE)
            idle = tree_memory(running.supervisor.pid)
            print(f"{name:>7} idle:  {idle.line()}", flush=True)
            summary = var_dir / "night.json"
            night = subprocess.Popen(
                [
                    sys.executable, str(ROOT / "bench" / "club_night.py"),
                    "--attach", running.base, "--var-dir", str(var_dir),
                    "--supervisor", str(running.supervisor.pid),
                    "--minutes", str(minutes), "--seed", str(seed), "--summary", str(summary),
                ],
                env={**running.env, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.DEVNULL,
            )  # fmt: skip
            samples = []
            while night.poll() is None:
                samples.append(tree_memory(running.supervisor.pid))
                time.sleep(SAMPLE_EVERY)
            after = tree_memory(running.supervisor.pid)
            samples.append(after)
            largest = max(samples, key=lambda memory: memory.rss_mb)
            median = sorted(samples, key=lambda memory: memory.rss_mb)[len(samples) // 2]
            more = sum(m.processes > idle.processes for m in samples) / len(samples)
            print(f"{name:>7} night: {largest.line()} (largest seen)", flush=True)
            figures = json.loads(summary.read_text()) if summary.exists() else {}
    return Measured(
        name,
        idle,
        largest,
        median,
        more,
        after,
        figures.get("errors", -1),
        figures.get("actions", 0),
    )


def exported(ref: str, into: Path) -> Path:
    """The tree of ``ref`` written under ``into`` (``git archive``: no worktree, no change
    to the repository)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref], cwd=ROOT, capture_output=True, check=True
    ).stdout
    target = into / "code"
    target.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def report(measured: list[Measured], minutes: float) -> None:
    width = 26
    print(
        f"\nThe whole process tree of manage.py runclub, embedded default ({minutes:g} min night)"
    )
    print(" " * width + "".join(f"{m.name:>30}" for m in measured))
    for label, attribute in (
        ("idle", "idle"),
        ("night, largest", "soak"),
        ("night, median", "median"),
        ("night's end", "after"),
    ):
        for unit in ("rss_mb", "pss_mb", "processes"):
            cells = []
            for m in measured:
                value = getattr(getattr(m, attribute), unit)
                cells.append(f"{value:>26.0f} {'MB' if unit != 'processes' else '  '}")
            caption = {"rss_mb": "RSS", "pss_mb": "PSS", "processes": "processes"}[unit]
            print(f"{label + ', ' + caption:<{width}}" + "".join(f"{c:>30}" for c in cells))
    print(
        f"{'night, more processes':<{width}}"
        + "".join(f"{f'{m.more:.0%} of the time':>30}" for m in measured)
    )
    print(
        f"{'night: actions, errors':<{width}}"
        + "".join(f"{f'{m.actions}, {m.errors}':>30}" for m in measured)
    )
    for m in measured:
        for when, memory in (("idle", m.idle), ("the night's largest", m.soak)):
            print(f"\n{m.name}, {when}, each process (RSS MB, PSS MB):")
            for what, rss, pss in memory.each:
                print(f"  {rss:6.0f} {pss:6.0f}  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="main", help="the git ref measured first (main)")
    parser.add_argument("--minutes", type=float, default=2.0, help="the club night's length")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="footprint-code-") as folder:
        before = exported(args.before, Path(folder))
        shutil.rmtree(before / "var", ignore_errors=True)
        measured = [
            measure(args.before, before, args.minutes, args.seed),
            measure("this", ROOT, args.minutes, args.seed),
        ]
    report(measured, args.minutes)


if __name__ == "__main__":
    main()
