"""The chouette pages: the list and opening a session, the scorekeeper's form (a game in
a few taps, undo, join, leave, close) and the table page that follows the live channel."""

from decimal import Decimal

import pytest
from django.test import Client

from chouette import selectors
from chouette.models import Chouette, ChouetteGame
from club.models import SourceKind, Transaction
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def keeper_client(client, make_player):
    keeper = make_player("keeper")
    client.login(username="keeper", password=PASSWORD)
    client.keeper = keeper
    return client


def opened(client, members, **extra):
    form = {
        "players": ["alice", "bob", "carol", "dave"],
        "order": "alice bob carol dave",
        "stake": "2.00",
        "cube": "multiple",
        "jacoby": "on",
        "box_keeps": "beats_captain",
        "partner_from": "7",
        **extra,
    }
    response = client.post("/chouettes/", form)
    assert response.status_code == 302, response.content.decode()
    return Chouette.objects.get()


def test_the_pages_need_a_login(client, members):
    assert client.get("/chouettes/").status_code == 302


def test_opening_a_chouette_from_the_list_leads_to_the_scorekeepers_form(keeper_client, members):
    chouette = opened(keeper_client, members)
    assert chouette.recorded_by == keeper_client.keeper.user
    assert selectors.chouette_seating(chouette=chouette).players == (
        "alice",
        "bob",
        "carol",
        "dave",
    )
    listed = keeper_client.get("/chouettes/").content.decode()
    assert f'href="/chouettes/{chouette.pk}/"' in listed and "Alice" in listed


def test_a_chouette_that_cannot_open_says_why_and_opens_nothing(keeper_client, members):
    response = keeper_client.post(
        "/chouettes/",
        {
            "players": ["alice", "bob"],
            "stake": "2.00",
            "cube": "single",
            "box_keeps": "beats_captain",
        },
        follow=True,
    )
    assert "at least 3 players" in response.content.decode()
    assert not Chouette.objects.exists()


def test_the_scorekeeper_records_a_game_in_a_few_taps(keeper_client, members):
    chouette = opened(keeper_client, members)
    form = keeper_client.get(f"/chouettes/{chouette.pk}/record/").content.decode()
    for name in ("bob", "carol", "dave"):
        assert f'name="outcome_{name}"' in form and f'name="stake_{name}"' in form
    response = keeper_client.post(
        f"/chouettes/{chouette.pk}/record/",
        {
            "version": "0",
            "winner": "team",
            "result": "gammon",
            "outcome_bob": "played",
            "stake_bob": "2",
            "outcome_carol": "passed",
            "stake_carol": "1",
            "outcome_dave": "played",
            "stake_dave": "1",
        },
        follow=True,
    )
    assert "The game is recorded." in response.content.decode()
    chouette.refresh_from_db()
    # bob wins a gammon at 2 (+4), carol passed (-1), dave's untouched cube a single (+1).
    assert selectors.chouette_scores(chouette=chouette) == {
        "alice": -4,
        "carol": -1,
        "dave": 1,
        "bob": 4,
    }


def test_a_stale_form_is_refused_with_a_message_and_nothing_recorded(keeper_client, members):
    chouette = opened(keeper_client, members)
    sent = {
        "version": "0",
        "winner": "box",
        "result": "single",
        **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
        **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
    }
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", sent)
    again = keeper_client.post(f"/chouettes/{chouette.pk}/record/", sent, follow=True)
    assert "changed since you looked" in again.content.decode()
    assert ChouetteGame.objects.count() == 1


def test_undo_join_leave_and_close_from_the_scorekeepers_form(keeper_client, members):
    chouette = opened(keeper_client, members)
    base = f"/chouettes/{chouette.pk}/"
    sent = {
        "winner": "box",
        "result": "single",
        **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
        **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
    }
    keeper_client.post(base + "record/", {**sent, "version": "0"})
    assert (
        "Game 1 is undone."
        in keeper_client.post(base + "undo/", {"version": "1"}, follow=True).content.decode()
    )
    keeper_client.post(base + "record/", {**sent, "version": "2"})
    joined = keeper_client.post(base + "join/", {"player": "erin", "version": "3"}, follow=True)
    assert "Erin joins at the end of the line." in joined.content.decode()
    left = keeper_client.post(base + "leave/", {"player": "bob", "version": "4"}, follow=True)
    assert "Bob leaves and settles -2.00." in left.content.decode()
    closed = keeper_client.post(base + "close/", {"version": "5"}, follow=True)
    assert "closed and settled" in closed.content.decode()
    chouette.refresh_from_db()
    assert chouette.status == "closed"
    assert Transaction.objects.filter(kind=SourceKind.CHOUETTE).count() == 2
    refused = keeper_client.post(base + "close/", {}, follow=True).content.decode()
    assert "This chouette is closed." in refused


def test_the_table_page_shows_the_seats_scores_and_games_and_follows_the_live_topic(
    keeper_client, members
):
    chouette = opened(keeper_client, members, partner_from="4")
    page = keeper_client.get(f"/chouettes/{chouette.pk}/").content.decode()
    assert f'data-live-topic="chouette:{chouette.pk}"' in page
    assert 'data-live-version="0"' in page and "chouette/live.js" in page
    assert "Box" in page and "Partner" in page and "Captain" in page
    live = keeper_client.get(f"/api/live/?topic=chouette:{chouette.pk}&since=0&wait=0").json()
    assert live == {"topic": f"chouette:{chouette.pk}", "version": 0}
    keeper_client.post(f"/chouettes/{chouette.pk}/close/", {})
    moved = keeper_client.get(f"/api/live/?topic=chouette:{chouette.pk}&since=0&wait=0").json()
    assert moved["version"] == 1
    assert keeper_client.get("/api/live/?topic=chouette:999&wait=0").status_code == 404


def test_a_players_chouettes_and_their_points(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.post(
        f"/chouettes/{chouette.pk}/record/",
        {
            "version": "0",
            "winner": "box",
            "result": "single",
            **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
            **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
        },
    )
    page = keeper_client.get("/chouettes/?player=alice").content.decode()
    assert "Chouettes of Alice" in page and '<strong class="">3</strong>' in page
    assert keeper_client.get("/chouettes/?player=nobody").status_code == 404
    assert Decimal(chouette.stake) == Decimal("2.00")


def test_the_table_page_speaks_the_members_language(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.cookies["django_language"] = "bg"
    page = keeper_client.get(f"/chouettes/{chouette.pk}/").content.decode()
    assert "Кутията" in page and "Капитан" in page and "Още няма партии." in page


def test_a_players_page_links_to_their_chouettes(keeper_client, members):
    page = keeper_client.get("/players/alice/").content.decode()
    assert 'href="/chouettes/?player=alice"' in page


def test_a_member_who_may_not_record_is_told_so_and_nothing_changes(keeper_client, members):
    chouette = opened(keeper_client, members)
    client = Client()  # another browser than the scorekeeper's
    client.login(username="erin", password=PASSWORD)
    form = client.get(f"/chouettes/{chouette.pk}/record/").content.decode()
    assert "Only the chouette's scorekeeper" in form and "record-game" not in form
    refused = client.post(f"/chouettes/{chouette.pk}/close/", {}, follow=True).content.decode()
    assert "Only the chouette&#x27;s scorekeeper" in refused
    chouette.refresh_from_db()
    assert chouette.status == "open" and chouette.version == 0
