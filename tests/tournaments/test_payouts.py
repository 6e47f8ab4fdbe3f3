"""The prize pool and payouts: exact to the cent, shared places split evenly, tables that
do not add up refused."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tournaments.play import drawn, play_out, random_winner
from tournaments.formats import (
    DoubleElimination,
    Event,
    FinalPlace,
    InvalidAmount,
    InvalidPayoutTable,
    PayoutTable,
    Place,
    SingleElimination,
    money,
    payouts,
    prize_pool,
)

D = Decimal


def _places(*groups: tuple[str, ...], event: Event = Event.MAIN) -> list[FinalPlace]:
    places, first = [], 1
    for entries in groups:
        places.append(FinalPlace(event, Place(first, first + len(entries) - 1), entries))
        first += len(entries)
    return places


def _percent(shares: dict[str, str]) -> PayoutTable:
    return PayoutTable.from_dict({"unit": "percent", "places": {"main": shares}})


def _paid(pool: str, table: PayoutTable, places: list[FinalPlace]) -> dict[str, str]:
    return {p.entry: str(p.amount) for p in payouts(pool=D(pool), table=table, places=places)}


def test_prize_pool_takes_the_house_cut_from_the_fees_rounded_down() -> None:
    pool = prize_pool(
        entry_fee=D("20.00"),
        entries=13,
        buy_back_fee=D("10.00"),
        buy_backs=3,
        house_cut_percent=D("10"),
    )
    assert (pool.collected, pool.house_cut, pool.pool) == (D("290.00"), D("29.00"), D("261.00"))
    odd = prize_pool(entry_fee=D("3.33"), entries=7, house_cut_percent=D("12.5"))
    # 23.31 collected; 12.5% of it is 2.91375, cut to 2.91; the 0.375 cent stays in the pool.
    assert (odd.collected, odd.house_cut, odd.pool) == (D("23.31"), D("2.91"), D("20.40"))


def test_money_is_whole_cents_and_never_negative() -> None:
    assert money("12.5") == D("12.50")
    for bad in ["10.005", "-1", "abc", "NaN", "Infinity"]:
        with pytest.raises(InvalidAmount):
            money(bad)
    with pytest.raises(InvalidAmount):
        prize_pool(entry_fee=D("5"), entries=4, house_cut_percent=D("101"))
    with pytest.raises(InvalidAmount):
        prize_pool(entry_fee=D("5"), entries=-1)


def test_payouts_by_percent_with_a_shared_place() -> None:
    table = _percent({"1": "50", "2": "30", "3-4": "20"})
    places = _places(("a",), ("b",), ("c", "d"), ("e", "f", "g", "h"))
    assert _paid("100.00", table, places) == {
        "a": "50.00",
        "b": "30.00",
        "c": "10.00",
        "d": "10.00",
    }


def test_left_over_cents_go_to_the_highest_places() -> None:
    table = _percent({"1": "50", "2": "30", "3-4": "20"})
    places = _places(("a",), ("b",), ("c", "d"))
    # Exactly 50.005, 30.003, 10.001 and 10.001: rounded down that is 100.00, and the one
    # cent left goes to 1st.
    assert _paid("100.01", table, places) == {
        "a": "50.01",
        "b": "30.00",
        "c": "10.00",
        "d": "10.00",
    }
    three_way = _places(("x", "y", "z"))
    assert _paid("10.00", _percent({"1-3": "100"}), three_way) == {
        "x": "3.34",
        "y": "3.33",
        "z": "3.33",
    }


def test_a_range_is_split_by_places_and_shared_places_pool_their_parts() -> None:
    by_place = _percent({"1": "50", "2": "30", "3": "12", "4": "8"})
    by_range = _percent({"1": "50", "2": "30", "3-4": "20"})
    semi_finalists = _places(("a",), ("b",), ("c", "d"))
    lone_places = _places(("a",), ("b",), ("c",), ("d",))
    assert _paid("100.00", by_place, semi_finalists)["c"] == "10.00"
    assert _paid("100.00", by_range, lone_places)["d"] == "10.00"
    assert _paid("100.00", by_place, lone_places) == {
        "a": "50.00",
        "b": "30.00",
        "c": "12.00",
        "d": "8.00",
    }


def test_payouts_across_events_from_a_played_tournament() -> None:
    tournament = play_out(
        drawn(SingleElimination(consolation_through_round=1), 8), random_winner(random.Random(6))
    )
    table = PayoutTable.from_dict(
        {
            "unit": "fraction",
            "places": {"main": {"1": "0.5", "2": "0.25"}, "consolation": {"1": "0.25"}},
        }
    )
    paid = payouts(pool=D("160.00"), table=table, places=tournament.final_places())
    places = tournament.final_places()
    winners = {(fp.event, fp.place.first): fp.entries[0] for fp in places if fp.place.first <= 2}
    assert [(p.entry, p.event, p.amount) for p in paid] == [
        (winners[Event.MAIN, 1], Event.MAIN, D("80.00")),
        (winners[Event.CONSOLATION, 1], Event.CONSOLATION, D("40.00")),
        (winners[Event.MAIN, 2], Event.MAIN, D("40.00")),
    ]


def test_fixed_amounts_must_add_up_to_the_pool() -> None:
    table = PayoutTable.from_dict({"unit": "amount", "places": {"main": {"1": "60", "2": "40"}}})
    places = _places(("a",), ("b",), ("c",))
    assert _paid("100.00", table, places) == {"a": "60.00", "b": "40.00"}
    with pytest.raises(InvalidPayoutTable, match=r"100.00, not the pool 120.00"):
        payouts(pool=D("120.00"), table=table, places=places)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"unit": "percent", "places": {"main": {"1": "60", "2": "30"}}}, "90 percent, not 100"),
        ({"unit": "fraction", "places": {"main": {"1": "0.6", "2": "0.5"}}}, "not 1"),
        ({"unit": "percent", "places": {"main": {"1-2": "60", "2": "40"}}}, "overlap"),
        ({"unit": "percent", "places": {"main": {"1": "110", "2": "-10"}}}, "above 0"),
        ({"unit": "percent", "places": {"main": {"2-1": "100"}}}, "not a place"),
        ({"unit": "percent", "places": {"main": {"first": "100"}}}, "not a payout table"),
        ({"unit": "percent", "places": {"side pool": {"1": "100"}}}, "not a payout table"),
        ({"unit": "share", "places": {"main": {"1": "100"}}}, "not a payout table"),
        ({"unit": "amount", "places": {"main": {"1": "10.001"}}}, "whole cents"),
        ({"unit": "percent", "places": {}}, "at least one place"),
    ],
)
def test_tables_that_do_not_add_up_are_refused(data: dict, message: str) -> None:
    with pytest.raises((InvalidPayoutTable, InvalidAmount), match=message):
        PayoutTable.from_dict(data)


def test_a_table_paying_a_place_nobody_holds_is_refused() -> None:
    tournament = play_out(drawn(DoubleElimination(), 3), random_winner(random.Random(1)))
    four_places = _percent({"1": "40", "2": "30", "3": "20", "4": "10"})
    with pytest.raises(InvalidPayoutTable, match="main place 4, which nobody holds"):
        payouts(pool=D("90.00"), table=four_places, places=tournament.final_places())
    consolation = PayoutTable.from_dict(
        {"unit": "percent", "places": {"main": {"1": "80"}, "consolation": {"1": "20"}}}
    )
    with pytest.raises(InvalidPayoutTable, match="consolation place 1"):
        payouts(pool=D("90.00"), table=consolation, places=tournament.final_places())


def test_a_table_round_trips_through_its_dict() -> None:
    data = {"unit": "percent", "places": {"main": {"1": "50", "2": "30", "3-4": "20"}}}
    assert PayoutTable.from_dict(data).to_dict() == data


@st.composite
def _tables_and_places(draw: st.DrawFn) -> tuple[PayoutTable, list[FinalPlace]]:
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=8))
    places = _places(*(tuple(f"g{g}e{n}" for n in range(size)) for g, size in enumerate(sizes)))
    held = places[-1].place.last
    cuts = sorted(set(draw(st.lists(st.integers(1, held), max_size=held))) | {held})
    ranges, first = [], 1
    for last in cuts:
        ranges.append(Place(first, last))
        first = last + 1
    paid_ranges = draw(st.lists(st.sampled_from(ranges), min_size=1, unique=True))
    unit = draw(st.sampled_from(["percent", "fraction"]))
    whole = 100 if unit == "percent" else 1
    weights = [draw(st.integers(1, 1000)) for _ in paid_ranges]
    shares = [D(whole * w) / sum(weights) for w in weights]
    shares = [share.quantize(D("0.0001")) for share in shares[:-1]]
    shares.append(D(whole) - sum(shares, D(0)))
    if shares[-1] <= 0:
        shares = [D(whole)] + [D(0)] * (len(paid_ranges) - 1)
        paid_ranges = paid_ranges[:1]
        shares = shares[:1]
    table = PayoutTable.from_dict(
        {
            "unit": unit,
            "places": {"main": {str(r): str(s) for r, s in zip(paid_ranges, shares, strict=True)}},
        }
    )
    return table, places


@settings(max_examples=300, deadline=None)
@given(table_and_places=_tables_and_places(), cents=st.integers(0, 10**8))
def test_payouts_always_sum_to_the_pool(
    table_and_places: tuple[PayoutTable, list[FinalPlace]], cents: int
) -> None:
    table, places = table_and_places
    pool = D(cents) / 100
    paid = payouts(pool=pool, table=table, places=places)
    assert sum((p.amount for p in paid), D(0)) == pool
    assert all(p.amount > 0 and p.amount == p.amount.quantize(D("0.01")) for p in paid)
    by_place: dict[Place, list[Decimal]] = {}
    for p in paid:
        by_place.setdefault(p.place, []).append(p.amount)
    for amounts in by_place.values():
        assert max(amounts) - min(amounts) <= D("0.01")


@settings(max_examples=200, deadline=None)
@given(amounts=st.lists(st.integers(1, 10**6), min_size=1, max_size=6))
def test_fixed_amounts_are_paid_as_given(amounts: list[int]) -> None:
    places = _places(*((f"e{n}",) for n in range(len(amounts))))
    table = PayoutTable.from_dict(
        {
            "unit": "amount",
            "places": {"main": {str(n + 1): str(D(a) / 100) for n, a in enumerate(amounts)}},
        }
    )
    pool = D(sum(amounts)) / 100
    paid = payouts(pool=pool, table=table, places=places)
    assert [p.amount for p in paid] == [D(a) / 100 for a in amounts]
