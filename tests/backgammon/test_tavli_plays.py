"""The tavli games' generator on fixed positions, each with the exact set of legal plays
(worked out by hand in the comments), and its refusals named by rule.

Drawings: see ``tavli_helpers.diagram`` (X to move, both rows in X's numbering,
``p`` a pinned checker, the last two cells bar and waiting).
"""

import itertools
import math
from dataclasses import replace

import pytest

from backgammon.errors import IllegalPlay, InvalidPosition
from backgammon.moves import dice_for_roll, legal_plays
from backgammon.notation import format_play, parse_play
from backgammon.tavli.board import Side, TavliBoard
from backgammon.tavli.plays import check_play, stage_plays
from backgammon.tavli.rules import (
    ACEY_DEUCEY,
    FEVGA,
    GULBARA,
    PLAKOTO,
    PORTES,
    TavliRules,
    fevga_duty,
    mother_outcome,
)
from backgammon.variants import START
from tests.backgammon.tavli_helpers import diagram, texts


def reason(rules: TavliRules, board: TavliBoard, dice, segments) -> str:
    with pytest.raises(IllegalPlay) as caught:
        check_play(rules, board, dice, segments)
    return caught.value.reason


# --- portes -----------------------------------------------------------------------------


@pytest.mark.parametrize("roll", list(itertools.combinations_with_replacement(range(1, 7), 2)))
def test_po1_portes_start_plays_are_backgammons(roll):
    # PO1: backgammon's start and movement; the same plays as the gnubg-checked generator.
    ours = {
        p.result.mine.points[1:]
        for p in stage_plays(PORTES, PORTES.start_board(), dice_for_roll(*roll))
    }
    theirs = {tuple(p.result.player[:24]) for p in legal_plays(START, roll)}
    assert ours == theirs


