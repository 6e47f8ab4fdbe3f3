"""A judged decision, what its loss is called, and the limits of the counting: what the
engine worker (``analysis.engine``, ``analysis.judging``) judges with and sends back and
the Django side stores, in a module of its own that loads neither the engine nor Django
(docs/analysis.md)."""

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backgammon.cube import Holder

# The marks, gnubg's default thresholds in equity lost (normalised: a point at stake in
# money, the match equity as points of a one-point game in a match).
DOUBTFUL = 0.04
ERROR = 0.08
BLUNDER = 0.16
# A no-double counts as a decision when doubling was within this of the best (gnubg's
# "close cube decision"); one that lost equity counts whatever.
CLOSE_CUBE = 0.16
PR_SCALE = 500


class Kind(enum.StrEnum):
    CHECKER = "checker"
    CUBE = "cube"


class Mark(enum.StrEnum):
    NONE = ""
    DOUBTFUL = "doubtful"
    ERROR = "error"
    BLUNDER = "blunder"


def mark_for(loss: float) -> Mark:
    """The mark of a decision that lost ``loss`` equity."""
    if loss >= BLUNDER:
        return Mark.BLUNDER
    if loss >= ERROR:
        return Mark.ERROR
    if loss >= DOUBTFUL:
        return Mark.DOUBTFUL
    return Mark.NONE


def error_rate(loss: float, decisions: int) -> float | None:
    """PR: 500 times the equity lost per counted decision; none without a decision."""
    return PR_SCALE * loss / decisions if decisions else None


class ErrorRates:
    """A player's PRs from their counted decisions and the equity they lost, checker and
    cube apart (docs/analysis.md); the figures of one analysis and those summed over a
    session's both read them so."""

    checker_decisions: int
    cube_decisions: int
    checker_loss: float
    cube_loss: float

    @property
    def decisions(self) -> int:
        return self.checker_decisions + self.cube_decisions

    @property
    def pr(self) -> float | None:
        return error_rate(self.checker_loss + self.cube_loss, self.decisions)

    @property
    def checker_pr(self) -> float | None:
        return error_rate(self.checker_loss, self.checker_decisions)

    @property
    def cube_pr(self) -> float | None:
        return error_rate(self.cube_loss, self.cube_decisions)


@dataclass(frozen=True)
class Decision:
    """One decision of a game: ``side`` chose ``played`` where ``best`` was best.

    Equities are the decider's, cubeful, after the decision. ``counted``: the decision
    is one of the player's counted decisions (an unforced move, a close or wrong cube
    decision, any take or pass); the loss of a decision not counted is 0 anyway.
    ``holder``, in a chouette: the team member whose cube the cube decision is on (the
    box's double or answer included), or who moved for the team; None otherwise.
    """

    move_number: int
    side: int
    kind: Kind
    played: str
    best: str
    played_equity: float
    best_equity: float
    counted: bool
    holder: Holder | None = None

    @property
    def loss(self) -> float:
        return max(0.0, self.best_equity - self.played_equity)

    @property
    def mark(self) -> Mark:
        return mark_for(self.loss)


@dataclass(frozen=True)
class Figures(ErrorRates):
    """One player's figures over a list of decisions (docs/analysis.md)."""

    checker_decisions: int
    cube_decisions: int
    checker_loss: float
    cube_loss: float
    blunders: int


def figures(decisions: Sequence[Decision], side: int, holder: Holder | None = None) -> Figures:
    """``side``'s figures: its counted decisions, losses and blunders, checker and cube
    apart; with ``holder``, that team member's alone (a chouette)."""
    mine = [
        d
        for d in decisions
        if d.side == side and d.counted and (holder is None or d.holder == holder)
    ]
    checker = [d for d in mine if d.kind is Kind.CHECKER]
    cube = [d for d in mine if d.kind is Kind.CUBE]
    return Figures(
        checker_decisions=len(checker),
        cube_decisions=len(cube),
        checker_loss=sum(d.loss for d in checker),
        cube_loss=sum(d.loss for d in cube),
        blunders=sum(1 for d in mine if d.mark is Mark.BLUNDER),
    )


def decision_to_dict(decision: Decision) -> dict[str, Any]:
    """A decision as JSON, as the engine worker sends it back to the Django side."""
    return {
        "move_number": decision.move_number,
        "side": decision.side,
        "kind": decision.kind.value,
        "played": decision.played,
        "best": decision.best,
        "played_equity": decision.played_equity,
        "best_equity": decision.best_equity,
        "counted": decision.counted,
        "holder": decision.holder,
    }


def decision_from_dict(data: dict[str, Any]) -> Decision:
    """The decision ``decision_to_dict`` wrote."""
    return Decision(**{**data, "kind": Kind(data["kind"])})
