"""The legal move generator on fixed positions, each with the exact set of legal plays.

Positions are drawn as two rows of checker counts, both in X's numbering (X is on roll
and moves from 24 towards 1); the last column is each side's bar. Checkers not drawn are
borne off, so each drawing shows only what matters. Plays are compared as GNU Backgammon
writes them (``format_play``), one per distinct resulting position.
"""

import pytest

from backgammon.errors import IllegalPlay, InvalidDice, InvalidNotation
from backgammon.moves import (
    Play,
    Step,
    apply_step,
    check_play,
    dice_for_roll,
    legal_plays,
    legal_plays_for_dice,
)
from backgammon.notation import format_play, play_from_text
from backgammon.position import Position
from backgammon.variants import START


def diagram(text: str) -> Position:
    """The position drawn in ``text``: rows ``X:`` and ``O:`` of 25 counts (``.`` = 0)
    for points 24..1 and the bar, both in X's numbering; X is on roll."""
    rows = {}
    for line in text.strip().splitlines():
        label, _, cells = line.strip().partition(":")
        if label in ("X", "O"):
            rows[label] = [0 if cell == "." else int(cell) for cell in cells.split()]
    player, opponent = [0] * 25, [0] * 25
    for column, (x, o) in enumerate(zip(rows["X"], rows["O"], strict=True)):
        point = 24 - column  # 0 for the bar column
        player[point - 1 if point else 24] += x
        opponent[24 - point if point else 24] += o
    return Position(tuple(player), tuple(opponent)).validate()


def texts(position: Position, roll) -> set[str]:
    """The plays of a roll (two dice) or of the dice left (one die), as text."""
    plays = legal_plays(position, roll) if len(roll) == 2 else legal_plays_for_dice(position, roll)
    written = {format_play(play.steps) for play in plays}
    assert len(written) == len(plays) == len({play.result for play in plays})
    return written


def reason(position: Position, roll, steps) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        check_play(position, roll, steps)
    return caught.value


# --- the start position (B2) ------------------------------------------------------------

# Cross-checked with GNU Backgammon 1.1's generator (findbestmoves) for every roll; by
# hand: 6-5 below; 6-6 is four sixes among 24/18 (at most 2), 13/7 (5) and 8/2 (3), 7/1
# and 18/12 being blocked: 4 + 4 + 3 = 11; 5-5 is 13/8 a times and 8/3 4-a times with
# 4-a <= 3 + a: a = 1..4.
START_COUNTS = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73, (4, 1): 14,
    (4, 2): 18, (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9,
    (5, 5): 4, (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14, (6, 5): 7, (6, 6): 11,
}  # fmt: skip


@pytest.mark.parametrize(("roll", "count"), START_COUNTS.items())
def test_b2_start_position_play_counts_for_all_21_rolls(roll, count):
    assert len(legal_plays(START, roll)) == count
    assert len(legal_plays(START, roll[::-1])) == count


def test_m1_start_6_5_one_checker_or_two():
    # The 5 cannot be played from 24 (O's 6-point) nor from 6 (O's 24-point): the 6s are
    # 24/18, 13/7, 8/2 and the 5s 13/8, 8/3, or on with the checker that moved.
    assert texts(START, (6, 5)) == {
        "24/13", "24/18 13/8", "24/18 8/3", "13/8 13/7", "13/7 8/3", "13/2", "8/3 8/2",
    }  # fmt: skip


def test_m1_start_5_1_counted_by_hand():
    # 5s: 13/8, 8/3; 1s: 24/23, 8/7, 6/5; 24/23/18 only with the 1 first; 13/12 is blocked.
    assert texts(START, (5, 1)) == {
        "24/23 13/8", "13/7", "13/8 6/5", "24/23 8/3", "8/7 8/3", "8/3 6/5", "8/2", "24/18",
    }  # fmt: skip


# --- moving (M2-M5) ---------------------------------------------------------------------


def test_m2_never_lands_on_a_blocked_point():
    # The 6s (24/18, 8/2) are blocked until the checker on 24 moves on with the 4: 8/4*
    # alone uses one die only (M5).
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  2  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  2  .  .
""")
    assert texts(position, (6, 4)) == {"24/14"}


def test_m3_a_checker_playing_both_dice_needs_an_open_landing_point():
    # 18 and 19 are both blocked: 24/13 cannot be played at all, and nothing else can.
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == set()
    assert reason(position, (6, 5), [(24, 13)]).reason == IllegalPlay.BLOCKED


def test_m3_one_open_landing_point_is_enough():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == {"24/13"}
    assert check_play(position, (6, 5), [(24, 13)]).steps == (
        Step(24, 19, False),
        Step(19, 13, False),
    )


def test_m3_passing_over_blocked_points_is_allowed():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  2  2  2  2  .  2  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (5, 5)) == {"24/4"}


def test_m4_intermediate_touch_down_hits_and_is_written():
    # Blots on 18 and 13: via 18 both are hit, via 19 only the one on 13.
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  1  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    plays = {format_play(play.steps): play for play in legal_plays(position, (6, 5))}
    assert set(plays) == {"24/18*/13*", "24/13*"}
    assert plays["24/18*/13*"].result.opponent[24] == 2
    assert plays["24/13*"].result.opponent[24] == 1


def test_m4_hitting_is_never_compulsory_and_several_blots_may_be_hit():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  2  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  1  .  .
""")
    assert texts(position, (6, 4)) == {"13/3", "13/7 8/4*", "13/9 8/2*", "8/4* 8/2*"}


