"""A chouette game played through ``Game`` (H2, H4-H10, S4, C5, C6) and scored through
``backgammon.chouette`` as any recorded game is (H3, H6, H7).

The box is side 0, the team side 1; players are letters, the box first (``ABCDE``: box
A, captain B, crew C D E). Positions are written as ``{own point: checkers}`` for the box
and for the team, each in its own numbering; checkers not on the board are borne off.
Every expected figure is worked out by hand in the test, from the rule it proves.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.chouette import (
    BoardResult,
    ChouetteOptions,
    GameRecord,
    MemberResult,
    Outcome,
    Seating,
    Winner,
    record_game,
    score_game,
)
from backgammon.cube import CubeContract
from backgammon.errors import CubeNotAvailable, GameOver, InvalidGameRecord, NotYourTurn
from backgammon.game import (
    AcceptResign,
    CloseRound,
    Double,
    ForfeitReason,
    Game,
    GameOptions,
    NoMove,
    Pass,
    Phase,
    Resign,
    Result,
    Take,
    action_to_dict,
)
from backgammon.position import Position, board_from_points
from backgammon.team import BOX, TEAM, Awaiting, ChouetteRules, CubeMode
from backgammon.variants import Variants
from tests.backgammon.test_selfplay import BRISK, SLOW, check_score, random_game

MULTIPLE = ChouetteRules(CubeMode.MULTIPLE)
SINGLE = ChouetteRules(CubeMode.SINGLE)
# The box has borne off five: a team that bears off wins a single.
BOX_OFF = {6: 10}
# The box has borne off none, all in its home board: the team can win a gammon.
BOX_HOME = {6: 15}
# The team's last checker, on its own 1 point: a 2-1 bears it off.
TEAM_LAST = {1: 1}


def options(team: str, rules: ChouetteRules = MULTIPLE, **settings: Any) -> GameOptions:
    return GameOptions(holders=tuple(team), chouette=rules, **settings)


def table(
    team: str,
    rules: ChouetteRules = MULTIPLE,
    box: dict[int, int] | None = None,
    members: dict[int, int] | None = None,
    on_roll: int = BOX,
    **settings: Any,
) -> Game:
    """A chouette game at a set position, ``on_roll`` to roll (for rule tests only)."""
    game = Game.start(options(team, rules, **settings), [(3, 1)])
    board = Position(board_from_points(box or BOX_OFF), board_from_points(members or TEAM_LAST))
    return replace(game, board=board, phase=Phase.ROLL, dice=None, on_roll=on_roll)


def seat(order: str, game: Game) -> Seating:
    """The seating of ``order`` (box first) in a session with ``game``'s options."""
    settings = {"jacoby": game.options.jacoby, "backgammon_value": game.options.backgammon_value}
    return Seating.from_order(list(order), ChouetteOptions(**settings))


def scored(order: str, game: Game) -> tuple[dict[str, int], Seating]:
    """The points and the next seating of ``game`` played in ``order``, through the
    recorded form as an online game is scored."""
    seating = seat(order, game)
    result = score_game(seating, record_game(seating, game))
    return dict(result.points), result.next_seating


def seats(seating: Seating) -> tuple[str, str, str]:
    return seating.box, seating.captain, "".join(seating.line)


def team_bears_off(game: Game) -> Game:
    """The team rolls 2-1 and bears off its last checker."""
    return game.roll((2, 1)).play("1/off")


def box_plays(game: Game, dice: tuple[int, int] = (2, 1)) -> Game:
    """The box rolls ``dice`` and plays the first legal play."""
    game = game.roll(dice)
    return game.play(game.legal_plays()[0])


def unchanged(game: Game, action: Any, error: type[Exception], match: str | None = None) -> None:
    """``action(game)`` raises ``error`` (its message matching) and the game is as it was."""
    before = game.to_dict()
    with pytest.raises(error, match=match):
        action(game)
    assert game.to_dict() == before


# The worked examples of issue 9


