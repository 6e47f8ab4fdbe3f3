"""10,000 random games through the whole ``Game`` API, each ending with a valid score.

Random legal plays, random cube actions, resignations and forfeits, over money games,
match games, Crawford games and chouette games with one cube and with multiple cubes.
Every roll costs a search for the legal plays, so most games are played at a brisk pace
(doubles, passes and resignations are frequent and the games short); one game in ten is
played at a slow pace, mostly to the last checker, so that bearing off and gammons are
covered.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import pytest

from backgammon.cube import CubeState
from backgammon.errors import CubeNotAvailable
from backgammon.game import TAVLI_RESULTS, ForfeitReason, Game, GameOptions, Phase, Result
from backgammon.team import BOX, TEAM, ChouetteRules, CubeMode

GAMES = 10_000
FORFEIT_CHANCE = 0.0005  # per action in the self-play test: about one game in twenty

OPTION_SETS = (
    GameOptions(cube_max=64),
    GameOptions(jacoby=True, beavers=True, automatic_doubles=1),
    GameOptions(backgammon_value=2, cube_max=8),
    GameOptions(crawford=True, cube_max=64),
    GameOptions(
        holders=("ann", "bob", "cat"),
        jacoby=True,
        beavers=True,
        chouette=ChouetteRules(CubeMode.MULTIPLE),
    ),
    GameOptions(holders=("ann", "bob", "cat", "dan"), jacoby=True, chouette=ChouetteRules()),
)
_RESIGNS = (Result.SINGLE, Result.GAMMON, Result.BACKGAMMON)


@dataclass(frozen=True)
class Pace:
    """Chances of each decision: to resign (per turn), to double, to take, to beaver, and
    (per action, 0: never) for a random side to forfeit."""

    resign: float
    double: float
    take: float
    beaver: float = 0.1
    forfeit: float = 0.0


BRISK = Pace(resign=0.06, double=0.3, take=0.5)
SLOW = Pace(resign=0.004, double=0.03, take=0.8)


def opening_rolls(rng: random.Random) -> list[tuple[int, int]]:
    """Opening rolls as the dice stream gives them: ties, then one non-tie."""
    rolls = [(rng.randint(1, 6), rng.randint(1, 6))]
    while rolls[-1][0] == rolls[-1][1]:
        rolls.append((rng.randint(1, 6), rng.randint(1, 6)))
    return rolls


def random_game(
    rng: random.Random, options: GameOptions, pace: Pace = BRISK, until_over: bool = True
) -> Game:
    """A game of random legal actions: plays, doubles, answers and resignations
    (``until_over`` False: it may also stop at any point, unfinished)."""
    game = Game.start(options, opening_rolls(rng))
    while not game.over:
        if not until_over and rng.random() < 0.02:
            break
        if pace.forfeit and rng.random() < pace.forfeit:
            return game.forfeit(rng.randint(0, 1), rng.choice(list(ForfeitReason)))
        phase = game.phase
        chance = rng.random()
        if phase is Phase.ROLL:
            holders = [
                c.holder
                for c in game.contracts
                if game.in_play(c.holder) and c.can_offer(game.on_roll)
            ]
            if game.team is not None and game.on_roll == TEAM:
                holders = [h for h in holders if h not in game.team.proposals]
            cube = options.cube_allowed and not options.crawford and not game.doubled
            round_open = game.team is not None and (game.team.proposals or game.doubles_to_send)
            if chance < pace.resign and not round_open:
                game = resign(rng, game)
            elif chance < pace.resign + pace.double and cube and holders:
                single_box = game.team is not None and options.chouette.single  # H4: all
                if single_box and game.on_roll == BOX:
                    game = game.double()
                else:
                    game = game.double(rng.sample(holders, rng.randint(1, len(holders))))
            elif game.doubles_to_send:
                game = game.close_round()
            else:
                game = game.roll((rng.randint(1, 6), rng.randint(1, 6)))
        elif phase is Phase.MOVE:
            if chance < pace.resign / 4:
                game = resign(rng, game)
            else:
                game = game.play(rng.choice(game.legal_plays()))
        elif phase is Phase.TAKE_OR_PASS:
            waiting = [c for c in game.contracts if c.pending is not None]
            # The box answers the team's doubles in line order (H10).
            box_due = [c for c in waiting if c.pending == TEAM][:1] if game.team else []
            contract = rng.choice([c for c in waiting if c.pending == BOX] + box_due or waiting)
            room = contract.max_value is None or contract.max_value >= contract.value * 4
            single = options.chouette is not None and options.chouette.single
            member_beaver = single and contract.pending == BOX
            beaver = options.beavers and not contract.beavered and room and not member_beaver
            answer = Game.pass_
            if beaver and chance < pace.beaver:
                answer = Game.beaver
            elif chance < pace.take:
                answer = Game.take
            try:
                game = answer(game, contract.holder)
            except CubeNotAvailable:
                if options.chouette is None or not options.chouette.same_action:
                    raise
                # H9 refused that answer of the box's: the other one is always allowed.
                game = (Game.take if answer is Game.pass_ else Game.pass_)(game, contract.holder)
        else:
            answer = game.accept_resign if chance < 0.5 else game.reject_resign
            if game.team is not None and game.on_roll == BOX:
                game = answer(rng.choice(game.team.resign_to))
            else:
                game = answer()
    return game


def resign(rng: random.Random, game: Game) -> Game:
    """The side on roll offers a random resignation (in a chouette on the team's turn,
    a random member still in the game, their own contract)."""
    value = rng.choice(_RESIGNS)
    if game.team is not None and game.on_roll == TEAM:
        return game.resign(value, rng.choice(game.live_holders))
    return game.resign(value)


def check_score(game: Game) -> None:
    """The ending is one the rules allow, and every contract's points agree with it."""
    assert game.phase is Phase.OVER and game.turn is None
    if game.result is Result.SETTLED:  # a chouette: every contract passed or resigned
        assert game.team is not None and game.winner is None and not game.live_holders
    else:
        assert game.winner in (0, 1)
    points = game.points_by_holder()
    assert sum(points.values()) == game.points_for(0) == -game.points_for(1)
    if game.result in (Result.SINGLE, Result.GAMMON, Result.BACKGAMMON):
        assert sum(game.position_for(game.winner).player) == 0
    if game.result is Result.PASSED:
        assert all(c.state is CubeState.PASSED for c in game.contracts)
    if game.result is Result.FORFEIT:
        loser = game.position_for(1 - game.winner).player
        none_off = sum(loser) == game.options.variant.checkers
        assert game.resignation is (Result.GAMMON if none_off else Result.SINGLE)
    outcomes = game.outcomes()
    for contract in game.contracts:
        value, got = contract.value, points[contract.holder]
        outcome = outcomes[contract.holder]
        assert contract.pending is None and outcome.points == got and outcome.stake == value
        if contract.state is CubeState.PASSED:
            assert outcome.result is Result.PASSED
            assert got == (value if contract.passer == 1 else -value)
            continue
        kind = outcome.value
        won = got if outcome.winner == 0 else -got
        assert won in (value, 2 * value, 3 * value)
        multiplier = {Result.SINGLE: 1, Result.GAMMON: 2}.get(kind, game.options.backgammon_value)
        if game.options.jacoby and not contract.turned:
            multiplier = 1
        assert won == value * multiplier


@pytest.mark.slow
def test_selfplay_random_games_end_with_valid_scores() -> None:
    ends = set()
    for seed in range(GAMES):
        rng = random.Random(seed)
        pace = replace(SLOW if seed % 10 == 0 else BRISK, forfeit=FORFEIT_CHANCE)
        game = random_game(rng, OPTION_SETS[seed % len(OPTION_SETS)], pace)
        try:
            check_score(game)
        except AssertionError as exc:
            raise AssertionError(f"game {seed}: {exc}") from exc
        ends.add(game.result)
    assert ends == set(Result) - TAVLI_RESULTS


def test_selfplay_games_replay_and_serialize_equal() -> None:
    for seed in range(30):
        game = random_game(random.Random(seed), OPTION_SETS[seed % len(OPTION_SETS)])
        assert Game.replay(game.options, game.opening, game.history) == game
        assert Game.from_dict(game.to_dict()) == game
