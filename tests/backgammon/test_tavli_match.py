"""A tavli match (TM1-TM4): the games in the Greek or the Bulgarian order to N points,
no cube and no Crawford game, draws scoring 0, the winner of each game starting the
next (TV2); and any tavli game alone as a match or a money session."""

from __future__ import annotations

import random

import pytest

from backgammon.game import Game, GameOptions, Phase, Result
from backgammon.match import BULGARIAN, GREEK, MatchState, match_key
from backgammon.variants import Variants
from tests.backgammon.test_tavli_selfplay import random_game


def names(state: MatchState, games: int) -> list[str]:
    found = []
    for _ in range(games):
        found.append(state.next_variant.name)
        state = state.apply_game(1)
        if state.over:
            break
    return found


def test_tm1_greek_and_bulgarian_orders_to_five_points_by_default():
    greek = MatchState.tavli_match()
    assert greek.length == 5
    assert names(MatchState.tavli_match(length=9), 6) == [
        "portes", "plakoto", "fevga", "portes", "plakoto", "fevga",
    ]  # fmt: skip
    assert names(MatchState.tavli_match("bulgarian", length=9), 4) == [
        "portes", "gulbara", "plakoto", "portes",
    ]  # fmt: skip
    assert [v.name for v in GREEK] == ["portes", "plakoto", "fevga"]
    assert [v.name for v in BULGARIAN] == ["portes", "gulbara", "plakoto"]
    with pytest.raises(ValueError, match="order"):
        MatchState.tavli_match("turkish")


def test_tm1_no_cube_and_no_crawford_game():
    state = MatchState.tavli_match().apply_game(2).apply_game(2)  # 4-0 in a match to 5
    options = state.next_game_options()
    assert state.score == (4, 0) and not state.crawford and not options.crawford
    assert options.variant.name == "fevga" and not options.cube_allowed
    assert state.apply_game(-2).next_game_options().crawford is False


def test_tm2_a_draw_scores_nothing_and_the_order_moves_on():
    state = MatchState.tavli_match().apply_game(1)  # portes won by side 0; plakoto next
    drawn = state.apply_game(0)
    assert drawn.score == (1, 0) and drawn.next_variant.name == "fevga"
    assert drawn.next_opening() is None  # no winner: the next game opens with a roll
    with pytest.raises(ValueError, match="at least one point"):
        drawn.apply_game(0)  # fevga has no draw


def test_tv2_the_winner_of_each_game_starts_the_next():
    state = MatchState.tavli_match()
    assert state.next_opening() is None
    after = state.apply_game(-2)
    game = Game.start(after.next_game_options(), after.next_opening())
    assert (game.on_roll, game.phase) == (1, Phase.ROLL)


def test_tm_a_tavli_match_played_to_the_end():
    for seed, order in enumerate(("greek", "bulgarian", "greek", "bulgarian")):
        rng = random.Random(seed)
        state = MatchState.tavli_match(order, length=7)
        played = []
        while not state.over:
            options, opening = state.next_game_options(), state.next_opening()
            game = random_game(rng, options, 0.01, opening)
            if opening is not None:
                assert game.opening.first == state.last_winner
            played.append(game.options.variant.name)
            state = state.apply_game(game.points_for(0))
            assert MatchState.from_dict(state.to_dict()) == state
        assert max(state.score) >= 7 and state.winner == (0 if state.score[0] >= 7 else 1)
        order_names = [v.name for v in (GREEK if order == "greek" else BULGARIAN)]
        assert played == [order_names[i % 3] for i in range(len(played))]


def test_tm3_a_resignation_for_two_counts_two():
    state = MatchState.tavli_match()
    game = Game.start(state.next_game_options(), [(5, 2)]).resign(Result.GAMMON).accept_resign()
    assert state.apply_game(game.points_for(0)).score == (0, 2)


@pytest.mark.parametrize("length", [3, 0])
def test_tm4_any_game_alone_as_a_match_or_a_money_session(length):
    state = MatchState(length=length, options=GameOptions(variant=Variants.PLAKOTO.value))
    assert state.next_variant.name == "plakoto" and not state.next_game_options().cube_allowed
    state = state.apply_game(2).apply_game(0).apply_game(-1)
    assert state.score == (2, 1) and state.games == 3
    assert state.money is (length == 0) and state.next_opening().starter == 1
    with pytest.raises(ValueError, match="match ID"):
        match_key(state, Game.start(state.next_game_options(), [(5, 2)]))