def test_h8_worked_example_multiple_cubes_through_the_game() -> None:
    # Box A; team B (captain), C, D, E; multiple cubes, Jacoby off.
    game = table("BCDE")
    # The box doubles B and C to 2: each answers alone, with the turn_no of the double.
    game = game.double(["B", "C"])
    assert game.awaiting == Awaiting(members=("B", "C"))
    offered = game.offered_at("B")
    assert offered == game.offered_at("C") == game.turn_no
    game = game.pass_("B")
    assert game.offered_at("C") == offered  # B's answer did not make C's stale
    game = game.take("C")
    # B, the captain, passed and is out: C, the first in line who took, captains (H7).
    assert (game.phase, game.captain, game.live_holders) == (Phase.ROLL, "C", ("C", "D", "E"))
    game = box_plays(game, (6, 5))
    assert game.awaiting == Awaiting(members=("C",))
    # D doubles the box; the captain's roll sends D's double to the box, which passes.
    game = game.double(["D"])
    assert game.doubles_to_send == ("D",)
    unchanged(game, lambda g: g.roll((2, 1)), NotYourTurn, "go to the box before the roll")
    game = game.close_round()
    assert game.awaiting == Awaiting(box=True)
    game = game.pass_("D")
    # E plays on at 1; the team wins a single.
    game = team_bears_off(game)
    assert (game.winner, game.result) == (TEAM, Result.SINGLE)
    assert game.points_by_holder() == {"B": 1, "C": -2, "D": -1, "E": -1}
    points, following = scored("ABCDE", game)
    assert points == {"A": -3, "B": -1, "C": 2, "D": 1, "E": 1}
    # The box beat the original captain B (B passed), so it keeps the box (H3, H7).
    assert seats(following) == ("A", "C", "CDEB")


def test_h4_c6_worked_example_single_cube_jacoby_on_through_the_game() -> None:
    # 4 players, one team cube never turned; the box loses a gammon, which the Jacoby
    # rule counts single on each member's cube: each member +1, the box -3.
    game = table("BCD", SINGLE, box=BOX_HOME, on_roll=TEAM, jacoby=True)
    game = team_bears_off(game)
    assert (game.winner, game.result) == (TEAM, Result.GAMMON)
    assert {h: o.value for h, o in game.outcomes().items()} == dict.fromkeys("BCD", Result.GAMMON)
    points, following = scored("ABCD", game)
    assert points == {"A": -3, "B": 1, "C": 1, "D": 1}
    assert seats(following) == ("B", "C", "CDA")


# One team cube (H4)


def test_h4_the_teams_double_is_made_only_when_unanimous() -> None:
    game = table("BCD", SINGLE, on_roll=TEAM).double(["B"])
    # A proposal is not an offer: the cubes stay as they were, the box is not asked.
    assert game.phase is Phase.ROLL and game.team is not None and game.team.proposals == ("B",)
    assert all(c.pending is None for c in game.contracts)
    assert game.awaiting == Awaiting(members=("B",))
    unchanged(game, lambda g: g.double(["B"]), CubeNotAvailable, "B already proposed")
    unchanged(game, Game.close_round, CubeNotAvailable, "H4.*C, D did not propose it")
    # The captain's roll lets an unfinished proposal lapse.
    rolled = game.roll((6, 5))
    assert rolled.team is not None and rolled.team.proposals == ()
    # Once C and D propose too, the one team cube goes to the box.
    game = game.double(["D"]).double(["C"])
    assert game.phase is Phase.TAKE_OR_PASS and game.awaiting == Awaiting(box=True)
    assert [c.pending for c in game.contracts] == [TEAM, TEAM, TEAM]
    # The box answers the team's cube once: every member's cube turns together.
    taken = game.take()
    assert [(c.value, c.owner) for c in taken.contracts] == [(2, BOX)] * 3
    assert taken.history[-1] == Take("B")
    passed = game.pass_("C")
    assert (passed.result, passed.winner) == (Result.SETTLED, None)
    assert passed.points_by_holder() == dict.fromkeys("BCD", -1)


