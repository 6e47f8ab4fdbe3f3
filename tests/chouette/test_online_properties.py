"""A property of random online chouette games played through the services, with random
session cube options (H9, H11) and random resignations (S4): every action is either
applied or refused with nothing changed and nothing logged; every finished game's points
sum to zero, the box's being minus the members'; and every game replays from the
engine's log (H6)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chouette import online, selectors
from chouette.models import Chouette, ChouetteGame
from matches.api import RESIGNATION_VALUES
from matches.models import Action, Table
from matches.selectors import tables_check
from web.errors import ServiceError

pytestmark = pytest.mark.django_db

TEAM = ("bob", "carol", "dave")


@st.composite
def session_options(draw: st.DrawFn) -> dict:
    cube = draw(st.sampled_from(["single", "multiple"]))
    return {
        "cube": cube,
        "same_action": cube == "multiple" and draw(st.booleans()),
        "automatic_doubles": draw(st.integers(0, 1)),
        "cube_max": draw(st.sampled_from([None, 2, 4])),
        "jacoby": draw(st.booleans()),
        "beavers": draw(st.booleans()),
    }


def candidates(game: dict, box: str, rng: random.Random) -> list[tuple[str, str, dict]]:
    """Actions worth trying now: whoever is awaited answering or playing on, with the
    odd double and resignation thrown in, and some that must be refused."""
    phase, awaiting, cubes = game["phase"], game["awaiting"], game["cubes"]
    offered = [c["offered_at"] for c in cubes.values() if c["offered_at"] is not None]
    tries: list[tuple[str, str, dict]] = []
    if phase == "resign_offered":
        at = game["resignation"]["offered_at"]
        for name in awaiting:
            tries.append((name, rng.choice(["accept_resign", "reject_resign"]), {"turn_no": at}))
    elif phase == "take_or_pass":
        for name in awaiting:
            mine = cubes[name]["offered_at"] if name != box else rng.choice(offered)
            act = rng.choice(["take", "take", "pass", "beaver"])
            tries.append((name, act, {"turn_no": mine}))
    else:
        mover = awaiting[0]
        turn = {"turn_no": game["turn_no"]}
        if rng.random() < 0.08:
            tries.append((mover if rng.random() < 0.7 else rng.choice(TEAM), "resign",
                          {**turn, "value": rng.choice(RESIGNATION_VALUES)}))  # fmt: skip
        if phase == "roll":
            if rng.random() < 0.25:
                doubler = box if mover == box else rng.choice(TEAM)
                tries.append((doubler, "double", turn))
            tries.append((mover, "roll", turn))
        else:
            plays = game["legal_plays"]
            tries.append((mover, "move", {**turn, "play": rng.choice(plays) if plays else ""}))
    return tries


def state(chouette_pk: int) -> tuple:
    """The log's length, the table, and the session's version: what a refusal leaves be."""
    table = Table.objects.get(chouette__pk=chouette_pk)
    version = Chouette.objects.get(pk=chouette_pk).version
    return Action.objects.filter(table=table).count(), table.version, table.state, version


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(options=session_options(), seed=st.integers(0, 2**32))
def test_h6_h9_h11_s4_random_online_games_settle_to_zero_and_replay(
    open_chouette, members, options, seed
):
    rng = random.Random(seed)
    chouette = open_chouette("alice", *TEAM, mode="online", **options)
    online.chouette_game_start(chouette=chouette, by=members["alice"])
    for _step in range(1500):
        game = selectors.chouette_online_game(chouette=selectors.chouette_get(pk=chouette.pk))
        assert game is not None
        if game["phase"] == "over":
            break
        for name, act, body in candidates(game, "alice", rng):
            before = state(chouette.pk)
            try:
                online.chouette_act(chouette=chouette, player=members[name], act=act, **body)
            except ServiceError:
                assert state(chouette.pk) == before  # refused: nothing changed, nothing logged
            else:
                break
    assert game["phase"] == "over"  # every contract settled: the game was scored
    table = Table.objects.get(chouette__pk=chouette.pk)
    assert not [p for p in tables_check() if p.startswith(f"table {table.pk}:")]
    (row,) = ChouetteGame.objects.filter(chouette_id=chouette.pk)
    points = {p.player.username: p.points for p in row.points.all()}
    assert sum(points.values()) == 0
    assert points["alice"] == -sum(points[name] for name in TEAM)
