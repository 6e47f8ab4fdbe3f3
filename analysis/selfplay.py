"""Matches the engine plays against itself, for the benchmark and the tests: each side
picks among the engine's ranked choices by its own policy (the best, the worst, now and
then the second best), with seeded dice, through the rules core like any match."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from analysis.engine import Engine
from backgammon.game import Game, GameOptions, Phase
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord

# Given how many choices there are (ranked best first) and the dice's generator, the
# index of the one to make.
Policy = Callable[[int, random.Random], int]


def best(count: int, rng: random.Random) -> int:
    return 0


def worst(count: int, rng: random.Random) -> int:
    return count - 1


def human(count: int, rng: random.Random) -> int:
    """The best, but one time in ten the second best: a match with a few errors in it."""
    return 1 if count > 1 and rng.random() < 0.1 else 0


@dataclass(frozen=True)
class Player:
    name: str
    policy: Policy


def play_match(
    engine: Engine,
    players: tuple[Player, Player],
    length: int,
    seed: int,
    session: GameOptions | None = None,
    most_games: int | None = None,
) -> MatchRecord:
    """A whole match to ``length`` points between the two players, or a money session
    (``length`` 0, with the ``session``'s options) of ``most_games`` games."""
    rng = random.Random(seed)
    start = MatchState(length=length, options=session or GameOptions())
    state = start
    games: list[Game] = []
    while not state.over and len(games) != most_games:
        game = _play_game(engine, players, state, rng)
        games.append(game)
        state = state.apply_game(game.points_for(0))
    return MatchRecord(players=(players[0].name, players[1].name), start=start, games=tuple(games))


def _roll(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def _opening(rng: random.Random) -> tuple[int, int]:
    while True:
        dice = _roll(rng)
        if dice[0] != dice[1]:
            return dice


def _play_game(
    engine: Engine, players: tuple[Player, Player], state: MatchState, rng: random.Random
) -> Game:
    game = Game.start(state.next_game_options(), [_opening(rng)])
    while not game.over:
        policy = players[game.on_roll].policy
        if game.phase is Phase.MOVE:
            plays = engine.checker(game, state).plays
            game = game.play(plays[policy(len(plays), rng)])
            continue
        choice = engine.cube(game, state)
        doubles = choice is not None and _choose(policy, rng, choice.double > choice.no_double)
        if not doubles:
            game = game.roll(_roll(rng))
            continue
        assert choice is not None
        game = game.double()
        answer = players[game.turn or 0].policy
        takes = _choose(answer, rng, -choice.double_take >= -choice.double_pass)
        game = game.take() if takes else game.pass_()
    return game


def _choose(policy: Policy, rng: random.Random, best_is_yes: bool) -> bool:
    """A yes-or-no decision by ``policy``, the engine's answer being ``best_is_yes``."""
    first = policy(2, rng) == 0
    return best_is_yes if first else not best_is_yes
