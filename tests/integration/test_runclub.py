"""``manage.py runclub`` (what ``make run`` starts): web and worker (beat on its thread),
the analysis worker only while analyses wait, stopped together."""

import signal
import subprocess
import sys
import urllib.request

import pytest
from django.conf import settings

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