def test_h4_h5_the_box_doubles_every_member_each_answering_alone() -> None:
    game = table("BCD", SINGLE, beavers=True)
    unchanged(game, lambda g: g.double(["B"]), CubeNotAvailable, "H4.*every member")
    game = game.double()
    assert game.awaiting == Awaiting(members=("B", "C", "D"))
    unchanged(game, lambda g: g.beaver("B"), CubeNotAvailable, "beaver would split it")
    game = game.take("D").pass_("C").take("B")
    cubes = [(c.holder, c.value, c.owner, c.live) for c in game.contracts]
    assert cubes == [("B", 2, TEAM, True), ("C", 1, None, False), ("D", 2, TEAM, True)]
    # The cubes still in play turn together: the team's next double needs B and D.
    game = box_plays(game).double(["B"])
    assert game.phase is Phase.ROLL
    game = game.double(["D"])
    assert [c.pending for c in game.contracts] == [TEAM, None, TEAM]


# Multiple cubes (H8), line order (H10), same value same action (H9)


def test_h8_a_member_doubles_after_another_members_double_was_taken_in_the_same_turn() -> None:
    game = table("BCD", on_roll=TEAM).double(["B"]).close_round().take()
    assert (game.phase, game.on_roll, game.contract("B").owner) == (Phase.ROLL, TEAM, BOX)
    game = game.double(["C"])  # the same turn: one double per member, not per turn
    assert game.doubles_to_send == ("C",)
    game = game.close_round().pass_()
    assert game.outcomes()["C"].winner == TEAM
    game = game.roll((6, 5))
    assert game.phase is Phase.MOVE


def test_h8_h10_the_box_answers_the_teams_doubles_in_line_order() -> None:
    game = table("BCDE", on_roll=TEAM).double(["D"]).double(["B"])
    assert game.history[-2:] == (Double(("D",)), Double(("B",)))
    unchanged(game, lambda g: g.double(["D"]), CubeNotAvailable, "D has already doubled")
    game = game.close_round()
    assert game.history[-1] == CloseRound()
    assert game.offered_at("B") == game.offered_at("D") == game.turn_no
    unchanged(game, lambda g: g.take("D"), CubeNotAvailable, r"line order \(H10\): B's first")
    game = game.take()  # the next in line: B
    assert game.contract("B").owner == BOX and game.contract("D").pending == TEAM
    game = game.pass_("D")
    assert game.history[-2:] == (Take("B"), Pass("D"))
    assert game.points_by_holder() == {"B": 0, "C": 0, "D": -1, "E": 0}


def test_h8_the_round_closes_by_itself_when_nobody_else_could_double() -> None:
    game = table("BCD", on_roll=TEAM)
    boxed = tuple(CubeContract(h, 2, BOX, turned=True) for h in "CD")
    game = replace(game, contracts=(game.contracts[0], *boxed))
    # C and D's cubes are the box's: B's double goes to the box at once.
    game = game.double(["B"])
    assert game.phase is Phase.TAKE_OR_PASS and game.awaiting == Awaiting(box=True)


def h9_table(same_action: bool) -> Game:
    """The team to roll, B's cube centred, C's at 2 and D's at 4 (the team's), E at 1."""
    game = table("BCDE", ChouetteRules(CubeMode.MULTIPLE, same_action), on_roll=TEAM)
    cubes = (
        CubeContract("B"),
        CubeContract("C", 2, TEAM, turned=True),
        CubeContract("D", 4, TEAM, turned=True),
        CubeContract("E"),
    )
    return replace(game, contracts=cubes)