def test_m5_must_use_both_dice_when_the_first_looks_playable_alone():
    # 20/14 plays the 6 but leaves no 5 (14/9, 12/7 blocked); 12/6/1 uses both.
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  1  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  2  .  2  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == {"12/1"}
    error = reason(position, (6, 5), [(20, 14)])
    assert error.reason == IllegalPlay.MUST_USE_BOTH
    assert str(error) == "both dice of 6-5 can be played, so both must be (M5)"


def test_m5_higher_die_when_only_one_can_be_played():
    # 12/6 or 12/7, but never both: 1 is blocked. The 6 must be played.
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .
""")
    assert texts(position, (6, 5)) == {"12/6"}
    assert texts(position, (5, 6)) == {"12/6"}
    error = reason(position, (6, 5), [(12, 7)])
    assert error.reason == IllegalPlay.HIGHER_DIE
    assert "the higher die must be played" in str(error)


def test_m5_lower_die_when_the_higher_cannot_be_played():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  2  .
""")
    assert texts(position, (6, 5)) == {"12/7"}
    assert check_play(position, (6, 5), [(12, 7)]).dice_used == (5,)


@pytest.mark.parametrize(
    ("blocked", "expected", "used"), [(15, "24/18", 2), (12, "24/15", 3), (9, "24/12", 4)]
)
def test_m5_double_plays_as_many_of_the_four_as_it_can(blocked, expected, used):
    position = Position(
        tuple(1 if slot == 23 else 0 for slot in range(25)),
        tuple(2 if slot == 24 - blocked else 0 for slot in range(25)),
    )
    (play,) = legal_plays(position, (3, 3))
    assert format_play(play.steps) == expected
    assert play.dice_used == (3,) * used


def test_m5_double_must_use_more_when_more_can_be_played():
    error = reason(START, (3, 3), [(24, 21), (24, 21)])
    assert error.reason == IllegalPlay.MUST_USE_MORE
    assert str(error) == "4 of the four 3s can be played and must be (M5), not 2"


def test_m5_no_play_at_all_gives_an_empty_list_and_an_empty_play():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert legal_plays(position, (6, 5)) == []
    assert check_play(position, (6, 5), []) == Play((), position, ())


def test_m5_passing_while_a_play_exists_is_refused():
    error = reason(START, (6, 5), [])
    assert error.reason == IllegalPlay.MUST_MOVE
    assert str(error) == "a legal play exists for 6-5"


# --- the bar (E1-E4) --------------------------------------------------------------------


