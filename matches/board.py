"""The board as SVG, drawn on the server from the rules core's position (B1, B4).

Two steps, both pure: ``picture_for(game, side)`` reads what a board shows from one
side's view (a ``Picture``: the checkers on each point, the bar, the trays, checkers
waiting to enter, pip counts, the dice, the cube), and ``board_svg(picture, home=...)``
draws it. A ``Picture`` can also be built straight from a ``Position``
(``picture_from_position``) or a tavli board (``picture_from_tavli``).

The drawing: 24 points numbered from the viewer's side (B1), the viewer's home board
bottom right or bottom left (B4), the bar in the middle, the borne-off trays on the
home side, the cube and the pip counts on the other side (acey-deucey's checkers
waiting to enter stand there too: the tavli games have no cube). Five checkers show on
a point at most; the fifth carries the number of that colour's checkers on the point. A
plakoto pin is the pinned checker at the edge of the board with its pinners stacked on
it (PL3). Checkers are coloured by the game's side (side 0 light, side 1 dark), so a
watcher and both players see the same colours.

Every point, the bar and the tray have a ``<title>`` saying what is on them, and the
attributes the board page's script needs: ``data-point`` (the viewer's own point
number: 1..24, 25 the bar, 0 the tray) and ``data-mine`` (the viewer's checkers there).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from backgammon.errors import GameOver, IllegalPlay, NotYourTurn
from backgammon.game import Game, Phase
from backgammon.moves import BAR_POINT, Step, dice_for_roll
from backgammon.position import BAR, Position
from backgammon.tavli.board import OFF, TavliBoard, facing
from backgammon.tavli.rules import TavliRules

ME = 0  # the viewer's side, in a ``Picture``
THEM = 1
Home = Literal["right", "left"]
HOMES: tuple[Home, ...] = ("right", "left")

# Geometry, in the SVG's own units (the page scales the whole drawing: docs/pages.md).
POINT_W = 40
RADIUS = 17
SHOWN = 5  # checkers drawn on a point; the last one shows the count
SIDE_W = 56  # the trays' column and the cube's column
BAR_W = 44
LABEL_H = 22  # the point numbers above and below the field
HALF_H = 200  # one row of points
GAP_H = 40
POINT_H = 190
WIDTH = 2 * SIDE_W + 12 * POINT_W + BAR_W
FIELD_TOP = LABEL_H
FIELD_BOTTOM = LABEL_H + 2 * HALF_H + GAP_H
HEIGHT = FIELD_BOTTOM + LABEL_H
MIDDLE = (FIELD_TOP + FIELD_BOTTOM) / 2
DIE = 32
TRAY_CHECKER_H = 9

COLOURS = {
    "felt": "#2e6b4f",
    "frame": "#5a3b22",
    "tray": "#3f2915",
    "point-a": "#d9c09a",
    "point-b": "#8c3b2e",
    "side-0": "#f4efe6",
    "side-1": "#2b2b2b",
    "ink-0": "#2b2b2b",
    "ink-1": "#f4efe6",
    "last": "#ffd54a",  # the last play's marks
}


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube as the viewer sees it: ``owner`` ``ME``, ``THEM`` or ``None`` (centred);
    ``offered``: a double waits for an answer (the cube shows the value offered)."""

    value: int
    owner: int | None = None
    offered: bool = False


