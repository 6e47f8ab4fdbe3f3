"""``python -m backgammon``: output formats, exit statuses and error messages."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import select
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.cli import main
from backgammon.gnubg_ids import position_id
from backgammon.position import Position, board_from_points

ROOT = Path(__file__).resolve().parents[2]
START_ID = "4HPwATDgc/ABMA"
# The 7 distinct results of 6-5 at the start, as gnubg 1.1.0a16's GenerateMoves has them.
START_65 = [
    "4HPwATCKT/ABMA",
    "4HPwATDC5+ABMA",
    "4HPwATDE1+ABMA",
    "4HPwATDEZ/BBIA",
    "4HPwATDg68EBMA",
    "4HPwATDg8+BBIA",
    "4HPwATDgc/ADIA",
]
# On the bar against a closed board: 6-5 cannot be played.
DANCING = position_id(
    Position(
        board_from_points({25: 1, 13: 14}),
        board_from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3}),
    )
)


def run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *argv: str,
    stdin: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def test_plays_lists_every_distinct_play_sorted_by_result(monkeypatch, capsys) -> None:
    status, out, _ = run(
        monkeypatch, capsys, "plays", "--position-id", START_ID, "--dice", "6", "5"
    )
    assert status == 0
    lines = out.splitlines()
    assert [line.split("\t")[1] for line in lines] == START_65
    notations = [line.split("\t")[0] for line in lines]
    assert all(notations) and len(set(notations)) == 7
    assert "24/13" in notations


def test_plays_dice_order_does_not_matter(monkeypatch, capsys) -> None:
    _, out65, _ = run(monkeypatch, capsys, "plays", "--position-id", START_ID, "--dice", "6", "5")
    _, out56, _ = run(monkeypatch, capsys, "plays", "--position-id", START_ID, "--dice", "5", "6")
    assert out65 == out56


def test_plays_without_a_legal_play_prints_the_unchanged_position(monkeypatch, capsys) -> None:
    status, out, _ = run(monkeypatch, capsys, "plays", "--position-id", DANCING, "--dice", "6", "5")
    assert status == 0
    assert out == f"\t{DANCING}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["plays", "--position-id", "nonsense", "--dice", "6", "5"], "not a position ID"),
        (["plays", "--position-id", "//////////////", "--dice", "6", "5"], "position ID"),
        (["plays", "--position-id", "AAAAAAAAAAAAAA", "--dice", "6", "5"], "borne off"),
        (["plays", "--position-id", START_ID, "--dice", "7", "5"], "1 to 6"),
        (["plays", "--position-id", START_ID, "--dice", "x", "5"], "1 to 6, not 'x'"),
        (["plays", "--position-id", START_ID, "--dice", "6"], "--dice"),
        (["plays", "--position-id", START_ID], "needs --dice"),
        (["plays", "--jsonl", "--dice", "6", "5"], "with --jsonl"),
        (["plays"], "required"),
        (["plays", "--jsonl", "--position-id", START_ID], "not allowed"),
        ([], "required"),
        (["roll"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_a_message(monkeypatch, capsys, argv, message) -> None:
    status, out, err = run(monkeypatch, capsys, *argv)
    assert status == 2
    assert out == ""
    assert "error:" in err and message in err


def test_jsonl_answers_each_line_in_order(monkeypatch, capsys) -> None:
    lines = [
        {"position_id": START_ID, "dice": [6, 5]},
        {"position_id": DANCING, "dice": [5, 6]},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    status, out, _ = run(monkeypatch, capsys, "plays", "--jsonl", stdin=stdin)
    assert status == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert answers == [
        {"position_id": START_ID, "dice": [6, 5], "results": START_65},
        {"position_id": DANCING, "dice": [5, 6], "results": [DANCING]},
    ]


def test_jsonl_bad_lines_get_an_error_line_and_exit_2(monkeypatch, capsys) -> None:
    stdin = "\n".join(
        [
            '{"position_id": "4HPwATDgc/ABMA", "dice": [6, 5]}',
            "not json",
            "",
            '{"position_id": "4HPwATDgc/ABMA", "dice": [0, 5]}',
            '{"position_id": "4HPwATDgc/ABMA", "dice": [6, 5, 4]}',
            '{"position_id": "4HPwATDgc/ABMA"}',
            '{"position_id": "4HPwATDgc", "dice": [6, 5]}',
            "[1, 2]",
            '{"position_id": "4HPwATDgc/ABMA", "dice": [true, 5]}',
            '{"position_id": "4HPwATDgc/ABMA", "dice": [6, 5]}',
        ]
    )
    status, out, _ = run(monkeypatch, capsys, "plays", "--jsonl", stdin=stdin)
    assert status == 2
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a.get("line") for a in answers] == [None, 2, 4, 5, 6, 7, 8, 9, None]
    assert answers[0]["results"] == answers[-1]["results"] == START_65
    assert "not JSON" in answers[1]["error"]
    assert "dice" in answers[2]["error"]
    assert "position ID" in answers[5]["error"]


@pytest.mark.parametrize(
    "line",
    [
        '{"dice": [6, 5], "position_id": "4HPwATDgc/ABMA"}',  # keys in the other order
        '{"position_id":"4HPwATDgc/ABMA","dice":[6,5]}',  # compact
        '  { "position_id" : "4HPwATDgc/ABMA" , "dice" : [ 6 , 5 ] }  \r',
        '{"position_id": "4HPwATDgc/ABMA", "dice": [6, 5], "note": "ignored"}',
        '{"position_id": "4HPw\\u0041TDgc/ABMA", "dice": [6, 5]}',  # an escaped A
        '{\n"position_id": "4HPwATDgc/ABMA", "dice": [6, 5]}'.replace("\n", " "),
    ],
)
def test_jsonl_answers_any_layout_of_a_request_alike(monkeypatch, capsys, line) -> None:
    status, out, _ = run(monkeypatch, capsys, "plays", "--jsonl", stdin=line + "\n")
    assert status == 0
    assert json.loads(out) == {"position_id": START_ID, "dice": [6, 5], "results": START_65}


def test_jsonl_answers_are_json_dumps_output(monkeypatch, capsys) -> None:
    # The answers are written without json.dumps; they must be what it would write.
    stdin = '{"position_id": "4HPwATDgc/ABMA", "dice": [5, 6]}'  # no final newline
    _, out, _ = run(monkeypatch, capsys, "plays", "--jsonl", stdin=stdin)
    assert out == json.dumps({"position_id": START_ID, "dice": [5, 6], "results": START_65}) + "\n"


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "backgammon", *args]


def test_jsonl_answers_each_line_before_the_next_comes() -> None:
    # A program may write one line and wait for its answer before the next.
    process = subprocess.Popen(
        _command("plays", "--jsonl"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for dice in ([6, 5], [5, 6]):
            process.stdin.write(json.dumps({"position_id": START_ID, "dice": dice}) + "\n")
            process.stdin.flush()
            # No answer in time: it waits for more input or for the end of it.
            assert select.select([process.stdout], [], [], 30)[0], "no answer to a line"
            answer = json.loads(process.stdout.readline())
            assert answer == {"position_id": START_ID, "dice": dice, "results": START_65}
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


def test_jsonl_bytes_that_are_not_utf8_are_a_bad_line() -> None:
    lines = [b"\xff\xfe", json.dumps({"position_id": START_ID, "dice": [6, 5]}).encode()]
    done = subprocess.run(
        _command("plays", "--jsonl"),
        input=b"\r\n".join(lines) + b"\r\n",
        capture_output=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["line"] == 1 and "not JSON" in first["error"]
    assert second["results"] == START_65


def test_help_documents_the_jsonl_errors(monkeypatch, capsys) -> None:
    status, out, _ = run(monkeypatch, capsys, "plays", "--help")
    assert status == 0
    assert '"error"' in out and "exit" in out
    assert "wait for its answer" in out


def _dice_record(tmp_path: Path, tamper: bool = False) -> Path:
    seed = bytes(range(32))
    stream = b"".join(hmac.new(seed, f"c:{i}".encode(), hashlib.sha256).digest() for i in range(2))
    dice = [b % 6 + 1 for b in stream if b < 252][:20]
    rolls = [dice[i : i + 2] for i in range(0, 20, 2)]
    if tamper:
        rolls[3] = [rolls[3][0] % 6 + 1, rolls[3][1]]
    record = {
        "algorithm": "hmac-sha256-v1",
        "server_seed": seed.hex(),
        "client_seed": "c",
        "commitment": hashlib.sha256(seed).hexdigest(),
        "rolls": rolls,
    }
    path = tmp_path / "dice.json"
    path.write_text(json.dumps(record))
    return path


def test_verify_dice_ok(monkeypatch, capsys, tmp_path) -> None:
    status, out, _ = run(monkeypatch, capsys, "verify-dice", str(_dice_record(tmp_path)))
    assert status == 0
    assert out.startswith("OK") and "10 rolls" in out


def test_verify_dice_from_stdin(monkeypatch, capsys, tmp_path) -> None:
    stdin = _dice_record(tmp_path).read_text()
    status, out, _ = run(monkeypatch, capsys, "verify-dice", "-", stdin=stdin)
    assert (status, out.split(":")[0]) == (0, "OK")


def test_verify_dice_mismatch_exits_1(monkeypatch, capsys, tmp_path) -> None:
    status, out, _ = run(monkeypatch, capsys, "verify-dice", str(_dice_record(tmp_path, True)))
    assert status == 1
    assert out.startswith("MISMATCH: rolls[3]: expected")


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not JSON"), ('{"algorithm": "x"}', "lacks"), ("[]", "JSON object")],
)
def test_verify_dice_bad_file_exits_2(monkeypatch, capsys, tmp_path, content, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    status, out, err = run(monkeypatch, capsys, "verify-dice", str(path))
    assert (status, out) == (2, "")
    assert message in err


def test_verify_dice_missing_file_exits_2(monkeypatch, capsys, tmp_path) -> None:
    status, _, err = run(monkeypatch, capsys, "verify-dice", str(tmp_path / "none.json"))
    assert status == 2
    assert "cannot read" in err


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "backgammon",
            "plays",
            "--position-id",
            START_ID,
            "--dice",
            "6",
            "5",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 7
