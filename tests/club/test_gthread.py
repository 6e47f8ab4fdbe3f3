"""The web server's worker (web/gthread.py): gunicorn's gthread whose requests in progress
forget themselves. It serves while requests are held open (as live streams are), each
held one answered once let go, and stops on SIGTERM with nothing left in progress."""

import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from tests.processes import free_port
from tests.waiting import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[2]

# A WSGI application of the test's own: /hold waits until /release is asked (or the
# test's patience runs out), /held says how many wait, anything else answers at once.
APP = """
import threading

released = threading.Event()
holding = []


def application(environ, start_response):
    path = environ["PATH_INFO"]
    if path == "/hold":
        holding.append(1)
        released.wait({patience})
        body = b"let go"
    elif path == "/release":
        released.set()
        body = b"released"
    elif path == "/held":
        body = str(len(holding)).encode()
    else:
        body = b"at once"
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]
"""


def _get(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=PATIENCE) as answer:
        return answer.read().decode()


def test_the_worker_serves_while_requests_are_held_and_stops_when_asked(tmp_path):
    (tmp_path / "held_app.py").write_text(APP.format(patience=PATIENCE))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "held_app", "--bind", f"127.0.0.1:{port}",
         "--worker-class", "web.gthread.ThreadWorker", "--threads", "8",
         "--worker-connections", "16"],
        cwd=tmp_path,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert wait_until(lambda: _answers(port)), "gunicorn did not start"
        answers: list[str] = []
        holders = [
            threading.Thread(target=lambda: answers.append(_get(port, "/hold"))) for _ in range(5)
        ]
        for holder in holders:
            holder.start()
        assert wait_until(lambda: _get(port, "/held") == "5")
        for _ in range(20):  # the loop goes on serving, five requests in progress
            assert _get(port, "/") == "at once"
        assert _get(port, "/release") == "released"
        for holder in holders:
            holder.join(PATIENCE)
        assert answers == ["let go"] * 5
        assert _get(port, "/") == "at once"
    finally:
        server.send_signal(signal.SIGTERM)
        _out, err = server.communicate(timeout=PATIENCE)
    assert server.returncode == 0, err.decode()
    assert b"Traceback" not in err, err.decode()


def _answers(port: int) -> bool:
    try:
        return _get(port, "/") == "at once"
    except OSError:
        return False