def test_h9_the_box_takes_at_least_half_of_the_doubles_or_passes_them_all() -> None:
    game = h9_table(same_action=True).double(["B", "C", "D"]).close_round()
    # Three doubles at 1, 2 and 4: at least two must be taken, or all three passed.
    after_take = game.take("B").pass_("C")
    unchanged(after_take, lambda g: g.pass_("D"), CubeNotAvailable, "at least half of the 3")
    assert after_take.take("D").phase is Phase.ROLL
    after_pass = game.pass_("B")
    assert after_pass.pass_("C").pass_("D").points_by_holder() == {
        "B": -1,
        "C": -2,
        "D": -4,
        "E": 0,
    }
    after_two = after_pass.take("C")
    unchanged(after_two, lambda g: g.pass_("D"), CubeNotAvailable, "at least half")


def test_h9_cubes_of_equal_value_get_the_same_answer() -> None:
    game = h9_table(same_action=True).double(["B", "E"]).close_round()
    unchanged(game.take("B"), lambda g: g.pass_("E"), CubeNotAvailable, "same value, same action")
    unchanged(game.pass_("B"), lambda g: g.take("E"), CubeNotAvailable, "must all be passed")
    assert game.take("B").take("E").phase is Phase.ROLL


def test_h9_is_off_by_default() -> None:
    game = h9_table(same_action=False).double(["B", "C", "D", "E"])  # all: sent at once
    game = game.take("B").pass_("C").pass_("D").pass_("E")
    assert game.points_by_holder() == {"B": 0, "C": -2, "D": -4, "E": -1}
    with pytest.raises(ValueError, match="H9"):
        ChouetteRules(CubeMode.SINGLE, same_action=True)


# Each member's answer (H5, H10) and the captain handing over (H7)


def test_h5_h10_each_member_answers_alone_and_answers_are_recorded_one_by_one() -> None:
    game = table("BCD", members={6: 10}).double()
    turn_no = game.turn_no
    unchanged(game, lambda g: g.take(), CubeNotAvailable, "name the member")
    game = game.take("D")
    assert game.awaiting == Awaiting(members=("B", "C"))
    assert game.offered_at("B") == game.offered_at("C") == turn_no and game.offered_at("D") is None
    unchanged(game, lambda g: g.take("D"), CubeNotAvailable, "no double waits")
    unchanged(game, lambda g: g.pass_("Z"), CubeNotAvailable, "no cube for 'Z'")
    game = game.pass_("B").take("C")
    assert game.history[-3:] == (Take("D"), Pass("B"), Take("C"))
    assert (game.phase, game.on_roll, game.captain) == (Phase.ROLL, BOX, "C")
    # The box doubles once a turn (and never a member who passed).
    unchanged(game, Game.double, CubeNotAvailable, "already doubled this turn")
    game = box_plays(box_plays(game))  # the team's turn, then the box's again
    unchanged(game, lambda g: g.double(["B"]), CubeNotAvailable, "passed and is out")


def test_h7_the_captain_passes_others_take_the_first_who_took_plays_on() -> None:
    # B passes the box's double, C and D take; C captains; the team wins a gammon on
    # cubes at 2 (turned, so Jacoby counts it): A -7, B -1, C +4, D +4. The box beat
    # the original captain B, so it keeps the box; C captains next, B goes to the end.
    game = table("BCD", box=BOX_HOME, jacoby=True).double().pass_("B").take("C").take("D")
    game = box_plays(game)
    assert game.awaiting == Awaiting(members=("C",))
    game = team_bears_off(game)
    assert game.outcomes()["B"].winner == BOX and game.outcomes()["C"].result is Result.GAMMON
    points, following = scored("ABCD", game)
    assert points == {"A": -7, "B": -1, "C": 4, "D": 4}
    assert seats(following) == ("A", "C", "CDB")


