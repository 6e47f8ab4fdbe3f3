"""Matches to N points and money sessions (P1-P4), and gnubg's match ID fields."""

from __future__ import annotations

from dataclasses import replace

import pytest

from backgammon.errors import CubeNotAvailable
from backgammon.game import Game, GameOptions, Phase
from backgammon.gnubg_ids import GameState, MatchKey, Resignation, match_id, match_key_from_id
from backgammon.match import MatchState, match_key


def test_p1_the_first_side_to_reach_or_pass_n_wins() -> None:
    match = MatchState(length=5).apply_game(3)
    assert (match.score, match.winner, match.over) == ((3, 0), None, False)
    match = match.apply_game(-2).apply_game(4)
    assert (match.score, match.winner, match.over) == ((7, 2), 0, True)
    with pytest.raises(ValueError, match="over"):
        match.apply_game(1)


def test_p1_a_game_gives_points() -> None:
    with pytest.raises(ValueError):
        MatchState(length=3).apply_game(0)
    with pytest.raises(ValueError):
        MatchState(length=-1)


def test_p2_crawford_game_after_a_side_reaches_n_minus_one() -> None:
    match = MatchState(length=5).apply_game(2)
    assert not match.crawford
    match = match.apply_game(2)
    assert (match.score, match.crawford) == ((4, 0), True)
    assert match.next_game_options().crawford


def test_p2_crawford_game_has_no_cube_and_post_crawford_games_use_it_again() -> None:
    match = MatchState(length=3).apply_game(-2)
    crawford = Game.start(match.next_game_options(), [(3, 1)]).play("8/5 6/5")
    with pytest.raises(CubeNotAvailable, match="Crawford"):
        crawford.double()
    match = match.apply_game(1)
    assert (match.score, match.crawford, match.post_crawford) == ((1, 2), False, True)
    post = Game.start(match.next_game_options(), [(3, 1)]).play("8/5 6/5")
    assert post.double().phase is Phase.TAKE_OR_PASS
    match = match.apply_game(1)
    assert (match.score, match.crawford) == ((2, 2), False)


def test_p2_no_crawford_game_when_n_minus_one_is_jumped() -> None:
    match = MatchState(length=5).apply_game(3)
    assert not match.crawford
    assert match.apply_game(2).winner == 0


def test_p2_crawford_for_the_trailer_too() -> None:
    match = MatchState(length=3).apply_game(-2)
    assert match.crawford


def test_p3_match_play_turns_off_automatic_doubles_beavers_and_jacoby() -> None:
    asked = GameOptions(jacoby=True, beavers=True, automatic_doubles=1)
    options = MatchState(length=7, options=asked).next_game_options()
    assert (options.jacoby, options.beavers, options.automatic_doubles) == (False, False, 0)
    assert options.cube_max == 64
    game = Game.start(options, [(2, 2), (3, 1)])
    assert game.cube.value == 1


def test_c1_match_cube_maximum_is_64_unless_set() -> None:
    assert MatchState(length=3).next_game_options().cube_max == 64
    limited = MatchState(length=3, options=GameOptions(cube_max=16))
    assert limited.next_game_options().cube_max == 16
    assert MatchState().next_game_options().cube_max is None


def test_p4_money_session_accumulates_with_the_options_on() -> None:
    asked = GameOptions(jacoby=True, beavers=True, automatic_doubles=1)
    session = MatchState(options=asked)
    assert session.money and session.next_game_options() == asked
    for points in (4, -1, 2, -8, 1):
        session = session.apply_game(points)
    assert (session.score, session.winner, session.over, session.games) == ((7, 9), None, False, 5)
    assert not session.crawford


def test_a_match_has_one_cube() -> None:
    with pytest.raises(ValueError, match="one cube"):
        MatchState(length=3, options=GameOptions(holders=("a", "b")))


def test_to_dict_round_trip() -> None:
    match = MatchState(length=5, options=GameOptions(backgammon_value=2)).apply_game(4)
    assert MatchState.from_dict(match.to_dict()) == match


def test_match_key_at_the_opening() -> None:
    match = MatchState(length=7).apply_game(-2)
    game = Game.start(match.next_game_options(), [(1, 4)])
    key = match_key(match, game)
    assert key == MatchKey(
        cube_value=1,
        cube_owner=None,
        dice_owner=1,
        crawford=False,
        game_state=GameState.PLAYING,
        turn=1,
        double_offered=False,
        resignation=Resignation.NONE,
        dice=(4, 1),
        match_length=7,
        score=(0, 2),
        jacoby=True,
    )
    assert match_key_from_id(match_id(key)) == key


def test_match_key_while_a_double_or_a_resignation_waits() -> None:
    match = MatchState(length=5)
    game = Game.start(match.next_game_options(), [(3, 1)]).play("8/5 6/5").double()
    key = match_key(match, game)
    assert (key.dice_owner, key.turn, key.double_offered, key.dice) == (1, 0, True, (0, 0))
    taken = game.take()
    key = match_key(match, taken)
    assert (key.cube_value, key.cube_owner, key.turn, key.double_offered) == (2, 0, 1, False)
    offered = taken.resign("gammon")
    key = match_key(match, offered)
    assert (key.turn, key.resignation) == (0, Resignation.GAMMON)
    over = offered.accept_resign()
    key = match_key(match, over)
    assert (key.game_state, key.resignation) == (GameState.RESIGNED, Resignation.NONE)


def test_match_key_crawford_dropped_and_money_jacoby() -> None:
    match = MatchState(length=3).apply_game(2)
    crawford = Game.start(match.next_game_options(), [(3, 1)])
    assert match_key(match, crawford).crawford
    money = MatchState(options=GameOptions(jacoby=False))
    game = Game.start(money.next_game_options(), [(3, 1)]).play("8/5 6/5").double().pass_()
    key = match_key(money, game)
    assert (key.game_state, key.jacoby, key.match_length) == (GameState.DROPPED, False, 0)
    jacoby = replace(money, options=GameOptions(jacoby=True))
    assert match_key(jacoby, Game.start(jacoby.next_game_options(), [(3, 1)])).jacoby
