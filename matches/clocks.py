"""Clocks as pure functions: the presets, each game's reserve, and spending a turn's time;
and the presets' words, the one place every form, page, choice and API text reads them.

A turn's time is spent from the delay first, then from the side's reserve (the USBGF
way). The side that must act (to roll, move, answer a double or a resignation) is the
one whose clock runs; one period lasts from when that side becomes the one to act until
it stops being it. Times are seconds.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext_lazy

PRESETS = ("none", "standard", "blitz", "correspondence")
# Each preset in a word (the lobby's lists of matches) and described (the choice of a
# clock: the lobby's form, capitalised there; a tournament's ``Clock``).
PRESET_NAMES = {
    "none": gettext_lazy("none"),
    "standard": gettext_lazy("standard"),
    "blitz": gettext_lazy("blitz"),
    "correspondence": gettext_lazy("correspondence"),
}
PRESET_LABELS = {
    "none": gettext_lazy("no clock"),
    "standard": gettext_lazy("standard: 12 s a move, 2 minutes a point"),
    "blitz": gettext_lazy("blitz: 8 s a move, 20 s a point"),
    "correspondence": gettext_lazy("correspondence: 48 hours a move"),
}
# The API's words for a clock: the schema's description and the refusal of a bad one.
API_DESCRIPTION = gettext_lazy(
    'A preset ("none", "standard": 12 s a move and 2 minutes a point, "blitz": 8 s '
    'and 20 s a point, "correspondence": 48 hours a move) or {"delay": seconds, '
    '"reserve": seconds}; a custom clock needs some time.'
)
API_INVALID = gettext_lazy(
    'A clock is "none", "standard", "blitz", "correspondence" or {"delay": '
    'seconds, "reserve": seconds} with some time.'
)
# The longest custom delay and reserve a match may ask for: a week.
MAX_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A clock: ``delay`` seconds a turn (None: no clock); the reserve either set at the
    start of each game from the match (``per_point`` seconds per point of the match, less
    ``less_per_scored`` per point either player has scored) or, with neither, ``reserve``
    seconds for the whole match."""

    name: str
    delay: int | None = None
    per_point: int = 0
    less_per_scored: int = 0
    reserve: int = 0

    @property
    def timed(self) -> bool:
        return self.delay is not None

    def to_json(self) -> str | dict[str, int]:
        """What the API shows: the preset's name, or ``{"delay", "reserve"}``."""
        if self.name == "custom":
            return {"delay": self.delay or 0, "reserve": self.reserve}
        return self.name


_PRESETS = {
    "none": ClockSpec("none"),
    # USBGF: 12 s delay; 2 minutes a point, less 1 minute a point already scored.
    "standard": ClockSpec("standard", delay=12, per_point=120, less_per_scored=60),
    # 8 s delay; 20 s a point, less 10 s a point already scored (the same proportion).
    "blitz": ClockSpec("blitz", delay=8, per_point=20, less_per_scored=10),
    "correspondence": ClockSpec("correspondence", delay=48 * 3600),
}
assert list(_PRESETS) == list(PRESET_NAMES) == list(PRESET_LABELS) == list(PRESETS)


def clock_spec(value: str | Mapping[str, Any]) -> ClockSpec:
    """The clock a match asks for: a preset's name or ``{"delay": s, "reserve": s}``;
    ``ValueError`` for anything else."""
    if isinstance(value, str):
        if value not in _PRESETS:
            raise ValueError(f"unknown clock {value!r}: one of {', '.join(PRESETS)} or custom")
        return _PRESETS[value]
    if not isinstance(value, Mapping) or set(value) != {"delay", "reserve"}:
        raise ValueError('a custom clock is {"delay": seconds, "reserve": seconds}')
    delay, reserve = value["delay"], value["reserve"]
    for amount in (delay, reserve):
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValueError("a clock's delay and reserve are whole seconds")
        if not 0 <= amount <= MAX_SECONDS:
            raise ValueError(f"a clock's delay and reserve are 0 to {MAX_SECONDS} seconds")
    if delay + reserve == 0:
        raise ValueError("a custom clock needs some time: a delay or a reserve")
    return ClockSpec("custom", delay=delay, reserve=reserve)


def game_reserve(spec: ClockSpec, *, length: int, score: tuple[int, int], left: float) -> float:
    """Each side's reserve at the start of a game.

    The presets set it afresh for every game: ``per_point`` times the match length less
    ``less_per_scored`` times the points both players have scored (at least one point's
    worth; a money session counts as a match to 1 at 0-0 for every game). A custom clock's
    reserve is the whole match's: ``left``, what the side has left (its ``reserve`` at
    the first game)."""
    if spec.per_point:
        if length == 0:
            return float(spec.per_point)
        seconds = spec.per_point * length - spec.less_per_scored * (score[0] + score[1])
        return float(max(seconds, spec.per_point))
    return left


def spend(*, delay: int, reserve: float, started: datetime, now: datetime) -> float:
    """The reserve left after acting from ``started`` to ``now``: the delay is spent
    first, then the reserve (never below 0)."""
    elapsed = (now - started).total_seconds()
    return max(0.0, reserve - max(0.0, elapsed - delay))


def deadline(*, delay: int, reserve: float, started: datetime) -> datetime:
    """When a side that began to act at ``started`` runs out of time."""
    return started + timedelta(seconds=delay + reserve)


def left(*, delay: int, reserve: float, started: datetime, now: datetime) -> float:
    """The time the acting side has left now, delay and reserve together."""
    return max(0.0, (deadline(delay=delay, reserve=reserve, started=started) - now).total_seconds())
