"""The tournaments app's services: entries and fees, the draw, results, payouts."""

import hashlib
import random
from decimal import Decimal

import pytest

from club import selectors as club_selectors
from club.models import Leg, MatchResult, SourceKind, Transaction
from tournaments import selectors, services
from tournaments.models import Entry, Pairing, Tournament
from web.errors import Conflict, Invalid

NAMES = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]


@pytest.fixture
def field(make_player):
    """Eight players rated from the top down: ann is the best, hal the lowest."""
    return [make_player(name, rating=1700.0 - 25 * index) for index, name in enumerate(NAMES)]


def entered(tournament, players, staff):
    for player in players:
        services.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    tournament.refresh_from_db()
    return tournament


def knockout(staff, **options):
    options = {"name": "Tuesday knockout", "format": "single_elimination", **options}
    return services.tournament_create(created_by=staff.user, **options)


def open_pairings(tournament):
    return Pairing.objects.filter(
        round__tournament=tournament, winner__isnull=True, second__isnull=False
    ).select_related("first", "second", "round")


def play_out(tournament, staff, choose=lambda pairing: pairing.first):
    while open_pairings(tournament).exists():
        for pairing in open_pairings(tournament):
            services.pairing_result_record(
                pairing=pairing, winner=choose(pairing), recorded_by=staff.user
            )
    tournament.refresh_from_db()
    return tournament


def test_create_checks_the_options(staff):
    with pytest.raises(Invalid, match="does not add up"):
        knockout(staff, payout_table={"unit": "percent", "places": {"main": {"1": "90"}}})
    with pytest.raises(Invalid, match="1 to 64 points"):
        knockout(staff, match_lengths="5, 99")
    with pytest.raises(Invalid, match="Swiss needs one round"):
        knockout(staff, format="swiss")
    assert not Tournament.objects.exists()
    tournament = knockout(staff, match_lengths="3, 5, 7")
    assert tournament.status == Tournament.Status.DRAFT
    assert [tournament.length_of_round(n) for n in (1, 2, 3, 4)] == [3, 5, 7, 7]


def test_an_entry_fee_goes_from_the_player_to_the_prize_pool(staff, field):
    tournament = knockout(staff, entry_fee=Decimal("20.00"))
    entry = services.entry_add(tournament=tournament, player=field[0], recorded_by=staff.user)
    assert entry.paid
    assert club_selectors.player_balance(player=field[0]) == Decimal("-20.00")
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("20.00")
    posted = entry.fee_transaction
    assert posted.kind == SourceKind.TOURNAMENT and posted.source == tournament
    with pytest.raises(Conflict, match="entered Tuesday knockout already"):
        services.entry_add(tournament=tournament, player=field[0], recorded_by=staff.user)
    assert Transaction.objects.count() == 1


def test_a_withdrawal_before_the_draw_refunds_the_fee(staff, field):
    tournament = knockout(staff, entry_fee=Decimal("20.00"))
    entry = services.entry_add(tournament=tournament, player=field[0], recorded_by=staff.user)
    services.entry_withdraw(entry=entry, recorded_by=staff.user)
    assert not Entry.objects.exists()
    assert club_selectors.player_balance(player=field[0]) == Decimal("0.00")
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("0.00")
    assert Transaction.objects.count() == 2  # the fee and its refund, nothing erased


def test_the_entry_fee_is_fixed_once_anyone_entered(staff, field):
    tournament = entered(knockout(staff, entry_fee=Decimal("10.00")), field[:1], staff)
    with pytest.raises(Conflict, match="entry fee cannot change"):
        services.tournament_update(tournament=tournament, entry_fee=Decimal("15.00"))
    services.tournament_update(tournament=tournament, name="Tuesday cup")
    tournament.refresh_from_db()
    assert (tournament.name, tournament.entry_fee) == ("Tuesday cup", Decimal("10.00"))


def test_the_draw_is_made_once_and_registration_closes(staff, field):
    tournament = entered(knockout(staff), field, staff)
    tournament = services.tournament_start(tournament=tournament)
    assert tournament.status == Tournament.Status.RUNNING
    first_round = tournament.rounds.get()
    # by rating: 1 v 8, 4 v 5, 2 v 7, 3 v 6
    assert [
        (p.first.player.username, p.second.player.username)
        for p in first_round.pairings.order_by("position")
    ] == [("ann", "hal"), ("dan", "eve"), ("ben", "gus"), ("cat", "fay")]
    with pytest.raises(Conflict, match="drawn already"):
        services.tournament_start(tournament=tournament)
    with pytest.raises(Conflict, match="has been drawn"):
        services.entry_add(tournament=tournament, player=field[0], recorded_by=staff.user)
    assert tournament.rounds.count() == 1


def test_a_random_draw_is_replayed_from_its_published_seed(staff, field):
    tournament = entered(knockout(staff, seeding="random"), field, staff)
    commitment = tournament.draw_commitment
    tournament = services.tournament_start(tournament=tournament)
    assert hashlib.sha256(tournament.draw_seed.encode()).hexdigest() == commitment
    entries = sorted(tournament.entries.all(), key=lambda entry: entry.pk)
    unseeded = [str(entry.pk) for entry in entries]
    random.Random(tournament.draw_seed).shuffle(unseeded)
    assert tournament.state["seed_order"] == unseeded


