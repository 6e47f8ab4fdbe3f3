"""Properties of every legal play from positions reached by random play (Hypothesis), and
agreement with a plain reference search. (Agreement with GNU Backgammon's own generator
is tests/backgammon/test_oracle_gnubg.py.)"""

import random
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon import moves
from backgammon.errors import BackgammonError, IllegalPlay
from backgammon.moves import (
    apply_step,
    check_play,
    dice_for_roll,
    legal_plays,
    legal_plays_for_dice,
    legal_results,
    result_boards,
)
from backgammon.notation import format_play, play_from_text
from backgammon.position import Position, pip_count
from backgammon.variants import START, Variants

STARTS = [START, Variants.NACKGAMMON.value.start()]
rolls = st.tuples(st.integers(1, 6), st.integers(1, 6))
quick = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_randomly(rng: random.Random, position: Position, turns: int) -> Position:
    """The position after up to ``turns`` turns of random legal play, either side on roll,
    stopping before the game ends."""
    for _ in range(turns):
        plays = legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        if plays:
            after = rng.choice(plays).result
            if not any(after.player):
                break
            position = after
        position = position.mirror()
    return position


positions = st.builds(
    play_randomly, st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 80)
)


def overshoot(play) -> int:
    """Pips a play's dice lose to bearing off from points lower than the die (F4)."""
    return sum(
        die - step.origin
        for step, die in zip(play.steps, play.dice_used, strict=True)
        if step.destination == 0 and die > step.origin
    )


@quick
@given(positions, rolls)
def test_b1_checkers_and_pips_are_accounted_for(position, roll):
    # 15 checkers a side stay 15 (on the board or off); the mover's pips drop by exactly
    # the dice used, less what a die overshoots when it bears off from a lower point (F4);
    # the opponent's rise by the mover's point number of each blot hit (its checker goes
    # from its own point 25 - p to the bar, worth 25).
    for play in legal_plays(position, roll):
        result = play.result.validate()
        borne_off = sum(step.destination == 0 for step in play.steps)
        assert sum(result.player) == sum(position.player) - borne_off
        assert sum(result.opponent) == sum(position.opponent)
        assert position.borne_off()[0] + borne_off == result.borne_off()[0]
        dropped = pip_count(position.player) - pip_count(result.player)
        assert dropped == sum(play.dice_used) - overshoot(play)
        hits = sum(step.destination for step in play.steps if step.hit)
        assert pip_count(result.opponent) - pip_count(position.opponent) == hits


@quick
@given(positions, rolls)
def test_m2_e1_f1_every_step_is_legal_on_its_own(position, roll):
    # Replayed one die at a time, every step is legal where it is played: it never lands
    # on a blocked point (M2), leaves the bar first (E1), bears off only from home (F1-F4),
    # and hits exactly when it says so.
    for play in legal_plays(position, roll):
        current = position
        for step, die in zip(play.steps, play.dice_used, strict=True):
            assert step.destination == 0 or position.opponent[24 - step.destination] < 2
            after = apply_step(current, step.origin, die)
            assert step.destination == max(step.origin - die, 0)
            assert after.opponent[24] - current.opponent[24] == step.hit
            current = after
        assert current == play.result


@quick
@given(positions, rolls)
def test_m5_plays_are_distinct_use_the_most_dice_and_cannot_go_on(position, roll):
    dice = dice_for_roll(*roll)
    plays = legal_plays(position, roll)
    assert len({play.result for play in plays}) == len(plays)
    assert len({len(play.dice_used) for play in plays}) <= 1
    for play in plays:
        left = list(dice)
        for die in play.dice_used:
            left.remove(die)
        for die in set(left):  # no unused die could still be played
            assert legal_plays_for_dice(play.result, [die]) == []


def reference(position: Position, roll) -> set[Position]:
    """The legal results by the rules read literally, one level of dice at a time with
    ``apply_step``: as many dice as possible; with one of two, the higher if it plays."""
    dice = dice_for_roll(*roll)
    reached: dict[int, dict[int, set[Position]]] = {}
    for order in {dice, dice[::-1]}:
        level = {position}
        for depth, die in enumerate(order, 1):
            level = {
                after
                for before in level
                for origin in range(1, 26)
                if before.player[origin - 1]
                for after in _step_or_none(before, origin, die)
            }
            if not level:
                break
            reached.setdefault(depth, {}).setdefault(order[0], set()).update(level)
    if not reached:
        return set()
    deepest = reached[max(reached)]
    if max(reached) == 1 and max(dice) in deepest:
        return deepest[max(dice)]
    return set().union(*deepest.values())


def _step_or_none(position: Position, origin: int, die: int) -> list[Position]:
    try:
        return [apply_step(position, origin, die)]
    except IllegalPlay:
        return []


@quick
@given(positions, rolls)
def test_m5_e2_f3_matches_a_plain_reference_search(position, roll):
    assert {play.result for play in legal_plays(position, roll)} == reference(position, roll)


@quick
@given(positions, rolls)
def test_every_play_round_trips_through_check_play_and_its_text(position, roll):
    for play in legal_plays(position, roll):
        assert check_play(position, roll, play.steps).result == play.result
        assert play_from_text(position, roll, format_play(play.steps)).result == play.result


@quick
@given(positions, rolls)
def test_a_replayed_play_found_among_the_rolls_plays_is_the_one_the_search_finds(position, roll):
    """A replay hands check_play the roll's legal plays and a play's own steps: it takes
    that play as it is, the play the search of its steps finds."""
    legal = legal_plays(position, roll)
    for play in legal:
        searched = check_play(position, roll, play.steps)
        found = check_play(position, roll, play.steps, legal)
        assert found is play
        assert (found.result, found.steps) == (searched.result, searched.steps)


def _outcome(position, roll, segments):
    try:
        return check_play(position, roll, segments)
    except BackgammonError as error:
        return type(error), str(error)


@quick
@given(positions, rolls)
def test_a_play_written_a_die_a_move_is_what_the_search_finds(position, roll):
    """A play written one die a move (as a record writes most) is played in its order,
    without the search of every way to play it: the same play, or the same error, as
    the search gives, in the order written and reversed."""
    for play in legal_plays(position, roll):
        for segments in (play.steps, play.steps[::-1]):
            pairs = [(step.origin, step.destination) for step in segments]
            found = _outcome(position, roll, pairs)
            with mock.patch.object(moves, "_played_in_order", return_value=None):
                searched = _outcome(position, roll, pairs)
            assert found == searched


@quick
@given(positions, rolls)
def test_legal_results_are_the_results_of_the_legal_plays(position, roll):
    # The ID path (command line, game requests) takes the results without the plays.
    results = legal_results(position, roll)
    plays = legal_plays(position, roll)
    assert results == [(play.result.player, play.result.opponent) for play in plays]
    boards = result_boards(position, roll)
    assert [(bytes(player), opponent) for player, opponent in results] == boards
    # The results that hit no blot share the opponent's board object itself.
    assert all(
        (opponent == position.opponent) == (opponent is position.opponent) for _, opponent in boards
    )
