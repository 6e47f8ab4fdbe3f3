"""Buy-backs, driven through the admin with Django's test client: a player knocked out
before the last chance pays the buy-back fee (the action "buy back" on entries) to play
in it; the last chance waits for the director, who closes the buy-backs by starting it;
whoever did not buy back loses their last-chance pairings by walkover; the payout still
empties the prize pool."""

from decimal import Decimal

import pytest

from club.models import Account, Leg, MatchResult, SourceKind, Transaction
from matches import services as matches_services
from matches.models import Match
from tests.tournaments.admin_forms import submit
from tests.tournaments.test_admin import (
    ADD,
    better_seed,
    change_url,
    create,
    enter,
    enter_results,
    messages_of,
    players,
    run_every_round,
    step,
)
from tournaments import selectors, tasks
from tournaments.models import Entry, Pairing, Round, Tournament

TABLE = (
    '{"unit": "percent", "places": {"main": {"1": "60", "2": "30"}, "last_chance": {"1": "10"}}}'
)


@pytest.fixture
def director(client, staff):
    client.force_login(staff.user)
    return client


def buy_back(director, *entries):
    """The action "buy back" on the entries' list, for ``entries``; the messages."""
    response = director.post(
        "/admin/tournaments/entry/",
        {
            "action": "buy_back",
            "_selected_action": [str(entry.pk) for entry in entries],
            "index": "0",
            "select_across": "0",
        },
        follow=True,
    )
    assert response.status_code == 200
    return messages_of(response)


def entry_of(tournament, username):
    return Entry.objects.get(tournament=tournament, player__user__username=username)


def buy_back_postings():
    return Transaction.objects.filter(kind=SourceKind.TOURNAMENT, memo__startswith="Buy-back")


@pytest.fixture
def knocked_out(director, make_player):
    """Eight players (p1 the best seed), 10.00 to enter, 5.00 to buy back into a last
    chance after round 1; round 1 played, the better seed winning every match."""
    tournament = create(
        director,
        entry_fee="10.00",
        buy_back_fee="5.00",
        last_chance_after_round="1",
        match_lengths="3",
        payout_table=TABLE,
    )
    enter(director, tournament, players(make_player, 8))
    step(director, tournament, "start")
    first = Round.objects.get(tournament=tournament, number=1)
    response = enter_results(director, first, better_seed(tournament))
    assert (
        "Round 1 is complete: buy-backs are open until you start the last chance on "
        "Club night's page." in messages_of(response)
    )
    return tournament


def test_the_last_chance_waits_for_the_director(director, knocked_out):
    assert not Round.objects.filter(tournament=knocked_out, number=2).exists()
    page = director.get(change_url(knocked_out)).content.decode()
    assert "Close buy-backs and start the last chance" in page
    assert "Finish and pay out" not in page


def test_a_buy_back_posts_the_fee_and_marks_the_entry(director, knocked_out):
    p5 = entry_of(knocked_out, "p5")
    assert buy_back(director, p5) == ["P5 has bought back into Club night (5.00)."]
    p5.refresh_from_db()
    assert p5.bought_back
    [posting] = buy_back_postings()
    assert p5.buy_back_transaction == posting
    assert posting.source == knocked_out
    legs = {leg.account.kind: leg.amount for leg in Leg.objects.filter(transaction=posting)}
    assert legs == {Account.Kind.PLAYER: Decimal("-5.00"), Account.Kind.PRIZE_POOL: Decimal("5.00")}
    assert selectors.tournament_pool_balance(tournament=knocked_out) == Decimal("85.00")


def test_buying_back_twice_or_while_still_in_is_refused(director, knocked_out):
    p5, p1 = entry_of(knocked_out, "p5"), entry_of(knocked_out, "p1")
    buy_back(director, p5)
    assert buy_back(director, p5) == ["P5 has bought back into Club night already."]
    assert buy_back(director, p1) == [
        "P1 is not out: only a player knocked out by round 1 buys back."
    ]
    assert buy_back_postings().count() == 1
    assert not Entry.objects.get(pk=p1.pk).bought_back


def test_no_buy_back_without_a_fee_or_before_the_draw(director, make_player):
    tournament = create(director, name="Free night", last_chance_after_round="1")
    enter(director, tournament, players(make_player, 4))
    entry = Entry.objects.filter(tournament=tournament).first()
    assert buy_back(director, entry)[-1] == "Free night has no buy-back."
    paid = create(director, name="Paid night", buy_back_fee="5.00", last_chance_after_round="1")
    enter(director, paid, [entry.player])
    not_drawn = Entry.objects.get(tournament=paid)
    assert buy_back(director, not_drawn)[-1] == "Paid night is not running."
    assert not buy_back_postings().exists()


