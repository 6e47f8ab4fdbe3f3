"""The embedded default's broker (web/broker.py): kombu's filesystem transport with each
message written whole before a worker can see it. kombu's own creates the file under its
final name and fills it after, and a worker that took it in between read it empty and
stopped (kombu issue #1551): the Celery worker crashed every few minutes of a club night,
the clocks running out meanwhile waiting for its restart."""

import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from kombu import Connection
from kombu.simple import SimpleQueue

from analysis.engine_worker import engine_app
from web import broker
from web.management.commands.runclub import engine_environment


def _fresh_name() -> str:
    """A queue no test has declared in this process: kombu keeps the bindings it made in
    a state every connection of a process shares, and does not bind again a queue it
    bound before (in another test's folder)."""
    return f"queue-{uuid.uuid4().hex}"


@pytest.fixture
def connection(tmp_path: Path):
    options = {
        "data_folder_in": str(tmp_path / "broker"),
        "data_folder_out": str(tmp_path / "broker"),
        "control_folder": str(tmp_path / "control"),
    }
    for folder in ("broker", "control"):
        (tmp_path / folder).mkdir()
    with Connection(
        "filesystem://localhost/", transport="web.broker:Transport", transport_options=options
    ) as opened:
        yield opened


def test_a_message_appears_in_the_queue_only_once_written_whole(connection, monkeypatch):
    """At the moment the message is put in its reader's view it is already whole: before
    the rename, the queue shows nothing to take."""
    queue: SimpleQueue = connection.SimpleQueue(_fresh_name())
    seen_before_rename = []
    rename = os.replace

    def watched(source: str, target: str) -> None:
        seen_before_rename.append((len(Path(source).read_bytes()), queue.qsize()))
        rename(source, target)

    monkeypatch.setattr(broker.os, "replace", watched)
    queue.put({"table": 7, "turn": 3, "padding": "x" * 100_000})
    [(written, visible)] = seen_before_rename
    assert written > 100_000 and visible == 0
    assert queue.get(timeout=1).payload["turn"] == 3
    queue.close()


def test_a_worker_reading_while_others_write_gets_every_message_whole(connection):
    """Four senders put 50 large messages each while a reader drains the queue: every one
    is read, none is empty or cut (with kombu's own transport the reader stops on one it
    took before its sender had written it)."""
    payload = "y" * 50_000
    name = _fresh_name()
    reader = connection.clone().SimpleQueue(name)  # declared, as a worker's at its start
    senders = [
        threading.Thread(target=_send, args=(connection, name, sender, payload))
        for sender in range(4)
    ]
    for sender in senders:
        sender.start()
    got = set()
    while len(got) < 200:
        message = reader.get(timeout=30)
        body = message.payload
        assert body["padding"] == payload
        got.add((body["sender"], body["number"]))
        message.ack()
    for sender in senders:
        sender.join()
    assert got == {(s, n) for s in range(4) for n in range(50)}
    reader.close()


def _send(connection: Connection, name: str, sender: int, payload: str) -> None:
    with connection.clone() as own:
        queue = own.SimpleQueue(name)
        for number in range(50):
            queue.put({"sender": sender, "number": number, "padding": payload})
        queue.close()


def test_queues_declared_at_once_by_several_processes_are_all_bound(connection):
    """Eight connections declaring a queue each at the same moment, on a broker with no
    exchange table yet: none reads the table half made, every queue is bound."""
    names = [_fresh_name() for _ in range(8)]
    start = threading.Barrier(len(names))
    errors = []

    def declare(name: str) -> None:
        with connection.clone() as own:
            start.wait()
            try:
                own.SimpleQueue(name).close()
            except Exception as error:  # what the test looks for
                errors.append(error)

    threads = [threading.Thread(target=declare, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    channel = connection.default_channel
    assert {binding.queue for binding in channel.get_table("") + _tables(channel)} >= set(names)


def _tables(channel) -> list:
    """Every exchange's bindings (SimpleQueue binds each queue to an exchange of its name)."""
    return [
        binding
        for table in channel.control_folder.glob("*.exchange")
        for binding in channel.get_table(table.stem)
    ]


def test_the_embedded_default_names_it_and_the_engine_worker_sends_through_it(
    settings, monkeypatch, tmp_path
):
    """With no broker set, the settings choose the filesystem broker with this transport;
    runclub hands it to the engine worker, whose app sends through it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_BROKER")}
    env.update(DEBUG="1", VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    code = "from django.conf import settings; print(settings.CELERY_BROKER_TRANSPORT)"
    printed = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert printed.strip() == "web.broker:Transport"
    settings.CELERY_BROKER_TRANSPORT = "web.broker:Transport"
    transport = engine_environment()["CELERY_BROKER_TRANSPORT"]
    assert transport == "web.broker:Transport"
    monkeypatch.setenv("CELERY_BROKER_TRANSPORT", transport)
    monkeypatch.setenv("CELERY_BROKER_URL", "filesystem://localhost/")
    assert engine_app().connection_for_write().get_transport_cls() is broker.Transport
