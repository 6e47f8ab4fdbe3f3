"""Rated matches played through the HTTP API to the end (docs/ratings.md R2, R3): a tavli
match, or one tavli game played as a match of its own (TM4), moves only the two players'
tavli ratings; a backgammon match, its variants too, moves only their FIBS ratings."""

import math

import pytest

from club.models import MatchResult, Player
from tests.matches.api_helpers import ok, start_match, step
from tests.matches.test_api_tavli import play_to_the_end

pytestmark = pytest.mark.django_db

MOST_REQUESTS = 4000


def numbers(username: str) -> tuple[float, int, float, int]:
    player = Player.objects.get(user__username=username)
    return player.rating, player.experience, player.tavli_rating, player.tavli_experience


def expected(length: int) -> float:
    """What a first rated match of ``length`` points moves two new players by."""
    return 4 * 5 * math.sqrt(length) * 0.5


def winner_and_loser(match) -> tuple[str, str]:
    winner = match["winner"]
    loser = next(name for name in match["players"] if name != winner)
    return winner, loser


def test_r3_tm1_a_rated_greek_tavli_match_moves_only_the_tavli_ratings(alice, bob):
    clients, match = start_match(alice, bob, length=3, tavli="greek")
    assert match["rated"] is True  # rated by default, like any match
    match, games = play_to_the_end(clients, match)
    assert games[1] == "portes"
    winner, loser = winner_and_loser(match)
    assert numbers(winner) == pytest.approx((1500.0, 0, 1500.0 + expected(3), 3))
    assert numbers(loser) == pytest.approx((1500.0, 0, 1500.0 - expected(3), 3))
    result = MatchResult.objects.get()
    assert (result.rating_kind, result.rated, result.length) == ("tavli", True, 3)
    ratings = ok(clients[winner].get(f"/api/players/{winner}/ratings/"))
    assert ratings["history"] == []
    assert [entry["result"] for entry in ratings["tavli_history"]] == [result.pk]
    assert ratings["tavli_rating"] == pytest.approx(1500.0 + expected(3))


@pytest.mark.parametrize("variant", ["plakoto", "fevga"])
def test_r3_tm4_a_single_tavli_game_as_its_own_rated_match_is_tavli_rated(alice, bob, variant):
    clients, match = start_match(alice, bob, length=1, rated=True, options={"variant": variant})
    match, games = play_to_the_end(clients, match)
    assert set(games.values()) == {variant}
    winner, loser = winner_and_loser(match)
    assert numbers(winner) == pytest.approx((1500.0, 0, 1500.0 + expected(1), 1))
    assert numbers(loser) == pytest.approx((1500.0, 0, 1500.0 - expected(1), 1))
    assert MatchResult.objects.get().rating_kind == "tavli"


def play_backgammon_to_the_end(clients, match):
    for _request in range(MOST_REQUESTS):
        if match["status"] == "finished":
            return match
        match = ok(step(clients, match, double=False))
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("variant", ["standard", "nackgammon"])
def test_r3_a_rated_backgammon_match_moves_only_the_fibs_ratings(alice, bob, variant):
    clients, match = start_match(alice, bob, length=1, options={"variant": variant})
    assert match["rated"] is True
    match = play_backgammon_to_the_end(clients, match)
    winner, loser = winner_and_loser(match)
    assert numbers(winner) == pytest.approx((1500.0 + expected(1), 1, 1500.0, 0))
    assert numbers(loser) == pytest.approx((1500.0 - expected(1), 1, 1500.0, 0))
    assert MatchResult.objects.get().rating_kind == "backgammon"
    ratings = ok(clients[winner].get(f"/api/players/{winner}/ratings/"))
    assert ratings["tavli_history"] == [] and len(ratings["history"]) == 1


def test_r3_an_unrated_tavli_match_moves_no_rating(alice, bob):
    clients, match = start_match(alice, bob, length=1, rated=False, tavli="bulgarian")
    match, _games = play_to_the_end(clients, match)
    for name in ("alice", "bob"):
        assert numbers(name) == (1500.0, 0, 1500.0, 0)
    result = MatchResult.objects.get()
    assert (result.rated, result.rating_kind) == (False, "tavli")
