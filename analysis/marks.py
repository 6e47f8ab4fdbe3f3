"""What a decision's loss is called, and the limits of the counting: the values the
engine's side (``analysis.engine``) judges with and the models store, in a module of
their own that loads neither the engine nor Django (docs/analysis.md)."""

import enum

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
