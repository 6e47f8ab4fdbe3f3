"""The work of one board action (issue 8, "Speed"): the match read once, the player read
with the token, a fixed number of queries from the first turn to the last, and answers
unchanged by answering from what the action wrote."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import serializers

from matches import selectors
from matches.api import MatchOutput
from matches.models import Match, PlaySettings
from tests.matches.api_helpers import act, ok, path, start_match, step

# An action's queries: the match and its table locked in one (the players and their
# settings joined in); the table written; the log rows inserted. A game's end writes the
# match too. The token with its user and player comes from the cache: each player's
# first request read it (the turns counted begin later; tests/club/test_auth_cache.py).
QUERIES_PER_ACTION = 3


def _by_fields(match: Match) -> dict:
    """The answer as DRF would build it field by field (before the speed work)."""
    body = selectors.match_detail(match)
    return serializers.Serializer.to_representation(MatchOutput(), body)


def _queries(client_call):
    with CaptureQueriesContext(connection) as captured:
        response = client_call()
    # The test's own transaction turns the action's into a savepoint: not the action's work.
    sql = [query["sql"] for query in captured.captured_queries]
    return response, [q for q in sql if "SAVEPOINT" not in q]


@pytest.mark.django_db
def test_an_action_reads_the_match_once_and_its_queries_stay_flat(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    PlaySettings.objects.create(player=bob, home_board="left")
    clients, match = start_match(alice, bob, length=5)
    counts = []
    for _turn in range(60):
        if match["status"] != "playing":
            break
        response, sql = _queries(lambda seen=match: step(clients, seen, double=False))
        match = ok(response)
        if match["status"] != "playing" or match["game"]["turn_no"] <= 2:
            continue
        match_reads = [q for q in sql if q.startswith("SELECT") and 'FROM "matches_match"' in q]
        assert len(match_reads) == 1, sql
        assert not any('FROM "matches_playsettings"' in q or 'FROM "club_player"' in q for q in sql)
        counts.append(len(sql))
    assert len(counts) > 30
    # The same from the first turn to the last; one more when a game's end writes the match.
    assert set(counts) <= {QUERIES_PER_ACTION, QUERIES_PER_ACTION + 1}, counts


@pytest.mark.django_db
@pytest.mark.parametrize(
    "options",
    [
        {"length": 3},
        {"length": 0, "stake": "1.00", "options": {"jacoby": True}},
        {"length": 3, "rated": False, "options": {"variant": "plakoto"}},
        {"length": 3, "rated": False, "tavli": "greek"},
    ],
    ids=["match", "money", "plakoto", "tavli-match"],
)
def test_each_answer_is_what_a_fresh_read_answers_field_by_field(make_player, options):
    alice, bob = make_player("alice"), make_player("bob")
    clients, match = start_match(alice, bob, **options)
    viewer = clients[alice.username]
    for _turn in range(40):
        if match["status"] != "playing" or match["game"]["phase"] == "over":
            break
        match = ok(step(clients, match, double=True))
        fresh = selectors.match_queryset().get(pk=match["id"])
        assert match == _by_fields(fresh)
        assert match == ok(viewer.get(path(match["id"])))


@pytest.mark.django_db
def test_a_finished_match_answers_as_a_fresh_read(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    clients, match = start_match(alice, bob, length=1)
    while match["status"] == "playing":
        match = ok(step(clients, match, double=True))
    fresh = selectors.match_queryset().get(pk=match["id"])
    assert match["winner"] in (alice.username, bob.username)
    assert match == _by_fields(fresh) == ok(clients[bob.username].get(path(match["id"])))


@pytest.mark.django_db
def test_an_action_at_an_unknown_match_is_a_404_and_a_created_match_is_answered_whole(
    make_player,
):
    alice, bob = make_player("alice"), make_player("bob")
    clients, match = start_match(alice, bob)
    response = act(clients[alice.username], {**match, "id": match["id"] + 1000}, "roll")
    assert response.status_code == 404
    assert set(response.json()) == {"error", "detail"}
    created = ok(
        clients[alice.username].post(
            "/api/matches/", {"opponent": "bob", "length": 3}, format="json"
        ),
        201,
    )
    fresh = selectors.match_queryset().get(pk=created["id"])
    assert created == _by_fields(fresh)
