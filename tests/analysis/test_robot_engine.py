"""The practice robot's choices at each strength, with the real engine, on fixed
positions: the expert plays the engine's best at 1-ply, the intermediate at 0-ply, the
beginner sometimes not (the same answer for the same request: its noise is seeded)."""

import random
from dataclasses import replace

import pytest

from analysis import robot_engine
from analysis.engine import Engine
from analysis.selfplay import _opening, _roll
from backgammon.game import Game, GameOptions, Phase
from backgammon.match import MatchState
from backgammon.notation import format_play
from backgammon.position import Position

MONEY = MatchState()


def ask(game: Game, strength: str, *, state: MatchState = MONEY, turn_no: int = 1):
    request = {
        "table": 7,
        "turn_no": turn_no,
        "strength": strength,
        "game": game.to_dict(),
        "match": state.to_dict(),
    }
    return robot_engine.decide(request)


def board(points: dict[int, int]) -> tuple[int, ...]:
    slots = [0] * 25
    for point, checkers in points.items():
        slots[point - 1] += checkers
    return tuple(slots)


def race(mine: dict[int, int], theirs: dict[int, int], options=None) -> Game:
    """Side 0 on roll before its roll, in a race of ``mine`` against ``theirs``."""
    start = Game.start(options or GameOptions(), [(3, 1)])
    position = Position(board(mine), board(theirs))
    return replace(start, board=position, on_roll=0, phase=Phase.ROLL, dice=None, history=())


# Races whose cube action the engine calls the same at 0-ply and 1-ply.
DOUBLE_PASS = ({6: 2, 5: 2, 4: 2}, {6: 3, 5: 3, 4: 2})
DOUBLE_TAKE = ({6: 3, 5: 3, 4: 3, 3: 2}, {6: 3, 5: 3, 4: 3, 3: 3})
NO_DOUBLE_BEAVER = ({6: 4, 5: 3, 4: 2}, {6: 3, 5: 3, 4: 2})


def positions(count: int, seed: int = 3) -> list[Game]:
    """``count`` rolled positions of games the engine plays against itself."""
    engine, rng, found = Engine(0), random.Random(seed), []
    while len(found) < count:
        game = Game.start(GameOptions(), [_opening(rng)])
        while not game.over and len(found) < count:
            if game.phase is Phase.ROLL:
                game = game.roll(_roll(rng))
                continue
            plays = engine.checker(game, MONEY).plays
            if len(plays) > 1:
                found.append(game)
            game = game.play(plays[0])
    return found


@pytest.mark.parametrize(
    "dice, play", [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7")]
)
@pytest.mark.parametrize("strength", ["intermediate", "expert"])
def test_the_opening_rolls_are_played_as_the_books_say(strength, dice, play):
    game = Game.start(GameOptions(), [dice])
    assert ask(game, strength) == {"act": "move", "play": play}


@pytest.mark.parametrize("strength, plies", [("intermediate", 0), ("expert", 1)])
def test_intermediate_and_expert_play_the_engines_best_at_their_depth(strength, plies):
    engine = Engine(plies)
    for game in positions(12):
        best = format_play(engine.checker(game, MONEY).plays[0].steps)
        assert ask(game, strength) == {"act": "move", "play": best}


def test_the_beginner_sometimes_plays_another_move_and_always_the_same_one():
    engine = Engine(0)
    games = positions(40)
    chosen = [ask(game, "beginner", turn_no=n)["play"] for n, game in enumerate(games)]
    best = [format_play(engine.checker(game, MONEY).plays[0].steps) for game in games]
    differing = sum(a != b for a, b in zip(chosen, best, strict=True))
    assert 0 < differing < len(games) // 2
    again = [ask(game, "beginner", turn_no=n)["play"] for n, game in enumerate(games)]
    assert again == chosen


@pytest.mark.parametrize("strength", ["intermediate", "expert"])
def test_the_robot_doubles_a_double_and_not_a_weak_position(strength):
    assert ask(race(*DOUBLE_PASS), strength) == {"act": "double"}
    assert ask(race(*DOUBLE_TAKE), strength) == {"act": "double"}
    assert ask(race(*NO_DOUBLE_BEAVER), strength) == {"act": "roll"}


def test_the_beginner_misses_a_close_double_now_and_then_never_a_far_one():
    """A double worth 0.06 more than no double: the beginner's noise hides it at some
    turns; not doubling worth 0.44 more: it never doubles."""
    close = {ask(race(*DOUBLE_PASS), "beginner", turn_no=n)["act"] for n in range(30)}
    assert close == {"double", "roll"}
    far = {ask(race(*NO_DOUBLE_BEAVER), "beginner", turn_no=n)["act"] for n in range(30)}
    assert far == {"roll"}


@pytest.mark.parametrize("strength", ["intermediate", "expert"])
def test_the_robot_takes_passes_and_beavers_as_the_engine_says(strength):
    assert ask(race(*DOUBLE_PASS).double(), strength) == {"act": "pass"}
    assert ask(race(*DOUBLE_TAKE).double(), strength) == {"act": "take"}
    assert ask(race(*NO_DOUBLE_BEAVER).double(), strength) == {"act": "take"}
    beavers = GameOptions(beavers=True)
    assert ask(race(*NO_DOUBLE_BEAVER, beavers).double(), strength) == {"act": "beaver"}
    assert ask(race(*DOUBLE_TAKE, beavers).double(), strength) == {"act": "take"}


def test_the_robot_takes_a_beaver_of_its_double():
    beavered = race(*DOUBLE_TAKE, GameOptions(beavers=True)).double().beaver()
    assert beavered.turn == 0  # the doubler answers the beaver
    assert ask(beavered, "expert") == {"act": "take"}


def test_in_a_match_the_robot_doubles_at_the_score():
    """In a match to 1 the cube is dead: nothing to double, it rolls."""
    state = MatchState(length=1)
    game = replace(race(*DOUBLE_PASS), options=state.next_game_options())
    assert ask(game, "expert", state=state) == {"act": "roll"}


def test_a_resignation_is_accepted_when_it_gives_what_playing_on_would():
    losing = race(*DOUBLE_PASS).resign("single")  # the member on roll is winning
    assert ask(losing, "intermediate") == {"act": "accept_resign"}
    gammoned = race({13: 10, 8: 5}, {1: 2}).resign("single")  # the robot wins a gammon
    assert ask(gammoned, "intermediate") == {"act": "reject_resign"}
    assert ask(race({13: 10, 8: 5}, {1: 2}).resign("gammon"), "intermediate") == {
        "act": "accept_resign"
    }


def test_an_unknown_strength_is_refused():
    with pytest.raises(ValueError, match="no robot strength"):
        ask(Game.start(GameOptions(), [(3, 1)]), "grandmaster")