def test_po1_portes_hits_and_enters_from_the_bar():
    # X on the bar; O has a blot on X's 20 and holds X's 22. 5-3: the bar checker enters
    # first, on 20 (hitting) or on 22 (held: no); then the 3 anywhere: 20/17, 13/10, 6/3.
    board = diagram(
        PORTES,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar
    X:   .  .  .  .  .  .  .  .  .  .  .  4  .  .  .  .  .  .  10 .  .  .  .  .  1
    O:   .  .  2  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
        """,
    )
    assert texts(PORTES, board, (5, 3)) == {"bar/20*/17", "bar/20* 13/10", "bar/20* 6/3"}
    assert reason(PORTES, board, (5, 3), [(13, 8), (6, 3)]) == IllegalPlay.BAR_FIRST
    assert reason(PORTES, board, (3, 3, 3, 3), [(25, 22)]) == IllegalPlay.ENTRY_HELD


# --- plakoto ----------------------------------------------------------------------------


def test_pl1_plakoto_starts_with_all_fifteen_on_24():
    # PL1: 15 on 24 each, moving in opposite directions (O's 24 is X's 1). 6-5: one
    # checker 24/13, or two, 24/19 24/18. 6-6: 24/18 to 24/6, 12 and 6 being free.
    board = PLAKOTO.start_board()
    assert board.mine.points[24] == board.opponent.points[24] == 15
    assert texts(PLAKOTO, board, (6, 5)) == {"24/13", "24/19 24/18"}
    assert texts(PLAKOTO, board, (6, 6, 6, 6)) == {
        "24/18(4)", "24/12 24/18(2)", "24/12(2)", "24/6 24/18",
    }  # fmt: skip


# X: 22, 20, a pinned checker on 17 (under O's), 12 on 1 (they cannot move: no bearing
# off with checkers outside). O: its pinner on 17, a blot on 16, two on 14, 11 on 2.
PL2_BOARD = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  1  .  1  .  .  1p .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  12
    O:   .  .  .  .  .  .  .  1  1  .  2  .  .  .  .  .  .  .  .  .  .  .  11 .
"""


def test_pl2_never_on_two_opposing_checkers_nor_a_pinned_point():
    board = diagram(PLAKOTO, PL2_BOARD)
    # 6-3: 20/14 is blocked (two), 20/17 lands where O pins X's checker: the 20 cannot
    # move. 22/16 pins O's blot; 22/19. Both dice: 22/16/13 or 22/19/13 (the blot on 16
    # pinned in passing is free again).
    assert texts(PLAKOTO, board, (6, 3)) == {"22/13"}
    # 4-3: 22/18/15 (or via 19), 22/19 with 20/16 pinning, 20/16/13 (16 left again).
    assert texts(PLAKOTO, board, (4, 3)) == {"22/15", "22/19 20/16*", "20/13"}
    assert reason(PLAKOTO, board, (6, 3), [(22, 16), (20, 17)]) == IllegalPlay.PINNED_POINT
    assert reason(PLAKOTO, board, (6, 3), [(20, 14), (22, 19)]) == IllegalPlay.BLOCKED


# X pins O's checker on X's 9 and is pinned on 10; X's runner on 15.
PL3_BOARD = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  1  .  .  .  .  1p 1  .  .  .  .  .  .  .  12
    O:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  1p .  .  .  .  .  .  13 .
"""


def test_pl3_pinned_checker_cannot_move_and_pinner_may_bring_more():
    board = diagram(PLAKOTO, PL3_BOARD)
    # 5-1: the 10 is pinned; 15/10 may not land on it. 9/4 (releasing O's checker) with
    # 15/14; 9/4/3 or 9/8/3; 15/14/9 brings a second checker onto X's pin.
    plays = {p.steps: p for p in stage_plays(PLAKOTO, board, (5, 1))}
    assert texts(PLAKOTO, board, (5, 1)) == {"15/14 9/4", "9/3", "15/9"}
    results = {
        frozenset((s.origin, s.destination) for s in steps): p.result for steps, p in plays.items()
    }
    for result in results.values():
        assert result.mine.pinned == (10,)  # still pinned: O's pinner stays
    released = [r for r in results.values() if not r.mine.points[9]]
    assert all(r.opponent.pinned == () for r in released)  # PL3: free once the pinner left
    kept = [r for r in results.values() if r.mine.points[9]]
    assert [r.mine.points[9] for r in kept] == [2] and kept[0].opponent.pinned == (16,)
    assert reason(PLAKOTO, board, (5, 1), [(10, 5), (15, 14)]) == IllegalPlay.PINNED_CHECKER


def test_pl3_landing_on_a_single_checker_pins_it_without_moving_it():
    board = diagram(PLAKOTO, PL2_BOARD)
    play = check_play(PLAKOTO, board, (4, 3), [(22, 19), (20, 16)])
    assert play.result.opponent.pinned == (PLAKOTO.facing_table[16],)
    assert play.result.opponent.points == board.opponent.points  # no bar: it stays there


def test_pl4_no_bearing_off_while_a_checker_is_pinned():
    # All 15 X home, but one pinned on 3: the 6 cannot be played (6/off is a bear-off),
    # the 5 only as 6/1.
    board = diagram(
        PLAKOTO,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  7  7  .  1p .  .
    O:   .  .  .  .  14 .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .
        """,
    )
    assert texts(PLAKOTO, board, (6, 5)) == {"6/1"}
    assert reason(PLAKOTO, board, (6, 5), [(6, 0)]) == IllegalPlay.CANNOT_BEAR_OFF


