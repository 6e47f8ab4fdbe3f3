"""2,000 random games of each tavli game through the whole ``Game`` API, each ending with
the score its rules give (TV4, PL5, AD7, TM3).

Random legal plays, random named doubles after acey-deucey's 1-2, resignations. Every
roll costs a search for the legal plays, so, as in the backgammon self-play, most games
are brisk (a resignation, accepted or not, is offered within a few turns) and one in 25
is played to the end, so that bearing off, mars, plakoto's mothers and draws, gul bara's
runs and acey-deucey's counts all come up. The games under other options (GB3's lost
rest, AD5 and AD6) are a tenth as many.
"""

from __future__ import annotations

import random

import pytest

from backgammon.game import Game, GameOptions, Opening, Phase, Result
from backgammon.tavli.board import CHECKERS
from backgammon.variants import Variants

GAMES = 2_000
VARIANTS = [
    Variants.PORTES.value,
    Variants.PLAKOTO.value,
    Variants.FEVGA.value,
    Variants.GULBARA.value,
    Variants.GULBARA.value.with_options({"run_rest": "lost"}),
    Variants.ACEY_DEUCEY.value,
    Variants.ACEY_DEUCEY.value.with_options({"double_earns_roll": True, "exact_bear_off": True}),
]
BRISK_RESIGN = 0.2
FULL_EVERY = 25


def random_game(
    rng: random.Random, options: GameOptions, resign: float, opening: Opening | None = None
) -> Game:
    """A game of random legal actions to its end (from ``opening``, or a random roll)."""
    first = (rng.randint(1, 6), rng.randint(1, 6))
    while first[0] == first[1]:
        first = (rng.randint(1, 6), rng.randint(1, 6))
    game = Game.start(options, opening or [first])
    while not game.over:
        if game.phase is Phase.RESIGN_OFFERED:
            game = game.accept_resign() if rng.random() < 0.5 else game.reject_resign()
        elif rng.random() < resign:
            borne = game.position_for(game.on_roll).mine.borne_off
            one_only = borne or options.variant.rules.per_checker
            game = game.resign(Result.SINGLE if one_only or rng.random() < 0.5 else Result.GAMMON)
        elif game.phase is Phase.ROLL:
            game = game.roll((rng.randint(1, 6), rng.randint(1, 6)))
        elif game.awaiting_double:
            game = game.name_double(rng.randint(1, 6))
        else:
            game = game.play(rng.choice(game.legal_plays()))
    return game


def check_score(game: Game) -> None:
    """The game ended as its rules allow, and scores what they say."""
    rules = game.options.variant.rules
    assert game.phase is Phase.OVER and game.turn is None
    board = game.position_for(0)
    rules.validate(board)
    points = game.points_for(0)
    assert points == -game.points_for(1)
    if game.result is Result.DRAW:
        assert game.winner is None and points == 0 and rules.mother
        return
    winner = game.position_for(game.winner)
    won = points if game.winner == 0 else -points
    if game.result is Result.RESIGNED:
        assert won == (
            winner.opponent.left
            if rules.per_checker
            else 2
            if game.resignation is Result.GAMMON
            else 1
        )
        return
    if game.result is Result.MOTHER:
        assert rules.mother and won == 2 and 24 in winner.opponent.pinned
        return
    assert winner.mine.borne_off == CHECKERS
    if rules.per_checker:
        assert game.result is Result.CHECKERS and won == winner.opponent.left
    else:
        expected = Result.SINGLE if winner.opponent.borne_off else Result.GAMMON
        assert game.result is expected and won == (1 if expected is Result.SINGLE else 2)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.name}{v.rules.options() or ''}")
def test_tv_selfplay_random_games_end_and_score_by_their_rules(variant):
    options = GameOptions(variant=variant)
    ends = set()
    for seed in range(GAMES // (10 if variant.rules.options() else 1)):
        rng = random.Random(seed)
        game = random_game(rng, options, 0.0 if seed % FULL_EVERY == 0 else BRISK_RESIGN)
        try:
            check_score(game)
        except AssertionError as exc:
            raise AssertionError(f"game {seed}: {exc}") from exc
        ends.add(game.result)
    expected = {Result.RESIGNED}
    expected |= {Result.CHECKERS} if variant.rules.per_checker else {Result.SINGLE, Result.GAMMON}
    expected |= {Result.MOTHER, Result.DRAW} if variant.rules.mother else set()
    assert ends == expected


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.name}{v.rules.options() or ''}")
def test_tv_selfplay_games_replay_and_serialize_equal(variant):
    options = GameOptions(variant=variant)
    for seed in range(8):
        game = random_game(random.Random(seed), options, BRISK_RESIGN if seed % 2 else 0.0)
        assert Game.replay(game.options, game.opening, game.history) == game
        assert Game.from_dict(game.to_dict()) == game
        assert Game.replay(options, game.opening, game.compact().history).position == game.position
