"""The FIBS rating formula, as plain arithmetic (no database).

With D = |r1 - r2| and n the match length, the probability that the underdog wins is
``P_upset = 1 / (10 ** (D * sqrt(n) / 2000) + 1)``. ``P`` is ``P_upset`` when the
favourite wins and ``1 - P_upset`` when the underdog wins (equal ratings: 0.5). The
winner gains ``4 * K * sqrt(n) * P`` and the loser loses ``4 * K * sqrt(n) * P``, each with
their own ``K = max(1, 5 - experience / 100)`` taken from their experience before the
match; then each player's experience grows by n. Full float precision throughout: the
same function, applied in the same order, gives bit-identical numbers, which is what
lets ``ratings_rebuild`` reproduce the incremental ratings exactly.
"""

import math
from dataclasses import dataclass

START_RATING = 1500.0
START_EXPERIENCE = 0


def k_factor(experience: int) -> float:
    """A player's K: 5 for a newcomer, falling by 1 per 100 points of experience to 1."""
    return max(1.0, 5.0 - experience / 100)


def upset_probability(difference: float, length: int) -> float:
    """The probability that the lower-rated player wins a match of ``length`` points."""
    return 1.0 / (math.pow(10.0, abs(difference) * math.sqrt(length) / 2000.0) + 1.0)


def win_probability_used(*, winner_rating: float, loser_rating: float, length: int) -> float:
    """The ``P`` of the formula: ``P_upset`` if the favourite won, else ``1 - P_upset``."""
    upset = upset_probability(winner_rating - loser_rating, length)
    return upset if winner_rating >= loser_rating else 1.0 - upset


@dataclass(frozen=True)
class RatingUpdate:
    """The change one rated result makes to its two players."""

    winner_k: float
    loser_k: float
    winner_change: float  # > 0
    loser_change: float  # < 0
    winner_rating: float  # after the match
    loser_rating: float
    winner_experience: int
    loser_experience: int


def rate_match(
    *,
    winner_rating: float,
    winner_experience: int,
    loser_rating: float,
    loser_experience: int,
    length: int,
) -> RatingUpdate:
    """The FIBS update for a rated match of ``length`` points (a loss on time or by
    abandonment is just a loss)."""
    if length < 1:
        raise ValueError("a rated match has a length of at least 1 point")
    p = win_probability_used(winner_rating=winner_rating, loser_rating=loser_rating, length=length)
    root = math.sqrt(length)
    winner_k = k_factor(winner_experience)
    loser_k = k_factor(loser_experience)
    winner_change = 4.0 * winner_k * root * p
    loser_change = -(4.0 * loser_k * root * p)
    return RatingUpdate(
        winner_k=winner_k,
        loser_k=loser_k,
        winner_change=winner_change,
        loser_change=loser_change,
        winner_rating=winner_rating + winner_change,
        loser_rating=loser_rating + loser_change,
        winner_experience=winner_experience + length,
        loser_experience=loser_experience + length,
    )