def test_e1_enter_before_moving_any_other_checker():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  .  .  .  .  .  .  .  1
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == {"bar/14", "bar/19 13/8", "bar/20 13/7"}
    error = reason(position, (6, 5), [(13, 7), (13, 8)])
    assert error.reason == IllegalPlay.BAR_FIRST
    assert str(error) == "13: enter your checker(s) from the bar first (E1)"


def test_e2_a_blocked_entry_die_enters_with_the_other():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  .  .  1
   O:  .  .  .  .  .  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == {"bar/14", "bar/20 8/2"}
    error = reason(position, (6, 5), [(25, 19), (8, 3)])
    assert error.reason == IllegalPlay.BLOCKED
    assert str(error) == "bar/19: point 19 is blocked (2 opposing checkers)"


def test_e2_two_on_the_bar_one_enters_and_the_turn_ends():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  .  .  2
   O:  .  .  .  .  .  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == {"bar/20"}
    # The entered checker may not move on while the other is still on the bar.
    assert reason(position, (6, 5), [(25, 14)]).reason == IllegalPlay.BAR_FIRST


def test_e2_three_on_the_bar_with_a_double_some_entries_blocked():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  3
   O:  .  .  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (2, 2)) == {"bar/23(3) 13/11", "bar/21 bar/23(2)"}
    assert texts(position, (3, 3)) == set()


def test_e2_dance_when_no_die_can_enter():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  .  .  .  .  .  .  1
   O:  .  .  .  .  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == set()
    # 4-1: bar/21/20 and bar/24/20 would land on a blocked point.
    assert texts(position, (4, 1)) == {"bar/21 8/7", "bar/24 8/4"}


def test_e3_once_entered_the_remaining_dice_play_normally():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  2
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (4, 4)) == {
        "bar/17(2)", "bar/13 bar/21", "bar/17 bar/21 13/9", "bar/21(2) 13/5",
    }  # fmt: skip


def test_e4_closed_board_no_roll_moves():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  5  .  .  .  .  .  .  .  .  .  .  .  .  1
   O:  2  2  2  2  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    for roll in START_COUNTS:
        assert legal_plays(position, roll) == []


# --- bearing off (F1-F6) ----------------------------------------------------------------


def test_f1_no_bear_off_while_a_checker_is_outside():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  2  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (3, 1)) == {"13/9", "13/10 3/2"}
    error = reason(position, (3, 1), [(3, 0), (13, 12)])
    assert error.reason == IllegalPlay.CANNOT_BEAR_OFF
    assert str(error) == (
        "3/off: cannot bear off yet, 1 checker(s) are not in your home board (F1)"
    )


def test_f1_bearing_off_may_start_once_the_last_checker_is_home():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  2  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    # 8/2 then the 5 from the highest point, 3 (F4); or 8/3 then the 6 from 3.
    assert texts(position, (6, 5)) == {"8/2 3/off", "8/off"}


def test_f2_a_die_bears_off_from_its_point_and_f5_need_not():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  1  .  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 4)) == {"6/off 4/off", "6/2 4/off"}


def test_f3_an_empty_point_with_a_higher_checker_means_moving_inside():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  1  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    # The 5 cannot bear off from 2 while 6 is occupied: 6/1, then the 4 bears off the 2
    # (now the highest); or 6/2 with the 4, then the 5 bears off a checker from 2.
    assert texts(position, (5, 4)) == {"6/1 2/off", "6/off"}


def test_f3_the_die_is_lost_when_no_move_inside_is_legal():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  1  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  2  .
""")
    assert texts(position, (5, 4)) == set()
    error = reason(position, (5, 4), [(3, 0)])
    assert error.reason == IllegalPlay.WRONG_DICE
    assert str(error) == (
        "3/off: a 5 bears off from point 3 only when no checker stands on a higher point "
        "(F3, F4); 3/off: a 4 bears off from point 3 only when no checker stands on a "
        "higher point (F3, F4)"
    )


def test_f4_a_higher_die_bears_off_from_the_highest_point():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  1  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert texts(position, (6, 5)) == {"3/off 2/off"}


def test_f4_doubles_bear_off_from_the_highest_point_each_time():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  2  1  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    # 4/1 first (a 3 cannot bear off from 2 while 4 is occupied), then 2, 2 and 1 off.
    (play,) = legal_plays(position, (3, 3))
    assert format_play(play.steps) == "4/off 2/off(2)"
    assert play.result.player[:6] == (1, 0, 0, 0, 0, 0)


def test_f6_hitting_while_bearing_off():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  .  1  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .
""")
    assert texts(position, (6, 1)) == {"6/5 6/off", "6/off 3/2*"}


