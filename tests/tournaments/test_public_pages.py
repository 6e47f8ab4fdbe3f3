"""A tournament's public page as a visitor who is not logged in reads it (issue 22,
item 7): pairings named "Round 1, match 3" (the formats' keys, ``main-1-3``, never shown),
byes shown as byes, and a live region that follows its public topic."""

import re

import pytest

from tests.club.test_live_stream import parse
from tests.tournaments.test_api_and_pages import run
from tournaments import services
from tournaments.formats import Bracket
from tournaments.models import Pairing, pairing_label
from web import live

KEY = re.compile(r"\b(main|losers|grand_final|consolation|last_chance)-\d+-\d+\b")


@pytest.fixture
def five(make_player):
    """Five players in a bracket of eight: the three best seeds have a bye."""
    return [make_player(name, display_name=name.upper(), rating=1600.0 - n) for n, name in
            enumerate(["ann", "ben", "cat", "dan", "eve"])]  # fmt: skip


@pytest.fixture
def knockout(staff, five):
    tournament = services.tournament_create(
        created_by=staff.user, name="Open knockout", format="single_elimination"
    )
    tournament = run(tournament, five, staff, finish=False)
    tournament.refresh_from_db()
    return tournament


def shown_text(page):
    """What a reader sees: the page without its tags' attributes (where ``data-pairing``
    keeps the key for the page's scripts)."""
    return re.sub(r"<[^>]*>", " ", page)


def test_a_visitor_reads_rounds_and_matches_and_byes_never_keys(client, knockout):
    page = client.get(f"/tournaments/{knockout.pk}/").content.decode()
    text = shown_text(page)
    assert not KEY.search(text), KEY.search(text)
    byes = Pairing.objects.filter(round__tournament=knockout, second__isnull=True)
    assert byes.count() == 3
    for bye in byes:
        name = bye.first.player.display_name
        assert f"{name}, on a bye" in text  # the winner column: a bye, not a player "bye"
        assert bye.label in text
    assert "Round 1, match 1" in text and "Round 2, match 1" in text
    assert not re.search(r"<td[^>]*>bye</td>", page)


def test_the_big_screen_is_the_bracket_without_the_site_and_its_region_stays_big(client, knockout):
    """?screen=big, for a visitor too: no header or footer, the page marked big-screen,
    and the live region it fetches again is the big screen's (its link back)."""
    page = client.get(f"/tournaments/{knockout.pk}/").content.decode()
    assert "<header" in page and 'class="page-wide tournament-page"' in page
    assert f'href="/tournaments/{knockout.pk}/?screen=big" class="screen-switch"' in page
    big = client.get(f"/tournaments/{knockout.pk}/?screen=big").content.decode()
    assert "<header" not in big and "<footer" not in big
    assert 'class="page-wide tournament-page big-screen"' in big
    assert "svg" in big and "live_region.js" in big
    region = client.get(f"/tournaments/{knockout.pk}/?screen=big&live=region").content.decode()
    assert region.strip() in big
    assert f'href="/tournaments/{knockout.pk}/" class="screen-switch">Normal page<' in region


def test_a_side_still_to_come_is_named_by_its_match(client, staff, five):
    tournament = services.tournament_create(
        created_by=staff.user, name="Just drawn", format="single_elimination"
    )
    for player in five[:4]:
        services.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    tournament = services.tournament_start(tournament=tournament)
    text = shown_text(client.get(f"/tournaments/{tournament.pk}/").content.decode())
    # The final waits for the winners of the semi-finals.
    assert "Winner: Round 1, match 1" in text and "Winner: Round 1, match 2" in text
    assert not KEY.search(text)


def test_pairing_labels_name_the_bracket_unless_it_is_the_one_read():
    assert pairing_label("main-1-3") == "Round 1, match 3"
    assert pairing_label("consolation-2-1") == "Consolation, round 2, match 1"
    assert pairing_label("consolation-2-1", within=Bracket.CONSOLATION) == "Round 2, match 1"
    assert pairing_label("losers-4-2") == "Losers' bracket, round 4, match 2"
    assert pairing_label("grand_final-1-1") == "Grand final, round 1, match 1"
    assert pairing_label("last_chance-1-2") == "Last chance, round 1, match 2"


def test_a_visitor_follows_the_public_topic_and_nothing_else(client, api, knockout):
    """The page's live region names its topic for a visitor too; the live channel answers
    a visitor for a public topic (a version, no state) and 401 for any other."""
    topic = f"tournament:{knockout.pk}"
    page = client.get(f"/tournaments/{knockout.pk}/").content.decode()
    assert f'data-live-topic="{topic}" data-live-version="{knockout.version}"' in page
    answer = api.get("/api/live/", {"topic": topic, "wait": 0})
    assert answer.status_code == 200
    assert answer.json() == {"topic": topic, "version": knockout.version, "state": None}
    for private in ("table:1", "chouette:1", "nothing:1", ""):
        refused = api.get("/api/live/", {"topic": private, "wait": 0})
        assert refused.status_code == 401, private
        assert refused.json()["error"] == "not_authenticated"
    assert api.get("/api/live/", {"topic": "tournament:999", "wait": 0}).status_code == 404


def test_a_visitors_stream_opens_on_the_public_topic_only(api, monkeypatch, knockout):
    monkeypatch.setattr(live, "STREAM_FOR", 0.2)
    topic = f"tournament:{knockout.pk}"
    response = api.get("/api/live/stream/", {"topic": topic}, HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    chunks = iter(response.streaming_content)
    assert parse(next(chunks)) == ("retry", 2000)
    # At once, the version now: a version only, nothing the page does not show.
    body = {"topic": topic, "version": knockout.version, "state": None}
    assert parse(next(chunks)) == (knockout.version, body)
    response.close()
    refused = api.get("/api/live/stream/", {"topic": "table:1"}, HTTP_ACCEPT="text/event-stream")
    assert refused.status_code == 401 and not refused.streaming
