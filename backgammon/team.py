"""A chouette team's cube rules as data (H4, H8, H9), and the H9 check on the box's answers.

A chouette game is a ``Game`` whose ``GameOptions.chouette`` is a ``ChouetteRules``: the
box is side 0, the team side 1, and ``GameOptions.holders`` are the team members in line
order, captain first, one cube contract each. How the game is played with them is
``backgammon.games.chouette``'s business (docs/rules-core.md, "Chouette games"); this
module holds what does not need the game: the options and the arithmetic of "same value,
same action".
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from backgammon.cube import Holder
from backgammon.errors import CubeNotAvailable

BOX = 0
TEAM = 1


class CubeMode(enum.Enum):
    """One team cube, doubled only unanimously (H4), or one cube per member (H8)."""

    SINGLE = "single"
    MULTIPLE = "multiple"


@dataclass(frozen=True, slots=True)
class ChouetteRules:
    """How a chouette team handles its cubes (API.md's ``cube`` option, H4, H8, H9).

    ``cubes``: ``SINGLE`` (the default, the source documents' rule: the team's double to
    the box must be unanimous and the members' cubes turn together) or ``MULTIPLE``.
    ``same_action``: H9, multiple cubes only: when the team doubles together, the box
    takes at least half of those cubes or passes them all, and equal cubes get the same
    answer.
    """

    cubes: CubeMode = CubeMode.SINGLE
    same_action: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.cubes, CubeMode):
            raise ValueError(f"cubes is a CubeMode, not {self.cubes!r}")
        if type(self.same_action) is not bool:
            raise ValueError("same_action is true or false")
        if self.same_action and self.cubes is CubeMode.SINGLE:
            raise ValueError("same value, same action (H9) is a rule of multiple cubes (H8)")

    @property
    def single(self) -> bool:
        """One team cube (H4)."""
        return self.cubes is CubeMode.SINGLE

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back equal rules."""
        return {"cubes": self.cubes.value, "same_action": self.same_action}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChouetteRules:
        """The rules ``to_dict`` wrote."""
        return cls(cubes=CubeMode(data["cubes"]), same_action=data["same_action"])


@dataclass(frozen=True, slots=True)
class Awaiting:
    """Who must act now (API.md's ``awaiting``): the box, and team members in line order.

    On roll or to move: the box, or the team's mover (the captain, ``Game.captain``).
    While doubles wait: the box for each team double it has not answered, and each member
    who owes an answer to the box's double (or to the box's beaver). While a resignation
    waits: the members the box offered it to who have not answered, or the box (for a
    member's own resignation, or the team's, which it answers contract by contract).
    """

    box: bool = False
    members: tuple[Holder, ...] = ()


def check_same_action(
    doubles: Sequence[tuple[Holder, int]],
    answers: Mapping[Holder, bool],
    holder: Holder,
    took: bool,
) -> None:
    """Refuse the box's answer ``took`` to ``holder``'s double unless H9 can still hold.

    ``doubles`` are the team's doubles answered together (holder, cube value doubled) and
    ``answers`` the box's answers so far (True: taken, a beaver counting as a take). The
    answer must give ``holder``'s cube the answer already given to a cube of equal value,
    and leave a way to end the set with at least half of the cubes taken or all passed.
    """
    values = dict(doubles)
    given = {**answers, holder: took}
    by_value: dict[int, bool] = {}
    for answered, answer in given.items():
        if by_value.setdefault(values[answered], answer) != answer:
            raise CubeNotAvailable(
                f"same value, same action (H9): the cubes at {values[answered]} must all be "
                f"{'taken' if by_value[values[answered]] else 'passed'}"
            )
    if not any(given.values()):
        return  # all passed so far: passing the rest is always possible
    takeable = sum(1 for h, value in doubles if given.get(h, by_value.get(value, True)))
    if 2 * takeable < len(doubles):
        raise CubeNotAvailable(
            f"the box must take at least half of the {len(doubles)} doubles or pass them all (H9)"
        )
