"""The engine worker holds still while the web has an action in flight
(analysis.engine_governor, web.actions_in_flight; docs/analysis.md, "The web while
analyses run")."""

import contextlib
import os
import re
import threading
from pathlib import Path

import pytest
from django.test import Client

from analysis.engine_governor import HOLD, LINGER, LOOK_EVERY, SLICE_NS, Governor
from tests.integration.worker import engine_worker_process
from tests.processes import alive, command_line, state, time_slice, with_argument
from tests.waiting import wait_until
from web.actions_in_flight import STALE_AFTER, ActionsTold


def test_the_engine_is_held_while_an_action_is_in_flight_and_linger_seconds_after():
    governor = Governor()
    assert not governor.hold(0.0)
    governor.in_flight.read(b"7+\n", 0.0)
    assert governor.hold(0.0)
    governor.in_flight.read(b"7-\n", 0.01)
    assert governor.hold(0.01)
    assert governor.wake_in(0.01) == pytest.approx(LINGER)
    assert governor.hold(0.01 + LINGER / 2)
    assert not governor.hold(0.01 + LINGER)
    assert governor.wake_in(0.01 + LINGER) == LOOK_EVERY


def test_an_action_within_the_linger_goes_on_with_the_same_hold():
    """The hold's cap counts from its first action: a web that acts every few ms still
    leaves the engine half its time."""
    governor = Governor()
    governor.in_flight.read(b"7+\n", 0.0)
    assert governor.hold(0.0)
    governor.in_flight.read(b"7-\n", 0.01)
    assert governor.hold(0.01)
    governor.in_flight.read(b"8+\n", 0.01 + LINGER / 2)
    assert governor.hold(0.01 + LINGER / 2)
    assert governor.wake_in(0.01 + LINGER / 2) == pytest.approx(HOLD - 0.01 - LINGER / 2)
    assert governor.hold(0.01 + 2 * LINGER)


def test_each_web_process_is_counted_apart_and_a_line_may_come_in_pieces():
    governor = Governor()
    governor.in_flight.read(b"7+\n8", 0.0)
    governor.in_flight.read(b"+\n7-\n", 0.0)
    assert governor.hold(0.0)
    governor.in_flight.read(b"8-\n", 0.01)
    assert governor.hold(0.01)
    assert not governor.hold(0.01 + LINGER)


def test_an_end_whose_start_was_dropped_counts_as_none():
    governor = Governor()
    governor.in_flight.read(b"7-\n\nx\n", 0.0)
    assert not governor.hold(0.0)
    governor.in_flight.read(b"7+\n", 0.0)
    assert governor.hold(0.0)


def test_a_hold_lasts_at_most_hold_seconds_then_the_engine_runs_as_long():
    governor = Governor()
    governor.in_flight.read(b"7+\n", 0.0)
    assert governor.hold(0.0)
    assert governor.wake_in(0.1) == pytest.approx(HOLD - 0.1)
    assert not governor.hold(HOLD)
    assert not governor.hold(1.5 * HOLD)
    assert governor.wake_in(1.5 * HOLD) == pytest.approx(0.5 * HOLD)
    assert governor.hold(2 * HOLD)


def test_an_action_never_seen_to_end_is_forgotten():
    governor = Governor()
    governor.in_flight.read(b"7+\n", 0.0)
    assert governor.in_flight.any(STALE_AFTER)
    assert not governor.in_flight.any(STALE_AFTER + 0.1)


def test_a_web_with_nobody_reading_goes_on(tmp_path):
    told = ActionsTold(str(tmp_path / "none"))
    told.tell(starting=True)
    told.tell(starting=False)
    os.mkfifo(tmp_path / "unread")
    unread = ActionsTold(str(tmp_path / "unread"))
    unread.tell(starting=True)
    (tmp_path / "a-file").write_bytes(b"")
    ActionsTold(str(tmp_path / "a-file")).tell(starting=True)
    assert (tmp_path / "a-file").read_bytes() == b""


