"""T4's no-contact bear-off: when the server may play it, and which play it chooses."""

import random

from backgammon.bearoff import bear_off_choice, bearing_off_both, no_contact_play
from backgammon.game import Game, GameOptions, Phase
from backgammon.moves import legal_plays
from backgammon.notation import format_play
from backgammon.position import Position, board_from_points, pip_count
from backgammon.variants import Variants

THEIRS = board_from_points({1: 3, 2: 2})


def _chosen(points: dict[int, int], roll: tuple[int, int]) -> str:
    play = bear_off_choice(legal_plays(Position(board_from_points(points), THEIRS), roll))
    assert play is not None
    return format_play(play.steps)


def test_t4_the_bear_off_play_bears_off_the_most_checkers_first():
    assert _chosen({6: 1, 2: 1, 1: 1}, (2, 1)) == "2/off 1/off"
    assert _chosen({6: 2, 5: 1, 3: 1}, (4, 1)) == "5/off"


def test_t4_of_as_many_checkers_off_the_bear_off_play_leaves_the_fewest_pips():
    assert _chosen({4: 1, 3: 1, 1: 2}, (5, 2)) == "4/off 3/1"  # 3 pips left, not 4


def test_t4_of_as_many_pips_the_bear_off_play_covers_the_most_points():
    assert _chosen({6: 3}, (2, 1)) == "6/5 6/4"  # three points covered, not two


def test_t4_the_bear_off_choice_is_the_best_by_the_rule_on_random_positions():
    rng = random.Random(8)
    for _ in range(300):
        points: dict[int, int] = {}
        for _checker in range(rng.randint(1, 15)):
            point = rng.randint(1, 6)
            points[point] = points.get(point, 0) + 1
        plays = legal_plays(
            Position(board_from_points(points), THEIRS), (rng.randint(1, 6), rng.randint(1, 6))
        )
        chosen = bear_off_choice(plays)
        assert chosen is not None
        for play in plays:
            left, best = sum(play.result.player), sum(chosen.result.player)
            assert left >= best
            if left == best:
                assert pip_count(play.result.player) >= pip_count(chosen.result.player)


def test_t4_contact_or_a_checker_outside_home_is_no_bear_off():
    home = board_from_points({1: 5, 6: 5})
    assert bearing_off_both(Position(home, home))
    assert not bearing_off_both(Position(board_from_points({1: 5, 7: 1}), home))
    assert not bearing_off_both(Position(home, board_from_points({1: 5, 25: 1})))
    assert bear_off_choice([]) is None


def _game_at(board: tuple[Position, ...] | Position, *, variant: str = "standard") -> Game:
    """A game with ``board`` (from the side on roll's view), rolled and waiting for a move."""
    game = Game.start(GameOptions(variant=Variants.by_name(variant)), [(5, 3)])
    state = game.to_dict()
    assert isinstance(board, Position)
    own, theirs = list(board.player), list(board.opponent)
    state["board"] = [own, theirs] if game.on_roll == 0 else [theirs, own]
    return Game.from_dict(state)


def test_t4_no_contact_play_only_in_a_no_contact_bear_off_waiting_for_a_move():
    home = board_from_points({1: 2, 3: 2, 5: 1})
    bearing = _game_at(Position(home, THEIRS))
    assert bearing.phase is Phase.MOVE
    play = no_contact_play(bearing)
    assert play is not None and format_play(play.steps) == "5/off 3/off"
    contact = _game_at(Position(board_from_points({1: 2, 20: 1}), THEIRS))
    assert no_contact_play(contact) is None
    stepped = bearing.move_step(5, 5)
    assert no_contact_play(stepped) is None
    assert no_contact_play(bearing.play(play)) is None  # the other side's roll is next
