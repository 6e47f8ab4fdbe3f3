"""The demo club's chouette, and chouettes in the admin (read-only; staff close)."""

import io

import pytest
from django.core.management import call_command

from chouette import selectors
from chouette.models import Chouette, ChouetteGame
from club.models import SourceKind, Transaction

pytestmark = pytest.mark.django_db


def test_load_demo_opens_a_recorded_chouette_with_games_once(settings):
    settings.DEBUG = True
    call_command("load_demo", stdout=io.StringIO())
    call_command("load_demo", stdout=io.StringIO())
    chouette = Chouette.objects.get(mode="recorded")
    assert chouette.mode == "recorded" and chouette.status == "open"
    assert ChouetteGame.objects.count() == 4
    scores = selectors.chouette_scores(chouette=chouette)
    assert len(scores) == 5 and sum(scores.values()) == 0 and any(scores.values())


@pytest.fixture
def admin_client(client, staff):
    client.force_login(staff.user)
    return client


def test_the_admin_shows_chouettes_and_games_read_only(admin_client, open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    assert admin_client.get(f"/admin/chouette/chouette/{chouette.pk}/change/").status_code == 200
    assert admin_client.get("/admin/chouette/chouettegame/").status_code == 200
    assert admin_client.get("/admin/chouette/chouette/add/").status_code == 403
    assert admin_client.post(f"/admin/chouette/chouette/{chouette.pk}/delete/").status_code == 403


def test_staff_close_chouettes_from_the_admin(admin_client, open_chouette):
    chouette = open_chouette("alice", "bob", "carol")
    response = admin_client.post(
        "/admin/chouette/chouette/",
        {"action": "close_selected", "_selected_action": [chouette.pk]},
        follow=True,
    )
    assert "1 chouette closed." in response.content.decode()
    chouette.refresh_from_db()
    assert chouette.status == "closed"
    again = admin_client.post(
        "/admin/chouette/chouette/",
        {"action": "close_selected", "_selected_action": [chouette.pk]},
        follow=True,
    )
    assert "is closed" in again.content.decode()
    assert not Transaction.objects.filter(kind=SourceKind.CHOUETTE).exists()


def test_load_demo_opens_an_online_chouette_whose_first_game_is_on(settings, client):
    settings.DEBUG = True
    call_command("load_demo", stdout=io.StringIO())
    call_command("load_demo", stdout=io.StringIO())
    played = Chouette.objects.get(mode="online")
    assert selectors.chouette_seating(chouette=played).players == ("frank", "alice", "bob", "carol")
    game = selectors.chouette_online_game(chouette=played)
    assert game["number"] == 1 and game["phase"] == "move"
    client.login(username="alice", password="demo")
    board = client.get(f"/chouettes/{played.pk}/play/").content.decode()
    assert "You are the captain" in board and "<svg" in board
