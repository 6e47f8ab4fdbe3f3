"""The game state machine: opening, turns, T3 steps, cube, resignation, scoring.

Positions are written as ``{own point: checkers}`` for the side on roll and for its
opponent, each in its own numbering (25: the bar), as in ``board_from_points``.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from backgammon.cube import CubeContract, CubeState
from backgammon.dice import DiceStream
from backgammon.errors import (
    CubeNotAvailable,
    GameOver,
    IllegalPlay,
    InvalidDice,
    NotYourTurn,
)
from backgammon.game import (
    Confirm,
    Game,
    GameOptions,
    MoveStep,
    NoMove,
    Opening,
    Phase,
    Result,
    Roll,
    Undo,
)
from backgammon.position import Position, board_from_points
from backgammon.team import ChouetteRules, CubeMode
from backgammon.variants import STANDARD

MONEY = GameOptions()


def at(
    mover: dict[int, int],
    other: dict[int, int],
    options: GameOptions = MONEY,
    cube: CubeContract | None = None,
) -> Game:
    """A game in the roll phase of side 0 at a set position (for rule tests only)."""
    game = Game.start(options, [(3, 1)])
    contracts = (cube,) if cube else game.contracts
    return replace(
        game,
        board=Position(board_from_points(mover), board_from_points(other)),
        phase=Phase.ROLL,
        dice=None,
        contracts=contracts,
    )


def unchanged(game: Game, action, error: type[Exception]) -> None:
    """``action(game)`` raises ``error`` and the game is as it was."""
    before = game.to_dict()
    with pytest.raises(error):
        action(game)
    assert game.to_dict() == before


def opened() -> Game:
    """Side 0 opened with 3-1 and played 8/5 6/5; side 1 to roll."""
    return Game.start(MONEY, [(3, 1)]).play("8/5 6/5")


# Opening (O1-O3)


def test_o1_higher_die_moves_first_playing_both_dice() -> None:
    game = Game.start(MONEY, [(3, 1)])
    assert (game.phase, game.turn, game.dice) == (Phase.MOVE, 0, (3, 1))
    game = Game.start(MONEY, [(2, 5)])
    assert (game.phase, game.turn, game.dice) == (Phase.MOVE, 1, (5, 2))
    assert game.position == STANDARD.start()
    assert len(game.legal_plays()) > 1


def test_o1_ties_are_rolled_again() -> None:
    game = Game.start(MONEY, [(4, 4), (2, 2), (6, 1)])
    assert (game.turn, game.dice, game.cube.value) == (0, (6, 1), 1)
    assert game.opening == Opening((6, 1), 0)


def test_o1_opening_rolls_must_end_with_one_non_tie() -> None:
    for rolls in ([(3, 3)], [(3, 1), (2, 2)], [(3, 1), (4, 2)], [], [(0, 3)], [(7, 1)]):
        with pytest.raises(InvalidDice):
            Game.start(MONEY, rolls)


def test_o1_the_first_mover_does_not_roll() -> None:
    unchanged(Game.start(MONEY, [(3, 1)]), lambda g: g.roll((4, 2)), NotYourTurn)


def test_o1_opening_from_the_dice_stream() -> None:
    rolls = DiceStream(bytes(32), "seed").opening_roll()
    game = Game.start(MONEY, rolls)
    assert game.opening.dice == rolls[-1]
    assert game.turn == (0 if rolls[-1][0] > rolls[-1][1] else 1)


def test_o2_automatic_doubles_double_the_centred_cube_up_to_the_limit() -> None:
    rolls = [(3, 3), (5, 5), (6, 1)]
    assert Game.start(MONEY, rolls).cube.value == 1
    one = Game.start(replace(MONEY, automatic_doubles=1), rolls)
    assert (one.cube.value, one.cube.owner, one.cube.turned) == (2, None, False)
    assert Game.start(replace(MONEY, automatic_doubles=2), rolls).cube.value == 4
    capped = Game.start(replace(MONEY, automatic_doubles=5, cube_max=2), rolls)
    assert capped.cube.value == 2


def test_o3_sides_alternate_rolling_two_dice() -> None:
    game = opened()
    assert (game.phase, game.turn, game.dice) == (Phase.ROLL, 1, None)
    game = game.roll((6, 4))
    assert (game.phase, game.turn, game.dice) == (Phase.MOVE, 1, (6, 4))
    game = game.play("24/14")
    assert (game.phase, game.turn) == (Phase.ROLL, 0)


# Turns, steps and confirm (T3, M5)


def test_t3_steps_can_be_taken_back_until_confirmed() -> None:
    game = Game.start(MONEY, [(3, 1)]).move_step(8, 3)
    assert game.remaining_dice == (1,)
    assert [(s.origin, s.destination) for s in game.pending_steps] == [(8, 5)]
    assert game.position.player[4] == 1
    back = game.undo()
    assert back.pending == () and back.position == STANDARD.start()
    done = back.move_step(8, 3).move_step(6, 1).confirm()
    assert done.board == Game.start(MONEY, [(3, 1)]).play("8/5 6/5").board
    assert done.history == (MoveStep(8, 3), Undo(), MoveStep(8, 3), MoveStep(6, 1), Confirm())


def test_t3_confirm_needs_a_complete_play() -> None:
    game = Game.start(MONEY, [(3, 1)]).move_step(8, 3)
    unchanged(game, Game.confirm, IllegalPlay)
    unchanged(game, lambda g: g.move_step(6, 3), IllegalPlay)
    unchanged(Game.start(MONEY, [(3, 1)]), Game.undo, IllegalPlay)


def test_t3_play_replaces_the_steps_of_the_turn() -> None:
    game = Game.start(MONEY, [(3, 1)]).move_step(24, 3).play("8/5 6/5")
    assert game.board == opened().board


def test_m5_a_step_that_leaves_a_die_unplayable_is_refused() -> None:
    game = at({13: 1, 3: 1, 1: 13}, {18: 2, 6: 13}).roll((6, 1))
    with pytest.raises(IllegalPlay) as refused:
        game.move_step(3, 1)
    assert refused.value.reason == IllegalPlay.MUST_USE_BOTH
    with pytest.raises(IllegalPlay):
        game.move_step(13, 6)
    done = game.move_step(13, 1).move_step(12, 6).confirm()
    assert done.position_for(0).player[5] == 1


def test_m5_only_the_higher_die_when_one_die_can_be_played() -> None:
    game = at({13: 1, 1: 14}, {23: 2, 6: 13}).roll((6, 5))
    with pytest.raises(IllegalPlay) as refused:
        game.move_step(13, 5)
    assert refused.value.reason == IllegalPlay.HIGHER_DIE
    assert game.move_step(13, 6).confirm().turn == 1


def test_e2_a_roll_that_cannot_be_played_passes_the_turn() -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    game = at({25: 1, 6: 14}, closed).roll((6, 5))
    assert (game.phase, game.turn, game.dice) == (Phase.ROLL, 1, None)
    assert game.history[-2:] == (Roll((6, 5)), NoMove())


def test_wrong_phase_actions_are_refused_unchanged() -> None:
    game = Game.start(MONEY, [(3, 1)])
    unchanged(game, lambda g: g.take(), NotYourTurn)
    unchanged(game, Game.accept_resign, NotYourTurn)
    unchanged(game, lambda g: g.move_step(8, 4), IllegalPlay)
    unchanged(game, lambda g: g.play("8/4 6/5"), IllegalPlay)
    unchanged(opened(), lambda g: g.play("24/21 24/23"), NotYourTurn)
    unchanged(opened(), lambda g: g.roll((7, 1)), InvalidDice)


def test_a_restored_move_phase_without_dice_refuses_to_move_unchanged() -> None:
    data = Game.start(MONEY, [(3, 1)]).to_dict()
    data["dice"] = None
    game = Game.from_dict(data)
    assert game.phase is Phase.MOVE and game.legal_plays() == []
    for action in (lambda g: g.play("8/5 6/5"), lambda g: g.move_step(8, 5), Game.confirm):
        unchanged(game, action, NotYourTurn)


def test_turn_no_counts_every_action() -> None:
    game = Game.start(MONEY, [(3, 1)])
    assert game.turn_no == 1
    game = game.move_step(8, 3).undo().play("8/5 6/5").roll((2, 1))
    assert game.turn_no == 5


# Cube (C1-C6) and Crawford (P2)


def test_c2_double_only_before_rolling_on_own_turn() -> None:
    unchanged(Game.start(MONEY, [(3, 1)]), Game.double, CubeNotAvailable)
    doubled = opened().double()
    assert (doubled.phase, doubled.turn, doubled.cube.pending) == (Phase.TAKE_OR_PASS, 0, 1)
    unchanged(doubled, Game.double, NotYourTurn)
    unchanged(doubled, lambda g: g.roll((3, 1)), NotYourTurn)


def test_c2_the_cube_owner_alone_may_redouble() -> None:
    game = opened().double().take().roll((6, 4)).play("24/14")
    assert (game.cube.value, game.cube.owner, game.turn) == (2, 0, 0)
    redoubled = game.double()
    assert redoubled.cube.pending == 0
    other_owner = game.roll((2, 1)).play("13/11 6/5")
    unchanged(other_owner, Game.double, CubeNotAvailable)


def test_c2_one_double_a_turn() -> None:
    game = at({1: 1}, {6: 10}, cube=CubeContract(value=2, owner=0, turned=True))
    game = replace(game, doubled=True)
    with pytest.raises(CubeNotAvailable, match="already doubled"):
        game.double()


def test_c1_no_double_past_the_cube_maximum() -> None:
    cube = CubeContract(value=64, owner=0, turned=True, max_value=64)
    game = at({1: 1}, {6: 10}, cube=cube)
    with pytest.raises(CubeNotAvailable, match="maximum of 64"):
        game.double()


def test_c3_a_side_that_cannot_move_may_still_double() -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    game = at({25: 1, 6: 14}, closed)
    assert game.double().phase is Phase.TAKE_OR_PASS


def test_c4_take_gives_the_cube_and_the_doubler_rolls() -> None:
    game = opened().double().take()
    assert (game.phase, game.turn, game.cube.value, game.cube.owner) == (Phase.ROLL, 1, 2, 0)
    unchanged(game, Game.double, CubeNotAvailable)


def test_c4_pass_loses_the_value_before_the_double() -> None:
    game = opened().double().take().roll((6, 4)).play("24/14").double().pass_()
    assert (game.phase, game.winner, game.result) == (Phase.OVER, 0, Result.PASSED)
    assert game.points_by_holder() == {0: 2}
    assert game.turn is None
    unchanged(game, lambda g: g.roll((1, 2)), GameOver)


def test_c5_beaver_then_the_doubler_accepts_or_refuses() -> None:
    options = replace(MONEY, beavers=True)
    game = Game.start(options, [(3, 1)]).play("8/5 6/5").double().beaver()
    assert (game.phase, game.turn, game.cube.value, game.cube.owner) == (
        Phase.TAKE_OR_PASS,
        1,
        2,
        0,
    )
    accepted = game.take()
    assert (accepted.phase, accepted.turn, accepted.cube.value, accepted.cube.owner) == (
        Phase.ROLL,
        1,
        4,
        0,
    )
    refused = game.pass_()
    assert (refused.winner, refused.result, refused.points_for(0)) == (0, Result.PASSED, 2)


def test_c5_no_beavers_unless_the_option_is_on() -> None:
    unchanged(opened().double(), Game.beaver, CubeNotAvailable)


def test_p2_crawford_game_has_no_cube() -> None:
    options = replace(MONEY, crawford=True)
    game = Game.start(options, [(3, 1)]).play("8/5 6/5")
    with pytest.raises(CubeNotAvailable, match="Crawford"):
        game.double()
    unchanged(game, Game.double, CubeNotAvailable)


def test_cube_not_allowed_option_plays_without_cube() -> None:
    game = Game.start(replace(MONEY, cube_allowed=False), [(3, 1)]).play("8/5 6/5")
    unchanged(game, Game.double, CubeNotAvailable)


# Scoring (S1-S4, C6)


@pytest.mark.parametrize(
    ("other", "result", "points"),
    [
        ({6: 10}, Result.SINGLE, 1),
        ({6: 15}, Result.GAMMON, 2),
        ({6: 14, 24: 1}, Result.BACKGAMMON, 3),
        ({6: 14, 25: 1}, Result.BACKGAMMON, 3),
    ],
)
def test_s1_s2_s3_single_gammon_backgammon(
    other: dict[int, int], result: Result, points: int
) -> None:
    game = at({2: 1}, other).roll((2, 1))
    game = game.play(game.legal_plays()[0])
    assert (game.phase, game.winner, game.result) == (Phase.OVER, 0, result)
    assert game.points_by_holder() == {0: points}
    assert game.points_for(1) == -points


def test_f7_the_game_ends_when_the_last_checker_is_off() -> None:
    game = at({2: 1}, {6: 10}).roll((2, 1)).move_step(2, 2)
    assert game.phase is Phase.MOVE and game.remaining_dice == (1,)
    assert game.confirm().winner == 0


def test_s1_a_single_scores_the_cube_value() -> None:
    game = at({2: 1}, {6: 10}, cube=CubeContract(value=4, owner=1, turned=True))
    game = game.roll((2, 1)).play("2/off")
    assert game.points_by_holder() == {0: 4}


def test_s3_backgammon_counts_two_option() -> None:
    game = at({2: 1}, {6: 14, 24: 1}, options=replace(MONEY, backgammon_value=2))
    game = game.roll((2, 1)).play("2/off")
    assert (game.result, game.points_for(0)) == (Result.BACKGAMMON, 2)


def test_c6_jacoby_gammon_counts_single_until_the_cube_is_turned() -> None:
    options = replace(MONEY, jacoby=True)
    centred = at({2: 1}, {6: 15}, options=options).roll((2, 1)).play("2/off")
    assert (centred.result, centred.points_for(0)) == (Result.GAMMON, 1)
    turned = CubeContract(value=2, owner=1, turned=True)
    taken = at({2: 1}, {6: 15}, options=options, cube=turned).roll((2, 1)).play("2/off")
    assert taken.points_for(0) == 4


def test_c6_automatic_doubles_do_not_turn_the_cube() -> None:
    options = replace(MONEY, jacoby=True, automatic_doubles=1)
    game = Game.start(options, [(2, 2), (3, 1)])
    game = replace(
        game,
        board=Position(board_from_points({2: 1}), board_from_points({6: 15})),
        phase=Phase.ROLL,
        dice=None,
    )
    assert game.roll((2, 1)).play("2/off").points_for(0) == 2


def test_s4_resign_accepted_scores_its_value_times_the_cube() -> None:
    game = opened().double().take().resign("gammon")
    assert (game.phase, game.turn, game.resignation) == (Phase.RESIGN_OFFERED, 0, Result.GAMMON)
    over = game.accept_resign()
    assert (over.winner, over.result, over.points_for(0)) == (0, Result.RESIGNED, 4)


def test_s4_resign_refused_play_goes_on() -> None:
    game = opened().roll((6, 4)).move_step(24, 6).resign(Result.SINGLE)
    back = game.reject_resign()
    assert (back.phase, back.turn, back.dice, back.resignation) == (Phase.MOVE, 1, (6, 4), None)
    assert back.remaining_dice == (4,)
    assert opened().resign("backgammon").reject_resign().phase is Phase.ROLL


def test_s4_resign_only_on_own_turn() -> None:
    unchanged(opened().double(), lambda g: g.resign("single"), NotYourTurn)
    unchanged(opened(), lambda g: g.resign("passed"), ValueError)


# Several contracts (chouette, H5, H8)


def chouette() -> Game:
    """Box (side 0) against a team of three, one cube each; the team to roll."""
    rules = ChouetteRules(CubeMode.MULTIPLE)
    options = replace(MONEY, holders=("ann", "bob", "cat"), jacoby=True, chouette=rules)
    return Game.start(options, [(3, 1)]).play("8/5 6/5")


def test_h5_double_to_some_holders_one_takes_one_passes() -> None:
    game = chouette().roll((6, 4)).play("24/14").double(["ann", "bob"])
    assert [c.pending for c in game.contracts] == [0, 0, None]
    assert game.turn == 1
    game = game.take("ann")
    assert game.phase is Phase.TAKE_OR_PASS
    game = game.pass_("bob")
    assert (game.phase, game.turn) == (Phase.ROLL, 0)
    assert game.contract("bob").state is CubeState.PASSED
    assert game.points_by_holder() == {"ann": 0, "bob": 1, "cat": 0}


def test_h6_settlement_per_contract_with_jacoby_per_cube() -> None:
    game = chouette().roll((6, 4)).play("24/14").double(["ann", "bob"])
    game = game.take("ann").pass_("bob")
    game = replace(
        game,
        board=Position(board_from_points({6: 15}), board_from_points({1: 1})),
        on_roll=1,
    )
    over = game.roll((2, 1)).play("1/off")
    assert (over.winner, over.result) == (1, Result.GAMMON)
    assert over.points_by_holder() == {"ann": -4, "bob": 1, "cat": -1}
    assert over.points_for(1) == 4


def test_h8_a_team_member_doubles_the_box_alone() -> None:
    game = chouette().double(["cat"]).close_round()
    assert game.turn == 0 and game.contract("cat").pending == 1
    unchanged(game, lambda g: g.take("ann"), CubeNotAvailable)
    unchanged(game, lambda g: g.take("zed"), CubeNotAvailable)
    assert game.take("cat").contract("cat").owner == 0


def test_every_contract_passed_ends_the_game() -> None:
    game = chouette().double().pass_("ann").pass_("bob")
    assert game.phase is Phase.TAKE_OR_PASS
    unchanged(game, lambda g: g.take("ann"), CubeNotAvailable)
    over = game.pass_("cat")
    # No game-wide winner is read off the last pass: each contract has its outcome.
    assert (over.winner, over.result, over.points_for(1)) == (None, Result.SETTLED, 3)


# Replay and serialization


def random_game(seed: int, options: GameOptions = MONEY) -> Game:
    """A game driven by random actions, steps and undos included."""
    rng = random.Random(seed)
    game = Game.start(options, [(rng.randint(1, 3), rng.randint(4, 6))])
    while not game.over and len(game.history) < 400:
        if game.phase is Phase.ROLL:
            if not game.doubled and game.cube.can_offer(game.on_roll) and rng.random() < 0.05:
                game = game.double()
            else:
                game = game.roll((rng.randint(1, 6), rng.randint(1, 6)))
        elif game.phase is Phase.TAKE_OR_PASS:
            game = game.take() if rng.random() < 0.8 else game.pass_()
        elif rng.random() < 0.3:
            play = rng.choice(game.legal_plays())
            for step, die in zip(play.steps, play.dice_used, strict=True):
                game = game.move_step(step.origin, die)
            undo = rng.random() < 0.5 and game.pending
            game = game.undo().play(play) if undo else game.confirm()
        else:
            game = game.play(rng.choice(game.legal_plays()))
    return game


@pytest.mark.parametrize("seed", range(6))
def test_replay_gives_an_equal_game(seed: int) -> None:
    game = random_game(seed)
    assert Game.replay(game.options, game.opening, game.history) == game


@pytest.mark.parametrize("seed", range(6))
def test_to_dict_round_trip_through_json(seed: int) -> None:
    game = random_game(seed, replace(MONEY, holders=("a",), cube_max=8))
    data = json.loads(json.dumps(game.to_dict()))
    assert Game.from_dict(data) == game
    half = len(game.history) // 2
    half += isinstance(game.history[half], NoMove)
    middle = Game.replay(game.options, game.opening, game.history[:half])
    assert Game.from_dict(json.loads(json.dumps(middle.to_dict()))) == middle


def test_compact_folds_steps_into_whole_plays() -> None:
    stepped = Game.start(MONEY, [(3, 1)]).move_step(8, 3).undo().move_step(8, 3)
    stepped = stepped.move_step(6, 1).confirm().roll((5, 5)).resign("single").reject_resign()
    compact = stepped.compact()
    direct = Game.start(MONEY, [(3, 1)]).play([(8, 5), (6, 5)]).roll((5, 5))
    assert compact == direct
    assert direct.compact() is direct


def test_replay_refuses_a_wrong_no_move_record() -> None:
    game = opened().roll((6, 4))
    with pytest.raises(IllegalPlay):
        Game.replay(game.options, game.opening, (*game.history, NoMove()))