def test_h7_h3_the_box_passing_the_captains_double_hands_over_and_decides_the_rotation() -> None:
    # B doubles alone and the box passes: B has won 1 and is out; C captains. Then the
    # box wins a single against C and D at 1. The box beat everyone who played on, but
    # not the original captain: B takes the box (H3 reads B's result, H7).
    game = table("BCD", box={1: 1}, members={6: 10}, on_roll=TEAM)
    game = game.double(["B"]).close_round().pass_()
    assert (game.captain, game.awaiting) == ("C", Awaiting(members=("C",)))
    game = game.roll((6, 5))
    game = game.play(game.legal_plays()[0]).roll((2, 1)).play("1/off")
    assert (game.winner, game.result) == (BOX, Result.SINGLE)
    points, following = scored("ABCD", game)
    assert points == {"A": 1, "B": 1, "C": -1, "D": -1}
    assert seats(following) == ("B", "C", "CDA")


def test_h5_every_contract_passed_each_passers_result_stands() -> None:
    # B (captain) passes the box's double; later the box passes C's and D's doubles.
    # Every contract is settled, each on its own: no game-wide winner is taken from the
    # last answer, so B stays a loser although the box passed the others last.
    game = table("BCD").double(["B"]).pass_("B")
    game = box_plays(game).double(["C", "D"])
    assert game.phase is Phase.TAKE_OR_PASS  # nobody else could double: sent at once
    game = game.pass_().pass_()
    assert (game.phase, game.winner, game.result) == (Phase.OVER, None, Result.SETTLED)
    outcomes = game.outcomes()
    assert [(o.winner, o.result) for o in outcomes.values()] == [
        (BOX, Result.PASSED),
        (TEAM, Result.PASSED),
        (TEAM, Result.PASSED),
    ]
    record = record_game(seat("ABCD", game), game)
    assert [m.outcome for m in record.members] == [
        Outcome.PASSED,
        Outcome.BOX_PASSED,
        Outcome.BOX_PASSED,
    ]
    points, following = scored("ABCD", game)
    assert points == {"A": -1, "B": -1, "C": 1, "D": 1}
    assert seats(following) == ("A", "C", "CDB")
    unchanged(game, lambda g: g.roll((1, 2)), GameOver)


# Beavers (C5), gammons and backgammons (S2, S3, C6)


def test_c5_h8_beavers_each_on_its_own_cube() -> None:
    # The box doubles B and C: B beavers (B's cube at 4 once the box takes), C takes.
    # The team doubles D; the box beavers it and D passes, losing the 2 of the take.
    # The team wins a gammon, Jacoby off: B +8, C +4, D -2, the box -10.
    game = table("BCD", box=BOX_HOME, beavers=True).double(["B", "C"]).beaver("B")
    assert game.awaiting == Awaiting(box=True, members=("C",))
    assert game.offered_at("B") == game.turn_no != game.offered_at("C")
    game = game.take("C").take("B")
    assert [(c.value, c.owner) for c in game.contracts[:2]] == [(4, TEAM), (2, TEAM)]
    game = box_plays(game).double(["D"]).close_round().beaver()
    assert game.awaiting == Awaiting(members=("D",)) and game.contract("D").value == 2
    game = team_bears_off(game.pass_("D"))
    assert game.result is Result.GAMMON
    points, _ = scored("ABCD", game)
    assert points == {"A": -10, "B": 8, "C": 4, "D": -2}


@pytest.mark.parametrize(
    ("jacoby", "backgammon_value", "expected"),
    [
        (True, 3, {"A": -7, "B": 1, "C": 6}),
        (False, 3, {"A": -9, "B": 3, "C": 6}),
        (True, 2, {"A": -5, "B": 1, "C": 4}),
        (False, 2, {"A": -6, "B": 2, "C": 4}),
    ],
)
def test_s3_c6_h6_a_backgammon_per_cube_with_jacoby_on_and_off(
    jacoby: bool, backgammon_value: int, expected: dict[str, int]
) -> None:
    # The box is left with a checker in the team's home board: a backgammon. B's cube
    # was never turned (Jacoby counts B's single); C took the box's double at 1.
    box = {6: 14, 19: 1}
    settings = {"jacoby": jacoby, "backgammon_value": backgammon_value}
    game = table("BC", box=box, **settings).double(["C"]).take("C")
    game = team_bears_off(game.roll((1, 1)).play("6/5(4)"))
    assert game.result is Result.BACKGAMMON
    points, _ = scored("ABC", game)
    assert points == expected