@dataclass(frozen=True, slots=True)
class Picture:
    """What a board shows, from the viewer's side (``ME``), everything counted in the
    viewer's own numbering.

    - ``stacks[p - 1]``: the checkers on the viewer's point ``p``, from the edge of the
      board inwards, each ``ME`` or ``THEM`` (a plakoto pin: the pinned checker first).
    - ``bar``, ``off``, ``waiting``, ``pips``: (the viewer's, the opponent's).
    - ``dice``: each die of the roll with whether it is used (four for a double);
      ``dice_side`` the side that rolled them.
    - ``viewer``: the game's side the viewer sits on (it picks the colours).
    - ``last_from``, ``last_to``: where the last play's checkers left and landed (25:
      the bar, 0: the tray), marked on the board.
    """

    stacks: tuple[tuple[int, ...], ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    waiting: tuple[int, int] = (0, 0)
    pips: tuple[int, int] = (0, 0)
    dice: tuple[tuple[int, bool], ...] = ()
    dice_side: int = ME
    cube: Cube | None = None
    viewer: int = 0
    last_from: frozenset[int] = frozenset()
    last_to: frozenset[int] = frozenset()


def picture_from_position(position: Position, *, checkers: int = 15, viewer: int = 0) -> Picture:
    """A backgammon position, the viewer's checkers first (``Position.player``)."""
    stacks = tuple(
        (ME,) * position.player[point - 1] + (THEM,) * position.opponent[24 - point]
        for point in range(1, 25)
    )
    return Picture(
        stacks=stacks,
        bar=(position.player[BAR], position.opponent[BAR]),
        off=position.borne_off(checkers),
        pips=position.pips(),
        viewer=viewer,
    )


def picture_from_tavli(board: TavliBoard, rules: TavliRules, *, viewer: int = 0) -> Picture:
    """A tavli board, the viewer's side first (``board.mine``). The opponent's own point
    facing each of the viewer's comes from the game's direction (``facing``: fevga and
    gul bara run both sides the same way, so their starts are on opposite corners)."""
    mine, theirs = board.mine, board.opponent
    stacks = []
    for point in range(1, 25):
        their_point = facing(point, rules.same_direction)
        own, other = mine.points[point], theirs.points[their_point]
        if point in mine.pinned:  # my single checker under theirs
            stacks.append((ME,) * own + (THEM,) * other)
        else:  # theirs pinned under mine, or one side alone on the point
            stacks.append((THEM,) * other + (ME,) * own)
    return Picture(
        stacks=tuple(stacks),
        bar=(mine.bar, theirs.bar),
        off=(mine.points[OFF], theirs.points[OFF]),
        waiting=(mine.waiting, theirs.waiting),
        pips=(_tavli_pips(mine.points, mine.bar + mine.waiting), _tavli_pips(
            theirs.points, theirs.bar + theirs.waiting
        )),
        viewer=viewer,
    )  # fmt: skip


def _tavli_pips(points: Sequence[int], outside: int) -> int:
    """A tavli side's pips in its own numbering; off the board (bar, waiting) counts 25."""
    return sum(point * count for point, count in enumerate(points)) + 25 * outside


def last_play_marks(
    steps: Sequence[Step], *, mover: int, viewer: int, same_direction: bool = False
) -> tuple[frozenset[int], frozenset[int]]:
    """Where a play's checkers left and where they landed, in the viewer's numbering: a
    point a checker passed through (24/18 18/13: the 18) is neither."""

    def seen(point: int) -> int:
        if mover == viewer or point in (OFF, BAR_POINT):
            return point
        return facing(point, same_direction)

    origins = {seen(step.origin) for step in steps}
    landings = {seen(step.destination) for step in steps}
    return frozenset(origins - landings), frozenset(landings - origins)


class PlayMade(Protocol):
    """A play already made (``matches.selectors.LastPlay``)."""

    @property
    def side(self) -> int: ...
    @property
    def steps(self) -> tuple[Step, ...]: ...
    @property
    def dice(self) -> tuple[int, ...]: ...


def picture_for(game: Game, side: int, *, last_play: PlayMade | None = None) -> Picture:
    """What ``game`` shows from ``side``'s view: the board with the steps played and not
    yet confirmed (T3), the dice while they are being played, the cube (a match or a
    money game: a chouette's cubes are drawn by its own page); ``last_play`` marked
    where it left and landed, and its dice, greyed, until the next roll."""
    board = game.position_for(side)
    rules = game.options.variant.rules
    if isinstance(board, TavliBoard):
        assert rules is not None
        picture = picture_from_tavli(board, rules, viewer=side)
    else:
        picture = picture_from_position(board, checkers=game.options.variant.checkers, viewer=side)
    dice: tuple[tuple[int, bool], ...] = ()
    if game.phase is Phase.MOVE and game.dice is not None:
        rolled = dice_for_roll(*game.dice) if rules is None else tuple(game.remaining_dice)
        used = Counter(rolled) - Counter(game.remaining_dice)  # played from the left
        marked = []
        for die in rolled:
            marked.append((die, used[die] > 0))
            used[die] -= 1
        dice = tuple(marked)
    dice_side = game.on_roll
    last_from = last_to = frozenset[int]()
    if last_play is not None:
        same_direction = rules is not None and rules.same_direction
        last_from, last_to = last_play_marks(
            last_play.steps, mover=last_play.side, viewer=side, same_direction=same_direction
        )
        if not dice:
            dice = tuple((die, True) for die in last_play.dice)
            dice_side = last_play.side
    cube = None
    if rules is None and len(game.contracts) == 1:
        contract = game.cube
        owner = None if contract.owner is None else (ME if contract.owner == side else THEM)
        offered = contract.pending is not None
        cube = Cube(contract.value * 2 if offered else contract.value, owner, offered)
    return Picture(
        stacks=picture.stacks,
        bar=picture.bar,
        off=picture.off,
        waiting=picture.waiting,
        pips=picture.pips,
        dice=dice,
        dice_side=ME if dice_side == side else THEM,
        cube=cube,
        viewer=side,
        last_from=last_from,
        last_to=last_to,
    )


def landing_steps(game: Game) -> dict[int, dict[int, int]]:
    """The single steps the side on roll may play next (T3): for each point it may move
    from (its own numbering, 25 the bar), each landing point (0: borne off) with the die
    that gets there, the smallest die when several would bear off. Only the steps that
    can still be completed into a legal play of the roll (M5) are listed; none outside
    the move phase. In the tavli games 25 is entering too (from the bar, or acey-deucey's
    waiting checkers, AD1), and a pinned checker offers no step (PL3)."""
    if game.phase is not Phase.MOVE:
        return {}
    steps: dict[int, dict[int, int]] = {}
    for origin in _origins(game.position_for(game.on_roll)):
        for die in sorted(set(game.remaining_dice)):
            try:
                game.move_step(origin, die)
            except (IllegalPlay, NotYourTurn, GameOver):
                continue
            steps.setdefault(origin, {}).setdefault(max(origin - die, 0), die)
    return steps


def _origins(board: object) -> list[int]:
    """The points the side on roll has a checker on (25: the bar, or waiting to enter)."""
    if isinstance(board, TavliBoard):
        mine = board.mine
        return [p for p in range(1, 25) if mine.points[p]] + (
            [25] if mine.bar + mine.waiting else []
        )
    assert isinstance(board, Position)
    return [origin for origin in range(1, BAR + 2) if board.player[origin - 1]]


def can_confirm(game: Game) -> bool:
    """The steps played this turn make a whole legal play (T3: the turn can be confirmed)."""
    if game.phase is not Phase.MOVE or not game.pending:
        return False
    try:
        game.confirm()
    except (IllegalPlay, NotYourTurn, GameOver):
        return False
    return True


# Drawing --------------------------------------------------------------------------------


def point_x(point: int, home: Home) -> float:
    """The left edge of the viewer's ``point`` (1..24): with the home board bottom
    right, 1..12 run right to left along the bottom and 13..24 left to right along the
    top; bottom left is the mirror image."""
    column = point - 1 if point <= 12 else 24 - point  # 0: next to the home side's edge
    if column < 6:
        x = SIDE_W + 6 * POINT_W + BAR_W + (5 - column) * POINT_W
    else:
        x = SIDE_W + (11 - column) * POINT_W
    return x if home == "right" else WIDTH - x - POINT_W


def _side_column_x(home: Home, trays: bool) -> float:
    on_right = (home == "right") == trays
    return WIDTH - SIDE_W if on_right else 0


def _checker(cx: float, cy: float, game_side: int, label: str = "", extra: str = "") -> str:
    fill, ink = COLOURS[f"side-{game_side}"], COLOURS[f"ink-{game_side}"]
    parts = [
        f'<circle class="checker side-{game_side}{extra}" cx="{cx:g}" cy="{cy:g}" '
        f'r="{RADIUS}" fill="{fill}" stroke="{ink}" stroke-width="1.5"/>'
    ]
    if label:
        parts.append(
            f'<text class="count" x="{cx:g}" y="{cy + 5:g}" text-anchor="middle" '
            f'font-size="15" font-weight="bold" fill="{ink}">{label}</text>'
        )
    return "".join(parts)


def _stack(stack: Sequence[int], cx: float, top: bool, picture: Picture) -> str:
    """A point's checkers from the edge inwards; a pinned checker (the first one, under
    checkers of the other colour) drawn with a ring."""
    parts = []
    shown = stack[:SHOWN]
    for index, owner in enumerate(shown):
        offset = RADIUS + 1 + index * 2 * RADIUS
        cy = FIELD_TOP + offset if top else FIELD_BOTTOM - offset
        label = ""
        if index == SHOWN - 1 and len(stack) > SHOWN:
            label = str(stack.count(stack[-1]))
        pinned = index == 0 and len(stack) > 1 and stack[1] != owner
        game_side = picture.viewer if owner == ME else 1 - picture.viewer
        parts.append(_checker(cx, cy, game_side, label, " pinned" if pinned else ""))
    return "".join(parts)


def _point_title(point: int, stack: Sequence[int], names: tuple[str, str]) -> str:
    if not stack:
        return _("Point %(point)d: empty") % {"point": point}
    counts = Counter(stack)
    if len(counts) == 2:
        pinned = stack[0]
        return _("Point %(point)d: %(count)d of %(pinner)s, pinning one of %(pinned)s") % {
            "point": point,
            "count": counts[1 - pinned],
            "pinner": names[1 - pinned],
            "pinned": names[pinned],
        }
    owner = stack[0]
    return ngettext(
        "Point %(point)d: %(count)d checker of %(name)s",
        "Point %(point)d: %(count)d checkers of %(name)s",
        len(stack),
    ) % {"point": point, "count": len(stack), "name": names[owner]}


def _points(picture: Picture, home: Home, names: tuple[str, str]) -> list[str]:
    parts = []
    for point in range(1, 25):
        top = point > 12
        x = point_x(point, home)
        cx = x + POINT_W / 2
        base = FIELD_TOP if top else FIELD_BOTTOM
        tip = base + POINT_H if top else base - POINT_H
        colour = COLOURS["point-a" if point % 2 else "point-b"]
        stack = picture.stacks[point - 1]
        hit_y = FIELD_TOP if top else FIELD_BOTTOM - HALF_H
        label_y = LABEL_H - 6 if top else HEIGHT - 6
        corners = f"{x:g},{base:g} {x + POINT_W:g},{base:g} {cx:g},{tip:g}"
        last = _last_mark(point, picture)
        parts.append(
            f'<g class="point{last}" data-point="{point}" data-mine="{stack.count(ME)}">'
            f"<title>{escape(_point_title(point, stack, names))}</title>"
            f'<rect class="hit" x="{x:g}" y="{hit_y:g}" width="{POINT_W}" height="{HALF_H}" '
            f'fill="transparent"/>'
            f'<polygon points="{corners}" fill="{colour}"/>'
            f"{_last_outline(last, corners)}"
            f"{_stack(stack, cx, top, picture)}"
            f'<text class="point-number" x="{cx:g}" y="{label_y:g}" text-anchor="middle" '
            f'font-size="13" fill="#f4efe6">{point}</text></g>'
        )
    return parts


def _last_mark(point: int, picture: Picture) -> str:
    """The classes marking ``point`` as where the last play left or landed."""
    marks = ""
    if point in picture.last_from:
        marks += " last-from"
    if point in picture.last_to:
        marks += " last-to"
    return marks


def _last_outline(marks: str, corners: str) -> str:
    """A point's outline for the last play: dashed where it left, solid where it landed."""
    if not marks:
        return ""
    dashes = ' stroke-dasharray="6 4"' if "last-to" not in marks else ""
    return (
        f'<polygon class="last-mark" points="{corners}" fill="none" '
        f'stroke="{COLOURS["last"]}" stroke-width="3"{dashes}/>'
    )


def _bar(picture: Picture, names: tuple[str, str]) -> str:
    x = SIDE_W + 6 * POINT_W
    cx = x + BAR_W / 2
    title = _("The bar: %(mine)d of %(me)s, %(theirs)d of %(them)s") % {
        "mine": picture.bar[ME],
        "me": names[ME],
        "theirs": picture.bar[THEM],
        "them": names[THEM],
    }
    parts = [
        f'<g class="bar{_last_mark(BAR_POINT, picture)}" data-point="25" '
        f'data-mine="{picture.bar[ME]}">'
        f"<title>{escape(title)}</title>"
        f'<rect class="hit" x="{x:g}" y="{FIELD_TOP}" width="{BAR_W}" '
        f'height="{FIELD_BOTTOM - FIELD_TOP}" fill="{COLOURS["frame"]}"/>'
    ]
    # Each side's hit checkers wait on the half of the bar nearer its own side.
    for owner, direction in ((ME, 1), (THEM, -1)):
        count = picture.bar[owner]
        game_side = picture.viewer if owner == ME else 1 - picture.viewer
        for index in range(min(count, 3)):
            cy = MIDDLE + direction * (GAP_H / 2 + RADIUS + index * 2 * RADIUS)
            label = str(count) if index == 2 and count > 3 else ""
            parts.append(_checker(cx, cy, game_side, label))
    parts.append("</g>")
    return "".join(parts)


def _trays(picture: Picture, home: Home, names: tuple[str, str]) -> str:
    """The borne-off checkers, the viewer's in the bottom tray, edge-on."""
    x = _side_column_x(home, trays=True)
    title = _("Borne off: %(mine)d of %(me)s, %(theirs)d of %(them)s") % {
        "mine": picture.off[ME],
        "me": names[ME],
        "theirs": picture.off[THEM],
        "them": names[THEM],
    }
    parts = [
        f'<g class="tray{_last_mark(OFF, picture)}" data-point="0" data-mine="{picture.off[ME]}">'
        f"<title>{escape(title)}</title>"
        f'<rect class="hit" x="{x + 4:g}" y="{FIELD_BOTTOM - HALF_H}" width="{SIDE_W - 8}" '
        f'height="{HALF_H}" fill="{COLOURS["tray"]}"/>'
        f'<rect x="{x + 4:g}" y="{FIELD_TOP}" width="{SIDE_W - 8}" height="{HALF_H}" '
        f'fill="{COLOURS["tray"]}"/>'
    ]
    for owner in (ME, THEM):
        game_side = picture.viewer if owner == ME else 1 - picture.viewer
        for index in range(picture.off[owner]):
            offset = 4 + index * (TRAY_CHECKER_H + 3)
            y = FIELD_BOTTOM - offset - TRAY_CHECKER_H if owner == ME else FIELD_TOP + offset
            parts.append(
                f'<rect class="off side-{game_side}" x="{x + 10:g}" y="{y:g}" '
                f'width="{SIDE_W - 20}" height="{TRAY_CHECKER_H}" rx="2" '
                f'fill="{COLOURS[f"side-{game_side}"]}" stroke="{COLOURS[f"ink-{game_side}"]}"/>'
            )
    parts.append("</g>")
    return "".join(parts)


def _cube_column(picture: Picture, home: Home, names: tuple[str, str]) -> str:
    """The pip counts, the cube at its owner's end (centred: in the middle), and the
    checkers waiting to enter (acey-deucey)."""
    x = _side_column_x(home, trays=False)
    cx = x + SIDE_W / 2
    parts = []
    for owner, text_y in ((THEM, FIELD_TOP + 16), (ME, FIELD_BOTTOM - 8)):
        title = _("Pip count of %(name)s: %(pips)d") % {
            "name": names[owner],
            "pips": picture.pips[owner],
        }
        parts.append(
            f'<text class="pips" x="{cx:g}" y="{text_y:g}" text-anchor="middle" font-size="15" '
            f'fill="#fff"><title>{escape(title)}</title>{picture.pips[owner]}</text>'
        )
    cube = picture.cube
    if cube is not None and not cube.offered:
        y = {None: MIDDLE - DIE / 2, ME: FIELD_BOTTOM - 40 - DIE, THEM: FIELD_TOP + 40.0}[
            cube.owner
        ]
        parts.append(_cube(cx - DIE / 2, y, cube, names))
    for owner, direction in ((ME, 1), (THEM, -1)):
        count = picture.waiting[owner]
        if count:
            game_side = picture.viewer if owner == ME else 1 - picture.viewer
            cy = MIDDLE + direction * (GAP_H / 2 + 60)
            title = _("Waiting to enter: %(count)d of %(name)s") % {
                "count": count,
                "name": names[owner],
            }
            # The viewer's waiting checkers enter by a click, as from the bar (25, AD1).
            clickable = f' data-point="25" data-mine="{count}"' if owner == ME else ""
            parts.append(
                f'<g class="waiting"{clickable}><title>{escape(title)}</title>'
                f"{_checker(cx, cy, game_side, str(count))}</g>"
            )
    return "".join(parts)


def _cube(x: float, y: float, cube: Cube, names: tuple[str, str]) -> str:
    if cube.offered:
        title = _("Doubled to %(value)d, waiting for an answer") % {"value": cube.value}
    elif cube.owner is None:
        title = _("The cube in the centre, at %(value)d") % {"value": cube.value}
    else:
        title = _("The cube at %(value)d, owned by %(name)s") % {
            "value": cube.value,
            "name": names[cube.owner],
        }
    face = 64 if cube.value == 1 and not cube.offered else cube.value
    return (
        f'<g class="cube{" offered" if cube.offered else ""}"><title>{escape(title)}</title>'
        f'<rect x="{x:g}" y="{y:g}" width="{DIE}" height="{DIE}" rx="4" fill="#fff" '
        f'stroke="#000"/><text x="{x + DIE / 2:g}" y="{y + DIE / 2 + 6:g}" '
        f'text-anchor="middle" font-size="17" font-weight="bold">{face}</text></g>'
    )


# Where the pips of each face sit, on a 3x3 grid.
PIPS = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


def _dice(picture: Picture, home: Home) -> str:
    """The dice in the roller's half of the field: the viewer's on the home side."""
    if not picture.dice:
        return ""
    game_side = picture.viewer if picture.dice_side == ME else 1 - picture.viewer
    on_home_half = picture.dice_side == ME
    half_left = SIDE_W + 6 * POINT_W + BAR_W if (home == "right") == on_home_half else SIDE_W
    count = len(picture.dice)
    gap = 8
    x0 = half_left + (6 * POINT_W - count * DIE - (count - 1) * gap) / 2
    y = MIDDLE - DIE / 2
    values = ", ".join(str(die) for die, _used in picture.dice)
    title = _("Dice: %(dice)s") % {"dice": values}
    parts = [f'<g class="dice"><title>{escape(title)}</title>']
    fill, ink = COLOURS[f"side-{game_side}"], COLOURS[f"ink-{game_side}"]
    for index, (die, used) in enumerate(picture.dice):
        x = x0 + index * (DIE + gap)
        opacity = ' opacity="0.35"' if used else ""
        parts.append(
            f'<g class="die{" used" if used else ""}" data-die="{die}"{opacity}>'
            f'<rect x="{x:g}" y="{y:g}" width="{DIE}" height="{DIE}" rx="5" fill="{fill}" '
            f'stroke="{ink}" stroke-width="1.5"/>'
        )
        for column, row in PIPS[die]:
            parts.append(
                f'<circle cx="{x + 8 + column * 8:g}" cy="{y + 8 + row * 8:g}" r="2.8" '
                f'fill="{ink}"/>'
            )
        parts.append("</g>")
    parts.append("</g>")
    return "".join(parts)


def checker_swatch(game_side: int) -> str:
    """One checker of ``game_side``'s colour, drawn small beside its player's name: the
    legend that ties a colour to a name (decorative: the name says it)."""
    size = 2 * RADIUS + 4
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" viewBox="0 0 {size} {size}" '
        f'aria-hidden="true">{_checker(size / 2, size / 2, game_side)}</svg>'
    )