def test_a_buy_back_fee_needs_a_last_chance(director):
    response = submit(
        director,
        ADD,
        "tournament_form",
        {"name": "No last chance", "format": "single_elimination", "buy_back_fee": "5.00"},
    )
    assert response.status_code == 200
    assert (
        "A buy-back buys into the last chance: it needs a single elimination with one."
        in response.content.decode()
    )
    assert not Tournament.objects.filter(name="No last chance").exists()


def test_the_last_chance_is_for_those_who_bought_back_then_payouts(director, knocked_out):
    p5, p6, p8 = (entry_of(knocked_out, name) for name in ("p5", "p6", "p8"))
    buy_back(director, p5, p8)
    response = step(director, knocked_out, "next_round")
    assert "Club night: the next round has started, buy-backs are closed." in messages_of(response)
    # The window has closed.
    assert buy_back(director, p6) == [
        "The last chance of Club night has started: buy-backs are closed."
    ]
    second = Round.objects.get(tournament=knocked_out, number=2)
    chances = {
        pairing.key: pairing
        for pairing in second.pairings.filter(bracket="last_chance").select_related("winner")
    }
    # Seeded by the main draw: p5 v p8 (both bought back: played), p6 v p7 (neither:
    # the better seed, p6, goes through by walkover).
    played, walkover = chances["last_chance-1-1"], chances["last_chance-1-2"]
    assert {played.first_id, played.second_id} == {p5.pk, p8.pk}
    assert played.winner_id is None
    assert walkover.winner_id == p6.pk and walkover.source == Pairing.Source.WALKOVER
    assert walkover.result is None  # a walkover is no match: no result, no rating
    page = director.get(knocked_out.get_absolute_url()).content.decode()
    assert "P6 (walkover)" in page

    run_every_round(director, knocked_out, better_seed(knocked_out))
    # The last chance's final: p5 (bought back) v p6 (did not): p5 by walkover.
    final = Pairing.objects.get(round__tournament=knocked_out, key="last_chance-2-1")
    assert final.winner_id == p5.pk and final.source == Pairing.Source.WALKOVER
    response = step(director, knocked_out, "finish")
    assert "Club night is finished and its prizes are paid out." in messages_of(response)
    knocked_out.refresh_from_db()
    assert selectors.tournament_pool_balance(tournament=knocked_out) == Decimal("0.00")
    prizes = {
        line.entry.player.username: line.amount
        for line in selectors.tournament_prizes(tournament=knocked_out)
        if line.entry
    }
    # 80.00 of entries and 10.00 of buy-backs: 90.00 to share.
    assert prizes == {"p1": Decimal("54.00"), "p2": Decimal("27.00"), "p5": Decimal("9.00")}
    # Main 4 + 2 + 1 and the one last-chance match played are results; walkovers are not.
    assert MatchResult.objects.count() == 8


def test_online_a_walkover_gets_no_match_and_the_played_pairing_does(director, make_player):
    tournament = create(
        director,
        online="on",
        buy_back_fee="2.00",
        last_chance_after_round="1",
        match_lengths="1",
    )
    enter(director, tournament, players(make_player, 8))
    step(director, tournament, "start")
    for pairing in Pairing.objects.filter(round__number=1).select_related("match", "second"):
        matches_services.match_abandon(match=pairing.match, player=pairing.second.player)
    tasks.collect()
    assert not Round.objects.filter(tournament=tournament, number=2).exists()
    buy_back(director, entry_of(tournament, "p5"), entry_of(tournament, "p8"))
    step(director, tournament, "next_round")
    chances = {
        pairing.key: pairing
        for pairing in Pairing.objects.filter(round__number=2, bracket="last_chance")
    }
    assert chances["last_chance-1-1"].match.status == Match.Status.PLAYING  # p5 v p8
    assert chances["last_chance-1-2"].match is None  # p6 v p7: a walkover
    assert chances["last_chance-1-2"].winner == entry_of(tournament, "p6")
    main = Pairing.objects.filter(round__number=2, bracket="main")
    assert all(pairing.match.status == Match.Status.PLAYING for pairing in main)
