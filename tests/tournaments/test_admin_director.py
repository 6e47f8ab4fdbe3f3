"""The tournament admin as a director lives it (issue 22, item 7), with a real staff user
through Django's test client: the entries added in the same save as the tournament, the
payout table as rows with their sum, ratings rounded, every round one click away."""

import re
from decimal import Decimal

import pytest

from club import selectors as club_selectors
from tests.tournaments.admin_forms import form_fields, payout_fields, submit
from tests.tournaments.test_admin import ADD, change_url, form_errors, step
from tournaments.models import Entry, Round, Tournament


@pytest.fixture
def director(client, staff):
    client.force_login(staff.user)
    return client


def entry_rows(players):
    """The new tournament's entries, as rows of the entries inline on the add page."""
    fields = {"entries-TOTAL_FORMS": str(len(players))}
    for index, player in enumerate(players):
        fields |= {
            f"entries-{index}-id": "",
            f"entries-{index}-player": str(player.pk),
            f"entries-{index}-seed": "",
        }
    return fields


def test_a_tournament_and_its_entries_are_added_in_one_save(director, make_player):
    field = [make_player(f"p{n}", rating=1700.0 - n) for n in range(1, 5)]
    page = director.get(ADD).content.decode()
    assert "entries-TOTAL_FORMS" in form_fields(page, "tournament_form")  # the inline is there
    response = submit(
        director,
        ADD,
        "tournament_form",
        {
            "name": "Friday knockout",
            "format": "single_elimination",
            "entry_fee": "5.00",
            **payout_fields({"unit": "percent", "places": {"main": {"1": "100"}}}),
            **entry_rows(field),
        },
    )
    assert response.status_code == 302, form_errors(response)
    tournament = Tournament.objects.get(name="Friday knockout")
    entered = Entry.objects.filter(tournament=tournament)
    assert sorted(entry.player_id for entry in entered) == sorted(p.pk for p in field)
    assert all(entry.paid for entry in entered)  # each fee posted by the services
    for player in field:
        assert club_selectors.player_balance(player=player) == Decimal("-5.00")
    assert tournament.payout_table == {"unit": "percent", "places": {"main": {"1": "100"}}}


def test_an_add_refused_on_its_payout_rows_enters_nobody(director, make_player):
    field = [make_player(f"p{n}") for n in range(1, 3)]
    response = submit(
        director,
        ADD,
        "tournament_form",
        {
            "name": "Refused",
            "format": "round_robin",
            **payout_fields({"unit": "percent", "places": {"main": {"1": "60", "2": "30"}}}),
            **entry_rows(field),
        },
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "The shares add up to 90, not 100." in page
    assert '<td class="payout-sum">90</td>' in page  # the rows as typed, and their sum
    assert 'name="payout_table-1-share" value="30"' in page
    assert not Tournament.objects.exists() and not Entry.objects.exists()


@pytest.mark.parametrize(
    ("rows", "error"),
    [
        ({"unit": "fraction", "places": {"main": {"1": "0.5"}}}, "add up to 0.5, not 1."),
        ({"unit": "percent", "places": {"main": {"x": "100"}}}, "x is not a place"),
        ({"unit": "percent", "places": {"main": {"4-3": "100"}}}, "4-3 is not a place"),
        ({"unit": "percent", "places": {"main": {"1": "-10", "2": "110"}}}, "a share is a number"),
        ({"unit": "percent", "places": {}}, "pays at least one place"),
        (
            {"unit": "percent", "places": {"main": {"1-2": "50", "2": "50"}}},
            "does not add up: main places 1-2 and 2 overlap",
        ),
    ],
)
def test_payout_rows_that_cannot_be_paid_are_refused(director, rows, error):
    response = submit(
        director,
        ADD,
        "tournament_form",
        {"name": "Bad rows", "format": "round_robin", **payout_fields(rows)},
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Tournament.objects.exists()


def test_payout_rows_for_several_events_are_stored_as_the_table(director):
    table = {
        "unit": "percent",
        "places": {"main": {"1": "50", "2": "25", "3-4": "20"}, "consolation": {"1": "5"}},
    }
    response = submit(
        director,
        ADD,
        "tournament_form",
        {
            "name": "Cup",
            "format": "single_elimination",
            "consolation_through_round": "1",
            **payout_fields(table),
        },
    )
    assert response.status_code == 302, form_errors(response)
    tournament = Tournament.objects.get(name="Cup")
    assert tournament.payout_table == table
    # Its page shows the rows back with their sum, and blank rows to add more.
    page = director.get(change_url(tournament)).content.decode()
    fields = form_fields(page, "tournament_form")
    assert [fields[f"payout_table-{n}-place"] for n in range(5)] == ["1", "2", "3-4", "1", ""]
    assert fields["payout_table-3-event"] == "consolation"
    assert '<td class="payout-sum">100</td>' in page
    assert '"unit"' not in page  # no JSON shown to the director


def test_ratings_are_rounded_and_every_round_is_a_link(director, make_player):
    field = [make_player(f"p{n}", rating=1641.4714935106142 - n) for n in range(4)]
    response = submit(
        director,
        ADD,
        "tournament_form",
        {"name": "Rated night", "format": "single_elimination", **entry_rows(field)},
    )
    assert response.status_code == 302, form_errors(response)
    tournament = Tournament.objects.get(name="Rated night")
    step(director, tournament, "start")
    page = director.get(change_url(tournament)).content.decode()
    assert "1641.5" in page and "1641.47" not in page
    entry = Entry.objects.get(tournament=tournament, player=field[0])
    for url in ("/admin/tournaments/entry/", f"/admin/tournaments/entry/{entry.pk}/change/"):
        shown = director.get(url).content.decode()
        assert "1641.5" in shown and "1641.47" not in shown, url
    # The drawn payout table is shown as rows, not as the form's inputs.
    assert 'name="payout_table-unit"' not in page
    assert re.search(r'<table class="payout-shown">.*<td>70</td>.*<td>30</td>', page, re.S)

    first = Round.objects.get(tournament=tournament, number=1)
    link = f'<a href="/admin/tournaments/round/{first.pk}/change/">Round 1</a>'
    assert link in page  # the rounds inline: the round's name is its link
    listing = director.get("/admin/tournaments/tournament/").content.decode()
    assert link in listing  # and from the list of tournaments
    # The round's page and the pairings' list name each pairing, never by its key.
    for url in (
        f"/admin/tournaments/round/{first.pk}/change/",
        f"/admin/tournaments/pairing/?round__tournament__id__exact={tournament.pk}",
    ):
        shown = re.sub(r"<[^>]*>", " ", director.get(url).content.decode())
        assert "Round 1, match 1" in shown and "Round 1, match 2" in shown, url
        assert not re.search(r"\bmain-\d+-\d+\b", shown), url
