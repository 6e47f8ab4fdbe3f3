"""Properties of the tavli generator on positions met in random play, for each game.

The reference is a plain search over single steps (``step_problem`` / ``apply_step``,
the rules one step at a time, every order of the dice, no pruning): the generator must
find exactly its boards, after TV3 (= M5), FV5 and PL5 (a step that ends the game ends
the play; the other plays as if that step were not there). Portes is checked against
backgammon's own generator, which the oracle tests check against GNU Backgammon.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from backgammon.game import GameOptions
from backgammon.moves import legal_plays
from backgammon.notation import format_play, parse_play
from backgammon.position import Position
from backgammon.tavli.board import TavliBoard
from backgammon.tavli.plays import apply_step, check_play, stage_plays, step_problem
from backgammon.tavli.rules import (
    FEVGA,
    GAMES,
    PORTES,
    START_QUARTER,
    TavliRules,
    mother_outcome,
)
from backgammon.tavli.turns import play_turn
from backgammon.variants import Variants
from tests.backgammon.test_tavli_selfplay import check_score, random_game

RULES = list(GAMES.values())


def random_board(rules: TavliRules, seed: int, turns: int) -> TavliBoard:
    """The board (mover's view) after ``turns`` random turns from the start, or at the
    start of the last turn of a game that ended sooner."""
    rng = random.Random(seed)
    board = rules.start_board()
    for _ in range(turns):
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        after, _ = play_turn(rules, board, roll, rng.choice, lambda: rng.randint(1, 6))
        if not after.mine.left or (rules.mother and mother_outcome(after)):
            break
        board = after.mirror()
    return board


def reference(rules: TavliRules, board: TavliBoard, dice: tuple[int, ...]) -> set[TavliBoard]:
    """The boards of the legal plays, by brute force over single steps."""
    ends: dict[TavliBoard, set[tuple[int, ...]]] = {}
    endings: set[TavliBoard] = set()  # PL5: the game over after a step
    seen: set[tuple[TavliBoard, tuple[int, ...]]] = set()

    def walk(current: TavliBoard, left: tuple[int, ...], used: tuple[int, ...]) -> None:
        if (current, left) in seen:
            return
        seen.add((current, left))
        moved = False
        for die in set(left):
            rest = list(left)
            rest.remove(die)
            for origin in range(1, 26):
                if step_problem(rules, current, origin, die) is None:
                    after = apply_step(rules, current, origin, die)[0]
                    if rules.mother and mother_outcome(after):
                        endings.add(after)
                        continue
                    moved = True
                    walk(after, tuple(rest), (*used, die))
        if not moved and used:
            ends.setdefault(current, set()).add(used)

    walk(board, dice, ())
    if not ends:
        return endings
    most = max(len(u) for uses in ends.values() for u in uses)
    best = {b: uses for b, uses in ends.items() if any(len(u) == most for u in uses)}
    if most == 1 and len(set(dice)) == 2:
        higher = {b for b, uses in best.items() if (max(dice),) in uses}
        best = {b: best[b] for b in higher} if higher else best
    results = set(best)
    wall = rules.duty(board) if rules.duty else ()
    if wall:
        opened = {b for b in results if any(not b.mine.points[p] for p in wall)}
        results = opened or results
    return results | endings


def as_position(board: TavliBoard) -> Position:
    """A portes board as backgammon's ``Position`` (slot i = point i + 1, 24 = bar)."""
    mine, theirs = board.mine, board.opponent
    return Position((*mine.points[1:], mine.bar), (*theirs.points[1:], theirs.bar))


positions = st.tuples(st.integers(0, 10**6), st.integers(0, 120))
stage_dice = st.tuples(st.integers(1, 6), st.integers(1, 6)).map(
    lambda roll: (roll[0],) * 4 if roll[0] == roll[1] else roll
)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
@settings(max_examples=40, deadline=None)
@given(position=positions, dice=stage_dice)
def test_tv3_plays_are_exactly_the_brute_force_ones(rules, position, dice):
    board = random_board(rules, *position)
    plays = stage_plays(rules, board, dice)
    results = [play.result for play in plays]
    assert len(results) == len(set(results))  # each distinct board once
    assert set(results) == reference(rules, board, dice)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
@settings(max_examples=40, deadline=None)
@given(position=positions, dice=stage_dice)
def test_tv_every_play_is_legal_step_by_step_and_conserves_checkers(rules, position, dice):
    board = random_board(rules, *position)
    for play in stage_plays(rules, board, dice):
        rules.validate(play.result)  # 15 a side, a pin holds one checker, FV4 kept...
        stepped = board
        for step, die in zip(play.steps, play.dice_used, strict=True):
            stepped, _ = apply_step(rules, stepped, step.origin, die)
        assert stepped == play.result
        segments = [(s.origin, s.destination) for s in play.steps]
        assert check_play(rules, board, dice, segments).result == play.result


@settings(max_examples=100, deadline=None)
@given(position=positions, roll=st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_po1_portes_plays_are_backgammons_anywhere(position, roll):
    board = random_board(PORTES, *position)
    bg = as_position(board)
    dice = (roll[0],) * 4 if roll[0] == roll[1] else roll
    ours = {
        (
            (*p.result.mine.points[1:], p.result.mine.bar),
            (*p.result.opponent.points[1:], p.result.opponent.bar),
        )
        for p in stage_plays(PORTES, board, dice)
    }
    assert ours == {(p.result.player, p.result.opponent) for p in legal_plays(bg, roll)}


@settings(max_examples=80, deadline=None)
@given(position=positions, dice=stage_dice)
def test_fv4_a_fevga_side_never_holds_all_of_its_19_to_24(position, dice):
    board = random_board(FEVGA, *position)
    for play in stage_plays(FEVGA, board, dice):
        assert not all(play.result.mine.points[p] for p in START_QUARTER)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), resign=st.sampled_from([0.0, 0.02]))
