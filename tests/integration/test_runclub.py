"""``manage.py runclub`` (what ``make run`` starts): web and worker (beat on its thread),
the engine worker only while analyses wait, stopped together."""

import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings

from analysis.engine import Engine
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import export_mat
from tests.processes import alive, children_of, free_port, runclub_environment, tree_kill
from tests.waiting import wait_until


@pytest.mark.integration
def test_runclub_serves_with_stdin_closed_and_sigterm_stops_everything(tmp_path):
    port = free_port()
    supervisor = subprocess.Popen(
        [sys.executable, "manage.py", "runclub", "--bind", f"127.0.0.1:{port}"],
        cwd=settings.BASE_DIR,
        env=runclub_environment(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
                return answer.status == 200
        except OSError:
            return False

    try:
        assert wait_until(healthy, timeout=60, every=0.5)
        children = children_of(supervisor.pid)
        assert len(children) == 2, "web and worker: the analysis worker waits for work"

        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=30) == 0
        assert "Stopped." in supervisor.stdout.read()
        assert wait_until(lambda: not [pid for pid in children if alive(pid)])
    finally:
        if supervisor.poll() is None:
            tree_kill(supervisor.pid)


@pytest.mark.integration
def test_runclub_starts_the_engine_worker_when_a_game_waits_and_it_answers(tmp_path):
    """A match to judge on the engine's queue (an imported match's file): the supervisor
    starts the engine worker (no Django), which reads the file, judges its games and
    answers by task name on the job's reply queue; the broker is the one the settings
    compute, handed to it through the environment. (That it rests until work comes: the
    test above.)"""
    record = play_match(Engine(0), (Player("alice", human), Player("bob", human)), 1, seed=4)
    env = runclub_environment(tmp_path)
    broker_url = env.get("CELERY_BROKER_URL", "filesystem://localhost/")
    options = {}
    if broker_url.startswith("filesystem://"):
        folder = str(tmp_path / "celery" / "broker")
        control = str(tmp_path / "celery" / "control")
        options = {"data_folder_in": folder, "data_folder_out": folder, "control_folder": control}
    sender = Celery("test", broker=broker_url, set_as_current=False, fixups=[])
    sender.conf.broker_transport_options = options
    replies = f"replies-{uuid.uuid4().hex[:12]}"
    supervisor = subprocess.Popen(
        [sys.executable, "manage.py", "runclub", "--bind", f"127.0.0.1:{free_port()}"],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def engine_workers() -> list[int]:
        return [
            pid
            for pid in children_of(supervisor.pid)
            if b"analysis.engine_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]

    try:
        assert wait_until(lambda: len(children_of(supervisor.pid)) >= 2, timeout=60)
        job = {"analysis_id": 1, "attempt": 1, "plies": 0, "chouette": False, "games": []}
        job |= {"mat": export_mat(record)}
        job |= {"done": [], "seats": [], "deadline": time.time() + 60, "reported_at": time.time()}
        job |= {"hard_deadline": time.time() + 70, "queue": env["ANALYSIS_QUEUE"]}
        job |= {"reply_queue": replies}
        with sender.connection_for_write() as connection:
            sender.send_task(
                "analysis.judge_game",
                kwargs={"job": job},
                queue=env["ANALYSIS_QUEUE"],
                connection=connection,
            )
            assert wait_until(engine_workers, timeout=60, every=0.2)
            answered = connection.SimpleQueue(replies)
            try:
                answer = answered.get(timeout=60)
                answer.ack()
            finally:
                answered.close()
        assert answer.headers["task"] == "analysis.store"
        stored = answer.payload[1]
        assert (stored["analysis_id"], stored["attempt"], stored["plies"]) == (1, 1, 0)
        assert stored["engine"].startswith("bgsage ")
        assert len(stored["games"]) == len(record.games)
        assert all(stored["games"])  # each game's decisions
    finally:
        supervisor.send_signal(signal.SIGTERM)
        try:
            supervisor.wait(timeout=60)
        except subprocess.TimeoutExpired:
            tree_kill(supervisor.pid)
