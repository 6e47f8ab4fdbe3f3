"""A chouette game judged per member with the real engine (bgsage at 0-ply): the box's
and the team's checker plays, and every cube decision on each member's own cube
(docs/analysis.md, "Chouettes")."""

from dataclasses import replace

import pytest

from analysis.engine import Engine, Unsupported, analyse_chouette_game
from analysis.marks import Kind, Mark, figures
from backgammon.game import Game, GameOptions, Phase
from backgammon.position import Position, board_from_points
from backgammon.team import BOX, TEAM, ChouetteRules, CubeMode

OPTIONS = GameOptions(holders=("B", "C", "D"), chouette=ChouetteRules(CubeMode.MULTIPLE))


@pytest.fixture(scope="module")
def engine():
    return Engine(0)


def at(box, team, on_roll):
    """A chouette game at a set position (each side's points in its own numbering),
    ``on_roll`` to roll, with nothing in its history yet."""
    game = Game.start(OPTIONS, [(3, 1)])
    board = Position(board_from_points(box), board_from_points(team))
    return replace(game, board=board, phase=Phase.ROLL, dice=None, on_roll=on_roll, history=())


def test_a_member_who_takes_a_clear_pass_is_marked_and_one_who_passes_is_not(engine):
    # The box's last two checkers on its 1 point: any roll wins; the team has borne off
    # five, so no gammon: double and pass.
    start = at({1: 2}, {6: 10}, BOX)
    game = start.double().take("B").pass_("C").pass_("D")
    decisions = analyse_chouette_game(engine, start, game.history)
    answers = {d.holder: d for d in decisions if d.side == TEAM}
    assert {h: (d.played, d.best) for h, d in answers.items()} == {
        "B": ("take", "pass"),
        "C": ("pass", "pass"),
        "D": ("pass", "pass"),
    }
    assert answers["B"].mark is Mark.BLUNDER and answers["B"].loss > 0.9
    assert answers["C"].mark is Mark.NONE and answers["D"].mark is Mark.NONE
    # Each member's own cube PR; the box judged once per member's cube.
    b, c = figures(decisions, TEAM, "B"), figures(decisions, TEAM, "C")
    assert b.cube_decisions == c.cube_decisions == 1
    assert b.cube_pr > 450 and c.cube_pr == 0
    box = figures(decisions, BOX)
    assert box.cube_decisions == 3 and box.blunders == 0
    assert all(d.kind is Kind.CUBE for d in decisions)


def test_members_doubling_the_box_are_judged_on_their_own_cubes(engine):
    # The team's last two checkers on its 1 point: each member should double; the box
    # should pass.
    start = at({6: 10}, {1: 2}, TEAM)
    game = start.double(["B"]).close_round().pass_("B")
    decisions = analyse_chouette_game(engine, start, game.history)
    by = {(d.side, d.holder, d.played) for d in decisions}
    assert by == {
        (TEAM, "B", "double"),
        (BOX, "B", "pass"),
        (TEAM, "C", "no double"),
        (TEAM, "D", "no double"),
    }
    # Not doubling a position that wins for sure loses nothing here (the box would
    # pass): the members who held back are not marked.
    assert all(d.mark is Mark.NONE for d in decisions)


def test_the_team_s_checker_play_is_its_captain_s(engine):
    start = Game.start(OPTIONS, [(3, 1)])
    game = start.play("8/5 6/5")
    (decision,) = analyse_chouette_game(engine, start, game.history)
    assert decision.kind is Kind.CHECKER and decision.played == decision.best == "8/5 6/5"
    assert decision.holder == (None if start.on_roll == BOX else "B")


def test_only_a_chouette_game_is_judged_as_one(engine):
    start = Game.start(GameOptions(), [(3, 1)])
    with pytest.raises(Unsupported):
        analyse_chouette_game(engine, start, ())
