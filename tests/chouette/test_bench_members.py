"""The chouette benchmark's members (bench/api_chouette.py) play through the real API: at
every step exactly one of them acts, or several answer a double or propose a play side
by side, and the server takes every action they send. So the benchmark's errors are the
server's, never the bots' own mistakes."""

from collections import Counter

import pytest

from bench import api_chouette as bench

NAMES = ["alice", "bob", "carol", "dave", "erin"]
SIDE_BY_SIDE = {"take", "pass", "beaver", "propose"}  # none makes another stale
MOST_GAMES = 12  # the dice are the server's: a few games more until each action is seen


def every_action_seen(played: Counter[str]) -> bool:
    return all(
        (
            played["double by the box"] + played["double by the box, to some"] > 0,
            played["double by a member"] > 0,
            played["take by a member"] + played["pass by a member"] > 0,
            played["propose"] > 0,
        )
    )


@pytest.fixture
def eager_cubes(monkeypatch):
    """Doubles and proposals far more often than the benchmark's, so a few games show
    every action."""
    monkeypatch.setattr(bench, "P_BOX_DOUBLE", 0.5)
    monkeypatch.setattr(bench, "P_MEMBER_DOUBLE", 0.3)
    monkeypatch.setattr(bench, "P_TEAM_DOUBLE", 0.5)
    monkeypatch.setattr(bench, "P_PROPOSE", 0.5)


@pytest.mark.parametrize("cube", ["multiple", "single"])
def test_the_benchmarks_members_play_whole_games_and_every_action_is_taken(
    members, api, eager_cubes, cube
):
    opened = api.as_user(members["alice"].user).post(
        "/api/chouettes/",
        {
            "players": NAMES,
            "order": NAMES,
            "stake": "5.00",
            "mode": "online",
            "options": {"cube": cube, "beavers": cube == "multiple", "jacoby": True},
        },
        format="json",
    )
    assert opened.status_code == 201, opened.json()
    card, pk = opened.json(), opened.json()["id"]
    talk, played = bench.Talk(seed=7), Counter()
    for _step in range(20000):
        if (card["games"] >= 2 and every_action_seen(played)) or card["games"] == MOST_GAMES:
            break
        acting = {name: act for name in NAMES if (act := bench.decide(card, name, talk))}
        kinds = {act.kind for act in acting.values()}
        assert len(acting) == 1 or kinds <= SIDE_BY_SIDE, (acting, card["game"])
        answered = card
        for name, act in acting.items():
            client = api.as_user(members[name].user)
            response = client.post(f"/api/chouettes/{pk}/{act.path}/", act.body, format="json")
            assert response.status_code == (201 if act.kind == "propose" else 200), (
                name,
                act,
                response.json(),
            )
            played[bench.heard(talk, name, card, act, response.json())] += 1
            if act.kind != "propose":  # answered with the proposal, not the table
                answered = response.json()
        card = answered
    # ``games`` counts the games played to their end; the last action seen may come in
    # a game still going.
    going = card["game"] is not None and card["game"]["phase"] != "over"
    assert card["games"] >= 2 and played["start"] == card["games"] + going
    assert sum(card["scores"].values()) == 0
    # The box doubles, the members double and answer, and the crew consults (H2) and the
    # captain hears it out.
    assert every_action_seen(played), played
    if cube == "single":
        assert played["beaver by a member"] == 0  # one team cube: no beaver (H4)
        assert played["double by the box, to some"] == 0  # and the box doubles everyone
    assert bench.games_check([pk]).problems == []
