"""``python -m backgammon plays --jsonl --variant <tavli game>``: boards in, boards out."""

from __future__ import annotations

import io
import json
import sys

import pytest

from backgammon.cli import main
from backgammon.tavli.rules import ACEY_DEUCEY, FEVGA, GULBARA, PLAKOTO
from tests.backgammon.tavli_helpers import diagram


def run(variant: str, *requests: object) -> tuple[int, list[dict]]:
    """Feed the requests (objects, or raw text lines) to the command; its status and
    answers."""
    lines = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in requests) + "\n"
    stdin, stdout = io.StringIO(lines), io.StringIO()
    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = stdin, stdout
    try:
        status = main(["plays", "--jsonl", "--variant", variant])
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return status, [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_fv3_cli_opening_six_six_is_one_board():
    board = FEVGA.board_to_json(FEVGA.start_board())
    status, (answer,) = run("fevga", {"board": board, "dice": [6, 6]})
    after = dict(board, mine=[0] * 18 + [1] + [0] * 5 + [14])
    assert status == 0 and answer == {"results": [after]}


def test_pl3_cli_boards_carry_pins():
    board = diagram(
        PLAKOTO,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14
    O:   .  .  .  .  .  .  .  .  1  .  2  .  .  .  .  .  .  .  .  .  .  .  12 .
        """,
    )
    status, (answer,) = run("plakoto", {"board": PLAKOTO.board_to_json(board), "dice": [4, 2]})
    # 4-2: only the 20 can move (no bearing off with it out); 20/16/14 and 20/18/14 end on
    # O's two checkers, so one die only, the higher: 20/16*, pinning O's blot (O's 9).
    assert status == 0
    assert answer["results"] == [
        {
            "mine": [0, 14] + [0] * 14 + [1] + [0] * 8,
            "opponent": list(board.opponent.points),
            "pins": [["opponent", 9]],
        }
    ]


def test_gb2_cli_plays_the_whole_run_and_stops_where_it_is_blocked():
    # X's last runner on 20, the rest on 1 (no bearing off yet); O all on its 24 (X's 12).
    board = diagram(
        GULBARA,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1
    X:   .  .  .  .  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  14
    O:   .  .  .  .  .  .  .  .  .  .  .  .  15 .  .  .  .  .  .  .  .  .  .  .
        """,
        roll=4,
    )
    data = GULBARA.board_to_json(board)
    status, answers = run(
        "gulbara",
        {"board": data, "dice": [1, 1]},  # 1s: 20/16; 2s: 16/14, then 14/12 is O's
        {"board": dict(data, roll=3), "dice": [1, 1]},  # before the fourth roll: four 1s
        {"board": data, "dice": [4, 4]},  # 20/16, then 16/12 is O's
    )

    def on(point: int, roll: int) -> dict:
        """The board with X's runner on ``point``."""
        return dict(data, mine=[0, 14] + [0] * (point - 2) + [1] + [0] * (24 - point), roll=roll)

    assert status == 0
    assert answers == [{"results": [on(14, 4)]}, {"results": [on(16, 3)]}, {"results": [on(16, 4)]}]


def test_ad4_cli_one_two_then_every_double_that_may_be_named():
    # O holds X's 22..18: X enters only on 24 (1) and 23 (2). The 1-2: bar/24 bar/23.
    # Then 1s: a entries and 4 - a steps 24/23, a = 2..4; 2s: four entries on 23; 6s:
    # 23/17/11/5 (the fourth 6 cannot be played); 3s, 4s, 5s: nothing (the board after
    # the 1-2 stays).
    board = diagram(
        ACEY_DEUCEY,
        """
        24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1 bar wait
    X:   .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  15
    O:   .  .  2  2  2  2  2  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  5
        """,
    )
    status, (answer,) = run(
        "acey-deucey", {"board": ACEY_DEUCEY.board_to_json(board), "dice": [1, 2]}
    )
    found = {(tuple(b["mine"][1:]), b["waiting"]["mine"]) for b in answer["results"]}

    def mine(waiting: int, **points: int) -> tuple[tuple[int, ...], int]:
        slots = [0] * 24
        for name, count in points.items():
            slots[int(name[1:]) - 1] = count
        return tuple(slots), waiting

    assert status == 0
    assert found == {
        mine(13, p24=1, p23=1),
        mine(11, p24=1, p23=3),
        mine(10, p24=3, p23=2),
        mine(9, p24=5, p23=1),
        mine(9, p24=1, p23=5),
        mine(13, p24=1, p5=1),
    }


@pytest.mark.parametrize(
    ("variant", "board", "error"),
    [
        (
            "fevga",
            {"mine": [0] * 24 + [16], "opponent": [0] * 24 + [15], "pins": []},
            "16 checkers",
        ),
        (
            "plakoto",
            {
                "mine": [0] * 10 + [2] + [0] * 13 + [13],
                "opponent": [0] * 14 + [1] + [0] * 9 + [14],
                "pins": [["mine", 10]],
            },
            "a pin holds one checker",
        ),
        (
            "fevga",
            {
                "mine": [0] * 4 + [1] + [0] * 19 + [14],
                "opponent": [0] * 16 + [1] + [0] * 7 + [14],
                "pins": [],
            },
            "one checker holds a point",
        ),
        ("gulbara", {"mine": [0] * 24 + [15], "opponent": [0] * 24 + [15], "pins": []}, "roll"),
        (
            "acey-deucey",
            {"mine": [15] + [0] * 24, "opponent": [15] + [0] * 24, "pins": []},
            "both sides",
        ),
    ],
)
def test_tv_cli_boards_that_cannot_exist_are_error_lines(variant, board, error):
    status, (answer,) = run(variant, {"board": board, "dice": [3, 1]})
    assert status == 2 and answer["line"] == 1
    assert error in answer["error"]


def test_tv_cli_unknown_variant_and_bad_lines_are_error_lines():
    board = FEVGA.board_to_json(FEVGA.start_board())
    status, answers = run(
        "fevga",
        {"board": board, "dice": [3, 1], "variant": "tapa"},
        "not json",
        {"board": board, "dice": [7, 1]},
        {"board": board, "dice": [3, 1]},
    )
    assert status == 2
    assert [a.get("line") for a in answers] == [1, 2, 3, None]
    assert "unknown variant 'tapa'" in answers[0]["error"]
    assert answers[3]["results"]


def test_tv_cli_tavli_games_need_boards_not_position_ids(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["plays", "--position-id", "4HPwATDgc/ABMA", "--dice", "3", "1", "--variant", "fevga"])
    assert stopped.value.code == 2
    assert "use --jsonl" in capsys.readouterr().err
