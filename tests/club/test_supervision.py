"""What ``runclub`` does when one of its children ends: when it starts it again, what it
kills of the crashed child's group, and what ``/healthz`` reads of it from the status
file. The whole service under ``kill -9``: tests/integration/test_supervision.py."""

import ast
import inspect
import math
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.processes import alive, in_group
from tests.waiting import wait_until
from web import supervision
from web.supervision import (
    STATUS_FILE,
    Child,
    Down,
    RestartBackoff,
    children_stop,
    how_it_ended,
    queued,
    status_read,
    status_remove,
    status_write,
)


def test_a_crashed_child_waits_one_second_doubling_up_to_thirty():
    backoff = RestartBackoff()
    delays = []
    previous = None
    for _ in range(8):
        previous = backoff.next_delay(previous, ran_for=2)
        delays.append(previous)
    assert delays == [1, 2, 4, 8, 16, 30, 30, 30]


def test_a_child_that_had_run_a_while_before_crashing_waits_one_second_again():
    backoff = RestartBackoff(first=1, longest=30, steady=60)
    assert backoff.next_delay(8, ran_for=59) == 16  # still crashing: doubled
    assert backoff.next_delay(30, ran_for=60) == 1
    assert backoff.next_delay(None, ran_for=0) == 1


def test_a_crashed_child_is_noted_down_and_what_it_left_running_is_killed():
    child = Child("clock", ["sh", "-c", "sleep 600 & exit 3"])
    child.start()
    assert child.process is not None
    group = child.process.pid
    assert wait_until(child.ended)
    leftovers = in_group(group)
    assert leftovers, "the sleep the child left behind"

    line = child.crashed(RestartBackoff())

    assert line.startswith("clock ended (exit code 3) after ")
    assert line.endswith("; restarting it in 1 s.")
    assert child.process is None
    assert child.down is not None and child.down.ended == "exit code 3"
    assert child.down.restarts_at - child.down.since == 1
    assert wait_until(lambda: not [pid for pid in leftovers if alive(pid)])


def test_a_child_killed_by_a_signal_says_which():
    child = Child("web", ["sleep", "600"])
    child.start()
    assert child.process is not None
    child.process.kill()
    assert wait_until(child.ended)
    assert child.crashed(RestartBackoff()).startswith("web ended (signal SIGKILL) after ")


def test_the_status_file_is_replaced_whole_and_read_back(tmp_path):
    clock = Down(since=1000.0, restarts_at=1004.0, ended="signal SIGKILL")
    status_write(tmp_path, supervisor=os.getpid(), down={"clock": clock})
    assert status_read(tmp_path) == {"clock": clock}
    status_write(tmp_path, supervisor=os.getpid(), down={})
    assert status_read(tmp_path) == {}
    assert [path.name for path in tmp_path.iterdir()] == [STATUS_FILE]  # no temporary left
    status_remove(tmp_path)
    assert status_read(tmp_path) == {}


def test_a_status_file_left_by_a_supervisor_that_is_gone_says_nothing(tmp_path):
    gone = subprocess.Popen(["true"])
    gone.wait()
    down = {"clock": Down(since=1000.0, restarts_at=1004.0, ended="signal SIGKILL")}
    status_write(tmp_path, supervisor=gone.pid, down=down)
    assert status_read(tmp_path) == {}


