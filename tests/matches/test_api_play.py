"""A match through the HTTP API from the invitation to the end (shared/API.md "Matches"):
the score, the Crawford game (P2), the rating change, the .mat download, the dice revealed
after the end, and the server seed nowhere before it."""

import logging

import pytest
from django.test import Client
from django.urls import reverse

from backgammon.dice import verify
from backgammon.matfile import import_mat
from matches.models import Match
from tests.matches.api_helpers import act, client_for, ok, path, start_match, step

pytestmark = pytest.mark.django_db


def test_an_invitation_is_accepted_and_the_opening_roll_starts_the_game(alice, bob):
    clients = {"alice": client_for(alice.user), "bob": client_for(bob.user)}
    created = ok(
        clients["alice"].post(
            "/api/matches/", {"opponent": "bob", "length": 5, "rated": True}, format="json"
        ),
        201,
    )
    assert created["status"] == "invited"
    assert created["players"] == ["alice", "bob"]
    assert created["score"] == {"alice": 0, "bob": 0}
    assert created["game"] is None
    assert len(created["dice_commitment"]) == 64
    match = ok(clients["bob"].post(path(created["id"], "accept"), format="json"))
    assert match["status"] == "playing"
    game = match["game"]
    # O1: the opening roll's higher die moves first, playing both dice shown.
    assert game["number"] == 1
    assert game["phase"] == "move"
    assert game["turn"] in ("alice", "bob")
    assert game["dice"][0] != game["dice"][1]
    assert game["legal_plays"]
    assert game["cube"] == {"value": 1, "owner": None}
    assert match["pip_counts"] == {"alice": 167, "bob": 167}
    assert match["topic"] == f"table:{Match.objects.get(pk=match['id']).table_id}"
    assert match["dice_commitment"] == created["dice_commitment"]


def test_a_declined_invitation_is_over(alice, bob):
    created = ok(
        client_for(alice.user).post(
            "/api/matches/", {"opponent": "bob", "length": 3}, format="json"
        ),
        201,
    )
    declined = ok(client_for(bob.user).post(path(created["id"], "decline"), format="json"))
    assert declined["status"] == "declined"
    again = client_for(bob.user).post(path(created["id"], "accept"), format="json")
    assert again.status_code in (400, 409)
    assert set(again.json()) >= {"error", "detail"}


def pages_of(match_id: int, browser: Client, staff: Client) -> list[bytes]:
    """What the site shows of a match: the lobby, the board page and its fragment as a
    player sees them, the admin's pages of the match, its table and its log as staff."""
    match = Match.objects.get(pk=match_id)
    shown = [
        browser.get("/play/"),
        browser.get(f"/play/{match_id}/"),
        browser.get(f"/play/{match_id}/table/"),
        staff.get(reverse("admin:matches_match_change", args=[match_id])),
        staff.get(reverse("admin:matches_table_change", args=[match.table_id])),
        staff.get(
            reverse("admin:matches_action_changelist") + f"?table__id__exact={match.table_id}"
        ),
    ]
    for page in shown:
        assert page.status_code == 200, page
    return [page.content for page in shown]


def test_p2_a_match_to_3_played_to_the_end_through_the_api(alice, bob, staff, caplog):
    """Non-Crawford games end at once (double, pass); the Crawford game is played out.
    Every answer, page and log record is kept to check that the server seed appears in
    none of them before the match is over."""
    caplog.set_level(logging.DEBUG)
    clients, match = start_match(alice, bob, rated=True)
    browser, admin = Client(), Client()
    browser.force_login(alice.user)
    admin.force_login(staff.user)
    bodies: list[bytes] = pages_of(match["id"], browser, admin)
    games_seen: dict[int, bool] = {}
    score_before: dict[int, dict[str, int]] = {}
    while match["status"] == "playing":
        game = match["game"]
        games_seen.setdefault(game["number"], match["crawford"])
        score_before.setdefault(game["number"], dict(match["score"]))
        if match["crawford"] and game["phase"] == "roll":
            # P2: no doubling in the Crawford game.
            refused = act(clients[game["turn"]], match, "double")
            bodies.append(refused.content)
            assert refused.status_code == 400, refused.json()
            assert refused.json()["error"] == "illegal_play"
        response = step(clients, match, double=True)
        bodies.append(response.content)
        match = ok(response)
        if match["status"] != "playing":
            break
        # What a watcher (staff) and a player may read meanwhile.
        bodies.append(client_for(staff.user).get(path(match["id"])).content)
        bodies.append(clients["alice"].get(path(match["id"], "dice")).content)
        bodies.append(clients["alice"].get(path(match["id"], "export.mat")).content)
        if match["game"]["turn_no"] % 20 == 0:
            bodies += pages_of(match["id"], browser, admin)
    # The end: one player reached 3, the other did not.
    assert match["status"] == "finished"
    assert match["ended_by"] == "played"
    winner = match["winner"]
    loser = "bob" if winner == "alice" else "alice"
    assert match["score"][winner] >= 3 > match["score"][loser]
    # P2: the game after a player first reached 2 (N - 1) was the Crawford game, and only it.
    crawford_games = [number for number, crawford in games_seen.items() if crawford]
    first_at_2 = next(
        number for number, score in sorted(score_before.items()) if max(score.values()) == 2
    )
    assert crawford_games == [first_at_2]
    # The rating change was recorded (FIBS: the winner gains what the loser loses).
    ratings = {
        name: ok(clients[name].get(f"/api/players/{name}/ratings/")) for name in ("alice", "bob")
    }
    assert len(ratings[winner]["history"]) == len(ratings[loser]["history"]) == 1
    assert ratings[winner]["rating"] > 1500 > ratings[loser]["rating"]
    assert ratings[winner]["history"][0]["change"] == pytest.approx(
        -ratings[loser]["history"][0]["change"]
    )
    assert ratings[winner]["experience"] == 3
    # The server seed was in nothing the match produced before its end...
    seed = bytes(Match.objects.get(pk=match["id"]).server_seed).hex()
    produced_before_end = (
        b"".join(bodies)
        + "\n".join(
            record.getMessage() + repr(record.__dict__) for record in caplog.records
        ).encode()
    )
    assert seed.encode() not in produced_before_end
    assert seed.upper().encode() not in produced_before_end
    # ...and is revealed now, with every roll, which anyone can check (T2).
    record = ok(clients["bob"].get(path(match["id"], "dice")))
    assert record["server_seed"] == seed
    verify(record)
    # The .mat download replays to the final score.
    exported = clients["bob"].get(path(match["id"], "export.mat"))
    assert exported.status_code == 200
    assert exported["Content-Type"].startswith("text/plain")
    replayed = import_mat(exported.content.decode())
    assert list(replayed.players) == match["players"] == ["alice", "bob"]
    assert replayed.state.length == 3
    assert list(replayed.state.score) == [match["score"]["alice"], match["score"]["bob"]]