def test_seeding_by_hand_needs_every_seed(staff, field):
    tournament = entered(knockout(staff, seeding="manual"), field[:4], staff)
    entries = list(tournament.entries.order_by("id"))
    for seed, entry in zip((4, 3, 2), entries, strict=False):
        services.entry_seed_set(entry=entry, seed=seed)
    with pytest.raises(Invalid, match="give every entry a seed"):
        services.tournament_start(tournament=tournament)
    with pytest.raises(Conflict, match="Seed 2 is"):
        services.entry_seed_set(entry=entries[3], seed=2)
    services.entry_seed_set(entry=entries[3], seed=1)
    tournament = services.tournament_start(tournament=tournament)
    assert tournament.state["seed_order"] == [str(e.pk) for e in reversed(entries)]


def test_a_result_is_rated_and_moves_the_bracket_on(staff, field):
    tournament = services.tournament_start(
        tournament=entered(knockout(staff, match_lengths="5, 7"), field, staff)
    )
    pairings = list(open_pairings(tournament).order_by("position"))
    top = pairings[0]
    services.pairing_result_record(pairing=top, winner=top.second, recorded_by=staff.user)
    result = MatchResult.objects.get()
    assert (result.winner.username, result.loser.username, result.length) == ("hal", "ann", 5)
    assert result.rated and result.source == Pairing.objects.get(pk=top.pk)
    field[7].refresh_from_db()
    assert field[7].rating > 1525.0  # hal's upset moved his rating
    with pytest.raises(Conflict, match="has its result already"):
        services.pairing_result_record(pairing=top, winner=top.first, recorded_by=staff.user)
    other = pairings[1]
    with pytest.raises(Invalid, match="does not play in"):
        services.pairing_result_record(pairing=other, winner=top.first, recorded_by=staff.user)
    assert MatchResult.objects.count() == 1
    assert tournament.rounds.count() == 1  # the round is not complete yet
    for pairing in pairings[1:]:
        services.pairing_result_record(
            pairing=pairing, winner=pairing.first, recorded_by=staff.user
        )
    second = tournament.rounds.get(number=2)
    assert second.length == 7
    assert [str(p) for p in second.pairings.order_by("position")] == ["Hal v Dan", "Ben v Cat"]


def test_an_unrated_tournament_leaves_ratings_alone(staff, field):
    tournament = services.tournament_start(
        tournament=entered(knockout(staff, rated=False), field[:2], staff)
    )
    play_out(tournament, staff)
    assert not MatchResult.objects.get().rated
    assert {player.rating for player in field[:2]} == {1700.0, 1675.0}


def test_paying_out_an_unfinished_tournament_is_refused(staff, field):
    tournament = services.tournament_start(
        tournament=entered(knockout(staff, entry_fee=Decimal("10.00")), field[:4], staff)
    )
    with pytest.raises(Conflict, match="is not over: 2 pairings"):
        services.tournament_finish(tournament=tournament, recorded_by=staff.user)
    assert Transaction.objects.filter(kind=SourceKind.PRIZE).count() == 0


def test_payouts_are_one_balanced_transaction_to_the_cent(staff, field):
    tournament = knockout(
        staff,
        entry_fee=Decimal("12.51"),
        house_cut_percent=Decimal("10"),
        payout_table={"unit": "percent", "places": {"main": {"1": "50", "2": "30", "3-4": "20"}}},
    )
    tournament = services.tournament_start(tournament=entered(tournament, field, staff))
    tournament = play_out(tournament, staff)
    tournament = services.tournament_finish(tournament=tournament, recorded_by=staff.user)
    assert tournament.status == Tournament.Status.FINISHED
    posted = tournament.payout_transaction
    legs = list(Leg.objects.filter(transaction=posted).select_related("account__player"))
    assert sum(leg.amount for leg in legs) == 0
    # 8 x 12.51 = 100.08; the house cut 10.00 (10.008 rounded down); the pool 90.08
    by_owner = {
        (leg.account.player.display_name if leg.account.player else leg.account.kind): leg.amount
        for leg in legs
    }
    assert by_owner == {
        "prize_pool": Decimal("-100.08"),
        "fees": Decimal("10.00"),
        # 50% 45.04, 30% 27.024, 20% shared 9.008 each: rounded down they leave two
        # cents, one each to the highest places.
        "Ann": Decimal("45.05"),
        "Ben": Decimal("27.03"),
        "Cat": Decimal("9.00"),
        "Dan": Decimal("9.00"),
    }
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("0.00")
    assert club_selectors.player_balance(player=field[0]) == Decimal("32.54")
    with pytest.raises(Conflict, match="cannot be paid out"):
        services.tournament_finish(tournament=tournament, recorded_by=staff.user)
    assert Transaction.objects.filter(kind=SourceKind.PRIZE).count() == 1


def test_a_payout_table_paying_a_place_nobody_holds_is_refused(staff, field):
    table = {"unit": "percent", "places": {"main": {"1": "50", "2": "30", "3": "20"}}}
    tournament = knockout(staff, entry_fee=Decimal("5.00"), payout_table=table)
    tournament = play_out(
        services.tournament_start(tournament=entered(tournament, field[:2], staff)), staff
    )
    with pytest.raises(Invalid, match="nobody holds"):
        services.tournament_finish(tournament=tournament, recorded_by=staff.user)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("10.00")


def test_a_stale_copy_of_the_tournament_cannot_write(staff, field):
    tournament = entered(knockout(staff), field[:2], staff)
    stale = Tournament.objects.get(pk=tournament.pk)
    services.tournament_update(tournament=tournament, name="Renamed")
    stale.name = "Lost"
    with pytest.raises(Conflict, match="changed meanwhile"):
        services._save(stale, "name")
    tournament.refresh_from_db()
    assert tournament.name == "Renamed"