def test_f6_a_hit_checker_reenters_and_comes_home_before_bearing_off_resumes():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  4  1
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    (play,) = legal_plays(position, (6, 1))
    assert format_play(play.steps) == "bar/18"
    assert play.result.borne_off()[0] == 10  # checkers already off stay off


# --- check_play: every reason, and what it accepts ---------------------------------------


def test_check_play_accepts_steps_in_any_order_and_segments_spanning_dice():
    expected = next(p for p in legal_plays(START, (6, 5)) if format_play(p.steps) == "24/18 13/8")
    for steps in ([(24, 18), (13, 8)], [(13, 8), (24, 18)], list(expected.steps)):
        play = check_play(START, (6, 5), steps)
        assert play.result == expected.result
    assert check_play(START, (5, 6), [(13, 8), (24, 18)]).dice_used == (5, 6)
    assert (
        check_play(START, (6, 5), [(24, 13)]).result
        == check_play(START, (6, 5), [(24, 18), (18, 13)]).result
    )


def test_check_play_blocked_point_says_which():
    error = reason(START, (6, 5), [(24, 18), (24, 19)])
    assert error.reason == IllegalPlay.BLOCKED
    assert str(error) == "24/19: point 19 is blocked (5 opposing checkers)"


def test_check_play_segment_blocked_on_every_route_names_both_points():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    assert str(reason(position, (6, 5), [(24, 13)])) == (
        "24/18: point 18 is blocked (2 opposing checkers); "
        "24/19: point 19 is blocked (2 opposing checkers)"
    )


def test_check_play_wrong_dice():
    error = reason(START, (6, 5), [(24, 20), (13, 8)])
    assert error.reason == IllegalPlay.WRONG_DICE
    assert str(error) == "24/20: the dice left (6 and 5) do not take a checker from there to there"
    error = reason(START, (6, 5), [(24, 18), (13, 8), (8, 3)])
    assert error.reason == IllegalPlay.WRONG_DICE
    assert str(error) == "8/3: no dice left to play it"
    error = reason(START, (1, 1), [(6, 5)] * 40)
    assert str(error) == "6/5: no dice left to play it"


def test_check_play_no_checker():
    error = reason(START, (6, 5), [(22, 16), (13, 8)])
    assert error.reason == IllegalPlay.NO_CHECKER
    assert str(error) == "no checker of yours on point 22"
    assert str(reason(START, (6, 5), [(25, 19)])) == "no checker of yours on the bar"


def test_b3_check_play_refuses_moving_backwards():
    error = reason(START, (6, 5), [(8, 13)])
    assert error.reason == IllegalPlay.BACKWARDS
    assert str(error) == "8/13: checkers move forward, from higher to lower points (B3)"


def test_check_play_points_off_the_board():
    error = reason(START, (6, 5), [(30, 24)])
    assert error.reason == IllegalPlay.NOT_LEGAL
    assert str(error) == "30/24: points run 1..24, with 25 for the bar and 0 for off"


def test_check_play_asks_for_the_intermediate_point_when_the_text_is_ambiguous():
    # Blots on 18 and 19: 24/13 hits one of them, and either is legal.
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  1  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    with pytest.raises(InvalidNotation, match="more than one way"):
        check_play(position, (6, 5), [(24, 13)])
    play = check_play(position, (6, 5), [(24, 18), (18, 13)])
    assert play.steps == (Step(24, 18, True), Step(18, 13, False))


def test_check_play_prefers_the_route_that_hits_nothing_unnamed():
    # 24/13 with a blot on 18 only: GNU Backgammon writes 24/18*/13 for the hit.
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
   O:  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
