"""The practice robot's decisions at a chouette (docs/practice.md, "At a chouette"), with
the real engine on fixed races whose cube action the engine calls the same at 0-ply and
1-ply: as the box, each member's cube judged on its own; as a crew member, its own cube
only; as captain, the team's play and roll."""

from dataclasses import replace

import pytest

from analysis import robot_engine
from analysis.engine import Engine
from backgammon.game import Game, GameOptions, Phase
from backgammon.match import MatchState
from backgammon.notation import format_play
from backgammon.position import Position
from backgammon.team import BOX, TEAM, ChouetteRules, CubeMode
from tests.analysis.test_robot_engine import DOUBLE_PASS, DOUBLE_TAKE, NO_DOUBLE_BEAVER, board

LINE = ("cap", "crew")
STRENGTHS = ["intermediate", "expert"]


def ask(game: Game, seat: str | None, strength: str = "expert"):
    request = {
        "table": 9,
        "turn_no": game.turn_no,
        "strength": strength,
        "game": game.to_dict(),
        "match": MatchState().to_dict(),
        "seat": seat,
    }
    return robot_engine.decide(request)


def chouette(
    on_roll: int, race: tuple[dict, dict], *, cubes: CubeMode = CubeMode.MULTIPLE, **options
) -> Game:
    """A chouette before the roll of ``on_roll``, in ``race`` (its checkers first)."""
    rules = ChouetteRules(cubes=cubes)
    start = Game.start(GameOptions(holders=LINE, chouette=rules, **options), [(3, 1)])
    mine, theirs = board(race[0]), board(race[1])
    position = Position(mine, theirs) if on_roll == BOX else Position(theirs, mine)
    return replace(start, board=position, on_roll=on_roll, phase=Phase.ROLL, dice=None)


@pytest.mark.parametrize("strength", STRENGTHS)
def test_the_box_doubles_each_cube_it_may_and_rolls_in_a_weak_position(strength):
    assert ask(chouette(BOX, DOUBLE_PASS), None, strength) == {
        "act": "double",
        "to": ["cap", "crew"],
    }
    assert ask(chouette(BOX, NO_DOUBLE_BEAVER), None, strength) == {"act": "roll"}


def test_the_box_does_not_double_a_cube_the_member_owns():
    crew_took = chouette(BOX, DOUBLE_TAKE).double(["crew"]).take("crew")
    owned = replace(
        crew_took, phase=Phase.ROLL, doubled=False, board=chouette(BOX, DOUBLE_PASS).board
    )
    assert owned.contract("crew").owner == TEAM
    assert ask(owned, None) == {"act": "double", "to": ["cap"]}
    once = owned.double(["cap"]).take("cap")
    assert ask(once, None)["act"] == "roll"  # it doubled this turn


@pytest.mark.parametrize("strength", STRENGTHS)
def test_a_crew_member_answers_the_box_on_its_own_cube(strength):
    doubled = chouette(BOX, DOUBLE_PASS).double(["cap", "crew"])
    assert ask(doubled, "crew", strength) == {"act": "pass"}
    assert ask(chouette(BOX, DOUBLE_TAKE).double(), "crew", strength) == {"act": "take"}
    beavers = chouette(BOX, NO_DOUBLE_BEAVER, beavers=True).double()
    assert ask(beavers, "crew", strength) == {"act": "beaver"}
    single = chouette(BOX, NO_DOUBLE_BEAVER, beavers=True, cubes=CubeMode.SINGLE).double()
    assert ask(single, "crew", strength) == {"act": "take"}  # a beaver would split the cube


def test_a_member_answers_only_what_waits_on_its_own_cube():
    only_captain = chouette(BOX, DOUBLE_PASS).double(["cap"])
    assert ask(only_captain, "cap") == {"act": "pass"}
    assert ask(only_captain, "crew") == {"act": robot_engine.NOTHING}


