"""Money as the club's books hold it: decimal amounts with two places, and their limits.

Plain values, no database: the models, the services, the API and the settle-up arithmetic
all take them from here.
"""

from decimal import Decimal

PLACES = 2
CENT = Decimal("0.01")
# A leg holds up to 14 digits, 2 of them after the point.
LEG_DIGITS = 14
MAX_LEG_AMOUNT = Decimal("999999999999.99")
# The most one payment moves: a bigger amount is a typo (a few zeros too many), not cash
# changing hands at a club.
MAX_PAYMENT = Decimal("100000.00")


def amount_pattern(*, most: Decimal) -> str:
    """The text of an amount from 0.01 to ``most`` (a power of ten), with at most two
    places and no leading zeros: "0.50", "12", "12.5", "100000.00". A regular expression
    that Python and JSON Schema read alike, so the API's schema can say it exactly."""
    digits = len(str(int(most))) - 1
    if most != 10**digits:
        raise ValueError(f"{most} is not a power of ten")
    cents = r"0\.(0[1-9]|[1-9][0-9]?)"
    below = rf"[1-9][0-9]{{0,{digits - 1}}}(\.[0-9]{{1,2}})?"
    top = rf"{int(most)}(\.0{{1,2}})?"
    return rf"^({cents}|{below}|{top})$"
