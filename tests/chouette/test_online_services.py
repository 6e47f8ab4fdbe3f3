"""Online chouettes through the services: games on the engine's table (H2, H4, H5, H7,
H8, H10), the clock on each member's answer, consulting, stale and out-of-turn requests
that change nothing, and the finished game scored and rotated as a recorded one."""

from datetime import timedelta

import pytest

from backgammon.game import Game, Result
from chouette import online, selectors, services
from chouette.models import Chouette, ChouetteGame
from matches import table_engine
from matches.errors import NotYourTurn, StaleTurn
from matches.models import Action, Table
from matches.selectors import tables_check
from web.errors import Conflict, Forbidden


@pytest.fixture
def online_chouette(open_chouette, members):
    """An online chouette, alice in the box, bob captain, carol and dave the crew, its
    first game started."""

    def make(**options):
        chouette = open_chouette("alice", "bob", "carol", "dave", mode="online", **options)
        return online.chouette_game_start(chouette=chouette, by=members["alice"])

    return make


def fresh(chouette: Chouette) -> Chouette:
    return Chouette.objects.select_related("table").get(pk=chouette.pk)


def body(chouette: Chouette) -> dict:
    found = selectors.chouette_online_game(chouette=fresh(chouette))
    assert found is not None
    return found


def act(chouette, members, name, what, **kwargs):
    kwargs.setdefault("turn_no", body(chouette)["turn_no"])
    return online.chouette_act(chouette=chouette, player=members[name], act=what, **kwargs)


def play_until(chouette, members, *, box_rolls: bool, stop) -> dict:
    """Roll and play the first legal play for whoever is on roll until ``stop(game)``;
    the box's roll too unless ``box_rolls`` is false (then stop at the box's roll)."""
    for _step in range(1000):
        game = body(chouette)
        if stop(game):
            return game
        mover = game["awaiting"][0]
        if game["phase"] == "roll":
            if mover == "alice" and not box_rolls:
                return game
            act(chouette, members, mover, "roll")
        else:
            plays = game["legal_plays"]
            act(chouette, members, mover, "move", play=plays[0] if plays else "")
    raise AssertionError("the game did not get there")


def box_to_roll(game: dict) -> bool:
    return game["phase"] == "roll" and game["awaiting"] == ["alice"]


def team_to_roll(game: dict) -> bool:
    return game["phase"] == "roll" and game["awaiting"] != ["alice"]


def test_h5_h8_h10_h6_h3_the_box_doubles_members_answer_alone_the_game_scores_and_rotates(
    online_chouette, members
):
    chouette = online_chouette(cube="multiple", jacoby=False)
    game = play_until(chouette, members, box_rolls=False, stop=box_to_roll)
    assert game["cubes"]["bob"] == {"value": 1, "owner": None, "state": "live", "offered_at": None}
    act(chouette, members, "alice", "double")
    game = body(chouette)
    assert game["phase"] == "take_or_pass"
    assert game["awaiting"] == ["bob", "carol", "dave"]  # line order (H10)
    offered = game["cubes"]["carol"]["offered_at"]
    assert offered == game["turn_no"]
    # Each answers alone with the turn of the double: the others' answers do not make
    # theirs stale (API.md).
    act(chouette, members, "carol", "take", turn_no=offered)
    act(chouette, members, "dave", "pass", turn_no=offered)
    assert body(chouette)["turn_no"] > offered
    act(chouette, members, "bob", "take", turn_no=offered)
    game = body(chouette)
    assert game["cubes"]["dave"]["state"] == "passed"
    assert game["cubes"]["carol"] == {
        "value": 2, "owner": "carol", "state": "live", "offered_at": None
    }  # fmt: skip
    assert game["awaiting"] == ["alice"] and game["phase"] == "roll"

    game = play_until(chouette, members, box_rolls=True, stop=lambda g: g["phase"] == "over")
    final = Game.from_dict(fresh(chouette).table.state)
    team_won = final.winner == 1
    times = {Result.SINGLE: 1, Result.GAMMON: 2, Result.BACKGAMMON: 3}[final.result]
    member = 2 * times if team_won else -2 * times
    row = ChouetteGame.objects.get(chouette=chouette)
    points = {p.player.username: p.points for p in row.points.select_related("player__user")}
    assert points == {"alice": 1 - 2 * member, "bob": member, "carol": member, "dave": -1}
    assert row.record["members"][2] == {
        "player": "dave", "stake": 1, "outcome": "passed", "cube_turned": False
    }  # fmt: skip
    seated = fresh(chouette)
    names = selectors.chouette_names(chouette=seated)
    seats = [names[pk] for pk in seated.seats]
    if team_won:  # H3: the captain takes the box, the old box goes to the end of the line
        assert seats == ["bob", "carol", "dave", "alice"]
    else:  # the box keeps the box, the captain goes to the end of the line
        assert seats == ["alice", "carol", "dave", "bob"]
    assert selectors.chouette_scores(chouette=seated) == {
        name: points[name] for name in seats
    }  # fmt: skip
    # The game replays from the engine's log, like a match's.
    assert not [p for p in tables_check() if f"table {seated.table_id}:" in p]
    # The next game: the new seating, its own opening roll.
    online.chouette_game_start(chouette=seated, by=members["dave"])
    assert body(seated)["number"] == 2