def test_tv_a_random_game_always_ends_and_scores_by_its_rule(rules, seed, resign):
    variant = Variants.by_name(rules.name)
    game = random_game(random.Random(seed), GameOptions(variant=variant), resign)
    check_score(game)


MOST_TURNS = 400


def stages_of_a_game(rules: TavliRules, seed: int, first_play: bool):
    """Each stage (board, dice) of a game of random rolls, each side playing the first
    legal play (as the API's tests do: ``legal_plays[0]``) or a random one. At most
    ``MOST_TURNS`` turns: random plakoto games can jam on pins (neither side able to move
    ever again), which would otherwise never end."""
    rng = random.Random(seed)
    board = rules.start_board()
    for _turn in range(MOST_TURNS):
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        choose = (lambda plays: plays[0]) if first_play else rng.choice
        after, stages = play_turn(rules, board, roll, choose, lambda: rng.randint(1, 6))
        yield from stages
        if not after.mine.left or (rules.mother and mother_outcome(after)):
            return
        board = after.mirror()


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10**6), first_play=st.booleans())
@example(seed=45, first_play=True)  # fevga: 24/18 22/19(2) was refused (FV4)
def test_tv_every_legal_play_as_text_is_accepted_and_reaches_its_board(rules, seed, first_play):
    # The API lists the plays as text (format_play) and `move` parses the text back
    # (parse_play, check_play): each listed play must be accepted as the play it is.
    # Only texts that join steps into one move (24/21 21/18 as 24/18) are checked here:
    # the steps one by one are checked above.
    for board, dice in stages_of_a_game(rules, seed, first_play):
        legal = stage_plays(rules, board, dice)
        for play in legal:
            segments = parse_play(format_play(play.steps))
            if len(segments) < len(play.steps):
                assert check_play(rules, board, dice, segments, legal).result == play.result
