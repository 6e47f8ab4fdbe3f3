"""A director runs tournaments from the admin, with Django's test client: the forms, the
inlines and the buttons a person would use (no service called directly)."""

import json
import re
from decimal import Decimal

import pytest
from django.contrib.messages import get_messages

from club import selectors as club_selectors
from club.models import Leg, MatchResult, SourceKind, Transaction
from tests.tournaments.admin_forms import form_fields, payout_fields, submit
from tournaments import selectors
from tournaments.models import Entry, Pairing, Round, Tournament

ADD = "/admin/tournaments/tournament/add/"


def change_url(tournament):
    return f"/admin/tournaments/tournament/{tournament.pk}/change/"


def step(client, tournament, name):
    return client.post(f"/admin/tournaments/tournament/{tournament.pk}/step/{name}/", follow=True)


def messages_of(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


@pytest.fixture
def director(client, staff):
    client.force_login(staff.user)
    return client


def players(make_player, count):
    """``count`` players rated from the top down (p1 the best)."""
    return [make_player(f"p{n}", rating=1800.0 - 20 * n) for n in range(1, count + 1)]


def form_errors(response):
    """The errors the admin page shows, for a failing assertion's message."""
    context = response.context
    inlines = [formset.formset.errors for formset in context.get("inline_admin_formsets", [])]
    return context["adminform"].form.errors, inlines


def create(director, **options):
    """A tournament added on the admin's form (``payout_table``: the rows of this table)."""
    table = options.pop("payout_table", None)
    fields = {"name": "Club night", "format": "single_elimination", **options}
    if table is not None:
        fields |= payout_fields(json.loads(table))
    response = submit(director, ADD, "tournament_form", fields)
    assert response.status_code == 302, form_errors(response)
    return Tournament.objects.get(name=fields["name"])


def enter(director, tournament, entrants):
    """Add the entrants on the tournament's page, as new rows of the entries inline."""
    changes = {"entries-TOTAL_FORMS": str(len(entrants))}
    for index, player in enumerate(entrants):
        changes |= {
            f"entries-{index}-id": "",
            f"entries-{index}-tournament": str(tournament.pk),
            f"entries-{index}-player": str(player.pk),
            f"entries-{index}-seed": "",
        }
    response = submit(director, change_url(tournament), "tournament_form", changes)
    assert response.status_code == 302, form_errors(response)


def enter_results(director, played, choose):
    """On the round's page, choose each open pairing's winner and save."""
    url = f"/admin/tournaments/round/{played.pk}/change/"
    page = director.get(url).content.decode()
    fields = form_fields(page, "round_form")
    changes = {}
    for index in range(int(fields["pairings-TOTAL_FORMS"])):
        pairing = Pairing.objects.get(pk=fields[f"pairings-{index}-id"])
        if f"pairings-{index}-winner" in fields:
            changes[f"pairings-{index}-winner"] = str(choose(pairing).pk)
    response = director.post(url, {**fields, **changes}, follow=True)
    assert response.status_code == 200
    return response


def better_seed(tournament):
    order = Tournament.objects.get(pk=tournament.pk).state["seed_order"]
    return lambda pairing: min(pairing.entries, key=lambda entry: order.index(str(entry.pk)))


def run_every_round(director, tournament, choose):
    last = []
    while True:
        waiting = Round.objects.filter(tournament=tournament, pairings__winner__isnull=True).first()
        if waiting is None:
            return last
        last = messages_of(enter_results(director, waiting, choose))


def test_a_player_who_is_not_staff_is_refused(client, make_player, staff):
    tournament = Tournament.objects.create(name="Closed", format="swiss", swiss_rounds=1)
    client.force_login(make_player("visitor").user)
    for url in (ADD, change_url(tournament), "/admin/tournaments/round/"):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    response = client.post(f"/admin/tournaments/tournament/{tournament.pk}/step/open/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.DRAFT


def test_eight_player_knockout_with_consolation_from_the_admin_to_payouts(director, make_player):
    field = players(make_player, 8)
    table = (
        '{"unit": "percent", "places": {"main": {"1": "50", "2": "25", "3-4": "20"}, '
        '"consolation": {"1": "5"}}}'
    )
    tournament = create(
        director,
        entry_fee="10.00",
        house_cut_percent="10",
        consolation_through_round="1",
        match_lengths="3, 5, 7",
        payout_table=table,
    )
    response = step(director, tournament, "open")
    assert "Registration for Club night is open." in messages_of(response)
    enter(director, tournament, field)
    assert Entry.objects.filter(tournament=tournament).count() == 8
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("80.00")
    # Entering p1 a second time is refused on the form; nothing is posted.
    response = submit(
        director,
        change_url(tournament),
        "tournament_form",
        {
            "entries-TOTAL_FORMS": "9",
            "entries-8-id": "",
            "entries-8-tournament": str(tournament.pk),
            "entries-8-player": str(field[0].pk),
            "entries-8-seed": "",
        },
    )
    assert response.status_code == 200
    assert "duplicate values" in str(form_errors(response)), form_errors(response)
    assert Transaction.objects.filter(kind=SourceKind.TOURNAMENT).count() == 8

    response = step(director, tournament, "start")
    assert "Club night is drawn: round 1 has started." in messages_of(response)
    response = step(director, tournament, "start")
    assert "Club night has been drawn already." in messages_of(response)
    response = step(director, tournament, "finish")
    assert any("is not over: 4 pairings" in text for text in messages_of(response))

    # Round 1: the first-named player of each pairing wins; later rounds the better seed.
    first_round = Round.objects.get(tournament=tournament, number=1)
    response = enter_results(director, first_round, lambda pairing: pairing.first)
    assert "Round 1 is complete: round 2 is drawn." in messages_of(response)
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.length == 5
    assert set(second.pairings.values_list("bracket", flat=True)) == {"main", "consolation"}
    # A decided pairing's winner cannot be changed: its field is not in the form.
    decided = first_round.pairings.first()
    page = director.get(f"/admin/tournaments/round/{first_round.pk}/change/").content.decode()
    assert "pairings-0-winner" not in form_fields(page, "round_form")
    assert Pairing.objects.get(pk=decided.pk).winner == decided.first

    last = run_every_round(director, tournament, better_seed(tournament))
    assert "Every round is played: finish and pay out Club night." in last
    response = step(director, tournament, "finish")
    assert "Club night is finished and its prizes are paid out." in messages_of(response)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert MatchResult.objects.filter(rated=True).count() == 7 + 3  # main 7, consolation 3
    legs = Leg.objects.filter(transaction=tournament.payout_transaction)
    assert sum(leg.amount for leg in legs) == Decimal("0.00")
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("0.00")
    prizes = {
        line.entry.player.username if line.entry else "club": line.amount
        for line in selectors.tournament_prizes(tournament=tournament)
    }
    # 80.00 collected, 8.00 house cut, 72.00 to share. The higher seeds won from round 2:
    # p1 beat p2 in the final, p3 and p4 lost the semi-finals, p5 (the best seed among
    # the first-round losers) won the consolation.
    assert prizes == {
        "p1": Decimal("36.00"),
        "p2": Decimal("18.00"),
        "p3": Decimal("7.20"),
        "p4": Decimal("7.20"),
        "p5": Decimal("3.60"),
        "club": Decimal("8.00"),
    }
    assert club_selectors.player_balance(player=field[0]) == Decimal("26.00")
    page = director.get(change_url(tournament)).content.decode()
    assert 'class="bracket"' in page  # the draw, inside the admin
    assert "Finish and pay out" not in page  # no step is left


def six_player_swiss_the_lower_seed_winning(director, make_player, name, rounds, payouts):
    """A Swiss of six at 5.00 drawn and played from the admin, the lower seed (by rating)
    winning every match: the tournament, and the messages after the last result."""
    tournament = create(
        director,
        name=name,
        format="swiss",
        swiss_rounds=str(rounds),
        entry_fee="5.00",
        payout_table=f'{{"unit": "percent", "places": {{"main": {payouts}}}}}',
    )
    enter(director, tournament, players(make_player, 6))
    step(director, tournament, "start")
    seed_order = Tournament.objects.get(pk=tournament.pk).state["seed_order"]
    rank = {int(entry_id): index for index, entry_id in enumerate(seed_order)}
    last = run_every_round(
        director, tournament, lambda pairing: max(pairing.entries, key=lambda e: rank[e.pk])
    )
    return tournament, last


def test_six_player_swiss_from_the_admin_to_payouts(director, make_player):
    tournament, _ = six_player_swiss_the_lower_seed_winning(
        director, make_player, "Swiss night", 3, '{"1": "60", "2": "40"}'
    )
    assert Round.objects.filter(tournament=tournament).count() == 3
    met = set()
    for pairing in Pairing.objects.filter(round__tournament=tournament):
        match = frozenset((pairing.first_id, pairing.second_id))
        assert match not in met  # no rematch in three rounds of six
        met.add(match)
    tournament.refresh_from_db()
    standings = selectors.tournament_standings(tournament=tournament)
    assert len(standings) == 6
    assert [line.score for line in standings] == sorted(
        (line.score for line in standings), reverse=True
    )
    response = step(director, tournament, "finish")
    assert "Swiss night is finished and its prizes are paid out." in messages_of(response), (
        messages_of(response)
    )
    tournament.refresh_from_db()
    prizes = selectors.tournament_prizes(tournament=tournament)
    assert sum(line.amount for line in prizes) == Decimal("30.00")
    assert [line.entry for line in prizes[:2]] == [standings[0].entry, standings[1].entry]
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("0.00")


def test_a_payout_table_that_does_not_add_up_is_refused_on_the_form(director):
    response = submit(
        director,
        ADD,
        "tournament_form",
        {
            "name": "Bad table",
            "format": "round_robin",
            **payout_fields({"unit": "percent", "places": {"main": {"1": "80"}}}),
        },
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "The shares add up to 80, not 100." in page
    assert re.search(r'<td class="payout-sum">80</td>', page)  # the sum shown under the rows
    assert not Tournament.objects.exists()


def test_options_are_fixed_once_drawn(director, make_player):
    tournament = create(director, format="round_robin")
    enter(director, tournament, players(make_player, 3))
    step(director, tournament, "start")
    fields = form_fields(director.get(change_url(tournament)).content.decode(), "tournament_form")
    assert "name" not in fields and "entries-TOTAL_FORMS" in fields
    assert "entries-0-seed" not in fields


def test_a_swiss_round_no_pairing_can_make_is_told_and_finish_ends_it(director, make_player):
    # Six players, the lower seed winning every match: after three rounds the pairs not
    # yet met are two triangles, so round 4 cannot be paired without a rematch.
    tournament, last = six_player_swiss_the_lower_seed_winning(
        director, make_player, "Long Swiss", 5, '{"1": "100"}'
    )
    told = (
        "Round 4 cannot be paired: every way to pair it would make two players meet again "
        "or give a player a second bye. Finish and pay out ends Long Swiss after round 3, "
        "with its standings as the final places."
    )
    assert told in last
    assert Round.objects.filter(tournament=tournament).count() == 3
    met = [
        frozenset((p.first_id, p.second_id))
        for p in Pairing.objects.filter(round__tournament=tournament)
    ]
    assert len(met) == len(set(met)) == 9  # nothing was paired silently
    assert told in messages_of(director.get(change_url(tournament)))
    response = step(director, tournament, "finish")
    assert "Long Swiss is finished and its prizes are paid out." in messages_of(response)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.swiss_rounds == 3
    assert sum(line.amount for line in selectors.tournament_prizes(tournament=tournament)) == (
        Decimal("30.00")
    )
    assert selectors.tournament_pool_balance(tournament=tournament) == Decimal("0.00")
