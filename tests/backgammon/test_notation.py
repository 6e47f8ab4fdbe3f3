"""Move notation: GNU Backgammon's output style, lenient input, text resolved to plays."""

import pytest

from backgammon.errors import IllegalPlay, InvalidNotation
from backgammon.moves import Play, Step, legal_plays
from backgammon.notation import format_play, parse_play, play_from_text
from backgammon.position import Position, board_from_points
from backgammon.variants import START

S = Step


@pytest.mark.parametrize(
    ("steps", "text"),
    [
        ([], ""),
        ([S(24, 18, False), S(13, 11, True)], "24/18 13/11*"),
        ([S(13, 11, True), S(24, 18, False)], "24/18 13/11*"),  # highest origin first
        ([S(6, 4, False), S(6, 5, False)], "6/5 6/4"),  # then highest destination
        ([S(25, 22, False), S(13, 7, False)], "bar/22 13/7"),
        ([S(6, 0, False), S(5, 0, False)], "6/off 5/off"),
        ([S(6, 2, False), S(6, 2, False)], "6/2(2)"),
        # One checker playing both dice: the touch-down point is left out ...
        ([S(24, 18, False), S(18, 13, False)], "24/13"),
        ([S(25, 20, False), S(20, 14, False)], "bar/14"),
        ([S(6, 3, False), S(3, 0, False)], "6/off"),
        # ... unless it hit there.
        ([S(24, 18, True), S(18, 13, False)], "24/18*/13"),
        ([S(25, 20, True), S(20, 14, True)], "bar/20*/14*"),
        # A point hit once gets one star, whoever lands there next.
        ([S(13, 7, True), S(8, 7, False)], "13/7* 8/7"),
        ([S(13, 7, True), S(13, 7, False), S(7, 1, False), S(7, 1, False)], "13/7*/1(2)"),
        ([S(24, 20, False), S(20, 16, False), S(16, 12, False), S(12, 8, False)], "24/8"),
        ([S(8, 7, False), S(8, 7, False), S(6, 5, False), S(6, 5, False)], "8/7(2) 6/5(2)"),
    ],
)
def test_format_play_in_gnu_backgammon_style(steps, text):
    assert format_play(steps) == text


def test_format_play_is_the_same_for_any_order_of_the_steps():
    for roll in ((6, 5), (4, 4), (2, 1)):
        for play in legal_plays(START, roll):
            assert format_play(play.steps) == format_play(reversed(play.steps))


@pytest.mark.parametrize(
    ("text", "segments"),
    [
        ("", []),
        ("   ", []),
        ("24/18 13/11*", [(24, 18), (13, 11)]),
        ("bar/22", [(25, 22)]),
        ("Bar/22", [(25, 22)]),
        ("BAR/22*", [(25, 22)]),
        ("6/off", [(6, 0)]),
        ("6/OFF 5/Off", [(6, 0), (5, 0)]),
        ("6/2(2)", [(6, 2), (6, 2)]),
        ("13/7*/1(2)", [(13, 7), (7, 1), (13, 7), (7, 1)]),
        ("24/18/13", [(24, 18), (18, 13)]),
        ("24/13", [(24, 13)]),
        ("*24/18* 13*/11", [(24, 18), (13, 11)]),
        ("  24 / 18   13/11  ", [(24, 18), (13, 11)]),
        ("8/4 ( 2 ) 6/2", [(8, 4), (8, 4), (6, 2)]),
        ("24/18, 13/11", [(24, 18), (13, 11)]),
        ("25/22 6/0", [(25, 22), (6, 0)]),
    ],
)
def test_parse_play_accepts_gnu_backgammon_notation_leniently(text, segments):
    assert parse_play(text) == segments


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24/", "cannot read '24/'"),
        ("/18", "cannot read '/18'"),
        ("24", "cannot read '24'"),
        ("24-18", "cannot read '24-18'"),
        ("24//18", "cannot read '24//18'"),
        ("24/18(5)", "a move repeats 1 to 4 times, not 5"),
        ("24/18(0)", "a move repeats 1 to 4 times, not 0"),
        ("26/20", "'26' is not a point"),
        ("24/x", "'x' is not a point"),
        ("22/bar", "a checker cannot move to the bar"),
        ("off/3", "a checker borne off cannot move on"),
    ],
)
def test_parse_play_refuses_what_it_cannot_read(text, message):
    with pytest.raises(InvalidNotation, match=message):
        parse_play(text)


def test_play_from_text_resolves_against_the_position():
    play = play_from_text(START, (6, 5), "24/13")
    assert play.steps == (Step(24, 18, False), Step(18, 13, False))
    assert play.dice_used == (6, 5)
    assert play_from_text(START, (5, 6), "13/8 24/18").result == (
        play_from_text(START, (6, 5), "24/18 13/8").result
    )
    assert format_play(play_from_text(START, (6, 6), "24/18(2) 13/7(2)").steps) == (
        "24/18(2) 13/7(2)"
    )


def test_play_from_text_enters_hits_and_bears_off():
    position = Position(
        board_from_points({25: 1, 6: 3, 5: 2}), board_from_points({4: 1, 6: 2})
    ).validate()
    # O's blot on its 4-point is X's 21; O's 6-point is X's 19.
    play = play_from_text(position, (4, 3), "bar/21* 6/3")
    assert play.steps == (Step(25, 21, True), Step(6, 3, False))
    assert play.result.opponent[24] == 1
    home = Position(board_from_points({6: 2, 3: 1}), board_from_points({23: 1})).validate()
    assert format_play(play_from_text(home, (6, 1), "6/off 3/2*").steps) == "6/off 3/2*"


def test_play_from_text_says_what_is_illegal():
    with pytest.raises(IllegalPlay) as caught:
        play_from_text(START, (6, 5), "24/19 24/18")
    assert caught.value.reason == IllegalPlay.BLOCKED
    with pytest.raises(IllegalPlay) as caught:
        play_from_text(START, (6, 5), "")
    assert caught.value.reason == IllegalPlay.MUST_MOVE
    with pytest.raises(InvalidNotation):
        play_from_text(START, (6, 5), "24/18 13/x")


def test_play_from_text_empty_when_nothing_can_be_played():
    closed = Position(
        board_from_points({25: 1, 13: 14}), board_from_points({p: 2 for p in range(1, 7)})
    ).validate()
    assert play_from_text(closed, (6, 6), "") == Play((), closed, ())


@pytest.mark.parametrize("roll", [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)])
def test_every_start_play_round_trips_through_its_text(roll):
    for play in legal_plays(START, roll):
        assert play_from_text(START, roll, format_play(play.steps)).result == play.result
