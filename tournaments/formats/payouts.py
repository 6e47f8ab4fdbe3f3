"""The prize pool and its payouts, to the cent.

- **Prize pool**: the entry and buy-back fees collected, less the house cut. The house
  cut is a percentage of the fees collected, rounded *down* to the cent (any fraction of
  a cent stays in the pool).
- **Payout table**: places (``1``, ``2``, ``3-4``...) of each event, each with a share:
  all percentages (summing to exactly 100), all fractions (summing to exactly 1) or all
  fixed amounts (summing to exactly the pool). A range's share is for the whole range.
  A table that does not add up, overlaps itself, or pays a place nobody finished in is
  refused.
- **Sharing**: each place of the range gets an equal part of the range's share; entries
  who finished together in a shared place (the two losing semi-finalists, 3rd-4th) split
  the parts of the places they cover evenly. So ``3-4: 20%`` and ``3: 12%, 4: 8%`` pay two
  losing semi-finalists the same, and pay a lone 3rd and a lone 4th differently only in
  the second table.
- **Rounding**: every amount is first rounded down to the cent; the cents this leaves
  over (fewer than the number of payees) go one each to the highest places first (1st,
  then 2nd...; the main event before the consolation before the last chance at the same
  place; entries sharing a place in seed order). The amounts add up to the pool exactly.
  An entry whose share rounds to nothing is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from enum import StrEnum
from fractions import Fraction
from typing import Any, TypedDict

from tournaments.formats.errors import InvalidAmount, InvalidPayoutTable
from tournaments.formats.pairings import Event
from tournaments.formats.places import FinalPlace
from tournaments.formats.standings import Place

CENT = Decimal("0.01")
_EVENT_ORDER = {event: index for index, event in enumerate(Event)}


def money(value: Decimal | int | str) -> Decimal:
    """A non-negative sum in whole cents, as a two-place ``Decimal``; refused otherwise."""
    try:
        amount = Decimal(value)
    except (InvalidOperation, TypeError, ValueError) as error:
        raise InvalidAmount(f"{value!r} is not a sum of money") from error
    if not amount.is_finite() or amount < 0 or amount != amount.quantize(CENT):
        raise InvalidAmount(f"{value!r} is not a sum in whole cents, 0 or more")
    return amount.quantize(CENT)


@dataclass(frozen=True, slots=True)
class PrizePool:
    """The fees collected, the house's cut of them and what is left to pay out."""

    collected: Decimal
    house_cut: Decimal
    pool: Decimal


def prize_pool(
    *,
    entry_fee: Decimal,
    entries: int,
    buy_back_fee: Decimal = Decimal(0),
    buy_backs: int = 0,
    house_cut_percent: Decimal = Decimal(0),
) -> PrizePool:
    """Fees in, house cut (a percentage of them, rounded down to the cent) out."""
    if entries < 0 or buy_backs < 0:
        raise InvalidAmount("the numbers of entries and buy-backs are 0 or more")
    percent = Decimal(house_cut_percent)
    if not percent.is_finite() or not 0 <= percent <= 100:
        raise InvalidAmount(f"a house cut is 0 to 100 percent, not {house_cut_percent}")
    collected = money(entry_fee) * entries + money(buy_back_fee) * buy_backs
    house_cut = (collected * percent / 100).quantize(CENT, rounding=ROUND_DOWN)
    return PrizePool(collected=collected, house_cut=house_cut, pool=collected - house_cut)


class PayoutUnit(StrEnum):
    """What the numbers of a payout table are."""

    PERCENT = "percent"
    FRACTION = "fraction"
    AMOUNT = "amount"


@dataclass(frozen=True, slots=True)
class PayoutLine:
    """A place range of one event and its share."""

    event: Event
    place: Place
    share: Decimal


class PayoutTableDict(TypedDict):
    """A payout table's JSON form: ``{"unit", "places": {event: {place: share}}}``."""

    unit: str
    places: dict[str, dict[str, str]]


