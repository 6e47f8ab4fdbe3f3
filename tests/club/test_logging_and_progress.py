"""One structured line per request and per task; progress on long commands."""

import io
import logging

import pytest
from django.core.management import call_command

from club.tasks import ping
from web.logging import KeyValueFormatter
from web.progress import progress


@pytest.mark.django_db
def test_one_key_value_line_per_request(client, caplog):
    caplog.set_level(logging.INFO, logger="club.request")
    client.get("/healthz")
    records = [r for r in caplog.records if r.name == "club.request"]
    assert len(records) == 1
    line = KeyValueFormatter().format(records[0])
    assert "method=GET path=/healthz status=200" in line
    assert " user=- " in line + " "
    assert "ms=" in line


@pytest.mark.django_db
def test_a_request_line_says_where_its_time_went(client, caplog, make_player):
    """Its thread's CPU, its queries and their time, each within the request's time (the
    CPU the driver spends on a query counts in both, so they are not added)."""
    make_player("ada")
    caplog.set_level(logging.INFO, logger="club.request")
    client.get("/players/ada/")
    fields = caplog.records[-1].fields
    assert fields["status"] == 200
    assert fields["queries"] >= 1
    assert 0 < fields["db_ms"] <= fields["ms"]
    assert 0 < fields["cpu_ms"] <= fields["ms"] + 1  # thread_time ticks coarser than the clock


def test_one_key_value_line_per_task(caplog):
    caplog.set_level(logging.INFO, logger="club.task")
    ping.apply()
    records = [r for r in caplog.records if r.name == "club.task"]
    assert len(records) == 1
    line = KeyValueFormatter().format(records[0])
    assert "task=club.ping" in line
    assert "state=SUCCESS" in line


def test_values_with_spaces_are_quoted():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello world", (), None)
    record.fields = {"path": '/a b"c'}
    assert 'msg="hello world" path="/a b\\"c"' in KeyValueFormatter().format(record)


def test_progress_counts_when_not_a_terminal():
    out = io.StringIO()
    assert list(progress(range(40), total=40, label="games", out=out)) == list(range(40))
    lines = out.getvalue().splitlines()
    assert lines[0] == "games: 2/40"
    assert lines[-1] == "games: 40/40"
    assert len(lines) == 20


@pytest.mark.django_db
def test_load_demo_is_idempotent_and_prints_the_logins(settings):
    settings.DEBUG = True
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    call_command("load_demo", stdout=out)
    text = out.getvalue()
    assert "7 accounts created" in text and "0 accounts created" in text
    for name in ("admin", "alice", "bob", "carol", "dave", "erin", "frank"):
        assert f"  {name} " in text
    from django.contrib.auth import authenticate

    assert authenticate(username="alice", password="demo") is not None
    assert authenticate(username="admin", password="admin").is_staff
