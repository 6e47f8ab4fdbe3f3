"""The four formats, each a small value holding its options.

The format *is* its options: ``SingleElimination(consolation_through_round=1)`` says
everything the draw needs. ``kind`` is the name the API shows. Options that cannot work
for the field (a consolation nobody would enter, more Swiss rounds than opponents) are
refused when the tournament is built, before anything is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, NotRequired, TypedDict

from tournaments.formats.entries import Seeding
from tournaments.formats.errors import InvalidOptions, InvalidState


class Format(StrEnum):
    """The formats' names, as the API spells them."""

    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"
    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"


@dataclass(frozen=True, slots=True)
class SingleElimination:
    """A knockout, with an optional consolation and an optional last chance.

    ``consolation_through_round``: 0, no consolation; 1, a consolation for the losers
    of the first round; R >= 2, the progressive consolation, which the losers of main
    rounds 1 to R enter (round r's losers with byes into consolation round r).
    ``last_chance_after_round``: 0, none; N >= 1, a last chance drawn once round N is
    complete, for everyone knocked out of every bracket by then.
    """

    seeding: Seeding = Seeding.RATING
    consolation_through_round: int = 0
    last_chance_after_round: int = 0
    kind: ClassVar[Format] = Format.SINGLE_ELIMINATION


@dataclass(frozen=True, slots=True)
class DoubleElimination:
    """Winners' and losers' brackets and a grand final.

    ``bracket_reset``: when the losers' bracket champion wins the grand final, both
    finalists have lost once, and a second final decides (true double elimination).
    Without it the grand final is a single match.
    """

    seeding: Seeding = Seeding.RATING
    bracket_reset: bool = True
    kind: ClassVar[Format] = Format.DOUBLE_ELIMINATION


@dataclass(frozen=True, slots=True)
class Swiss:
    """``rounds`` rounds of Swiss pairings (at most as many as a round robin has)."""

    rounds: int
    seeding: Seeding = Seeding.RATING
    kind: ClassVar[Format] = Format.SWISS


@dataclass(frozen=True, slots=True)
class RoundRobin:
    """Every pair once, in the order of the Berger tables."""

    seeding: Seeding = Seeding.RATING
    kind: ClassVar[Format] = Format.ROUND_ROBIN


FormatOptions = SingleElimination | DoubleElimination | Swiss | RoundRobin

_CLASSES: dict[Format, type[FormatOptions]] = {
    Format.SINGLE_ELIMINATION: SingleElimination,
    Format.DOUBLE_ELIMINATION: DoubleElimination,
    Format.SWISS: Swiss,
    Format.ROUND_ROBIN: RoundRobin,
}


def check_options(options: FormatOptions) -> None:
    """Refuse options of the wrong type (the field-size checks come with the draw)."""
    if not isinstance(options.seeding, Seeding):
        raise InvalidOptions(f"seeding is one of {', '.join(Seeding)}, not {options.seeding!r}")
    if isinstance(options, SingleElimination):
        for name in ("consolation_through_round", "last_chance_after_round"):
            value = getattr(options, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidOptions(f"{name} is a round number, or 0 for none")
    elif isinstance(options, DoubleElimination):
        if not isinstance(options.bracket_reset, bool):
            raise InvalidOptions("bracket_reset is true or false")
    elif isinstance(options, Swiss) and (
        isinstance(options.rounds, bool) or not isinstance(options.rounds, int)
    ):
        raise InvalidOptions("a Swiss has a whole number of rounds")


class FormatDict(TypedDict):
    """A format's stored JSON form: its ``kind``, then its own options."""

    kind: str
    seeding: str
    consolation_through_round: NotRequired[int]
    last_chance_after_round: NotRequired[int]
    bracket_reset: NotRequired[bool]
    rounds: NotRequired[int]


def options_to_dict(options: FormatOptions) -> FormatDict:
    """The options in their fields' order after ``kind``, as ``from_dict`` reads them."""
    kind, seeding = options.kind.value, options.seeding.value
    if isinstance(options, Swiss):
        return {"kind": kind, "rounds": options.rounds, "seeding": seeding}
    body: FormatDict = {"kind": kind, "seeding": seeding}
    if isinstance(options, SingleElimination):
        body["consolation_through_round"] = options.consolation_through_round
        body["last_chance_after_round"] = options.last_chance_after_round
    elif isinstance(options, DoubleElimination):
        body["bracket_reset"] = options.bracket_reset
    return body


def options_from_dict(data: Any) -> FormatOptions:
    try:
        fields = dict(data)
        cls = _CLASSES[Format(fields.pop("kind"))]
        fields["seeding"] = Seeding(fields["seeding"])
        return cls(**fields)
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidState(f"not a tournament format: {data!r}") from error