def test_h4_the_teams_double_needs_every_member_and_lapses_at_the_captains_roll(
    online_chouette, members
):
    chouette = online_chouette()  # one team cube (H4) is the default
    play_until(chouette, members, box_rolls=True, stop=team_to_roll)
    act(chouette, members, "bob", "double")
    act(chouette, members, "carol", "double")
    assert body(chouette)["phase"] == "roll"  # dave has not proposed: nothing goes to the box
    act(chouette, members, "bob", "roll")  # the captain's roll lets the proposal lapse
    game = body(chouette)
    assert game["phase"] == "move" and game["cubes"]["bob"]["value"] == 1

    play_until(chouette, members, box_rolls=True, stop=team_to_roll)
    for name in ("bob", "carol", "dave"):
        act(chouette, members, name, "double")
    game = body(chouette)
    assert game["phase"] == "take_or_pass" and game["awaiting"] == ["alice"]
    act(chouette, members, "alice", "take", turn_no=game["cubes"]["bob"]["offered_at"])
    cubes = body(chouette)["cubes"]
    assert {name: (c["value"], c["owner"]) for name, c in cubes.items()} == {
        "bob": (2, "box"), "carol": (2, "box"), "dave": (2, "box")
    }  # fmt: skip


def test_h5_h7_a_member_who_does_not_answer_in_time_passes_and_the_captain_hands_over(
    online_chouette, members, clock
):
    chouette = online_chouette(cube="multiple", turn_time=30)
    play_until(chouette, members, box_rolls=False, stop=box_to_roll)
    act(chouette, members, "alice", "double")
    offered = body(chouette)["cubes"]["carol"]["offered_at"]
    clock.advance(20)
    act(chouette, members, "carol", "take", turn_no=offered)
    table = fresh(chouette).table
    assert table.deadline == table.clock_started + timedelta(seconds=30)
    clock.advance(5)
    assert not table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no)  # not yet
    clock.advance(6)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no)
    game = body(chouette)
    assert {name: c["state"] for name, c in game["cubes"].items()} == {
        "bob": "passed", "carol": "live", "dave": "passed"
    }  # fmt: skip
    assert game["captain"] == "carol"  # H7: the first in line who took moves on
    rows = Action.objects.filter(table=table, kind="pass")
    assert [(r.actor, r.by_server) for r in rows] == [(None, True), (None, True)]
    # A late or repeated task does nothing.
    assert not table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no - 1)


def test_h5_a_session_may_make_a_late_answer_a_take(online_chouette, members, clock):
    chouette = online_chouette(cube="multiple", turn_time=30, no_answer="take")
    play_until(chouette, members, box_rolls=False, stop=box_to_roll)
    act(chouette, members, "alice", "double")
    clock.advance(31)
    assert table_engine.tables_sweep() == 1
    assert {c["state"] for c in body(chouette)["cubes"].values()} == {"live"}
    assert {c["value"] for c in body(chouette)["cubes"].values()} == {2}


def test_h2_only_the_captain_moves_and_stale_or_out_of_turn_requests_change_nothing(
    online_chouette, members
):
    chouette = online_chouette(cube="multiple")
    game = play_until(chouette, members, box_rolls=True, stop=team_to_roll)
    table = fresh(chouette).table
    before = (table.version, table.state, Action.objects.filter(table=table).count())
    with pytest.raises(NotYourTurn):
        act(chouette, members, "carol", "roll")  # a crew member (H2)
    with pytest.raises(NotYourTurn):
        act(chouette, members, "alice", "roll")  # the box, on the team's turn
    with pytest.raises(StaleTurn):
        act(chouette, members, "bob", "roll", turn_no=game["turn_no"] - 1)
    with pytest.raises(Conflict):
        act(chouette, members, "dave", "take")  # nothing to answer
    with pytest.raises(Forbidden):
        online.chouette_act(
            chouette=chouette, player=members["erin"], act="roll", turn_no=game["turn_no"]
        )
    with pytest.raises(Conflict):
        services.chouette_join(chouette=fresh(chouette), player=members["erin"],
                               by=members["erin"].user)  # fmt: skip
    table = Table.objects.get(pk=table.pk)
    assert (table.version, table.state, Action.objects.filter(table=table).count()) == before


def test_h2_consulting_is_seen_by_the_team_only_and_no_cube_no_talk_keeps_to_the_cube(
    online_chouette, open_chouette, members
):
    chouette = online_chouette(cube="multiple")
    game = play_until(chouette, members, box_rolls=True, stop=lambda g: g["awaiting"] == ["bob"]
                      and g["phase"] == "move" and g["legal_plays"])  # fmt: skip
    proposal = online.chouette_propose(
        chouette=chouette,
        player=members["carol"],
        turn_no=game["turn_no"],
        kind="play",
        play=game["legal_plays"][-1],
    )
    seen = selectors.chouette_proposals(chouette=fresh(chouette), player=members["dave"])
    assert [(p.player.username, p.play) for p in seen] == [("carol", proposal.play)]
    with pytest.raises(Forbidden):
        selectors.chouette_proposals(chouette=fresh(chouette), player=members["alice"])
    with pytest.raises(Forbidden):
        online.chouette_propose(chouette=chouette, player=members["alice"],
                                turn_no=game["turn_no"], kind="double")  # fmt: skip
    # The captain's choice stands: his play, not the proposal.
    act(chouette, members, "bob", "move", play=game["legal_plays"][0])

    quiet = open_chouette("erin", "frank", "gina", mode="online", consulting="cube")
    online.chouette_game_start(chouette=quiet, by=members["erin"])
    game = body(quiet)
    with pytest.raises(Conflict):
        online.chouette_propose(chouette=quiet, player=members["gina"],
                                turn_no=game["turn_no"], kind="play", play="")  # fmt: skip
