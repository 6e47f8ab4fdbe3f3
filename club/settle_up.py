"""Settle up: the fewest payments that bring every balance to zero (no database).

Balances follow the ledger's sign: positive is owed to the holder, negative is owed by
them. A payment from a payer to a payee raises the payer's balance and lowers the payee's,
so payers are the ones with negative balances.

The fewest payments for balances that sum to zero is ``n - g``, where ``n`` counts the
non-zero balances and ``g`` is the largest number of groups they split into that each sum
to zero (a group of ``k`` settles in ``k - 1`` payments, and no fewer). Finding ``g`` is
NP-hard in general, so:

1. a balance and its exact opposite always form a group of their own (this never loses
   optimality: any partition putting them in different groups can be re-cut into one at
   least as fine);
2. up to ``EXACT_LIMIT`` remaining balances, a dynamic programme over subsets finds the
   best partition exactly (2^n steps of n);
3. beyond that (a club with more than ``EXACT_LIMIT`` open balances that no pair cancels)
   zero-sum triples are split off greedily and the rest settled as one group: at most
   ``n - 1`` payments, not guaranteed the fewest.
"""

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeAlias, TypeVar

from club.money import CENT

EXACT_LIMIT = 16

K = TypeVar("K", bound=Hashable)
Item: TypeAlias = tuple[K, int]  # a holder and their balance in cents
Group: TypeAlias = list[Item[K]]


@dataclass(frozen=True)
class Transfer(Generic[K]):
    payer: K
    payee: K
    amount: Decimal


def _to_cents(amount: Decimal) -> int:
    cents = amount / CENT
    if cents != cents.to_integral_value():
        raise ValueError(f"{amount} has more than two decimal places")
    return int(cents)


def _split_pairs(items: list[Item[K]]) -> tuple[list[Group[K]], list[Item[K]]]:
    """Pull out (x, -x) pairs; return (groups, rest)."""
    waiting: dict[int, list[int]] = {}
    groups: list[Group[K]] = []
    rest: list[Item[K] | None] = []
    for item in items:
        partners = waiting.get(-item[1])
        if partners:
            partner_index = partners.pop(0)
            partner = rest[partner_index]
            assert partner is not None  # an index in waiting points at a kept item
            rest[partner_index] = None
            groups.append([partner, item])
        else:
            waiting.setdefault(item[1], []).append(len(rest))
            rest.append(item)
    return groups, [item for item in rest if item is not None]


def _best_partition(items: list[Item[K]]) -> list[Group[K]]:
    """The partition of ``items`` (summing to zero) into the most zero-sum groups."""
    n = len(items)
    if n == 0:
        return []
    full = (1 << n) - 1
    sums = [0] * (full + 1)
    best = [0] * (full + 1)
    last = [0] * (full + 1)
    values = [value for _key, value in items]
    for mask in range(1, full + 1):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
        top, pick, rest = -1, 0, mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            score = best[mask ^ bit]
            if score > top:
                top, pick = score, bit
        best[mask] = top + (1 if sums[mask] == 0 else 0)
        last[mask] = pick
    # Replay the choices: removing ``last`` one by one lists the items in an order whose
    # zero-sum prefixes cut the groups.
    order: list[int] = []
    mask = full
    while mask:
        bit = last[mask]
        order.append(bit.bit_length() - 1)
        mask ^= bit
    order.reverse()
    groups: list[Group[K]] = []
    current: Group[K] = []
    total = 0
    for index in order:
        current.append(items[index])
        total += items[index][1]
        if total == 0:
            groups.append(current)
            current = []
    if current:  # cannot happen when the items sum to zero
        groups.append(current)
    return groups


def _split_triples(items: list[Item[K]]) -> tuple[list[Group[K]], list[Item[K]]]:
    """Greedily pull out zero-sum triples (for the large case)."""
    groups: list[Group[K]] = []
    items = list(items)
    found = True
    while found and len(items) >= 3:
        found = False
        where: dict[int, list[int]] = {}
        for index, (_key, value) in enumerate(items):
            where.setdefault(value, []).append(index)
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                need = -(items[i][1] + items[j][1])
                for k in where.get(need, []):
                    if k not in (i, j):
                        groups.append([items[i], items[j], items[k]])
                        items = [item for n, item in enumerate(items) if n not in (i, j, k)]
                        found = True
                        break
                if found:
                    break
            if found:
                break
    return groups, items


def _settle_group(group: Group[K]) -> list[Transfer[K]]:
    """``k - 1`` payments for a zero-sum group of ``k``: the biggest debtor pays the
    biggest creditor, each payment clearing at least one of them."""
    debtors = sorted(((key, -value) for key, value in group if value < 0), key=lambda d: -d[1])
    creditors = sorted(((key, value) for key, value in group if value > 0), key=lambda c: -c[1])
    owed = [value for _key, value in debtors]
    due = [value for _key, value in creditors]
    transfers = []
    d = c = 0
    while d < len(debtors) and c < len(creditors):
        amount = min(owed[d], due[c])
        transfers.append(Transfer(debtors[d][0], creditors[c][0], Decimal(amount) * CENT))
        owed[d] -= amount
        due[c] -= amount
        if owed[d] == 0:
            d += 1
        if due[c] == 0:
            c += 1
    return transfers


def settle_up(balances: Mapping[K, Decimal]) -> list[Transfer[K]]:
    """The fewest payments that bring every balance (summing to zero) to zero."""
    items = [(key, _to_cents(amount)) for key, amount in balances.items()]
    if sum(value for _key, value in items) != 0:
        raise ValueError("balances to settle must sum to zero")
    items = [item for item in items if item[1] != 0]
    groups, rest = _split_pairs(items)
    if len(rest) > EXACT_LIMIT:
        triples, rest = _split_triples(rest)
        groups += triples
    if len(rest) > EXACT_LIMIT:
        groups.append(rest)
    else:
        groups += _best_partition(rest)
    return [transfer for group in groups for transfer in _settle_group(group)]
