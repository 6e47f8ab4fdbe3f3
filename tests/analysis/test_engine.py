"""The analysis module with the real engine (bgsage at 0-ply): marks, counted decisions, PR."""

import time

import pytest

from analysis.engine import Engine, TimeUp, Unsupported, analyse_game, analyse_match, engine_at
from analysis.marks import Decision, Kind, Mark, figures, mark_for
from analysis.selfplay import Player, best, play_match, worst
from backgammon.game import Game, GameOptions
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord, export_mat, import_mat
from backgammon.variants import Variants


@pytest.fixture(scope="module")
def engine():
    return Engine(0)


def opening(dice, play):
    """A money game's opening roll ``dice`` played as ``play``, and its state."""
    game = Game.start(GameOptions(), [dice]).play(play)
    return game, MatchState()


@pytest.mark.parametrize(
    "dice, play",
    [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7")],
)
def test_standard_opening_replies_are_best(engine, dice, play):
    game, state = opening(dice, play)
    (decision,) = analyse_game(engine, game, state)
    assert decision.kind is Kind.CHECKER
    assert decision.played == decision.best == play
    assert decision.loss == 0
    assert decision.mark is Mark.NONE
    assert decision.counted


def test_the_worst_play_is_a_blunder(engine):
    start = Game.start(GameOptions(), [(6, 1)])
    worst_play = engine.checker(start, MatchState()).plays[-1]
    game = start.play(worst_play)
    (decision,) = analyse_game(engine, game, MatchState())
    assert decision.best == "13/7 8/7"
    assert decision.played != decision.best
    assert decision.loss >= 0.16
    assert decision.mark is Mark.BLUNDER


def test_marks_follow_the_documented_thresholds():
    assert [mark_for(x) for x in (0.0, 0.039, 0.04, 0.079, 0.08, 0.159, 0.16, 1.0)] == [
        Mark.NONE,
        Mark.NONE,
        Mark.DOUBTFUL,
        Mark.DOUBTFUL,
        Mark.ERROR,
        Mark.ERROR,
        Mark.BLUNDER,
        Mark.BLUNDER,
    ]


def decision(side, kind, loss, counted=True):
    return Decision(
        move_number=1,
        side=side,
        kind=kind,
        played="x",
        best="y",
        played_equity=-loss,
        best_equity=0.0,
        counted=counted,
    )


def test_pr_arithmetic_on_a_hand_made_list():
    decisions = [
        decision(0, Kind.CHECKER, 0.0),
        decision(0, Kind.CHECKER, 0.05),
        decision(0, Kind.CHECKER, 0.2),
        decision(0, Kind.CUBE, 0.1),
        decision(0, Kind.CUBE, 0.0, counted=False),  # a clear no-double: not counted
        decision(1, Kind.CHECKER, 0.3),
    ]
    mine = figures(decisions, 0)
    assert (mine.checker_decisions, mine.cube_decisions, mine.decisions) == (3, 1, 4)
    assert mine.pr == pytest.approx(500 * 0.35 / 4)  # 43.75
    assert mine.checker_pr == pytest.approx(500 * 0.25 / 3)
    assert mine.cube_pr == pytest.approx(500 * 0.1 / 1)
    assert mine.blunders == 1
    theirs = figures(decisions, 1)
    assert theirs.pr == pytest.approx(150.0)
    assert theirs.cube_pr is None  # no cube decision: no cube PR


def test_best_against_worst(engine):
    record = play_match(engine, (Player("alice", best), Player("bob", worst)), 7, seed=3)
    games = analyse_match(engine, record)
    decisions = [d for game in games for d in game]
    alice, bob = figures(decisions, 0), figures(decisions, 1)
    assert alice.decisions > 10 and bob.decisions > 10
    assert alice.pr == pytest.approx(0, abs=1)
    assert bob.pr > 50
    assert bob.blunders > 0 and alice.blunders == 0
    assert any(d.kind is Kind.CUBE for d in decisions)


def test_a_mat_file_is_analysed_as_the_match_it_holds(engine):
    record = play_match(engine, (Player("alice", best), Player("bob", worst)), 3, seed=4)
    reread = import_mat(export_mat(record))
    assert analyse_match(engine, reread) == analyse_match(engine, record)


def test_progress_is_reported_after_each_game(engine):
    record = play_match(engine, (Player("alice", best), Player("bob", worst)), 3, seed=5)
    seen = []
    analyse_match(engine, record, lambda done, total: seen.append((done, total)))
    assert seen == [(i + 1, len(record.games)) for i in range(len(record.games))]


def test_only_standard_backgammon_is_analysed(engine):
    game = Game.start(GameOptions(variant=Variants.NACKGAMMON.value), [(3, 1)])
    record = MatchRecord(players=("a", "b"), start=MatchState(), games=(game,))
    with pytest.raises(Unsupported):
        analyse_match(engine, record)


def test_one_engine_a_depth_serves_a_run_within_its_limit_and_the_robot_without():
    """The process's engine at a depth is one (its networks loaded once); a run's soft
    limit holds inside ``until`` only, so the robot's moves after it meet none."""
    shared = engine_at(0)
    assert engine_at(0) is shared
    with shared.until(time.time() - 1) as limited, pytest.raises(TimeUp):
        limited.in_time()
    assert shared.deadline is None
    shared.in_time()
