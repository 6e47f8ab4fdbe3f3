"""Forfeits: a side that runs out of time or leaves loses, in any phase of the game.

The game ends at once for the other side (``Result.FORFEIT``), lost as a resignation
of a gammon (no checker borne off) or a single; a match is then won by the other side
at N points, a money session ends with the game in play lost at that value. Games
replay from their history; ``.mat`` files write the forfeit as gnubg writes a
resignation, with a ``Forfeit`` header tag that our import reads.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

import pytest

from backgammon.errors import GameOver, InvalidMatFile
from backgammon.game import (
    Forfeit,
    ForfeitReason,
    Game,
    GameOptions,
    Phase,
    Result,
    action_from_dict,
    action_to_dict,
)
from backgammon.gnubg_ids import GameState, match_id, match_key_from_id
from backgammon.match import MatchState, match_key
from backgammon.matfile import MatchRecord, export_mat, import_mat
from tests.backgammon.test_game import MONEY, at, opened, unchanged
from tests.backgammon.test_selfplay import random_game


def _opened(options: GameOptions) -> Game:
    return Game.start(options, [(3, 1)]).play("8/5 6/5")


# Each phase a forfeit can come in: a game where side 0 opened 3-1, under ``options``.
PHASES: dict[str, Callable[[GameOptions], Game]] = {
    "opening, not yet moved": lambda options: Game.start(options, [(3, 1)]),
    "on roll": _opened,
    "rolled": lambda options: _opened(options).roll((6, 4)),
    "mid-move, steps unconfirmed": lambda options: _opened(options).roll((6, 4)).move_step(24, 6),
    "double waiting": lambda options: _opened(options).roll((6, 4)).play("24/14").double(),
    "resignation waiting": lambda options: _opened(options).roll((6, 4)).resign("gammon"),
}


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("side", [0, 1])
def test_a_forfeit_in_any_phase_ends_the_game_for_the_other_side(phase: str, side: int) -> None:
    game = PHASES[phase](MONEY).forfeit(side, "timeout")
    assert (game.phase, game.over, game.turn, game.dice, game.pending) == (
        Phase.OVER,
        True,
        None,
        None,
        (),
    )
    assert (game.winner, game.result) == (1 - side, Result.FORFEIT)
    assert game.history[-1] == Forfeit(side, ForfeitReason.TIMEOUT)
    assert game.cube.pending is None and game.legal_plays() == []
    # Neither side has borne off a checker: a gammon at the cube value of 1.
    assert (game.resignation, game.points_for(1 - side)) == (Result.GAMMON, 2)
    for action in (
        lambda g: g.roll((3, 1)),
        Game.double,
        Game.take,
        lambda g: g.resign("single"),
        lambda g: g.play("8/5 6/5"),
        lambda g: g.forfeit(1 - side, "abandoned"),
    ):
        unchanged(game, action, GameOver)


def test_t3_a_forfeit_mid_move_drops_the_unconfirmed_steps() -> None:
    stepped = opened().roll((6, 4)).move_step(24, 6)
    game = stepped.forfeit(1, ForfeitReason.ABANDONED)
    assert game.position == opened().position != stepped.position
    assert game.pending_steps == ()


def test_c4_a_double_waiting_lapses_at_the_cube_value_before_it() -> None:
    doubled = opened().roll((6, 4)).play("24/14").roll((2, 1)).play("6/4 6/5")
    doubled = doubled.double().take().roll((5, 3)).play("13/8 13/10").double()
    assert (doubled.cube.value, doubled.cube.owner, doubled.cube.pending) == (2, 0, 0)
    for side in (0, 1):
        game = doubled.forfeit(side, "abandoned")
        assert (game.cube.value, game.cube.owner, game.cube.pending) == (2, 0, None)
        assert game.points_for(1 - side) == 4  # a gammon at 2


def test_c5_a_beaver_waiting_lapses_after_its_take() -> None:
    options = GameOptions(beavers=True)
    beavered = Game.start(options, [(3, 1)]).play("8/5 6/5").double().beaver()
    assert (beavered.cube.value, beavered.cube.pending, beavered.cube.beavered) == (2, 0, True)
    game = beavered.forfeit(1, "timeout")
    assert (game.cube.value, game.cube.owner, game.cube.pending, game.cube.beavered) == (
        2,
        0,
        None,
        False,
    )
    assert game.points_for(0) == 4


def test_s4_a_resignation_waiting_gives_way_to_the_forfeit() -> None:
    offered = opened().roll((6, 4)).resign("backgammon")  # side 1 offers to resign
    game = offered.forfeit(0, "abandoned")  # side 0 leaves instead of answering
    assert (game.winner, game.result, game.resignation) == (1, Result.FORFEIT, Result.GAMMON)
    assert game.points_for(1) == 2


def test_s1_s2_a_forfeit_costs_a_single_once_a_checker_is_off_else_a_gammon() -> None:
    game = at({6: 3, 5: 12}, {1: 14})  # side 1 has borne off one checker, side 0 none
    single = game.forfeit(1, "timeout")
    assert (single.resignation, single.points_for(0)) == (Result.SINGLE, 1)
    gammon = game.forfeit(0, "timeout")
    assert (gammon.resignation, gammon.points_for(1)) == (Result.GAMMON, 2)


def test_s3_a_forfeit_is_never_a_backgammon() -> None:
    # Side 1 has a checker on the bar and one in side 0's home board, none borne off.
    game = at({6: 15}, {25: 1, 20: 1, 13: 13}).forfeit(1, "abandoned")
    assert (game.resignation, game.points_for(0)) == (Result.GAMMON, 2)


def test_c6_jacoby_counts_a_forfeit_single_until_the_cube_is_turned() -> None:
    jacoby = GameOptions(jacoby=True)
    game = Game.start(jacoby, [(3, 1)]).play("8/5 6/5")
    assert game.forfeit(1, "timeout").points_for(0) == 1
    taken = game.double().take()
    assert taken.forfeit(1, "timeout").points_for(0) == 4  # a gammon at 2


def test_a_forfeit_refuses_a_side_or_reason_that_does_not_exist() -> None:
    game = opened()
    unchanged(game, lambda g: g.forfeit(2, "timeout"), ValueError)
    unchanged(game, lambda g: g.forfeit(0, "bored"), ValueError)
    with pytest.raises(ValueError, match="timeout or abandoned"):
        game.forfeit(0, "bored")


@pytest.mark.parametrize("phase", PHASES)
def test_a_forfeited_game_replays_from_its_history_and_round_trips(phase: str) -> None:
    game = PHASES[phase](MONEY).forfeit(0, "abandoned")
    assert Game.replay(game.options, game.opening, game.history) == game
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    data = action_to_dict(game.history[-1])
    assert data == {"type": "forfeit", "side": 0, "reason": "abandoned"}
    assert action_from_dict(data) == Forfeit(0, ForfeitReason.ABANDONED)


def test_compact_drops_the_steps_and_the_resignation_a_forfeit_cut_short() -> None:
    stepped = opened().roll((6, 4)).move_step(24, 6).forfeit(1, "timeout")
    assert stepped.compact() == opened().roll((6, 4)).forfeit(1, "timeout")
    offered = opened().roll((6, 4)).resign("single").forfeit(1, "timeout")
    assert offered.compact() == opened().roll((6, 4)).forfeit(1, "timeout")


# Matches and money sessions


def forfeited(match: MatchState, side: int, cube_doubled: bool = False) -> Game:
    """A game of ``match`` that ``side`` forfeits after the opening (cube doubled if asked)."""
    game = Game.start(match.next_game_options(), [(3, 1)]).play("8/5 6/5")
    if cube_doubled:
        game = game.double().take()
    return game.forfeit(side, "timeout")


def test_p1_a_forfeit_credits_the_winner_with_what_it_needs_to_reach_n() -> None:
    match = MatchState(length=7).apply_game(3).apply_game(-5)
    assert match.score == (3, 5)
    for side, score in ((1, (7, 5)), (0, (3, 7))):
        game = forfeited(match, side, cube_doubled=True)
        over = match.apply_forfeit(game)
        assert (over.score, over.winner, over.over, over.games) == (score, 1 - side, True, 3)
        assert over.forfeit == Forfeit(side, ForfeitReason.TIMEOUT)
        with pytest.raises(ValueError, match="already over"):
            over.apply_game(1)
        with pytest.raises(ValueError, match="already over"):
            over.apply_forfeit(game)


def test_p2_a_forfeit_in_the_crawford_game_and_after_it() -> None:
    crawford = MatchState(length=5).apply_game(-2).apply_game(4)
    assert crawford.crawford
    assert crawford.apply_forfeit(forfeited(crawford, 0)).score == (4, 5)
    assert crawford.apply_forfeit(forfeited(crawford, 1)).score == (5, 2)
    post = crawford.apply_game(-1)
    assert post.post_crawford and not post.crawford
    over = post.apply_forfeit(forfeited(post, 0, cube_doubled=True))
    assert (over.score, over.winner, over.crawford, over.post_crawford) == ((4, 5), 1, False, True)


def test_p4_a_forfeit_in_a_money_session_loses_the_game_and_ends_the_session() -> None:
    session = MatchState().apply_game(3)
    over = session.apply_forfeit(forfeited(session, 0, cube_doubled=True))
    assert (over.score, over.winner, over.over, over.games) == ((3, 4), None, True, 2)
    assert over.forfeit == Forfeit(0, ForfeitReason.TIMEOUT)
    with pytest.raises(ValueError, match="already over"):
        over.apply_game(1)
    jacoby = MatchState(options=GameOptions(jacoby=True))
    assert jacoby.apply_forfeit(forfeited(jacoby, 1)).score == (1, 0)


def test_apply_forfeit_refuses_a_game_not_ended_by_a_forfeit() -> None:
    match = MatchState(length=5)
    resigned = Game.start(match.next_game_options(), [(3, 1)]).resign("single").accept_resign()
    for game in (resigned, Game.start(match.next_game_options(), [(3, 1)])):
        with pytest.raises(ValueError, match="did not end by a forfeit"):
            match.apply_forfeit(game)


def test_a_forfeited_match_round_trips_through_json() -> None:
    match = MatchState(length=5).apply_game(2)
    over = match.apply_forfeit(forfeited(match, 1))
    assert MatchState.from_dict(json.loads(json.dumps(over.to_dict()))) == over
    assert MatchState.from_dict(match.to_dict()) == match


def test_match_key_of_a_forfeited_game_is_a_resigned_game() -> None:
    match = MatchState(length=5).apply_game(-1)
    key = match_key(match, forfeited(match, 0))
    assert (key.game_state, key.dice_owner, key.turn, key.dice, key.score) == (
        GameState.RESIGNED,
        1,
        1,
        (0, 0),
        (0, 1),
    )
    assert match_key_from_id(match_id(key)) == key


# .mat files


def test_mat_writes_a_forfeit_as_gnubg_writes_a_resignation_of_what_is_needed() -> None:
    start = MatchState(length=3)
    header = (
        '; [Player 1 "ann"]\n'
        '; [Player 2 "bob"]\n'
        '; [Variation "Backgammon"]\n'
        '; [Crawford "On"]\n'
        '; [CubeLimit "64"]\n'
        '; [Forfeit "Player {}"]\n'
        "\n"
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " ann : 0                        bob : 0\n"
    )
    # Side 1 rolled, side 0 leaves: Wins on a line of its own, in side 1's column.
    rolled = _opened(start.next_game_options()).roll((6, 4)).forfeit(0, "abandoned")
    record = MatchRecord(players=("ann", "bob"), start=start, games=(rolled,))
    assert export_mat(record) == header.format("1 abandoned") + (
        "  1) 31: 8/5 6/5                 64: \n                                  Wins 3 points\n\n"
    )
    # Side 0 has the opening roll to play, side 1's time runs out: Wins in side 0's column.
    opening = Game.start(start.next_game_options(), [(3, 1)]).forfeit(1, "timeout")
    record = MatchRecord(players=("ann", "bob"), start=start, games=(opening,))
    assert export_mat(record) == header.format("2 timeout") + ("  1) 31: \n      Wins 3 points\n\n")


STARTS = {
    "match": MatchState(length=5),
    "money, jacoby and beavers": MatchState(options=GameOptions(jacoby=True, beavers=True)),
}


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("side", [0, 1])
def test_mat_round_trips_a_forfeit_in_any_phase(start: str, phase: str, side: int) -> None:
    state = STARTS[start]
    first = _opened(state.next_game_options()).roll((6, 4)).play("24/14").double().pass_()
    second_state = state.apply_game(first.points_for(0))
    game = PHASES[phase](second_state.next_game_options()).forfeit(side, "abandoned")
    record = MatchRecord(players=("ann", "bob"), start=state, games=(first, game))
    assert record.state.over and record.state.forfeit == Forfeit(side, ForfeitReason.ABANDONED)
    assert import_mat(export_mat(record)) == record


def _forfeit_file(side: int = 1, reason: str = "timeout") -> str:
    start = MatchState(length=3)
    game = _opened(start.next_game_options()).forfeit(side, reason)
    return export_mat(MatchRecord(players=("ann", "bob"), start=start, games=(game,)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('"Player 2 timeout"', '"Player 3 timeout"'), "header: Forfeit 'Player 3 timeout'"),
        (('"Player 2 timeout"', '"Player 2 asleep"'), "header: Forfeit 'Player 2 asleep'"),
        (("Wins 3 points", "Wins 2 points"), "Wins 2: the forfeit gives 3"),
        (("\n      Wins 3", "\n" + " " * 34 + "Wins 3"), "the side that forfeited cannot win"),
        (("      Wins 3 points\n", ""), "the last game does not end by it"),
    ],
)
def test_mat_import_refuses_a_forfeit_the_file_does_not_bear_out(
    change: tuple[str, str], message: str
) -> None:
    text = _forfeit_file()
    assert change[0] in text
    with pytest.raises(InvalidMatFile, match=re.escape(message)):
        import_mat(text.replace(*change))


def forfeited_match(seed: int, start: MatchState) -> MatchRecord:
    """Random games from ``start`` until one, after the first few, is cut short at a
    random point by a random side's forfeit (a match won by play first starts over,
    to be cut within as many games)."""
    rng = random.Random(seed)
    target = rng.randint(0, 4)
    state, played = start, []
    while True:
        cut = len(played) >= target
        game = random_game(rng, state.next_game_options(), until_over=not cut)
        if not game.over:
            game = game.forfeit(rng.randint(0, 1), rng.choice(list(ForfeitReason)))
            return MatchRecord(players=("ann", "bob"), start=start, games=(*played, game))
        played.append(game)
        state = state.apply_game(game.points_for(0))
        if state.over:
            target = rng.randrange(len(played))
            state, played = start, []


@pytest.mark.parametrize("start", [MatchState(length=7), MatchState(), *STARTS.values()])
@pytest.mark.parametrize("seed", range(4))
def test_mat_round_trips_random_forfeited_matches(start: MatchState, seed: int) -> None:
    record = forfeited_match(seed, start)
    assert record.state.over and record.games[-1].result is Result.FORFEIT
    assert import_mat(export_mat(record)) == record
