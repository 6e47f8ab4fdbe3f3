"""A chouette on the live channel: ``chouette:<id>`` answers with the session's body
exactly as ``GET /api/chouettes/{id}/`` gives it at that version, the same for a member
of the team, the box and a member not at the table, never the team's proposals (H2) nor
the server seed (H1); the states of many sessions are read in two queries, once a tick
for every waiter of the process."""

import threading

import pytest
from django.db import connection
from django.db.models import F

from chouette.live import chouette_states
from chouette.models import Chouette
from tests.chouette.online_table import OnlineTable
from tests.waiting import NEVER, PATIENCE, wait_until
from web import live

VIEWERS = ("bob", "alice", "gina")  # a member of the team, the box, a member not seated


def topic_of(table: OnlineTable) -> str:
    return f"chouette:{table.pk}"


def opened(api, members, order=("alice", "bob", "carol", "dave")) -> OnlineTable:
    """An online session in play: started, and the team's captain to move."""
    table = OnlineTable(api, members, list(order), cube="multiple", turn_time=60)
    table.act(order[1], "start")
    table.play(until=lambda game: game["phase"] == "move" and game["awaiting"] == [order[1]])
    return table


def test_h1_h2_the_state_is_the_get_body_for_a_member_the_box_and_anyone_else(api, members):
    table = opened(api, members)
    game = table.game
    proposed = table.post("carol", "proposals", turn_no=game["turn_no"], kind="play",
                          play=game["legal_plays"][-1])  # fmt: skip
    assert proposed.status_code == 201, proposed.json()
    version = Chouette.objects.get(pk=table.pk).version
    seed = bytes(Chouette.objects.get(pk=table.pk).server_seed).hex()
    for name in VIEWERS:
        body = table.get(name).json()
        assert body["version"] == version and body["game"]["dice"] is not None
        for params in ({}, {"since": version - 1, "wait": 10}):  # no since; behind
            response = table.client(name).get("/api/live/", {"topic": topic_of(table), **params})
            answer = response.json()
            assert answer == {"topic": topic_of(table), "version": version, "state": body}
            text = response.content.decode()
            assert seed not in text and "proposal" not in text  # H1, H2: not in the state


def test_no_move_within_the_wait_answers_no_state(api, members):
    table = opened(api, members)
    version = table.body["version"]
    params = {"topic": topic_of(table), "since": version, "wait": 0}
    answer = table.client("gina").get("/api/live/", params).json()
    assert answer == {"topic": topic_of(table), "version": version, "state": None}


def test_states_of_many_sessions_in_two_queries(api, members, django_assert_num_queries):
    tables = [
        opened(api, members, order)
        for order in (("alice", "bob", "carol"), ("dave", "erin", "frank", "gina"))
    ]
    recorded = Chouette.objects.get(pk=table_pk_recorded(api, members))
    keys = [str(t.pk) for t in tables] + [str(recorded.pk), "0", "x", "9" * 40]
    with django_assert_num_queries(2):  # the sessions, then their standings
        states = chouette_states(keys)
    assert set(states) == {str(t.pk) for t in tables} | {str(recorded.pk)}
    for pk in (*[t.pk for t in tables], recorded.pk):
        version, state = states[str(pk)]
        assert version == state["version"] == Chouette.objects.get(pk=pk).version
        assert state == api.as_user(members["gina"].user).get(f"/api/chouettes/{pk}/").json()


def table_pk_recorded(api, members) -> int:
    """A recorded session (no table, no game) with one game recorded: its state too."""
    client = api.as_user(members["alice"].user)
    opened = client.post(
        "/api/chouettes/",
        {"players": ["alice", "bob", "carol"], "order": ["alice", "bob", "carol"],
         "stake": "2.00"},
        format="json",
    )  # fmt: skip
    pk = opened.json()["id"]
    recorded = client.post(
        f"/api/chouettes/{pk}/games/",
        {"winner": "box", "result": "single", "members": [
            {"player": name, "stake": 1, "outcome": "played"} for name in ("bob", "carol")]},
        format="json",
    )  # fmt: skip
    assert recorded.status_code == 201, recorded.json()
    return pk


@pytest.mark.django_db(transaction=True)
def test_one_states_read_for_many_waiters_of_many_chouettes(api, members):
    tables = [
        opened(api, members, order)
        for order in (("alice", "bob", "carol"), ("dave", "erin", "frank", "gina"))
    ]
    reads: list[list[str]] = []
    version_reads: list[list[str]] = []

    def read_versions(topics):
        version_reads.append(sorted(topics))
        try:
            return live.read_versions(topics)
        finally:
            connection.close()  # the watcher thread's own: none left open after the test

    def read_states(topics):
        reads.append(sorted(topics))
        try:
            return live.read_states(topics)
        finally:
            connection.close()

    watcher = live.Watcher(read_versions, 0.05, read_states=read_states)
    answers: dict[str, list[live.Answer]] = {topic_of(t): [] for t in tables}
    versions = {topic_of(t): t.body["version"] for t in tables}

    def follow(topic):
        since = versions[topic]
        answers[topic].append(watcher.wait(topic, since=since, known=since, timeout=NEVER))

    waiters = [
        threading.Thread(target=follow, args=(topic,), daemon=True) for topic in list(answers) * 5
    ]  # five boards per session
    for waiter in waiters:
        waiter.start()
    assert wait_until(lambda: sum(watcher._waiting.values()) == len(waiters))
    reads_before = len(version_reads)
    assert wait_until(lambda: len(version_reads) >= reads_before + 2)
    assert reads == []  # every board waits: the ticks read versions only
    Chouette.objects.filter(pk__in=[t.pk for t in tables]).update(version=F("version") + 1)
    for waiter in waiters:
        waiter.join(PATIENCE)  # answered by the move, long before their timeout
    assert not any(waiter.is_alive() for waiter in waiters)
    assert reads == [sorted(answers)]  # one read for the ten waiters of two sessions
    for table in tables:
        topic = topic_of(table)
        body = table.get("gina").json()
        assert body["version"] == versions[topic] + 1
        assert all(answer == live.Answer(body["version"], body) for answer in answers[topic])
        first = answers[topic][0].state
        assert all(answer.state is first for answer in answers[topic])  # one body, shared


def test_an_action_hands_its_answer_to_the_live_channel_as_the_state_a_get_gives(api, members):
    table = opened(api, members)
    answer = table.act("bob", "move", play=table.game["legal_plays"][0])
    topic = topic_of(table)
    assert live.shared_states({topic: answer["version"]}) == {topic: (answer["version"], answer)}
    assert answer == table.get("gina").json()
