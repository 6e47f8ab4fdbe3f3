"""Settle up: the fewest payments that bring every balance to zero."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from club import selectors, services
from club.models import Account
from club.parties import CLUB
from club.settle_up import EXACT_LIMIT, settle_up
from tests.factories import leg

D = Decimal


def apply(balances: dict, transfers) -> dict:
    """The balances after the payments: the payer's rises, the payee's falls."""
    after = dict(balances)
    for t in transfers:
        assert t.amount > 0
        assert t.payer != t.payee
        after[t.payer] += t.amount
        after[t.payee] -= t.amount
    return after


def fewest_by_brute_force(values: list[int]) -> int:
    """n minus the most zero-sum groups the non-zero values split into."""
    values = [v for v in values if v]

    def most_groups(items: tuple[int, ...]) -> int:
        if not items:
            return 0
        first, rest = items[0], items[1:]
        best = 0
        for mask in range(1 << len(rest)):
            chosen = [rest[i] for i in range(len(rest)) if mask >> i & 1]
            if first + sum(chosen) == 0:
                left = tuple(rest[i] for i in range(len(rest)) if not mask >> i & 1)
                best = max(best, 1 + most_groups(left))
        return best

    return len(values) - most_groups(tuple(values))


@pytest.mark.parametrize(
    ("balances", "fewest"),
    [
        ({}, 0),
        ({"a": "0.00", "b": "0.00"}, 0),
        ({"a": "-10.00", "b": "10.00"}, 1),
        ({"a": "-10.00", "b": "-5.00", "c": "15.00"}, 2),
        ({"a": "-10.00", "b": "10.00", "c": "-5.00", "d": "5.00"}, 2),
        # Largest-debtor-pays-largest-creditor alone needs 5 here; two groups of three
        # ({-5, 3, 2} twice) need 4.
        ({"a": "-5.00", "b": "-5.00", "c": "3.00", "d": "3.00", "e": "2.00", "f": "2.00"}, 4),
        ({"a": "-6.00", "b": "-4.00", "c": "3.00", "d": "3.00", "e": "2.00", "f": "2.00"}, 4),
        ({"a": "-7.00", "b": "-3.00", "c": "5.00", "d": "5.00"}, 3),
        ({"a": "-0.01", "b": "0.01", "c": "12.34", "d": "-12.34", "e": "1.00", "f": "-1.00"}, 3),
    ],
)
def test_settle_up_gives_the_fewest_payments_and_zeroes_every_balance(balances, fewest):
    balances = {k: D(v) for k, v in balances.items()}
    transfers = settle_up(balances)
    assert len(transfers) == fewest
    assert set(apply(balances, transfers).values()) <= {D("0.00")}


def test_settle_up_refuses_balances_that_do_not_sum_to_zero():
    with pytest.raises(ValueError):
        settle_up({"a": D("1.00"), "b": D("-0.99")})


@hypothesis_settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=-60, max_value=60), min_size=1, max_size=7))
def test_property_settle_up_matches_the_brute_force_minimum(values):
    values = [*values, -sum(values)]
    balances = {f"p{i}": D(v) / 4 for i, v in enumerate(values)}  # quarters: few distinct sums
    transfers = settle_up(balances)
    assert set(apply(balances, transfers).values()) <= {D("0")}
    assert len(transfers) == fewest_by_brute_force(values)


def test_beyond_the_exact_limit_every_balance_still_settles_in_at_most_n_minus_1():
    values = [v * 7 + 3 for v in range(1, EXACT_LIMIT + 6)]
    values.append(-sum(values))
    balances = {f"p{i}": D(v) / 100 for i, v in enumerate(values)}
    transfers = settle_up(balances)
    assert set(apply(balances, transfers).values()) <= {D("0")}
    assert len(transfers) <= len(values) - 1


def test_settle_up_of_the_books_lets_the_club_cash_take_up_the_rest(make_player, staff):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    services.ledger_post(
        legs=[
            leg(alice, D("30.00")),
            leg(bob, D("-20.00")),
            leg(carol, D("-15.00")),
            leg("fees", D("5.00")),
        ],
        memo="Chouette with a club fee",
    )
    transfers = selectors.settle_up_payments()
    # Players owe 35.00 and are owed 30.00: 5.00 goes to the club's cash.
    assert len(transfers) == 3
    for t in transfers:
        services.payment_record(
            payer=t.payer, payee=t.payee, amount=t.amount, recorded_by=staff.user
        )
    assert [selectors.player_balance(player=p) for p in (alice, bob, carol)] == [D("0.00")] * 3
    assert selectors.settle_up_payments() == []
    cash = services.club_account_open(kind=Account.Kind.CLUB_CASH)
    assert selectors.account_balance(account=cash) == D("-5.00")  # the club holds 5.00
    assert CLUB in {t.payee for t in transfers}