@dataclass(frozen=True, slots=True)
class PayoutTable:
    """Shares for places; ``from_dict({"unit": "percent", "places": {"main": {"1":
    "50", "2": "30", "3-4": "20"}}})``."""

    unit: PayoutUnit
    lines: tuple[PayoutLine, ...]

    def __post_init__(self) -> None:
        if not self.lines:
            raise InvalidPayoutTable("a payout table pays at least one place")
        for line in self.lines:
            if not 1 <= line.place.first <= line.place.last:
                raise InvalidPayoutTable(f"{line.place} is not a place or range of places")
            if not line.share.is_finite() or line.share <= 0:
                raise InvalidPayoutTable(f"{line.event.value} {line.place}: a share is above 0")
            if self.unit is PayoutUnit.AMOUNT:
                money(line.share)
        for index, line in enumerate(self.lines):
            for other in self.lines[index + 1 :]:
                if other.event is line.event and not (
                    other.place.last < line.place.first or line.place.last < other.place.first
                ):
                    raise InvalidPayoutTable(
                        f"{line.event.value} places {line.place} and {other.place} overlap"
                    )
        total = sum((line.share for line in self.lines), Decimal(0))
        expected = {PayoutUnit.PERCENT: Decimal(100), PayoutUnit.FRACTION: Decimal(1)}
        if self.unit in expected and total != expected[self.unit]:
            raise InvalidPayoutTable(
                f"the shares add up to {total} {self.unit.value}, not {expected[self.unit]}"
            )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PayoutTable:
        """A table from ``{"unit", "places": {event: {"1": share, "3-4": share}}}``."""
        try:
            unit = PayoutUnit(data["unit"])
            lines = tuple(
                PayoutLine(Event(event), _place(label), Decimal(str(share)))
                for event, places in data["places"].items()
                for label, share in places.items()
            )
        except (KeyError, TypeError, ValueError, AttributeError, InvalidOperation) as error:
            raise InvalidPayoutTable(f"not a payout table: {data!r}") from error
        return cls(unit=unit, lines=lines)

    def to_dict(self) -> PayoutTableDict:
        places: dict[str, dict[str, str]] = {}
        for line in self.lines:
            places.setdefault(line.event.value, {})[str(line.place)] = str(line.share)
        return {"unit": self.unit.value, "places": places}

    def fraction_of_pool(self, line: PayoutLine, pool: Decimal) -> Fraction:
        """The exact part of the pool a line pays."""
        if self.unit is PayoutUnit.PERCENT:
            return Fraction(line.share) / 100
        if self.unit is PayoutUnit.FRACTION:
            return Fraction(line.share)
        return Fraction(line.share) / Fraction(pool)


def _place(label: str) -> Place:
    first, _, last = str(label).partition("-")
    return Place(int(first), int(last or first))


@dataclass(frozen=True, slots=True)
class Payout:
    """What one entry is paid for one place of one event."""

    entry: str
    event: Event
    place: Place
    amount: Decimal


def payouts(
    *, pool: Decimal, table: PayoutTable, places: Sequence[FinalPlace]
) -> tuple[Payout, ...]:
    """Split ``pool`` by ``table`` among the final ``places``; the amounts sum to ``pool``."""
    pool = money(pool)
    if table.unit is PayoutUnit.AMOUNT:
        total = money(sum((line.share for line in table.lines), Decimal(0)))
        if total != pool:
            raise InvalidPayoutTable(f"the fixed amounts add up to {total}, not the pool {pool}")
    per_place: dict[tuple[Event, int], Fraction] = {}
    for line in table.lines:
        width = line.place.last - line.place.first + 1
        for number in range(line.place.first, line.place.last + 1):
            per_place[line.event, number] = table.fraction_of_pool(line, pool) / width
    held = {(fp.event, number) for fp in places for number in _numbers(fp.place)}
    nobody = sorted(key for key in per_place if key not in held)
    if nobody:
        event, number = nobody[0]
        raise InvalidPayoutTable(f"the table pays {event.value} place {number}, which nobody holds")
    cents = int(pool / CENT)
    if not cents:
        return ()
    exact: list[tuple[FinalPlace, str, Fraction]] = []
    for fp in places:
        share = sum(
            (per_place.get((fp.event, n), Fraction(0)) for n in _numbers(fp.place)), Fraction(0)
        )
        for entry in fp.entries:
            if share:
                exact.append((fp, entry, share * cents / len(fp.entries)))
    exact.sort(key=lambda item: (item[0].place.first, _EVENT_ORDER[item[0].event]))
    paid = [int(amount) for _, _, amount in exact]
    for index in range(cents - sum(paid)):
        paid[index] += 1
    return tuple(
        Payout(entry=entry, event=fp.event, place=fp.place, amount=Decimal(amount) * CENT)
        for (fp, entry, _), amount in zip(exact, paid, strict=True)
        if amount
    )


def _numbers(place: Place) -> range:
    return range(place.first, place.last + 1)