# Resignations (S4), per contract


def test_s4_h5_the_box_resigns_and_each_member_answers_for_their_own_contract() -> None:
    game = table("BCD").resign("gammon")
    assert game.awaiting == Awaiting(members=("B", "C", "D"))
    assert {game.offered_at(h) for h in "BCD"} == {game.turn_no}
    unchanged(game, Game.accept_resign, NotYourTurn, "name the member")
    game = game.accept_resign("B").reject_resign("C")
    unchanged(game, lambda g: g.accept_resign("C"), NotYourTurn, "'C' owes no answer")
    game = game.accept_resign("D")
    # B and D are settled at a gammon; C plays on, now as captain (B is out).
    assert (game.phase, game.on_roll, game.live_holders, game.captain) == (
        Phase.ROLL,
        BOX,
        ("C",),
        "C",
    )
    assert game.points_by_holder() == {"B": -2, "C": 0, "D": -2}
    game = team_bears_off(box_plays(game))
    record = record_game(seat("ABCD", game), game)
    assert record.members[0] == MemberResult(
        "B", 1, Outcome.PLAYED, False, Winner.TEAM, BoardResult.GAMMON
    )
    points, following = scored("ABCD", game)
    assert points == {"A": -5, "B": 2, "C": 1, "D": 2}
    assert seats(following) == ("B", "C", "CDA")


def test_s4_a_member_resigns_their_own_contract_the_captain_too() -> None:
    game = table("BCD", on_roll=TEAM).resign("single", "C")
    assert game.awaiting == Awaiting(box=True)
    unchanged(game, lambda g: g.accept_resign("D"), NotYourTurn, "C's resignation, not D's")
    refused = game.reject_resign()
    assert (refused.phase, refused.live_holders) == (Phase.ROLL, ("B", "C", "D"))
    game = game.accept_resign()
    assert game.history[-1] == AcceptResign("C") and game.live_holders == ("B", "D")
    unchanged(game, lambda g: g.resign("single", "C"), NotYourTurn, "C is out")
    # The captain resigns his own contract only (a gammon): D plays on as captain.
    game = game.roll((6, 5)).resign("gammon", "B").accept_resign()
    assert (game.phase, game.captain) == (Phase.MOVE, "D")
    assert game.points_by_holder() == {"B": 2, "C": 1, "D": 0}
    assert game.outcomes()["B"].value is Result.GAMMON
    # Not while the team's cube round has a double to send.
    open_round = table("BCD", on_roll=TEAM).double(["D"])
    unchanged(open_round, lambda g: g.resign("single", "B"), NotYourTurn, "cube round is open")


def test_s4_every_contract_resigned_ends_the_game() -> None:
    game = table("BC", jacoby=True).resign("gammon").accept_resign("C").accept_resign()
    assert (game.phase, game.winner, game.result) == (Phase.OVER, None, Result.SETTLED)
    # Jacoby on and the cubes never turned: each gammon counts single (C6).
    assert game.points_by_holder() == {"B": -1, "C": -1}
    assert scored("ABC", game)[0] == {"A": -2, "B": 1, "C": 1}


# Who acts (H2), the forfeit, bad input


def test_h2_the_captain_alone_is_awaited_to_roll_and_move() -> None:
    game = table("BCD", on_roll=TEAM)
    assert game.awaiting == Awaiting(members=("B",))
    # A crew member's double in the round does not make the crew awaited.
    game = game.double(["C"])
    assert game.awaiting == Awaiting(members=("B",))
    game = game.close_round().take().roll((6, 5))
    assert game.phase is Phase.MOVE and game.awaiting == Awaiting(members=("B",))


