"""A match of the tavli games exported as the project's own text record (docs/tavli.md,
"Match record"): ``GET /api/matches/{id}/export.txt``, played through the HTTP API to
the end, parsed back and replayed through the core to the same final score."""

import pytest

from backgammon.tavli.record import import_match_record
from tests.matches.api_helpers import client_for, ok, path, start_match
from tests.matches.conftest import act, on_turn, start
from tests.matches.test_api_tavli import play_to_the_end

pytestmark = pytest.mark.django_db


def record_of(client, match_id):
    response = client.get(f"/api/matches/{match_id}/export.txt")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == (f'attachment; filename="match-{match_id}-tavli.txt"')
    return response.content.decode()


@pytest.mark.parametrize("order", ["greek", "bulgarian"])
def test_tm1_the_record_of_a_tavli_match_played_to_the_end_replays_to_its_score(alice, bob, order):
    clients, match = start_match(alice, bob, length=3, tavli=order, rated=False)
    match, games = play_to_the_end(clients, match)
    text = record_of(clients["bob"], match["id"])
    assert f'; [Order "{order}"]' in text and '; [Length "3"]' in text
    replayed = import_match_record(text)
    first, second = match["players"]
    assert replayed.players == (first, second)
    assert replayed.state.score == (match["score"][first], match["score"][second])
    assert replayed.state.winner == match["players"].index(match["winner"])
    assert [game.options.variant.name for game in replayed.games] == list(games.values())


def test_tm4_the_record_of_one_tavli_game_played_as_a_match(alice, bob):
    clients, match = start_match(alice, bob, length=1, rated=False, options={"variant": "fevga"})
    match, _games = play_to_the_end(clients, match)
    replayed = import_match_record(record_of(clients["alice"], match["id"]))
    assert replayed.state.winner == match["players"].index(match["winner"])
    assert replayed.games[0].options.variant.name == "fevga"


def test_tm1_a_match_in_play_exports_the_games_so_far(alice, bob):
    clients, match = start_match(alice, bob, length=3, tavli="greek", rated=False)
    text = record_of(clients["alice"], match["id"])
    replayed = import_match_record(text)
    assert replayed.state.score == (0, 0) and not replayed.games[0].over
    assert '; [Scores ""]' in text


def test_a_backgammon_match_has_no_tavli_record_but_its_mat(alice, bob):
    clients, match = start_match(alice, bob, length=3)
    refused = clients["alice"].get(f"/api/matches/{match['id']}/export.txt")
    assert refused.status_code == 409
    assert set(refused.json()) >= {"error", "detail"} and "export.mat" in refused.json()["detail"]
    assert clients["alice"].get(path(match["id"], "export.mat")).status_code == 200


def test_the_mat_export_of_a_tavli_match_points_to_its_record(alice, bob):
    clients, match = start_match(alice, bob, length=3, tavli="greek", rated=False)
    refused = clients["alice"].get(path(match["id"], "export.mat"))
    assert refused.status_code == 409 and "export.txt" in refused.json()["detail"]


def test_an_unknown_match_has_no_record(alice):
    response = client_for(alice.user).get("/api/matches/999999/export.txt")
    assert response.status_code == 404
    assert set(response.json()) >= {"error", "detail"}


def test_the_board_page_of_a_tavli_match_links_its_record(logged_in, alice, bob):
    match = start(alice, bob, tavli="greek", rated=False)
    match = act(match, on_turn(match, alice, bob), "roll")
    page = logged_in(alice).get(f"/play/{match.pk}/").content.decode()
    assert f'href="/api/matches/{match.pk}/export.txt" download' in page
    assert "tavli record (.txt" in page and "export.mat" not in page
    backgammon = start(alice, bob)
    page = logged_in(alice).get(f"/play/{backgammon.pk}/").content.decode()
    assert "export.mat" in page and "export.txt" not in page
    assert ok(client_for(alice.user).get(path(match.pk)))["tavli"] == "greek"
