"""A match's table on the live channel: ``table:<id>`` moves when the table's version
does, whichever connection (another web process, the Celery worker) committed the
change, and a member watching is woken within a second (issue 8, items 8 and 9)."""

import threading
import time

import pytest
from django.db import connection

from matches.live import table_versions
from tests.matches.conftest import act, game_of, on_turn, start


def topic_of(match) -> str:
    return f"table:{match.table_id}"


@pytest.mark.django_db(transaction=True)
def test_a_move_committed_by_another_connection_wakes_a_watcher_within_a_second(
    api, alice, bob, carol
):
    match = start(alice, bob)
    watcher = api.as_user(carol.user)
    version = watcher.get("/api/live/", {"topic": topic_of(match)}).json()["version"]
    assert version == match.table.version

    def play_elsewhere():
        time.sleep(0.3)
        player = on_turn(match, alice, bob)
        act(match, player, "move", play=game_of(match)["legal_plays"][0])
        connection.close()  # this thread's own connection

    other = threading.Thread(target=play_elsewhere)
    other.start()
    started = time.monotonic()
    response = watcher.get("/api/live/", {"topic": topic_of(match), "since": version, "wait": 10})
    took = time.monotonic() - started
    other.join()
    assert response.status_code == 200
    assert response.json()["version"] > version
    assert 0.3 <= took < 1.0
    match.table.refresh_from_db()
    assert response.json()["version"] == match.table.version


@pytest.mark.django_db
def test_unknown_tables_and_bad_keys_are_404(api, alice, bob):
    match = start(alice, bob)
    client = api.as_user(alice.user)
    for topic in [f"table:{match.table_id + 1}", "table:abc", "table:-1", "table:" + "9" * 40]:
        response = client.get("/api/live/", {"topic": topic, "since": 0, "wait": 5})
        assert response.status_code == 404, topic
        assert response.json()["error"] == "not_found"


@pytest.mark.django_db
def test_versions_of_many_tables_in_one_query(alice, bob, carol, django_assert_num_queries):
    first, second = start(alice, bob), start(carol, alice)
    keys = [str(first.table_id), str(second.table_id), "0", "x"]
    with django_assert_num_queries(1):
        versions = table_versions(keys)
    assert versions == {
        str(first.table_id): first.table.version,
        str(second.table_id): second.table.version,
    }
