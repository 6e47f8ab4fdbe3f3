"""A game of each tavli variant is a ``Game`` like any other: opening (TV2), no cube
(TV1, AD7), scores (TV4, PL5, AD7), resignation (TM3), gul bara's run (GB2, GB3),
acey-deucey's 1-2 (AD4, AD5), step by step (T3), replay and serialization."""

from __future__ import annotations

import dataclasses

import pytest

from backgammon.errors import CubeNotAvailable, IllegalPlay
from backgammon.game import Game, GameOptions, Opening, Phase, Result
from backgammon.tavli.board import TavliBoard
from backgammon.tavli.rules import ACEY_DEUCEY, FEVGA, GULBARA, PLAKOTO, PORTES
from backgammon.variants import Variants
from tests.backgammon.tavli_helpers import diagram
from tests.backgammon.test_tavli_plays import PIN_WINS_WITH_A_DIE_LEFT

TAVLI = [Variants.PORTES, Variants.PLAKOTO, Variants.FEVGA, Variants.GULBARA, Variants.ACEY_DEUCEY]


def options(variant: Variants, **rules_options: object) -> GameOptions:
    return GameOptions(variant=variant.value.with_options(rules_options))


def at(game: Game, board: TavliBoard, side: int = 0) -> Game:
    """``game`` with ``board`` (drawn from ``side``'s view), ``side`` to roll."""
    return dataclasses.replace(game, board=board if side == 0 else board.mirror(), on_roll=side)


@pytest.mark.parametrize("variant", TAVLI, ids=lambda v: v.value.name)
def test_tv1_there_is_no_cube(variant):
    game = Game.start(options(variant), [(2, 5)])
    with pytest.raises(CubeNotAvailable, match=r"TV1|AD7"):
        game.double()
    with pytest.raises(CubeNotAvailable):
        game.take()
    assert game.cube.value == 1


@pytest.mark.parametrize("variant", TAVLI, ids=lambda v: v.value.name)
def test_tv2_higher_die_starts_and_rolls_both_dice_afresh(variant):
    game = Game.start(options(variant), [(4, 4), (2, 5)])
    assert (game.on_roll, game.phase, game.dice) == (1, Phase.ROLL, None)
    game = game.roll((6, 6))  # a double is possible on the first move
    assert game.phase is Phase.MOVE and game.on_roll == 1 and game.dice == (6, 6)
    later = Game.start(options(variant), Opening.winner_starts(0))
    assert (later.on_roll, later.phase) == (0, Phase.ROLL)
    assert Game.from_dict(later.to_dict()) == later


def test_tv3_illegal_play_in_a_game_names_its_rule():
    game = Game.start(options(Variants.FEVGA), [(5, 2)]).roll((6, 6))
    assert [p.steps for p in game.legal_plays()] == [((24, 18, False),)]
    with pytest.raises(IllegalPlay) as caught:
        game.play("24/18(2)")
    assert caught.value.reason == IllegalPlay.RUNNER_FIRST
    assert game.play("24/18").phase is Phase.ROLL


# X bears off its last checker; O, home, has borne off one (a single) or none (mars).
LAST = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1
    O:   .  .  .  .  .  . {o} .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
"""


@pytest.mark.parametrize(
    ("o", "result", "points"), [(14, Result.SINGLE, 1), (15, Result.GAMMON, 2)]
)
def test_tv4_a_win_scores_one_or_two_when_the_loser_bore_off_none(o, result, points):
    start = Game.start(options(Variants.FEVGA), [(5, 2)])
    game = at(start, diagram(FEVGA, LAST.replace("{o}", f"{o:>2}"))).roll((3, 1))
    game = game.play("1/off")
    assert game.over and game.winner == 0 and game.result is result
    assert game.points_for(0) == points


def test_pl5_mother_pinned_loses_two_points_at_once():
    board = diagram(
        PLAKOTO,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  13 .  .  1  .  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14 .  .  .  .  .  .  1
        """,
    )
    game = at(Game.start(options(Variants.PLAKOTO), [(5, 2)]), board).roll((2, 2))
    game = game.play("6/4(3) 3/1*")
    assert game.over and game.result is Result.MOTHER and game.winner == 0
    assert game.points_for(0) == 2 and game.points_for(1) == -2


