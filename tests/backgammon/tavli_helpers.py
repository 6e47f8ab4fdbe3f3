"""Tavli boards drawn in the tests, and the plays of a stage as text.

A drawing has rows ``X:`` and ``O:``, each 24 cells for the points 24..1 in X's numbering
(X is to move), then optionally a cell for the bar and one for the checkers waiting to
enter (each side's own); ``.`` is 0 and a trailing ``p`` marks a single checker pinned
there. Whatever a side has not drawn of its 15 is borne off. O's cells are placed on
O's own points through the game's facing points (``25 - r``, or ``r ± 12`` in fevga and
gul bara).
"""

from __future__ import annotations

from collections.abc import Sequence

from backgammon.notation import format_play
from backgammon.tavli.board import CHECKERS, POINTS, Side, TavliBoard
from backgammon.tavli.plays import stage_plays
from backgammon.tavli.rules import TavliRules


def diagram(rules: TavliRules, text: str, roll: int = 0) -> TavliBoard:
    rows: dict[str, list[str]] = {}
    for line in text.strip().splitlines():
        label, _, cells = line.strip().partition(":")
        if label in ("X", "O"):
            rows[label] = cells.split()
    sides = []
    for label in ("X", "O"):
        cells = rows[label]
        points = [0] * (POINTS + 1)
        pinned = []
        for column, cell in enumerate(cells[:POINTS]):
            x_point = POINTS - column
            point = x_point if label == "X" else rules.facing_table[x_point]
            if cell.endswith("p"):
                pinned.append(point)
                cell = cell[:-1]
            points[point] = 0 if cell == "." else int(cell)
        extra = [0 if cell == "." else int(cell) for cell in cells[POINTS:]] + [0, 0]
        bar, waiting = extra[0], extra[1]
        points[0] = CHECKERS - sum(points) - bar - waiting
        sides.append(Side(tuple(points), bar, waiting, tuple(sorted(pinned))))
    mine = sides[0]
    if roll:
        mine = Side(mine.points, mine.bar, mine.waiting, mine.pinned, roll)
    return rules.validate(TavliBoard(mine, sides[1]))


def texts(rules: TavliRules, board: TavliBoard, dice: Sequence[int]) -> set[str]:
    """The plays of ``dice`` as text, checked to be one per distinct board."""
    plays = stage_plays(rules, board, dice)
    written = {format_play(play.steps) for play in plays}
    assert len(written) == len(plays) == len({play.result for play in plays})
    return written
