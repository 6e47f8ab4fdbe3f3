"""The doubling cube as contracts: one cube between the two sides per stake holder.

A match or money game carries one contract; a chouette carries one per team member,
each taken and passed on its own (H5), doubled on its own with multiple cubes (H8) or
together with one team cube (H4). A contract is an
immutable value: every action returns a new one or raises ``CubeNotAvailable`` with a
message in the players' words, leaving the old value as it was.

Sides are 0 and 1, as in ``Game``. ``holder`` is an opaque key (a username, an index)
that only tells the contracts of one game apart.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any

from backgammon.errors import CubeNotAvailable

Holder = str | int


class CubeState(enum.Enum):
    """Whether a contract is still played for or was settled by a pass."""

    LIVE = "live"
    PASSED = "passed"


@dataclass(frozen=True, slots=True)
class CubeContract:
    """One cube between side 0 and side 1 for one stake holder (C1-C6).

    - ``value``: the cube's face (1 while never doubled, C1).
    - ``owner``: ``None`` while centred, else the side that may double next (C4).
    - ``turned``: a double was ever taken this game, so the Jacoby rule is off (C6).
    - ``pending``: the side whose double (or beaver) waits for an answer.
    - ``beavered``: the pending offer is a beaver: the original doubler answers (C5).
    - ``passer``: once ``PASSED``, the side that refused; it loses ``value``.
    - ``max_value``: the highest face the cube may reach (``None``: no limit).
    """

    holder: Holder = 0
    value: int = 1
    owner: int | None = None
    state: CubeState = CubeState.LIVE
    turned: bool = False
    pending: int | None = None
    beavered: bool = False
    passer: int | None = None
    max_value: int | None = None

    @property
    def live(self) -> bool:
        """Still played for: not settled by a pass."""
        return self.state is CubeState.LIVE

    @property
    def answerer(self) -> int | None:
        """The side that must answer the pending offer, if any."""
        return None if self.pending is None else 1 - self.pending

    def check_offer(self, side: int) -> None:
        """Raise ``CubeNotAvailable`` unless ``side`` may double now (C1, C2)."""
        if not self.live:
            raise CubeNotAvailable("that cube was passed and is out of this game")
        if self.pending is not None:
            raise CubeNotAvailable("a double is already waiting for an answer")
        if self.owner is not None and self.owner != side:
            raise CubeNotAvailable("your opponent owns the cube; only the owner may double")
        if self.max_value is not None and self.value * 2 > self.max_value:
            raise CubeNotAvailable(f"the cube is already at its maximum of {self.max_value}")

    def can_offer(self, side: int) -> bool:
        """Whether ``side`` may double on this contract now."""
        try:
            self.check_offer(side)
        except CubeNotAvailable:
            return False
        return True

    def offer(self, side: int) -> CubeContract:
        """``side`` doubles: the other side must take or pass (C2)."""
        self.check_offer(side)
        return replace(self, pending=side)

    def take(self) -> CubeContract:
        """Accept the pending offer (C4), or accept a beaver (C5).

        A take doubles the cube and gives it to the taker; accepting a beaver doubles
        it again and leaves it with the side that beavered.
        """
        offerer = self._offerer()
        if self.beavered:
            return replace(self, value=self.value * 2, pending=None, beavered=False)
        return replace(self, value=self.value * 2, owner=1 - offerer, turned=True, pending=None)

    def pass_(self) -> CubeContract:
        """Refuse the pending offer: the refuser loses the cube as it stands (C4, C5).

        The value is not doubled, so a passed double costs the value before the double
        and a refused beaver the value of the take it followed.
        """
        offerer = self._offerer()
        return replace(
            self,
            state=CubeState.PASSED,
            passer=1 - offerer,
            pending=None,
            beavered=False,
        )

    def beaver(self) -> CubeContract:
        """Take and at once redouble, keeping the cube; the doubler answers next (C5)."""
        offerer = self._offerer()
        if self.beavered:
            raise CubeNotAvailable("a beaver cannot be beavered again")
        if self.max_value is not None and self.value * 4 > self.max_value:
            raise CubeNotAvailable(
                f"a beaver would take the cube past its maximum of {self.max_value}"
            )
        taker = 1 - offerer
        return replace(
            self, value=self.value * 2, owner=taker, turned=True, pending=taker, beavered=True
        )

    def lapse(self) -> CubeContract:
        """The pending offer left unanswered when the game ended without an answer (a
        forfeit): the cube stays as it stood before the offer (after a beaver's take)."""
        self._offerer()
        return replace(self, pending=None, beavered=False)

    def points(self, winner: int | None, multiplier: int, jacoby: bool) -> int:
        """This contract's points, signed from side 0's view (positive: side 0 wins).

        A passed contract costs the passer its value whatever happens on the board; a
        live one pays the game's ``winner`` the value times ``multiplier`` (1, 2 or 3),
        which the Jacoby rule (``jacoby``) cuts to 1 while the cube was never turned.
        """
        if not self.live:
            return self.value if self.passer == 1 else -self.value
        if winner is None:
            return 0
        points = self.value * (1 if jacoby and not self.turned else multiplier)
        return points if winner == 0 else -points

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; ``from_dict`` gives back an equal contract."""
        return {
            "holder": self.holder,
            "value": self.value,
            "owner": self.owner,
            "state": self.state.value,
            "turned": self.turned,
            "pending": self.pending,
            "beavered": self.beavered,
            "passer": self.passer,
            "max_value": self.max_value,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CubeContract:
        """The contract ``to_dict`` wrote."""
        return cls(**{**data, "state": CubeState(data["state"])})

    def _offerer(self) -> int:
        """The side whose double (or beaver) waits for an answer, or ``CubeNotAvailable``."""
        if self.pending is None:
            raise CubeNotAvailable("no double is waiting for an answer on that cube")
        return self.pending