def test_pl5_both_mothers_pinned_is_a_draw():
    # O pinned X's mother (X's 24) while O still had checkers on its own 24 (X's 1);
    # now X pins O's last one there.
    board = diagram(
        PLAKOTO,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   1p .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  13 .  .  1  .  .
    O:   1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  13 .  .  .  .  .  .  1
        """,
    )
    game = at(Game.start(options(Variants.PLAKOTO), [(5, 2)]), board).roll((2, 1))
    game = game.play("6/5 3/1*")
    assert game.over and game.result is Result.DRAW and game.winner is None
    assert game.points_for(0) == game.points_for(1) == 0


def test_pl5_the_step_that_pins_the_mother_ends_the_game_with_a_die_left():
    # Step by step: 6/1 pins O's mother with the 5 and nothing follows it, the 6 unplayed
    # (issue 22's position); confirmed, the game is over, 2 points.
    board = PLAKOTO.board_from_json(PIN_WINS_WITH_A_DIE_LEFT)
    game = at(Game.start(options(Variants.PLAKOTO), [(5, 2)]), board).roll((6, 5))
    pinned = game.move_step(6, 5)
    with pytest.raises(IllegalPlay):
        pinned.move_step(18, 6)
    over = pinned.confirm()
    assert over.over and over.result is Result.MOTHER and over.winner == 0
    assert over.points_for(0) == 2
    assert game.play("6/1*").result is Result.MOTHER  # the whole play, as the API sends it
    assert not game.play("18/13/7*").over  # and the play of both dice stays legal


def test_pl5_a_game_stored_before_the_judgement_at_once_replays_as_it_was_played():
    # A stored game's options without ``mother_at_once`` are an old game's: judged at
    # the end of the turn, the pin with a die left is not a play; its dict is unchanged.
    board = PLAKOTO.board_from_json(PIN_WINS_WITH_A_DIE_LEFT)
    new = Game.start(options(Variants.PLAKOTO), [(5, 2)])
    stored = new.to_dict()
    assert stored["options"]["variant_options"] == {"mother_at_once": True}
    del stored["options"]["variant_options"]
    old = Game.from_dict(stored)
    assert old.options.variant.rules.mother_at_once is False
    assert old.to_dict() == stored
    with pytest.raises(IllegalPlay):
        at(old, board).roll((6, 5)).play("6/1*")
    assert not at(old, board).roll((6, 5)).play("18/13/7*").over


RUN = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14
    O:   .  .  .  .  .  .  .  .  .  .  .  .  15 .  .  .  .  .  .  .  .  .  .  .
"""


def test_gb2_gb3_rest_of_a_blocked_run_passes_to_the_opponent():
    # X's fourth roll, 4-4: four 4s, then four 5s and four 6s. 20/16, then 16/12 is O's:
    # the rest (three 4s, the 5s, the 6s) passes to O, who plays it, then rolls.
    board = diagram(GULBARA, RUN, roll=3)
    game = at(Game.start(options(Variants.GULBARA), [(5, 2)]), board).roll((4, 4))
    assert game.remaining_dice == (4, 4, 4, 4)
    game = game.play("20/16")
    assert (game.on_roll, game.phase, game.remaining_dice) == (1, Phase.MOVE, (4, 4, 4))
    assert game.position_for(0).mine.roll == 4 and game.position_for(1).mine.roll == 0
    game = game.play("24/20(3)")  # O's 4s, from its 24 (X's 12)
    assert (game.on_roll, game.remaining_dice) == (1, (5, 5, 5, 5))
    game = game.play("24/19(4)")
    assert game.remaining_dice == (6, 6, 6, 6)
    game = game.play("24/18(4)")
    assert (game.on_roll, game.phase) == (1, Phase.ROLL)  # O now rolls his own turn
    assert Game.from_dict(game.to_dict()) == game


def test_gb3_option_rest_of_a_run_is_lost():
    board = diagram(GULBARA, RUN, roll=3)
    start = Game.start(options(Variants.GULBARA, run_rest="lost"), [(5, 2)])
    game = at(start, board).roll((4, 4)).play("20/16")
    assert (game.on_roll, game.phase) == (1, Phase.ROLL)
    assert GameOptions.from_dict(game.options.to_dict()) == game.options


def test_gb2_no_run_before_the_fourth_roll():
    board = diagram(GULBARA, RUN, roll=2)
    game = at(Game.start(options(Variants.GULBARA), [(5, 2)]), board).roll((1, 1))
    game = game.play("20/16")
    assert (game.on_roll, game.phase) == (1, Phase.ROLL)


def test_ad4_one_two_then_a_named_double_then_a_new_roll():
    game = Game.start(options(Variants.ACEY_DEUCEY), [(5, 2)]).roll((1, 2))
    game = game.play("bar/24 bar/23")
    assert game.awaiting_double and game.legal_plays() == []
    with pytest.raises(IllegalPlay) as caught:
        game.play("bar/19")
    assert caught.value.reason == IllegalPlay.DOUBLE_NOT_NAMED
    game = game.name_double(6)
    assert game.remaining_dice == (6, 6, 6, 6)
    game = game.play("bar/19(4)")
    assert (game.on_roll, game.phase) == (0, Phase.ROLL)  # rolls again
    assert game.position_for(0).mine.waiting == 9
    assert Game.replay(game.options, game.opening, game.history) == game
    assert Game.from_dict(game.to_dict()) == game


def test_ad4_one_two_not_played_in_full_loses_the_double_and_the_roll():
    board = diagram(
        ACEY_DEUCEY,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar wait
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  15
    O:   2  .  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  11
        """,
    )
    # X's 24 and 22 held: bar/23 only, and then no 1 (23/22 held, 24 held).
    game = at(Game.start(options(Variants.ACEY_DEUCEY), [(5, 2)]), board).roll((2, 1))
    assert [p.dice_used for p in game.legal_plays()] == [(2,)]
    game = game.play("bar/23")
    assert (game.on_roll, game.phase) == (1, Phase.ROLL)


def test_ad5_option_a_double_played_in_full_rolls_again():
    plain = Game.start(options(Variants.ACEY_DEUCEY), [(2, 5)]).roll((3, 3)).play("bar/22(4)")
    assert (plain.on_roll, plain.phase) == (0, Phase.ROLL)
    again = Game.start(options(Variants.ACEY_DEUCEY, double_earns_roll=True), [(2, 5)])
    again = again.roll((3, 3)).play("bar/22(4)")
    assert (again.on_roll, again.phase) == (1, Phase.ROLL)


def test_ad7_the_loser_pays_a_point_for_each_checker_left():
    board = diagram(
        ACEY_DEUCEY,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar wait
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  7
        """,
    )
    game = at(Game.start(options(Variants.ACEY_DEUCEY), [(5, 2)]), board).roll((3, 1))
    game = game.play("2/off")
    assert game.result is Result.CHECKERS and game.points_for(0) == 7


def test_tm3_resign_for_one_or_for_two_while_nothing_is_borne_off():
    game = Game.start(options(Variants.PLAKOTO), [(5, 2)])
    with pytest.raises(ValueError, match="no backgammon"):
        game.resign(Result.BACKGAMMON)
    resigned = game.resign(Result.GAMMON).accept_resign()
    assert resigned.points_for(1) == 2 and resigned.winner == 1
    board = diagram(FEVGA, LAST.replace("{o}", "14"))
    home = at(Game.start(options(Variants.FEVGA), [(5, 2)]), board)
    with pytest.raises(ValueError, match="TM3"):
        home.resign(Result.GAMMON)
    assert home.resign(Result.SINGLE).accept_resign().points_for(1) == 1


def test_t3_steps_undo_and_confirm_in_plakoto():
    game = Game.start(options(Variants.PLAKOTO), [(5, 2)]).roll((6, 5))
    stepped = game.move_step(24, 6)
    assert stepped.pending_steps == ((24, 18, False),)
    assert stepped.undo().pending == ()
    with pytest.raises(IllegalPlay, match="M5"):
        stepped.confirm()
    done = stepped.move_step(18, 5).confirm()
    assert done.on_roll == 1 and done.position_for(0).mine.points[13] == 1
    assert done.compact().history == (*game.history, game.play("24/18 18/13").history[-1])


@pytest.mark.parametrize(
    "rules", [PORTES, PLAKOTO, FEVGA, GULBARA, ACEY_DEUCEY], ids=lambda r: r.name
)
def test_tv_board_of_a_game_is_the_variants(rules):
    game = Game.start(GameOptions(variant=Variants.by_name(rules.name)), [(5, 2)])
    assert game.position == rules.start_board()


@pytest.mark.parametrize(("variant", "points"), [(Variants.FEVGA, 2), (Variants.ACEY_DEUCEY, 15)])
def test_tm3_a_forfeit_costs_what_a_resignation_would(variant, points):
    game = Game.start(options(variant), [(5, 2)]).roll((3, 1))
    lost = game.forfeit(0, "timeout")
    assert lost.over and lost.winner == 1 and lost.points_for(1) == points
