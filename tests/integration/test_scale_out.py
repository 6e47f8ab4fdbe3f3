"""Several hosts on the engines the club already has: two gunicorn instances, two hosts'
Celery workers (the timeouts and the ordinary tasks) and one beat, on one
PostgreSQL database and one Redis (docs/operations.md, "Several hosts").

Games are played through both instances in turn, a live stream opened on one follows a
move made on the other, and the clocks that run out are each applied once, whichever
worker's task or sweep comes first. On PostgreSQL (CI's second run)."""

from datetime import datetime

import pytest

from matches.models import Action, Match
from tests.integration.stack import (
    Player,
    logged_actions,
    match_start,
    members_create,
    redis_server,
    stack,
    stack_environment,
    stream_follow,
    table_of,
)
from tests.waiting import PATIENCE, wait_until

GAMES = 6  # played through both instances, an action on each in turn
ACTIONS = 12  # by each game
CLOCKS = 20  # games nobody plays, on a clock of 2 s


@pytest.mark.integration
@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_two_instances_two_hosts_workers_and_one_beat_share_the_club(tmp_path):
    members = members_create("scale", 2 * (GAMES + CLOCKS))
    with redis_server() as redis, stack(stack_environment(redis, tmp_path), tmp_path) as hosts:
        first, second = hosts.web("web1"), hosts.web("web2")
        for host in ("1", "2"):
            hosts.worker(f"worker{host}")
        hosts.beat()
        hosts.ready()
        instances = (first, second)

        # Clocks first: they run out while the other games are played.
        clocked = [
            match_start(
                members[2 * i],
                members[2 * i + 1],
                create_at=instances[i % 2],
                accept_at=instances[(i + 1) % 2],
                clock={"delay": 2, "reserve": 0},
            )
            for i in range(CLOCKS)
        ]

        players = []
        for i in range(GAMES):
            a, b = members[2 * (CLOCKS + i)], members[2 * (CLOCKS + i) + 1]
            match = match_start(a, b, create_at=first, accept_at=second)
            players.append(Player(match, {a.username: a, b.username: b}))
        for n in range(ACTIONS):
            for player in players:
                answer = player.act(instances[n % 2])
                assert answer.status == 200, answer

        # A page on the first instance follows a move made on the second.
        player = players[0]
        watcher = player.by_name[player.match["game"]["turn"]]
        version = player.match["version"]
        events = stream_follow(first, watcher, player.match["topic"], version)
        answer = player.act(second)
        assert answer.status == 200, answer
        event = events.get(timeout=PATIENCE)
        assert event["version"] == answer.body["version"] > version
        assert event["state"]["game"]["turn_no"] == answer.body["game"]["turn_no"]

        def all_timed_out() -> bool:
            ids = [m["id"] for m in clocked]
            return not Match.objects.filter(pk__in=ids, status=Match.Status.PLAYING).exists()

        assert wait_until(all_timed_out, timeout=2 * PATIENCE, every=0.2), hosts.log("clock1")

    for player in players:
        assert logged_actions(player.match) == player.confirmed
    for match in clocked:
        forfeits = Action.objects.filter(table_id=table_of(match), kind="forfeit")
        assert [(f.actor, f.by_server) for f in forfeits] == [(None, True)]
        assert forfeits[0].at >= datetime.fromisoformat(match["clock"]["deadline"])
        assert Match.objects.get(pk=match["id"]).ended_by == "timeout"