def test_pl5_mother_pinned_loses_unless_the_pinner_still_has_its_own_mother_point():
    # X's checker on X's 1 pins O's last checker on O's 24 (O's mother).
    before = diagram(
        PLAKOTO,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  13 .  .  1  .  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14 .  .  .  .  .  .  1
        """,
    )
    after = check_play(PLAKOTO, before, (2,), [(3, 1)]).result
    assert after.opponent.pinned == (24,)
    assert mother_outcome(after) == "won"
    # The pinner still has checkers on its own 24: play goes on...
    still = TavliBoard(Side((0, 1, 0, 0, 0, 0, 12, *(0,) * 17, 2)), after.opponent)
    assert mother_outcome(still) is None
    # ...and if the pinned side then pins the pinner's mother, the game is drawn.
    both = TavliBoard(Side((0, 1, 0, 0, 0, 0, 13, *(0,) * 17, 1), pinned=(24,)), after.opponent)
    assert mother_outcome(both) == "draw"


# The positions of issue 22, where an independent reference and the rule pages disagreed
# with the old judgement at the end of the turn.
PIN_WINS_WITH_A_DIE_LEFT = {
    "mine": [0, 0, 6, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 4, 0, 0, 0, 0, 0, 0],
    "opponent": [0, 1, 1, 1, 2, 0, 0, 0, 0, 0, 3, 1, 0, 1, 0, 2, 0, 0, 1, 0, 0, 0, 1, 0, 1],
    "pins": [["mine", 12], ["mine", 14], ["mine", 15]],
}
LEAVING_24_WINS = {
    "mine": [0, 1, 1, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 2, 1, 1],
    "opponent": [0, 0, 4, 1, 1, 0, 2, 0, 1, 1, 0, 0, 0, 2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1],
    "pins": [["mine", 12], ["mine", 17], ["mine", 23], ["opponent", 3], ["opponent", 24]],
}


def test_pl5_a_pin_of_the_mother_wins_at_once_with_a_die_left_beside_the_plays_of_both_dice():
    # 6-5: 6/1 pins O's mother (X has nothing on its own 24) and the game is over, the 6
    # unplayed; it is legal beside 18/13/7* (written 18/7*), the only play of both dice
    # that does not end the game, and it makes nothing compulsory.
    board = PLAKOTO.board_from_json(PIN_WINS_WITH_A_DIE_LEFT)
    plays = {format_play(p.steps): p for p in stage_plays(PLAKOTO, board, (6, 5))}
    assert set(plays) == {"6/1*", "18/7*"}
    assert plays["6/1*"].dice_used == (5,)
    assert mother_outcome(plays["6/1*"].result) == "won"
    assert mother_outcome(plays["18/7*"].result) is None
    # The rest of the roll after the winning step is refused, naming the step.
    with pytest.raises(IllegalPlay) as caught:
        check_play(PLAKOTO, board, (6, 5), [(6, 1), (18, 12)])
    assert caught.value.reason == IllegalPlay.GAME_ENDED
    assert "6/1" in str(caught.value)


def test_pl5_the_pinners_last_checker_leaving_its_24_ends_the_game_at_once():
    # O's mother is pinned, X still had a checker on its own 24 (play went on). 5-2:
    # 24/22 takes X's last checker off its 24 and X wins there, the 5 unplayed; the other
    # plays use both dice, and those that move 24/22 second win with it.
    board = PLAKOTO.board_from_json(LEAVING_24_WINS)
    plays = stage_plays(PLAKOTO, board, (5, 2))
    alone = [p for p in plays if p.dice_used == (2,)]
    assert [format_play(p.steps) for p in alone] == ["24/22"]
    assert mother_outcome(alone[0].result) == "won"
    for play in plays:
        leaves = any(step.origin == 24 for step in play.steps)
        assert (mother_outcome(play.result) == "won") == leaves
        assert leaves or len(play.dice_used) == 2
        assert not leaves or play.steps[-1].origin == 24  # nothing is played after it


def test_pl5_stored_games_keep_the_judgement_at_the_end_of_the_turn():
    # A game stored before PL5 was judged at once replays as it was played: the pin with
    # a die left was then not a play of its own.
    board = PLAKOTO.board_from_json(PIN_WINS_WITH_A_DIE_LEFT)
    old = PLAKOTO.with_options({"mother_at_once": False})
    assert old.options() == {"mother_at_once": False}
    texts_then = {format_play(p.steps) for p in stage_plays(old, board, (6, 5))}
    assert "6/1*" not in texts_then and "18/7*" in texts_then
    with pytest.raises(ValueError, match="plakoto"):
        PORTES.with_options({"mother_at_once": False})


# --- fevga ------------------------------------------------------------------------------


def test_fv1_fevga_start_the_runner_plays_both_dice():
    # FV1: 15 on 24 each, both running anticlockwise: O's 24 is X's 12. FV3: only the
    # first checker off 24 moves, so 6-5 is 24/13 (via 18 or 19), and an opening 6-6 is
    # 24/18 and nothing else (18/12 lands on O's start).
    board = FEVGA.start_board()
    assert board.opponent.points[24] == 15 and FEVGA.facing_table[12] == 24
    assert texts(FEVGA, board, (6, 5)) == {"24/13"}
    assert texts(FEVGA, board, (6, 6, 6, 6)) == {"24/18"}
    assert texts(FEVGA, board, (2, 1)) == {"24/21"}


# X's runner on 14 (not past O's start yet); O's runner holds X's 10 (O's 22).
FV2_BOARD = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:  14  .  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  14 .  1  .  .  .  .  .  .  .  .  .
"""


def test_fv2_one_checker_holds_a_point():
    board = diagram(FEVGA, FV2_BOARD)
    # 4-2: 14/10 and 14/12 are held: nothing. 5-1: 14/9 passes O's start, so then the 1
    # may be 9/8 or 24/23; 14/13/8 is the same as 14/9/8.
    assert texts(FEVGA, board, (4, 2)) == set()
    assert texts(FEVGA, board, (5, 1)) == {"14/8", "24/23 14/9"}
    # 6-4: 14/8 then 8/4 or 24/20; never touching down on 10.
    assert texts(FEVGA, board, (6, 4)) == {"14/4", "24/20 14/8"}
    assert reason(FEVGA, board, (6, 4), [(14, 10), (10, 4)]) == IllegalPlay.HELD_POINT


def test_fv3_only_the_runner_moves_until_it_passes_the_opponents_start():
    board = diagram(
        FEVGA,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:  14  .  .  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  15 .  .  .  .  .  .  .  .  .  .  .
        """,
    )
    # 4-3: 15/12 is O's start; 15/11 passes it, and then a second checker may leave 24.
    assert texts(FEVGA, board, (4, 3)) == {"15/8", "24/21 15/11"}
    assert reason(FEVGA, board, (4, 3), [(24, 20), (15, 12)]) == IllegalPlay.RUNNER_FIRST
    with pytest.raises(InvalidPosition, match="FV3"):
        FEVGA.validate(TavliBoard(Side((0,) * 14 + (1, 1) + (0,) * 8 + (13,)), board.opponent))


# X holds 24..20, 19 open; O holds X's 18..13 and 12: every 5 lands on 19 or on O.
FV4_BOARD = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:  10  1  1  1  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .
    O:   .  .  .  .  .  .  1  1  1  1  1  1  9  .  .  .  .  .  .  .  .  .  .  .
"""


def test_fv4_never_all_six_of_the_start_quarter():
    board = diagram(FEVGA, FV4_BOARD)
    # 5-1: 24/19 would fill 19..24, so the 5 needs a 1 first that leaves a gap: 23/22,
    # 22/21, 21/20 or 20/19 (24/23 and 4/3 leave none).
    assert texts(FEVGA, board, (5, 1)) == {
        "24/19 23/22", "24/19 22/21", "24/19 21/20", "24/19 20/19",
    }  # fmt: skip
    assert reason(FEVGA, board, (5, 1), [(24, 19), (4, 3)]) == IllegalPlay.START_QUARTER
    full = TavliBoard(Side((0,) * 19 + (1, 1, 1, 1, 1, 10)), board.opponent)
    with pytest.raises(InvalidPosition, match="FV4"):
        FEVGA.validate(full)


# X holds 24..20 and 18, 19 open; O holds X's 17, 16, 15 and 8 (and its start, 12).
FV4_ORDER_BOARD = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   6  1  2  1  2  .  2  .  .  .  .  .  .  1  .  .  .  .  .  .  .  .  .  .
    O:   .  .  .  .  .  .  .  1  1  1  .  .  11 .  .  .  1  .  .  .  .  .  .  .
"""


def test_fv4_a_listed_play_is_accepted_as_written_whatever_order_it_needs():
    board = diagram(FEVGA, FV4_ORDER_BOARD)
    # Each 3 is 24/21, 23/20, 22/19 or 21/18 (the rest land on O). 19 is the quarter's
    # only gap, so the first 22/19 needs 23 or 21 left empty before it (FV4); the
    # second empties 22 itself. With a 24/21s, b 23/20, c 22/19s, d 21/18s: c = 0 (6
    # plays), c = 1 after 23/20 or a 21/18 not yet refilled (3), c = 2 likewise (3).
    assert texts(FEVGA, board, (3, 3, 3, 3)) == {
        "24/21(4)", "24/18 24/21(2)", "24/18(2)",
        "24/21(3) 23/20", "24/18 24/21 23/20", "24/18 23/20 21/18",
        "24/21(2) 23/20 22/19", "24/18 23/20 22/19", "24/18 22/19 21/18",
        "24/21 23/20 22/19(2)", "23/20 22/19(2) 21/18", "24/18 22/19(2)",
    }  # fmt: skip
    # "24/18 22/19(2)" is 21/18 first (21 opens), 22/19 twice, and 24/21 last: the text
    # joins 24/21 and 21/18 as gnubg writes them, yet the checker from 24 cannot go
    # first. It was refused (start_quarter_full) although the server listed it.
    play = check_play(FEVGA, board, (3, 3, 3, 3), parse_play("24/18 22/19(2)"))
    assert [(step.origin, step.destination) for step in play.steps] == [
        (21, 18), (22, 19), (22, 19), (24, 21),
    ]  # fmt: skip
    assert play.result.mine.points[18:25] == (3, 2, 2, 1, 0, 1, 5)  # 22 the gap
    # 24/21 first fills 19..24 with the first 22/19 whatever follows.
    assert reason(FEVGA, board, (3, 3, 3, 3), [(24, 21), (22, 19)]) == IllegalPlay.START_QUARTER


# O's 15 all on its start (X's 12), right behind X's 11..6, all held by X; 9 X on 24.
FV5_BOARD = """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   9  .  .  .  .  .  .  .  .  .  .  .  .  1  1  1  1  1  1  .  .  .  .  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  15 .  .  .  .  .  .  .  .  .  .  .
"""


def test_fv5_must_open_the_wall_when_a_play_of_the_most_dice_can():
    board = diagram(FEVGA, FV5_BOARD)
    # 6-6: each 6 is 24/18 (18/12 is O's) or one of the wall's 11..7 to 5..1 (6/off is
    # no bear-off yet), each of those once: a 24/18s and 4 - a of the five, 31 plays.
    # Only 24/18(4) leaves the wall closed, and the other 30 open it.
    without_duty = texts(replace(FEVGA, duty=None), board, (6, 6, 6, 6))
    assert len(without_duty) == sum(math.comb(5, 4 - a) for a in range(5)) == 31
    assert texts(FEVGA, board, (6, 6, 6, 6)) == without_duty - {"24/18(4)"}
    assert reason(FEVGA, board, (6, 6, 6, 6), [(24, 18)] * 4) == IllegalPlay.MUST_OPEN_WALL
    assert fevga_duty(board) == (11, 10, 9, 8, 7, 6)
    assert fevga_duty(board.mirror()) == ()


def test_fv6_fevga_bears_off_as_f1_to_f4():
    # F4: a 6 bears off from the highest point, 3; F3: the 2 from the 2 point.
    board = diagram(
        FEVGA,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  1  .
    O:   .  .  .  . 15  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
        """,
    )
    assert texts(FEVGA, board, (6, 2)) == {"3/off 2/off", "3/1 2/off"}


# --- gul bara ---------------------------------------------------------------------------


def test_gb1_gul_bara_runs_like_fevga_without_its_runner_and_quarter_rules():
    assert texts(GULBARA, GULBARA.start_board(), (6, 5)) == {"24/13", "24/19 24/18"}
    board = diagram(
        GULBARA,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:  11  1  1  1  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
    O:   .  .  .  .  .  .  1  1  1  1  1  1  9  .  .  .  .  .  .  .  .  .  .  .
        """,
    )
    # 5-1: the 5 only 24/19 (which may fill 19..24 here), the 1 from any of 24..20.
    assert texts(GULBARA, board, (5, 1)) == {
        "24/23 24/19", "24/19 23/22", "24/19 22/21", "24/19 21/20", "24/19 20/19",
    }  # fmt: skip
    with pytest.raises(InvalidPosition, match="FV3"):
        FEVGA.validate(board)


# --- acey-deucey ------------------------------------------------------------------------


def test_ad1_acey_deucey_enters_from_off_the_board():
    # AD1: all 15 wait; a die n enters on 25 - n.
    board = ACEY_DEUCEY.start_board()
    assert board.mine.waiting == 15 and not any(board.mine.points)
    assert texts(ACEY_DEUCEY, board, (6, 5)) == {"bar/14", "bar/20 bar/19"}


def test_ad2_bearing_off_waits_for_every_checker_to_enter():
    board = diagram(
        ACEY_DEUCEY,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar wait
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14 .  .  .  .  .  .  1
    O:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  15
        """,
    )
    # 6-5: no 6/off while a checker waits; the entered checker moves on at once.
    assert texts(ACEY_DEUCEY, board, (6, 5)) == {"bar/14", "bar/19 6/1"}
    assert reason(ACEY_DEUCEY, board, (6, 5), [(6, 0), (25, 20)]) == IllegalPlay.CANNOT_BEAR_OFF


def test_ad3_hit_checker_enters_first_but_waiting_ones_do_not_hold_up_play():
    board = diagram(
        ACEY_DEUCEY,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar wait
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  .  .  .  11 .  .  .  .  .  1  2
    O:   .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14
        """,
    )
    # 5-3: the hit checker enters first, on 20 (hitting) or 22; then the other die
    # anywhere, a waiting checker entering included.
    assert texts(ACEY_DEUCEY, board, (5, 3)) == {
        "bar/20*/17", "bar/20* 10/7", "bar/20* 6/3", "bar/22 bar/20*",
        "bar/17", "bar/22 10/5", "bar/22 6/1",
    }  # fmt: skip
    assert reason(ACEY_DEUCEY, board, (5, 3), [(10, 7), (10, 5)]) == IllegalPlay.BAR_FIRST


def test_ad6_exact_numbers_option_for_bearing_off():
    board = diagram(
        ACEY_DEUCEY,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  1  1  .
    O:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .
        """,
    )
    assert texts(ACEY_DEUCEY, board, (6, 5)) == {"3/off 2/off"}
    exact = ACEY_DEUCEY.with_options({"exact_bear_off": True})
    assert texts(exact, board, (6, 5)) == set()
    assert texts(exact, board, (3, 1)) == {"3/off 2/1"}
    assert texts(ACEY_DEUCEY, board, (3, 1)) == {"3/off 2/1", "3/off"}  # 3/2 2/off: "3/off"


def test_po1_m1_a_typed_plays_error_names_its_first_wrong_step():
    """PO1 (backgammon's movement, M1): 13/9 with 3-1 takes both dice, leaving none for
    the 8/7 typed after it: the 13/9 is named, as in backgammon."""
    with pytest.raises(IllegalPlay) as caught:
        check_play(PORTES, PORTES.start_board(), (3, 1), [(13, 9), (8, 7)])
    assert caught.value.reason == IllegalPlay.WRONG_DICE
    assert str(caught.value) == "13/9 takes the dice left (3 and 1) and leaves none for 8/7"
