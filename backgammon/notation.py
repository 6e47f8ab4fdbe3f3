"""Move notation as GNU Backgammon writes and reads it: ``24/18 13/11*``, ``bar/22``,
``6/off``, ``6/2(2)``.

Output follows gnubg's ``FormatMove`` (drawboard.c), so a play reads the same here as in
gnubg, in exported ``.mat`` files and in analyses:

- moves are sorted by origin, highest first (then by destination, highest first);
- a checker that plays several dice is written as one move, its intermediate points
  left out (``24/13``) unless it hit a blot there, which is then named with a star
  (``24/18*/13``);
- ``*`` follows a point where a blot was hit, once per point;
- identical moves are written once with a count (``6/2(2)``, ``13/7*/1(2)``);
- ``bar`` and ``off`` stand for points 25 and 0; no move at all is the empty string.

Input is lenient, as gnubg's ``ParseMove`` is: stars anywhere (and ignored), any case
(``Bar/22``), extra spaces (also around ``/``) and commas, chains (``24/18/13``), counts,
and points written as numbers 0..25. A move spanning several dice (``24/13``) is kept
as one segment; ``play_from_text`` splits it into single-die steps against the position.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

from backgammon.errors import InvalidNotation
from backgammon.moves import BAR_POINT, OFF, Play, Step, check_play
from backgammon.position import Position


def format_play(steps: Iterable[Step]) -> str:
    """The play's text in GNU Backgammon's style (see the module docstring)."""
    steps = list(steps)
    # Points where a blot stood before the play: the first landing there hit it.
    hit_points = {step.destination for step in steps if step.hit}
    moves = sorted(((step.origin, step.destination) for step in steps), reverse=True)
    chains: list[list[int]] = []
    taken = [False] * len(moves)
    for i, (origin, destination) in enumerate(moves):
        if taken[i]:
            continue
        chain = [origin, destination]
        for j in range(i + 1, len(moves)):
            if not taken[j] and moves[j][0] == chain[-1]:
                if chain[-1] in hit_points:
                    chain.append(moves[j][1])
                else:
                    chain[-1] = moves[j][1]
                taken[j] = True
        chains.append(chain)
    counts: dict[tuple[int, ...], int] = {}
    for chain in chains:
        counts[tuple(chain)] = counts.get(tuple(chain), 0) + 1
    starred: set[int] = set()
    parts = []
    for points, count in counts.items():
        text = _point(points[0])
        for point in points[1:-1]:
            text += f"/{_point(point)}*"
            starred.add(point)
        last = points[-1]
        text += f"/{_point(last)}"
        if last in hit_points and last not in starred:
            text += "*"
            starred.add(last)
        if count > 1:
            text += f"({count})"
        parts.append(text)
    return " ".join(parts)


_SPACED = re.compile(r"\s*([/(])\s*|\s+(?=\))")
_MOVE = re.compile(r"(?P<chain>[^/()]+(?:/[^/()]+)+)(?:\((?P<count>\d+)\))?")


def parse_play(text: str) -> list[tuple[int, int]]:
    """The (origin, destination) segments of a play's text (25 = bar, 0 = off), each
    repeated move written out; ``""`` is no move. A segment may span several dice."""
    spaced = text.replace("*", " ").replace(",", " ").lower()
    cleaned = _SPACED.sub(lambda match: match[1] or "", spaced)
    segments: list[tuple[int, int]] = []
    for word in cleaned.split():
        match = _MOVE.fullmatch(word)
        if not match:
            raise InvalidNotation(
                f"cannot read {word!r}: write moves like 24/18, bar/22, 6/off or 6/2(2)"
            )
        points = [_parse_point(name, word) for name in match["chain"].split("/")]
        if BAR_POINT in points[1:]:
            raise InvalidNotation(f"{word!r}: a checker cannot move to the bar")
        if OFF in points[:-1]:
            raise InvalidNotation(f"{word!r}: a checker borne off cannot move on")
        count = int(match["count"] or 1)
        if not 1 <= count <= 4:
            raise InvalidNotation(f"{word!r}: a move repeats 1 to 4 times, not {count}")
        segments += list(pairwise(points)) * count
    return segments


def play_from_text(
    position: Position, roll: tuple[int, int], text: str, legal: Sequence[Play] | None = None
) -> Play:
    """The legal play ``text`` describes for ``roll`` (see ``moves.check_play``, and its
    ``legal``): raises ``InvalidNotation`` for unreadable text, ``IllegalPlay`` saying
    what breaks the rules."""
    return check_play(position, roll, parse_play(text), legal)


def _point(point: int) -> str:
    return "bar" if point == BAR_POINT else "off" if point == OFF else str(point)


def _parse_point(name: str, word: str) -> int:
    if name == "bar":
        return BAR_POINT
    if name == "off":
        return OFF
    if name.isdigit() and int(name) <= BAR_POINT:
        return int(name)
    raise InvalidNotation(f"{word!r}: {name!r} is not a point (1..24, bar, off)")