def board_svg(
    picture: Picture, *, home: Home = "right", names: tuple[str, str] | None = None
) -> str:
    """The board as an SVG element (it scales: ``viewBox``, no width or height), every
    name escaped, so it is safe to mark safe. ``names`` says whose checkers are whose in
    the titles: (the viewer's side, the other side)."""
    if names is None:
        names = (_("you"), _("your opponent"))
    summary = _("Backgammon board: %(me)s %(mine)d pips, %(them)s %(theirs)d pips") % {
        "me": names[ME],
        "mine": picture.pips[ME],
        "them": names[THEM],
        "theirs": picture.pips[THEM],
    }
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board scale-to-fit home-{home}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="group" aria-label="{escape(summary)}">'
        f"<title>{escape(summary)}</title>"
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{COLOURS["frame"]}"/>'
        f'<rect x="{SIDE_W}" y="{FIELD_TOP}" width="{12 * POINT_W + BAR_W}" '
        f'height="{FIELD_BOTTOM - FIELD_TOP}" fill="{COLOURS["felt"]}"/>',
        *_points(picture, home, names),
        _bar(picture, names),
        _trays(picture, home, names),
        _cube_column(picture, home, names),
    ]
    if picture.cube is not None and picture.cube.offered:
        half_left = SIDE_W if home == "right" else SIDE_W + 6 * POINT_W + BAR_W
        cube_x = half_left + 3 * POINT_W - DIE / 2
        parts.append(_cube(cube_x, MIDDLE - DIE / 2, picture.cube, names))
    parts.append(_dice(picture, home))
    parts.append("</svg>")
    return "".join(parts)