def test_a_forfeit_ends_every_live_contract_at_its_cost() -> None:
    # The box doubles B and C; B passes; the box's clock runs out while C thinks: C's
    # double lapses, C and D win at the forfeit's cost, B's pass stands.
    game = table("BCD", box=BOX_OFF).double(["B", "C"]).pass_("B")
    game = game.forfeit(BOX, ForfeitReason.TIMEOUT)
    assert (game.winner, game.result, game.resignation) == (TEAM, Result.FORFEIT, Result.SINGLE)
    assert game.points_by_holder() == {"B": 1, "C": -1, "D": -1}
    assert game.team is not None and game.team.offered_at == ()
    record = record_game(seat("ABCD", game), game)
    assert (record.winner, record.result) == (Winner.TEAM, BoardResult.SINGLE)


def test_chouette_options_are_checked() -> None:
    with pytest.raises(ValueError, match="one cube"):
        GameOptions(holders=("B", "C"))
    with pytest.raises(ValueError, match="two members or more"):
        GameOptions(holders=("B",), chouette=MULTIPLE)
    with pytest.raises(ValueError, match="money play at backgammon"):
        GameOptions(holders=("B", "C"), chouette=MULTIPLE, variant=Variants.PLAKOTO.value)
    with pytest.raises(ValueError, match="money play at backgammon"):
        GameOptions(holders=("B", "C"), chouette=MULTIPLE, crawford=True)
    with pytest.raises(ValueError, match="CubeMode"):
        ChouetteRules("single")  # type: ignore[arg-type]


def test_refusals_in_a_chouette_change_nothing() -> None:
    game = table("BCD", on_roll=TEAM)
    unchanged(game, Game.close_round, CubeNotAvailable, "no double waits")
    unchanged(game, lambda g: g.double([]), CubeNotAvailable, "at least one")
    unchanged(game.roll((6, 5)), Game.double, CubeNotAvailable, "before rolling")
    unchanged(game, lambda g: g.take("B"), NotYourTurn, "no double to answer")
    unchanged(game.double(["B"]), lambda g: g.take("B"), NotYourTurn, "no double to answer")
    unchanged(table("BCD"), Game.close_round, NotYourTurn, "team has a cube round")
    match = Game.start(GameOptions(), [(3, 1)])
    unchanged(match, lambda g: g.resign("single", "B"), ValueError, "chouette")
    unchanged(match.resign("single"), lambda g: g.accept_resign(0), ValueError, "chouette")
    with pytest.raises(InvalidGameRecord, match="not a chouette"):
        record_game(seat("ABC", match), match)
    with pytest.raises(InvalidGameRecord, match="not over"):
        record_game(seat("ABCD", game), game)
    with pytest.raises(InvalidGameRecord, match="not the line"):
        record_game(seat("ADCB", game), game)
    jacoby_off = Seating.from_order(list("ABCD"), ChouetteOptions(jacoby=False))
    with pytest.raises(InvalidGameRecord, match="options are not the session's"):
        record_game(jacoby_off, table("BCD", jacoby=True))


# The recorded form: a member's own end


def test_h6_a_members_own_winner_and_result_in_the_recorded_form() -> None:
    data = {
        "winner": "team",
        "result": "single",
        "members": [
            {"player": "B", "stake": 2, "outcome": "played", "winner": "box", "result": "gammon"},
            {"player": "C", "stake": 1, "outcome": "played"},
        ],
    }
    record = GameRecord.from_dict(data)
    assert record.members[0] == MemberResult(
        "B", 2, Outcome.PLAYED, True, Winner.BOX, BoardResult.GAMMON
    )
    assert GameRecord.from_dict(record.to_dict()) == record
    # B resigned a gammon on a turned cube at 2: -4; C won a single: +1.
    jacoby = Seating.from_order(list("ABC"), ChouetteOptions(jacoby=True))
    assert dict(score_game(jacoby, record).points) == {"A": 3, "B": -4, "C": 1}
    lone = {**data, "members": [{"player": "B", "stake": 1, "outcome": "played", "winner": "box"}]}
    with pytest.raises(InvalidGameRecord, match="winner and result go together"):
        GameRecord.from_dict(lone)
    passed = {
        **data,
        "members": [
            {"player": "B", "stake": 1, "outcome": "passed", "winner": "box", "result": "single"}
        ],
    }
    with pytest.raises(InvalidGameRecord, match="only when played"):
        GameRecord.from_dict(passed)