""")
    play = check_play(position, (6, 5), [(24, 13)])
    assert play.steps == (Step(24, 19, False), Step(19, 13, False))
    assert play.result.opponent[24] == 0


# --- single steps, dice ------------------------------------------------------------------


def test_apply_step_moves_hits_and_refuses():
    position = diagram("""
      24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
   X:  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  2  .  .  .  .  .  .
   O:  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  2  .  1  .  .  .  .  .  .  .
""")
    after = apply_step(position, 13, 6)
    assert after.player[6] == 1 and after.player[12] == 0
    assert after.opponent[24] == 1 and after.opponent[17] == 0  # O's 18 = X's 7
    cases = [
        (13, 4, IllegalPlay.BLOCKED),
        (12, 1, IllegalPlay.NO_CHECKER),
        (6, 6, IllegalPlay.CANNOT_BEAR_OFF),
    ]
    for origin, die, code in cases:
        with pytest.raises(IllegalPlay) as caught:
            apply_step(position, origin, die)
        assert caught.value.reason == code
    with pytest.raises(InvalidDice):
        apply_step(position, 13, 7)
    with pytest.raises(IllegalPlay) as caught:
        apply_step(position, 0, 1)
    assert caught.value.reason == IllegalPlay.NOT_LEGAL


def test_dice_for_roll():
    assert dice_for_roll(6, 5) == (6, 5)
    assert dice_for_roll(5, 6) == (5, 6)
    assert dice_for_roll(3, 3) == (3, 3, 3, 3)
    for bad in ((0, 1), (7, 1), (1, True), (2.0, 1)):
        with pytest.raises(InvalidDice):
            dice_for_roll(*bad)
    for bad in ((0, 1), (6,), (6, 5, 4)):
        with pytest.raises(InvalidDice):
            legal_plays(START, bad)


def test_legal_plays_for_dice_plays_what_remains_of_a_turn():
    assert texts(START, (5,)) == {"13/8", "8/3"}
    two = legal_plays_for_dice(START, [4, 4])
    assert {play.dice_used for play in two} == {(4, 4)}
    assert {format_play(play.steps) for play in two} == {
        "24/20(2)", "24/16", "24/20 13/9", "24/20 8/4", "24/20 6/2", "13/9(2)", "13/5",
        "13/9 8/4", "13/9 6/2", "8/4(2)", "8/4 6/2", "6/2(2)",
    }  # fmt: skip
    three = legal_plays_for_dice(START, (2, 2, 2))
    assert {len(play.dice_used) for play in three} == {3}
    for bad in ((), (6, 5, 5), (1, 2, 3, 4, 5), (0,)):
        with pytest.raises(InvalidDice):
            legal_plays_for_dice(START, bad)


def test_m1_a_typed_plays_error_names_its_first_wrong_step():
    """M1: 13/9 with 3-1 plays both dice as one checker's move, but the play typed has a
    step after it: the 13/9 is what is wrong, not the 8/7 left without a die."""
    error = reason(START, (3, 1), [(13, 9), (8, 7)])
    assert error.reason == IllegalPlay.WRONG_DICE
    assert str(error) == "13/9 takes the dice left (3 and 1) and leaves none for 8/7"
    error = reason(START, (6, 1), [(13, 6), (8, 7)])
    assert str(error) == "13/6 takes the dice left (6 and 1) and leaves none for 8/7"
    # The steps are replayed as typed: 8/2 takes the 6, then 24/13 has only the 5.
    error = reason(START, (6, 5), [(8, 2), (24, 13)])
    assert str(error) == "24/13: the dice left (5) do not take a checker from there to there"
    # A checker's later leg typed first still waits for its earlier one (24/18 18/13).
    error = reason(START, (6, 5), [(18, 13), (24, 18), (6, 1)])
    assert str(error) == "6/1: no dice left to play it"


def test_m1_the_typed_text_names_the_first_wrong_step():
    """The same through the notation the board's play box sends."""
    with pytest.raises(IllegalPlay, match=r"^13/9 takes the dice left \(3 and 1\)"):
        play_from_text(START, (3, 1), "13/9 8/7")