@pytest.mark.django_db
def test_healthz_names_a_supervised_child_while_it_is_down(client, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    since = datetime(2026, 12, 6, 6, 41, 2, tzinfo=UTC).timestamp()
    restarts_at = time.time() + 3.5
    down = {"clock": Down(since=since, restarts_at=restarts_at, ended="signal SIGKILL")}
    status_write(tmp_path, supervisor=os.getpid(), down=down)

    asked = time.time()
    response = client.get("/healthz")
    answered = time.time()

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    [problem] = response.json()["problems"]
    said = "clock: down since 2026-12-06 06:41:02 UTC (signal SIGKILL), restarting in {} s"
    # the seconds left when the view looked, between the request and its answer
    waits = range(math.ceil(restarts_at - answered), math.ceil(restarts_at - asked) + 1)
    assert problem in {said.format(wait) for wait in waits}


@pytest.mark.django_db
def test_healthz_is_ok_again_once_the_supervisor_says_nothing_is_down(client, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    status_write(tmp_path, supervisor=os.getpid(), down={})
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_the_documented_systemd_unit_stops_runclub_as_it_stops_its_children():
    """docs/operations.md's unit: SIGTERM to runclub alone, and time enough for it to give
    its children their grace before systemd kills what is left."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()
    unit = text.split("```ini\n", 1)[1].split("```", 1)[0]
    lines = dict(line.split("=", 1) for line in unit.splitlines() if "=" in line)
    assert lines["Type"] == "simple"
    assert lines["ExecStart"].endswith("/.venv/bin/python manage.py runclub --bind 127.0.0.1:8000")
    assert lines["Restart"] == "on-failure"
    assert (lines["KillSignal"], lines["KillMode"]) == ("SIGTERM", "mixed")
    grace = inspect.signature(children_stop).parameters["grace"].default
    assert int(lines["TimeoutStopSec"]) > grace


def test_how_a_child_ended_reads_its_return_code():
    assert how_it_ended(0) == "exit code 0"
    assert how_it_ended(3) == "exit code 3"
    assert how_it_ended(-9) == "signal SIGKILL"
    assert how_it_ended(-40) == "signal 40"


def test_the_filesystem_brokers_queue_is_seen_waiting_by_its_message_files(tmp_path):
    waiting = queued({"queue": "analysis", "folder": str(tmp_path)})
    assert not waiting()
    (tmp_path / "1733_0a1b.celery.msg").write_text("{}")
    assert not waiting(), "another queue's message"
    (tmp_path / "1734_2c3d.analysis.msg").write_text("{}")
    assert waiting()


def test_a_child_started_for_its_work_starts_when_work_waits_and_rests_without():
    work = {"waiting": False}
    child = Child("analysis", ["sleep", "600"], wanted=lambda: work["waiting"], rests_after=0)
    assert not child.restart_due(), "nothing waits: it does not start"

    work["waiting"] = True
    assert child.restart_due()
    child.start()
    assert not child.rest_due(), "work waits: it keeps running"

    work["waiting"] = False
    assert child.rest_due()
    assert child.rest().startswith("analysis: no work for 0 s")
    assert wait_until(child.ended)
    assert child.resting
    assert child.rested() == "analysis stopped; it starts again when work waits."
    assert child.process is None and child.down is None
    assert not child.restart_due()


def test_a_child_started_for_its_work_that_crashed_waits_for_work_not_down():
    """Crashed with nothing left to do, it is resting, and /healthz does not name it."""
    child = Child("analysis", ["sh", "-c", "exit 1"], wanted=lambda: False)
    child.start()
    assert wait_until(child.ended)
    child.crashed(RestartBackoff(first=0))
    assert child.down is not None
    assert not child.restart_due()
    assert child.down is None


def test_a_child_stopped_too_long_goes_on(monkeypatch):
    """The analysis worker's governor holds it a quarter second at a time; one killed
    during a hold would leave it stopped for good: the supervisor continues it."""
    monkeypatch.setattr(supervision, "STOPPED_AT_MOST", 0.2)
    child = Child("analysis", ["sleep", "600"])
    child.start()
    assert child.process is not None
    try:
        assert not child.stopped_too_long()
        os.kill(child.process.pid, signal.SIGSTOP)
        assert wait_until(child.stopped_too_long)
        assert child.go_on() == "analysis was stopped for 0.2 s; it goes on."
        assert wait_until(lambda: not child.stopped_too_long())
        assert child.stopped_since is None
    finally:
        child.process.kill()
        child.process.wait()


def test_the_supervisor_runs_without_django():
    """``runclub`` becomes ``web.supervision``'s ``main``: a process that does not hold
    Django's memory (bench/README.md, "Footprint")."""
    code = "import sys, web.supervision; print(sorted({m.split('.')[0] for m in sys.modules}))"
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(ast.literal_eval(printed))
    assert "web" in loaded
    assert not loaded & {"django", "celery", "kombu", "club", "matches"}
