"""``python -m backgammon plays --jsonl --variant portes|plakoto|fevga|gulbara|acey-deucey``:
the tavli games read and write boards (the API's board JSON, ``TavliRules.board_to_json``)
instead of GNU Backgammon's position IDs, which cannot hold them.

Each input line ``{"board": B, "dice": [a, b]}`` (optionally ``"variant"``, overriding
``--variant`` for that line) gives one output line ``{"results": [B, ...]}``: every
distinct board the mover can reach with the roll in this turn (``turns.turn_results``:
gul bara's whole run, acey-deucey's 1-2 with every double it may name), the side that
moved still ``"mine"``, sorted by their JSON text; the unchanged board when nothing can
be played. A line that cannot be read, names an unknown game or holds a board that
cannot exist gives ``{"line": n, "error": "..."}`` instead (n from 1), and the exit
status is then 2.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from backgammon.errors import BackgammonError
from backgammon.tavli.rules import GAMES, TavliRules
from backgammon.tavli.turns import turn_results

EXIT_BAD_INPUT = 2


class BadLine(Exception):
    """A line the command cannot use; the message says why."""


def plays_jsonl(rules: TavliRules, stdin: TextIO, stdout: TextIO) -> int:
    """Answer every line of ``stdin``; the exit status (0, or 2 if a line was bad)."""
    status = 0
    for number, line in enumerate(stdin, start=1):
        if not line.strip():
            continue
        try:
            answer: dict[str, Any] = {"results": _results(rules, line)}
        except (BadLine, BackgammonError) as exc:
            answer = {"line": number, "error": str(exc)}
            status = EXIT_BAD_INPUT
        stdout.write(json.dumps(answer) + "\n")
    return status


def _results(default: TavliRules, line: str) -> list[dict[str, Any]]:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc}") from exc
    if not isinstance(request, dict) or "board" not in request:
        raise BadLine('expected an object {"board": ..., "dice": [d1, d2]}')
    rules = default
    if "variant" in request:
        name = request["variant"]
        if name not in GAMES:
            raise BadLine(f"unknown variant {name!r}: one of {', '.join(GAMES)}")
        rules = GAMES[name]
    dice = request.get("dice")
    if not (
        isinstance(dice, list)
        and len(dice) == 2
        and all(type(d) is int and 1 <= d <= 6 for d in dice)
    ):
        raise BadLine("dice must be a list of two numbers from 1 to 6")
    board = rules.board_from_json(request["board"])
    boards = [
        rules.board_to_json(result) for result in turn_results(rules, board, (dice[0], dice[1]))
    ]
    return sorted(boards, key=lambda b: json.dumps(b, sort_keys=True))
