"""``manage.py runclub`` keeps the club running: started detached (its own session, the
parent that started it gone, hangups ignored as ``nohup`` asks), it restarts a child
killed with ``kill -9`` while the web server keeps answering, ``/healthz`` naming the
child while it is down; SIGTERM stops every process of the tree."""

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.conf import settings

from tests.processes import (
    alive,
    children_of,
    command_line,
    free_port,
    runclub_environment,
    supervised_tree,
    tree_kill,
)
from tests.waiting import PATIENCE, wait_until
from web.supervision import STATUS_FILE

# Starts the command in its own session with its output to a file, prints its pid and
# exits: what `setsid nohup ... &` in a shell that then closes leaves behind.
LAUNCHER = """
import subprocess, sys
with open(sys.argv[1], "w") as log:
    service = subprocess.Popen(
        sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )
print(service.pid)
"""


def _healthz(port: int) -> tuple[int, dict[str, Any]]:
    """``/healthz``'s status and body; an error when the web server does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as refusal:
        return refusal.code, json.load(refusal)


def _started(port: int) -> bool:
    try:
        return _healthz(port)[0] == 200
    except OSError:
        return False


def _workers(supervisor: int) -> set[int]:
    """The supervisor's Celery workers with the clocks (one, or none while it is down)."""
    return {pid for pid in children_of(supervisor) if "worker@%h" in command_line(pid)}


@pytest.mark.integration
def test_runclub_detached_restarts_a_killed_child_and_sigterm_stops_everything(tmp_path):
    port = free_port()
    log = tmp_path / "runclub.log"
    command = ["nohup", sys.executable, "manage.py", "runclub", "--bind", f"127.0.0.1:{port}"]
    launched = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(log), *command],
        cwd=settings.BASE_DIR,
        env=runclub_environment(tmp_path),
        capture_output=True,
        text=True,
        check=True,
        timeout=PATIENCE,
    )
    supervisor = int(launched.stdout)  # its parent, the launcher, is gone
    try:
        assert wait_until(lambda: _started(port), timeout=2 * PATIENCE, every=0.2), log.read_text()
        os.kill(supervisor, signal.SIGHUP)  # the closed terminal's hangup: nohup ignores it

        # Each answer of /healthz must come (the web server serving throughout). A
        # loaded machine may answer only after the first restart, a second away; each
        # kill in a row doubles the wait, so the worker is killed until it is seen down.
        seen_down: list[str] = []
        killed: set[int] = set()

        def worker_down_or_restarted() -> bool:
            status, body = _healthz(port)
            if status == 503:
                seen_down.extend(p for p in body["problems"] if p.startswith("worker: down"))
            return bool(seen_down) or bool(_workers(supervisor) - killed)

        while not seen_down and len(killed) < 5:  # waits of 1, 2, 4, 8, 16 s
            assert wait_until(lambda: len(_workers(supervisor) - killed) == 1)
            [worker] = _workers(supervisor) - killed
            os.kill(worker, signal.SIGKILL)
            killed.add(worker)
            assert wait_until(worker_down_or_restarted)
        assert "(signal SIGKILL), restarting " in seen_down[0]

        assert wait_until(lambda: _healthz(port) == (200, {"status": "ok"}))
        assert len(_workers(supervisor) - killed) == 1
        assert alive(supervisor)

        tree = supervised_tree(supervisor)
        os.kill(supervisor, signal.SIGTERM)
        assert wait_until(lambda: not [pid for pid in tree if alive(pid)])
    finally:
        if alive(supervisor):
            tree_kill(supervisor)
    printed = log.read_text()
    assert "worker ended (signal SIGKILL) after " in printed
    assert "restarting it in 1 s." in printed
    assert "worker restarted." in printed
    assert "Stopped." in printed
    assert not (tmp_path / STATUS_FILE).exists()
