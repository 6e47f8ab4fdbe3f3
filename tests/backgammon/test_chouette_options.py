"""The chouette session options H11 adds to a chouette ``Game``: automatic doubles (O2)
and a maximum cube (C1), each proven on a chouette's several contracts; and the team's
resignation, offered by the captain and answered by the box contract by contract (S4).
Players are letters, the box first (box A, captain B, crew C D)."""

from __future__ import annotations

from dataclasses import replace

from backgammon.chouette import BoardResult, MemberResult, Outcome, Winner, record_game
from backgammon.errors import CubeNotAvailable, NotYourTurn
from backgammon.game import AcceptResign, Game, Phase, RejectResign, Resign, Result
from backgammon.position import Position, board_from_points
from backgammon.team import BOX, TEAM, Awaiting
from tests.backgammon.test_chouette_game import (
    BOX_HOME,
    MULTIPLE,
    SINGLE,
    TEAM_LAST,
    box_plays,
    options,
    scored,
    seat,
    table,
    team_bears_off,
    unchanged,
)


def test_h11_o2_automatic_doubles_double_every_members_cube_up_to_the_limit() -> None:
    # Two ties before the opening roll, a limit of 1: every contract starts at 2.
    game = Game.start(options("BCD", automatic_doubles=1, jacoby=True), [(4, 4), (2, 2), (3, 1)])
    assert game.opening.auto_doubles == 1
    assert [(c.holder, c.value, c.owner, c.turned) for c in game.contracts] == [
        ("B", 2, None, False),
        ("C", 2, None, False),
        ("D", 2, None, False),
    ]
    # Off (the default), a tie doubles nothing.
    plain = Game.start(options("BCD"), [(4, 4), (3, 1)])
    assert {c.value for c in plain.contracts} == {1}


def test_h11_c6_an_automatic_double_turns_no_cube_so_jacoby_still_counts_a_gammon_single() -> None:
    game = Game.start(options("BC", SINGLE, automatic_doubles=1, jacoby=True), [(5, 5), (3, 1)])
    # The box all in its home board with none off, the team one checker from the end.
    game = team_bears_off(box_plays(at_position(game, box=BOX_HOME, members=TEAM_LAST)))
    assert game.result.value == "gammon"
    # Each cube at 2 by the automatic double, never turned: a gammon counts single (C6).
    assert game.points_by_holder() == {"B": -2, "C": -2}
    record = record_game(seat("ABC", game), game)
    assert record.members[0] == MemberResult("B", 2, Outcome.PLAYED, False)
    assert (record.winner, record.result) == (Winner.TEAM, BoardResult.GAMMON)
    assert scored("ABC", game)[0] == {"A": -4, "B": 2, "C": 2}


def test_h11_c1_the_maximum_cube_stops_each_members_cube_at_it() -> None:
    game = table("BCD", MULTIPLE, cube_max=2)
    game = game.double(["B"]).take("B")  # B's cube at 2: the maximum
    assert [(c.holder, c.value) for c in game.contracts] == [("B", 2), ("C", 1), ("D", 1)]
    game = box_plays(game)  # the team's turn: B owns his cube, but it is at the maximum
    unchanged(game, lambda g: g.double(["B"]), CubeNotAvailable, "maximum of 2")
    assert game.double(["C"]).doubles_to_send == ("C",)  # C's cube, at 1, may still turn
    game = team_bears_off(game)
    # B's contract is played to the end at 2; C's and D's at 1.
    assert game.points_by_holder() == {"B": -2, "C": -1, "D": -1}


def test_h11_c1_the_box_doubles_only_the_cubes_below_the_maximum() -> None:
    # C doubles the box, which takes: C's cube at 2, the maximum, the box's to turn.
    game = table("BCD", MULTIPLE, members={6: 15}, on_roll=TEAM, cube_max=2).double(["C"])
    game = game.close_round().take()
    assert game.contract("C").value == 2 and game.contract("C").owner == BOX
    game = box_plays(game, (6, 5))  # the team's roll and play: the box is on roll
    assert (game.on_roll, game.phase) == (BOX, Phase.ROLL)
    # C's cube is at the maximum: the box's double goes to B and D only.
    doubled = game.double()
    assert doubled.awaiting == Awaiting(members=("B", "D"))
    unchanged(game, lambda g: g.double(["C"]), CubeNotAvailable, "maximum of 2")


def test_h11_c5_a_beaver_may_not_take_a_cube_past_the_maximum() -> None:
    game = table("BC", MULTIPLE, cube_max=2, beavers=True).double(["B"])
    unchanged(game, lambda g: g.beaver("B"), CubeNotAvailable, "past its maximum of 2")
    assert game.take("B").contract("B").value == 2


def test_h11_o2_the_maximum_cube_caps_the_automatic_doubles() -> None:
    game = Game.start(options("BC", automatic_doubles=3, cube_max=2), [(1, 1), (2, 2), (3, 1)])
    assert game.opening.auto_doubles == 1 and {c.value for c in game.contracts} == {2}


def at_position(game: Game, *, box: dict[int, int], members: dict[int, int]) -> Game:
    """``game`` (its cubes as they are) at a set position, the box to roll."""
    board = Position(board_from_points(box), board_from_points(members))
    return replace(game, board=board, phase=Phase.ROLL, dice=None, on_roll=BOX)


def test_s4_h7_the_captain_resigns_for_the_team_and_the_box_answers_each_contract() -> None:
    # C's cube at 2 (the box doubled C, who took); the team's turn, the box all home.
    game = table("BCD", box=BOX_HOME, jacoby=True).double(["C"]).take("C")
    game = box_plays(game)
    assert game.on_roll == TEAM
    game = game.resign("gammon")  # no member named: the captain, for the team
    offered = game.turn_no
    assert game.awaiting == Awaiting(box=True)
    assert {h: game.offered_at(h) for h in "BCD"} == dict.fromkeys("BCD", offered)
    unchanged(game, lambda g: g.accept_resign("E"), NotYourTurn, "no contract in the team's")
    game = game.accept_resign()  # the next in line: B's contract
    game = game.reject_resign("D")  # any contract, by name
    assert game.phase is Phase.RESIGN_OFFERED and game.offered_at("C") == offered
    game = game.accept_resign("C")
    # B and C settled at a gammon; D plays on as captain (H7), where the team stopped.
    assert (game.phase, game.on_roll, game.captain) == (Phase.ROLL, TEAM, "D")
    # B's cube never turned, Jacoby on: the gammon counts 1; C's turned at 2: 2 x 2.
    assert game.points_by_holder() == {"B": 1, "C": 4, "D": 0}
    assert game.history[-4:] == (
        Resign(Result.GAMMON, None),  # the team's, as the log keeps it
        AcceptResign("B"),
        RejectResign("D"),
        AcceptResign("C"),
    )
    # Not while the team's cube round has a double to send.
    open_round = table("BCD", on_roll=TEAM).double(["D"])
    unchanged(open_round, lambda g: g.resign("single"), NotYourTurn, "cube round is open")