@pytest.mark.parametrize("strength", STRENGTHS)
def test_a_crew_member_doubles_on_its_own_cube_or_does_nothing(strength):
    assert ask(chouette(TEAM, DOUBLE_PASS), "crew", strength) == {"act": "double"}
    assert ask(chouette(TEAM, DOUBLE_TAKE), "crew", strength) == {"act": "double"}
    weak = chouette(TEAM, NO_DOUBLE_BEAVER)
    assert ask(weak, "crew", strength) == {"act": robot_engine.NOTHING}
    doubled = chouette(TEAM, DOUBLE_PASS).double(["crew"])
    assert ask(doubled, "crew", strength) == {"act": robot_engine.NOTHING}  # once a round


def test_the_captain_doubles_then_rolls_and_plays_the_engines_best():
    game = chouette(TEAM, DOUBLE_TAKE)
    assert ask(game, "cap") == {"act": "double"}
    doubled = game.double(["cap"])
    assert ask(doubled, "cap") == {"act": "roll"}  # the roll sends the doubles
    assert ask(chouette(TEAM, NO_DOUBLE_BEAVER), "cap") == {"act": "roll"}
    rolled = chouette(TEAM, NO_DOUBLE_BEAVER).roll((6, 5))
    best = Engine(1).checker(rolled, MatchState(), rolled.contract("cap")).plays[0]
    assert ask(rolled, "cap") == {"act": "move", "play": format_play(best.steps)}
    assert ask(rolled, "crew") == {"act": robot_engine.NOTHING}


def test_one_team_cube_the_crew_proposes_and_the_captain_rolls():
    single = chouette(TEAM, DOUBLE_PASS, cubes=CubeMode.SINGLE)
    assert ask(single, "crew") == {"act": "double"}
    proposed = single.double(["crew"])
    assert ask(proposed, "crew") == {"act": robot_engine.NOTHING}  # it has proposed


@pytest.mark.parametrize("strength", STRENGTHS)
def test_the_box_answers_the_teams_doubles_in_line(strength):
    passed = chouette(TEAM, DOUBLE_PASS).double(["cap", "crew"])
    assert passed.phase is Phase.TAKE_OR_PASS
    assert ask(passed, None, strength) == {"act": "pass"}
    taken = chouette(TEAM, DOUBLE_TAKE).double(["cap", "crew"])
    assert ask(taken, None, strength) == {"act": "take"}


def test_the_box_keeps_same_value_same_action():
    """H9: the captain's double passed, the crew's of the same value must be passed too,
    whatever the engine would say of it alone."""
    rules = ChouetteRules(cubes=CubeMode.MULTIPLE, same_action=True)
    options = GameOptions(holders=LINE, chouette=rules)
    doubled = replace(chouette(TEAM, DOUBLE_TAKE), options=options).double(["cap", "crew"])
    assert ask(doubled, None) == {"act": "take"}
    captain_passed = doubled.pass_()
    assert ask(captain_passed, None) == {"act": "pass"}


def test_the_box_answers_a_resignation_per_contract():
    losing = chouette(TEAM, DOUBLE_PASS).resign("single")  # the team is winning
    assert ask(losing, None, "intermediate") == {"act": "accept_resign"}
    gammoned = chouette(TEAM, ({13: 10, 8: 5}, {1: 2})).resign("single")
    assert ask(gammoned, None, "intermediate") == {"act": "reject_resign"}


def test_a_member_answers_the_boxs_resignation_for_its_own_contract():
    losing = chouette(BOX, DOUBLE_PASS).resign("single")  # the box is winning
    assert losing.turn == TEAM and "crew" in losing.awaiting.members
    assert ask(losing, "crew", "intermediate") == {"act": "accept_resign"}
    gammoned = chouette(BOX, ({13: 10, 8: 5}, {1: 2})).resign("single")
    assert ask(gammoned, "crew", "intermediate") == {"act": "reject_resign"}