def test_a_thread_that_finds_the_reader_gone_closes_nothing_another_is_writing_to(
    tmp_path, monkeypatch
):
    """One web thread is writing its line when the reader goes; another's write fails
    and closes the descriptor. Were the first to write on, into a file that took the
    descriptor's number meanwhile (the database's, on SQLite), it would write a line
    there: the two take turns."""
    path = tmp_path / "web-actions"
    os.mkfifo(path)
    reading = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    told = ActionsTold(str(path))
    told.tell(starting=True)  # opened
    (writing_to,) = _opened(path) - {reading}
    writing, go_on = threading.Event(), threading.Event()
    write = os.write

    def paused_write(fd: int, data: bytes) -> int:
        if threading.current_thread().name == "first":
            writing.set()
            go_on.wait(5)
        return write(fd, data)

    monkeypatch.setattr("web.actions_in_flight.os.write", paused_write)
    first = threading.Thread(target=told.tell, kwargs={"starting": True}, name="first")
    first.start()
    assert writing.wait(5)
    os.close(reading)  # the reader goes
    second = threading.Thread(target=told.tell, kwargs={"starting": False})
    second.start()
    second.join(0.2)
    # Files opened, as other threads would, up to the writer's number if it is free.
    files = []
    while not files or files[-1].fileno() < writing_to:
        files.append(open(tmp_path / f"file-{len(files)}", "wb"))  # noqa: SIM115
    go_on.set()
    first.join(5)
    second.join(5)
    for file in files:
        file.close()
        assert Path(file.name).read_bytes() == b""
    assert not first.is_alive() and not second.is_alive()


def _opened(path: Path) -> set[int]:
    """This process' descriptors open on ``path``."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the descriptor listdir itself used
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                found.add(int(fd))
    return found


@pytest.fixture
def fifo(tmp_path, settings):
    """The web's FIFO, and its reader."""
    path = tmp_path / "web-actions"
    os.mkfifo(path)
    reading = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    settings.WEB_ACTIONS_FIFO = str(path)
    yield reading
    os.close(reading)


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return b""


@pytest.mark.django_db
def test_the_web_tells_each_action_but_not_the_reads(fifo, alice):
    client = Client()  # its middleware made with the settings above
    client.force_login(alice.user)
    client.get("/api/players/")
    assert _read(fifo) == b""
    client.post("/api/tables/", {}, content_type="application/json")
    pid = os.getpid()
    assert _read(fifo) == b"%d+\n%d-\n" % (pid, pid)


def _reader_there(path: Path) -> bool:
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no FIFO yet, or nobody reading it
        return False
    return True


def _governor_of(path: Path) -> tuple[int, int] | None:
    """The governor reading ``path``, and the process it holds."""
    for pid in with_argument(str(path)):
        args = command_line(pid)
        if "analysis.engine_governor" in args and str(path) in args:
            return pid, int(args[args.index(str(path)) + 1])
    return None


def test_the_engine_worker_holds_still_while_the_web_acts(settings, tmp_path):
    """The real engine worker, as runclub starts it, starts its governor; told of an
    action, the governor stops it (state T), of its end lets it go on, and of an action
    never ended, holds it HOLD seconds at most; it ends with the engine worker. It wakes
    in a scheduling group of its own (a session), not in the engine worker's, with a
    short slice where Linux has them (6.12 on)."""
    path = tmp_path / "web-actions"
    settings.WEB_ACTIONS_FIFO = str(path)  # runclub's engine_environment reads it
    with engine_worker_process():
        assert wait_until(lambda: _reader_there(path))
        found = _governor_of(path)
        assert found is not None
        governor, engine = found
        # Its own session: its own scheduling group, not the engine's, of the lowest weight.
        assert os.getsid(governor) == governor != os.getsid(engine)
        version = re.match(r"(\d+)\.(\d+)", os.uname().release)
        custom_slices = version is not None and tuple(map(int, version.groups())) >= (6, 12)
        assert time_slice(governor) == (SLICE_NS if custom_slices else time_slice(os.getpid()))
        told = ActionsTold(str(path))
        told.tell(starting=True)
        assert wait_until(lambda: state(engine) == "T")
        told.tell(starting=False)
        assert wait_until(lambda: state(engine) != "T")
        told.tell(starting=True)
        assert wait_until(lambda: state(engine) == "T")
        assert wait_until(lambda: state(engine) != "T")
        told.tell(starting=False)
    assert wait_until(lambda: not alive(governor))
