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