# A match keeps its format; serialization and replay


def test_a_match_keeps_its_snapshot_and_history_format() -> None:
    game = Game.start(GameOptions(), [(3, 1)]).play("8/5 6/5").resign("single")
    data = game.to_dict()
    assert "team" not in data and "chouette" not in data["options"]
    assert [action_to_dict(a) for a in game.history] == [
        {"type": "move", "steps": [[8, 5, False], [6, 5, False]]},
        {"type": "resign", "value": "single"},
    ]
    assert action_to_dict(game.accept_resign().history[-1]) == {"type": "accept_resign"}
    assert action_to_dict(Resign(Result.GAMMON, "B")) == {
        "type": "resign",
        "value": "gammon",
        "holder": "B",
    }


def test_a_chouette_game_replays_and_round_trips_mid_game() -> None:
    game = Game.start(options("BCD", jacoby=True, beavers=True), [(3, 1)]).play("8/5 6/5")
    game = game.double(["C"]).close_round().beaver().take("C").roll((6, 4)).play("24/14")
    game = game.resign("single").accept_resign("B")
    assert game.phase is Phase.RESIGN_OFFERED and game.team is not None
    assert Game.replay(game.options, game.opening, game.history) == game
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    assert game.compact() == game  # nothing to fold; the accepted resignation stays


# Random chouette games


@st.composite
def chouette_options(draw: st.DrawFn) -> GameOptions:
    cubes = draw(st.sampled_from(list(CubeMode)))
    same_action = cubes is CubeMode.MULTIPLE and draw(st.booleans())
    return GameOptions(
        holders=tuple(draw(st.permutations("BCDEFG")))[: draw(st.integers(2, 5))],
        chouette=ChouetteRules(cubes, same_action),
        jacoby=draw(st.booleans()),
        beavers=draw(st.booleans()),
        automatic_doubles=draw(st.integers(0, 1)),
        backgammon_value=draw(st.sampled_from([2, 3])),
        cube_max=draw(st.sampled_from([None, 8, 64])),
    )


@settings(max_examples=60, deadline=None)
@given(chouette_options(), st.integers(0, 2**32), st.booleans(), st.integers(0, 400))
def test_h5_h6_h8_random_chouette_games_settle_sum_to_zero_and_replay(
    options: GameOptions, seed: int, slow: bool, forfeit_after: int
) -> None:
    rng = random.Random(seed)
    game = random_game(rng, options, SLOW if slow else BRISK)
    check_score(game)  # over, and every contract's points fit its outcome
    assert set(game.outcomes()) == set(options.holders)
    assert Game.replay(game.options, game.opening, game.history) == game
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    order = ("A", *options.holders)
    seating = Seating.from_order(
        order,
        ChouetteOptions(
            jacoby=options.jacoby, backgammon_value=options.backgammon_value, partner_from=None
        ),
    )
    points = dict(score_game(seating, record_game(seating, game)).points)
    assert sum(points.values()) == 0
    assert points["A"] == game.points_for(BOX) == -sum(points[h] for h in options.holders)
    assert {h: points[h] for h in options.holders} == {
        h: -p for h, p in game.points_by_holder().items()
    }
    # Cut short anywhere by a forfeit, the game still settles every contract.
    cut_at = min(forfeit_after, len(game.history))
    cut_at += cut_at < len(game.history) and isinstance(game.history[cut_at], NoMove)
    cut = Game.replay(options, game.opening, game.history[:cut_at])
    if not cut.over:
        ended = cut.forfeit(rng.randint(0, 1), ForfeitReason.ABANDONED)
        check_score(ended)
        assert set(ended.outcomes()) == set(options.holders)
