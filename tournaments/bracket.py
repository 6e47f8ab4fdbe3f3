"""The bracket as a drawing: boxes and lines of an SVG, from the formats' fixtures.

Plain Python (no Django). Each bracket (main, losers, grand final, consolation, last
chance) is drawn on its own: one column per round of the bracket, each fixture a box of
its two sides, the winner's side marked; a line joins a fixture to the one its winner
goes on to when both are in the same bracket. A side whose player comes from another
bracket (a loser dropping into the losers' bracket) or is not known yet says where it
comes from instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tournaments.formats import Bracket, Fixture, FixtureSide, SlotKind

BOX_WIDTH = 184
SIDE_HEIGHT = 22
BOX_HEIGHT = 2 * SIDE_HEIGHT
ROW_GAP = 14
COLUMN_GAP = 36
HEADER = 24


@dataclass(frozen=True)
class SideDrawing:
    label: str
    known: bool  # a player's name (not where the player will come from)
    won: bool
    y: int  # the baseline of its text


@dataclass(frozen=True)
class BoxDrawing:
    id: str
    x: int
    y: int
    sides: tuple[SideDrawing, SideDrawing]
    link: str | None = None  # where its match is watched while it is played online
    width: int = BOX_WIDTH
    height: int = BOX_HEIGHT

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def middle(self) -> int:
        """The line between its two sides."""
        return self.y + SIDE_HEIGHT

    @property
    def text_x(self) -> int:
        return self.x + 6


@dataclass(frozen=True)
class LineDrawing:
    path: str


@dataclass(frozen=True)
class BracketDrawing:
    bracket: Bracket
    width: int
    height: int
    columns: tuple[tuple[int, int], ...]  # (x of the column's centre, bracket round)
    boxes: tuple[BoxDrawing, ...]
    lines: tuple[LineDrawing, ...]


# How a side not known yet is labelled in a box of a bracket: the caller passes, for
# each bracket, translated templates.
SourceLabels = Mapping[SlotKind, Callable[[FixtureSide], str]]
SourceLabelsIn = Callable[[Bracket], SourceLabels]


def draw_brackets(
    fixtures: Sequence[Fixture],
    names: Mapping[str, str],
    sources: SourceLabelsIn,
    links: Mapping[str, str] | None = None,
) -> list[BracketDrawing]:
    """One drawing per bracket the fixtures have, in the formats' bracket order;
    ``links`` maps a fixture's id to where its match being played is watched."""
    drawings = []
    for bracket in Bracket:
        mine = [fixture for fixture in fixtures if fixture.bracket is bracket]
        if mine:
            drawings.append(_draw(bracket, mine, names, sources(bracket), links or {}))
    return drawings


def _draw(
    bracket: Bracket,
    fixtures: list[Fixture],
    names: Mapping[str, str],
    sources: SourceLabels,
    links: Mapping[str, str],
) -> BracketDrawing:
    rounds = sorted({fixture.bracket_round for fixture in fixtures})
    column = {number: index for index, number in enumerate(rounds)}
    by_round = {
        number: sorted((f for f in fixtures if f.bracket_round == number), key=lambda f: f.position)
        for number in rounds
    }
    most = max(len(column_fixtures) for column_fixtures in by_round.values())
    height = HEADER + most * (BOX_HEIGHT + ROW_GAP)
    boxes: dict[str, BoxDrawing] = {}
    for number, column_fixtures in by_round.items():
        slot = (height - HEADER) / len(column_fixtures)
        x = column[number] * (BOX_WIDTH + COLUMN_GAP)
        for index, fixture in enumerate(column_fixtures):
            top = round(HEADER + slot * (index + 0.5) - BOX_HEIGHT / 2)
            first, second = (
                _side(fixture, side, names, sources, top + SIDE_HEIGHT * (n + 1) - 7)
                for n, side in enumerate(fixture.sides)
            )
            boxes[fixture.id] = BoxDrawing(
                fixture.id, x, top, (first, second), link=links.get(fixture.id)
            )
    lines = []
    for fixture in fixtures:
        target = boxes[fixture.id]
        for n, side in enumerate(fixture.sides):
            source = boxes.get(side.source.ref) if side.source.kind is SlotKind.WINNER else None
            if source is None:
                continue
            start_x, start_y = source.x + BOX_WIDTH, source.y + SIDE_HEIGHT
            end_x, end_y = target.x, target.y + SIDE_HEIGHT * n + SIDE_HEIGHT // 2
            middle = start_x + COLUMN_GAP // 2
            lines.append(LineDrawing(f"M{start_x} {start_y}H{middle}V{end_y}H{end_x}"))
    width = len(rounds) * (BOX_WIDTH + COLUMN_GAP) - COLUMN_GAP
    return BracketDrawing(
        bracket=bracket,
        width=width,
        height=height,
        columns=tuple(
            (column[number] * (BOX_WIDTH + COLUMN_GAP) + BOX_WIDTH // 2, number)
            for number in rounds
        ),
        boxes=tuple(boxes.values()),
        lines=tuple(lines),
    )


def _side(
    fixture: Fixture,
    side: FixtureSide,
    names: Mapping[str, str],
    sources: SourceLabels,
    y: int,
) -> SideDrawing:
    if side.entry is not None:
        return SideDrawing(
            label=names.get(side.entry, side.entry),
            known=True,
            won=fixture.winner == side.entry,
            y=y,
        )
    return SideDrawing(label=sources[side.source.kind](side), known=False, won=False, y=y)
