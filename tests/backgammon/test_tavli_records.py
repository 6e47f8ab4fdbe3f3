"""The tavli games' own position ID (docs/tavli.md) and text record."""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.errors import InvalidPositionId, InvalidRecord
from backgammon.game import GameOptions, Result
from backgammon.tavli.board import Side, TavliBoard
from backgammon.tavli.ids import tavli_position_from_id, tavli_position_id
from backgammon.tavli.record import export_record, import_record
from backgammon.tavli.rules import ACEY_DEUCEY, FEVGA, GAMES, GULBARA, PLAKOTO
from tests.backgammon.tavli_helpers import diagram
from tests.backgammon.test_tavli_properties import random_board
from tests.backgammon.test_tavli_selfplay import VARIANTS, random_game


def layout_bits(game: int, sides: list[list[int]], pins: list[int], rolls: list[int]) -> str:
    """The ID written straight from the documented layout: the game in 3 bits, each
    side's 26 slots in unary, the pin bits, the rolls in Elias gamma, zeros to fill."""
    bits = [(game >> i) & 1 for i in range(3)]
    for slots in sides:
        for count in slots:
            bits += [1] * count + [0]
    bits += pins
    for roll in rolls:
        digits = [int(d) for d in bin(roll + 1)[2:]]
        bits += [0] * (len(digits) - 1) + digits
    bits += [0] * (-len(bits) % 24)
    data = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(len(bits) // 8))
    return base64.b64encode(data).decode()


def test_tv_position_id_follows_the_documented_layout():
    start = [0] * 23 + [15, 0, 0]  # points 1..24, bar, waiting
    assert tavli_position_id(FEVGA, FEVGA.start_board()) == layout_bits(2, [start, start], [], [])
    assert tavli_position_id(FEVGA, FEVGA.start_board()) == "AgAA/P8BAAD4/wMA"
    # Plakoto: X pins O on X's 16 (O's 9) and is pinned on X's 10 (O's 15).
    board = diagram(
        PLAKOTO,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  .  .  .  .  2  .  .  .  .  .  1p .  .  .  .  .  .  .  .  12
    O:   .  .  .  .  .  .  .  .  1p .  .  .  .  .  1  .  .  .  .  .  .  .  13 .
        """,
    )
    x = [12] + [0] * 8 + [1] + [0] * 5 + [2] + [0] * 8 + [0, 0]
    o = [0] * 8 + [1] + [0] * 5 + [1] + [0] * 7 + [13] + [0] + [0, 0]
    assert tavli_position_id(PLAKOTO, board) == layout_bits(1, [x, o], [1, 0], [])
    rolled = TavliBoard(
        GULBARA.start.__class__(*GULBARA.start[:4], 5), GULBARA.start._replace(roll=4)
    )
    assert tavli_position_id(GULBARA, rolled) == layout_bits(3, [start, start], [], [5, 4])


@pytest.mark.parametrize("rules", list(GAMES.values()), ids=lambda r: r.name)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), turns=st.integers(0, 150))
def test_tv_position_id_round_trips(rules, seed, turns):
    board = random_board(rules, seed, turns)
    text = tavli_position_id(rules, board)
    assert tavli_position_from_id(text) == (rules, board)


def test_tv_position_id_holds_waiting_and_bar_checkers():
    board = TavliBoard(Side((3,) + (0,) * 24, bar=2, waiting=10), ACEY_DEUCEY.start)
    assert tavli_position_from_id(tavli_position_id(ACEY_DEUCEY, board)) == (ACEY_DEUCEY, board)


@pytest.mark.parametrize(
    "text",
    [
        "not an id",
        "AgAA/P8BAAD4/wM",  # not a whole number of characters
        layout_bits(7, [[0] * 26, [0] * 26], [], []),  # no game 7
        layout_bits(2, [[0] * 23 + [16, 0, 0], [0] * 23 + [15, 0, 0]], [], []),  # 16
        layout_bits(
            2,
            [[0] * 3 + [1] + [0] * 19 + [14, 0, 0], [0] * 15 + [1] + [0] * 7 + [14, 0, 0]],
            [],
            [],
        ),
        "AgAA/P8BAAD4/wMB",  # a bit set after the end
    ],
)
def test_tv_bad_position_ids_are_refused(text):
    with pytest.raises(InvalidPositionId):
        tavli_position_from_id(text)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.name}{v.rules.options() or ''}")
def test_tv_records_replay_through_the_core(variant):
    for seed in range(12):
        game = random_game(random.Random(seed), GameOptions(variant=variant), 0.02)
        text = export_record(game)
        back = import_record(text)
        assert (back.position, back.result, back.points_for(0)) == (
            game.position, game.result, game.points_for(0),
        )  # fmt: skip
        assert export_record(back) == text


def test_ad4_record_written_by_hand():
    text = """
    ; [Game "acey-deucey"]
    ; [Opening "5-2"]
    X 21 bar/24 bar/23
    X =66 bar/19(4)
    X 43 bar/21 bar/22
    O resigns 1
    X accepts
    X wins 15
    """
    game = import_record(text)
    assert game.result is Result.RESIGNED and game.points_for(0) == 15


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("O 21 bar/24 bar/23", "X's turn"),
        ("X 21 bar/19", "line 3"),
        ("X 21 bar/24 bar/23\nX =66 bar/19(3)", "line 4"),
        ("X 53 nonsense", "line 3"),
        ("X wins 2", "does not end"),
    ],
)
def test_tv_bad_records_name_the_line(line, problem):
    with pytest.raises(InvalidRecord, match=problem):
        import_record(f'; [Game "acey-deucey"]\n; [Opening "5-2"]\n{line}\n')
    with pytest.raises(InvalidRecord, match="no game"):
        import_record('; [Game "tapa"]\n; [Opening "5-2"]\n')
