"""GET /api/tournaments/ and /api/tournaments/{id}/ (shared/API.md), and the pages."""

from decimal import Decimal

import pytest

from tournaments import services
from tournaments.models import Pairing


def run(tournament, players, staff, *, finish=True):
    for player in players:
        services.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    tournament = services.tournament_start(tournament=tournament)
    while True:
        waiting = Pairing.objects.filter(
            round__tournament=tournament, winner__isnull=True, second__isnull=False
        ).first()
        if waiting is None:
            break
        services.pairing_result_record(pairing=waiting, winner=waiting.first, recorded_by=None)
    if finish:
        tournament = services.tournament_finish(tournament=tournament, recorded_by=staff.user)
    return tournament


@pytest.fixture
def four(make_player):
    return [make_player(name, rating=1600.0 - 10 * n) for n, name in enumerate("abcd")]


@pytest.fixture
def knockout(staff, four):
    tournament = services.tournament_create(
        created_by=staff.user,
        name="Spring knockout",
        format="single_elimination",
        entry_fee=Decimal("10.00"),
    )
    return run(tournament, four, staff)


@pytest.fixture
def swiss(staff, four):
    tournament = services.tournament_create(
        created_by=staff.user, name="Swiss evening", format="swiss", swiss_rounds=2
    )
    return run(tournament, four, staff, finish=False)


def test_the_list_is_paged_and_filtered(api, make_player, knockout, swiss):
    member = api.as_user(make_player("reader").user)
    body = member.get("/api/tournaments/").json()
    assert body["count"] == 2 and body["next"] is None
    assert body["results"][0] == {
        "id": swiss.pk,
        "name": "Swiss evening",
        "format": "swiss",
        "status": "running",
    }
    finished = member.get("/api/tournaments/?status=finished").json()["results"]
    assert [t["name"] for t in finished] == ["Spring knockout"]
    assert member.get("/api/tournaments/?format=round_robin").json()["count"] == 0
    response = member.get("/api/tournaments/?status=won")
    assert response.status_code == 400 and response.json()["error"] == "invalid"


def test_the_api_needs_a_member(api, knockout):
    response = api.get("/api/tournaments/")
    assert response.status_code == 401 and response.json()["error"] == "not_authenticated"


def test_a_tournament_with_its_rounds_and_standings(api, make_player, knockout, swiss):
    member = api.as_user(make_player("reader").user)
    body = member.get(f"/api/tournaments/{knockout.pk}/").json()
    assert [r["number"] for r in body["rounds"]] == [1, 2]
    assert body["rounds"][0]["pairings"][0] == {
        "players": ["a", "d"],
        "match": None,
        "winner": "a",
        "pairing": "main-1-1",
        "bracket": "main",
    }
    assert body["rounds"][1]["pairings"] == [
        {
            "players": ["a", "b"],
            "match": None,
            "winner": "a",
            "pairing": "main-2-1",
            "bracket": "main",
        }
    ]
    assert [(line["place"], line["player"]) for line in body["standings"]] == [
        ("1", "a"),
        ("2", "b"),
        ("3-4", "c"),
        ("3-4", "d"),
    ]
    standings = member.get(f"/api/tournaments/{swiss.pk}/").json()["standings"]
    assert standings[0] == {
        "place": "1",
        "player": "a",
        "score": 2,
        "wins": 2,
        "losses": 0,
        "byes": 0,
        "buchholz": 2,
    }
    response = member.get("/api/tournaments/999/")
    assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_the_bracket_page_draws_the_knockout_and_its_prizes(client, knockout):
    page = client.get(f"/tournaments/{knockout.pk}/").content.decode()
    assert '<svg class="bracket"' in page and 'class="scroll-x"' in page
    assert 'data-pairing="main-2-1"' in page
    assert "page-wide" in page
    assert "Prizes" in page and "28.00" in page and "12.00" in page  # 70% and 30% of 40.00
    assert knockout.draw_seed in page
    listing = client.get("/tournaments/").content.decode()
    assert "Spring knockout" in listing and f"/tournaments/{knockout.pk}/" in listing


def test_a_swiss_page_shows_the_standings(client, swiss):
    page = client.get(f"/tournaments/{swiss.pk}/").content.decode()
    assert "<svg" not in page.split("<main", 1)[1]
    assert "Buchholz" in page and "Round 2 (to 5)" in page


def test_before_the_draw_the_page_shows_the_commitment_not_the_seed(client, staff, four):
    tournament = services.tournament_create(
        created_by=staff.user, name="Next week", format="round_robin"
    )
    services.entry_add(tournament=tournament, player=four[0], recorded_by=staff.user)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert tournament.draw_commitment in page and tournament.draw_seed not in page
    assert "1 entry so far." in page
    assert client.get("/tournaments/12345/").status_code == 404


def test_the_page_follows_the_live_channel(api, client, make_player, staff, four):
    tournament = services.tournament_create(
        created_by=staff.user, name="Live night", format="round_robin"
    )
    reader = make_player("reader")
    member = api.as_user(reader.user)
    topic = f"tournament:{tournament.pk}"
    before = member.get("/api/live/", {"topic": topic}).json()["version"]
    services.entry_add(tournament=tournament, player=four[0], recorded_by=staff.user)
    answer = member.get("/api/live/", {"topic": topic, "since": before, "wait": 0}).json()
    assert answer == {"topic": topic, "version": before + 1, "state": None}
    for unknown in ("999", "x", "9" * 40):
        response = member.get("/api/live/", {"topic": f"tournament:{unknown}"})
        assert response.status_code == 404
    client.force_login(reader.user)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'data-live-topic="{topic}" data-live-version="{before + 1}"' in page
    assert "club/live_region.js" in page
    # What live_region.js fetches on a new version: the region alone, as the page has it.
    region = client.get(f"/tournaments/{tournament.pk}/?live=region").content.decode()
    assert region.startswith('<div class="tournament" data-live-region')
    assert region.strip() in page
    assert "<header" not in region and "live_region.js" not in region


def test_a_member_enters_from_the_page_while_registration_is_open(client, staff, four):
    from club import selectors as club_selectors

    tournament = services.tournament_create(
        created_by=staff.user, name="Open night", format="round_robin", entry_fee=Decimal("5.00")
    )
    client.force_login(four[0].user)
    url = f"/tournaments/{tournament.pk}/enter/"
    assert (
        "Enter (entry fee 5.00)" not in client.get(tournament.get_absolute_url()).content.decode()
    )
    response = client.post(url, follow=True)
    assert "Registration for Open night is not open." in response.content.decode()
    services.tournament_open(tournament=tournament)
    assert "Enter (entry fee 5.00)" in client.get(tournament.get_absolute_url()).content.decode()
    response = client.post(url, follow=True)
    assert "You have entered Open night." in response.content.decode()
    assert club_selectors.player_balance(player=four[0]) == Decimal("-5.00")
    response = client.post(url, follow=True)
    assert "A has entered Open night already." in response.content.decode()
    assert "Withdraw" in response.content.decode()
    response = client.post(url, {"withdraw": "1"}, follow=True)
    assert "You have withdrawn from Open night." in response.content.decode()
    assert club_selectors.player_balance(player=four[0]) == Decimal("0.00")
    assert client.get(url).status_code == 405
    client.logout()
    assert client.post(url).status_code == 302  # to the login page
    assert not tournament.entries.exists()
