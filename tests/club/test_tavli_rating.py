"""The tavli rating (docs/ratings.md R2-R4): the same FIBS formula, its own rating,
experience and history per player, moved only by results of its kind; recorded through
the service, the API and the admin, rebuilt exactly, shown on the pages."""

import math
import random
from io import StringIO

import pytest
from django.core.management import call_command

from club import services
from club.models import MatchResult, Player, RatingChange, RatingKind
from web.errors import Invalid

pytestmark = pytest.mark.django_db

EXACT = 1e-9
FIRST_WIN = 10 * math.sqrt(5)  # two new players, 5 points: 4 * 5 * sqrt(5) * 0.5


def reload(player: Player) -> Player:
    return Player.objects.get(pk=player.pk)


def numbers(player: Player) -> tuple[float, int, float, int]:
    player = reload(player)
    return player.rating, player.experience, player.tavli_rating, player.tavli_experience


def test_r2_a_tavli_result_moves_only_the_tavli_rating(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    result = services.match_result_record(
        winner=alice, loser=bob, length=5, rating_kind=RatingKind.TAVLI
    )
    assert result.rating_kind == "tavli"
    assert numbers(alice) == pytest.approx((1500.0, 0, 1500.0 + FIRST_WIN, 5), abs=EXACT)
    assert numbers(bob) == pytest.approx((1500.0, 0, 1500.0 - FIRST_WIN, 5), abs=EXACT)
    assert (alice.tavli_rating, alice.rating) == pytest.approx((1500.0 + FIRST_WIN, 1500.0))
    change = result.rating_changes.get(player=alice)
    assert (change.rating_before, change.rating_after, change.k) == pytest.approx(
        (1500.0, 1500.0 + FIRST_WIN, 5.0)
    )
    assert (change.experience_before, change.experience_after) == (0, 5)


def test_r2_a_backgammon_result_moves_only_the_fibs_rating(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5, rating_kind=RatingKind.TAVLI)
    result = services.match_result_record(winner=bob, loser=alice, length=5)
    assert result.rating_kind == "backgammon"
    # The FIBS ratings start from 1500/0 and K 5: the tavli match did not count there.
    assert numbers(bob) == pytest.approx((1500.0 + FIRST_WIN, 5, 1500.0 - FIRST_WIN, 5))
    assert result.rating_changes.get(player=bob).k == 5.0
    assert result.rating_changes.get(player=bob).rating_before == 1500.0


def test_r2_each_rating_has_its_own_experience_and_k(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    for _match in range(5):  # 5 x 64 points of FIBS experience: K falls to 1.8
        services.match_result_record(winner=alice, loser=bob, length=64)
    assert reload(alice).experience == 320
    tavli = services.match_result_record(
        winner=alice, loser=bob, length=5, rating_kind=RatingKind.TAVLI
    )
    assert tavli.rating_changes.get(player=alice).k == 5.0  # a newcomer at tavli


def test_r2_an_unrated_tavli_result_moves_nothing(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    result = services.match_result_record(
        winner=alice, loser=bob, length=5, rated=False, rating_kind=RatingKind.TAVLI
    )
    assert not result.rating_changes.exists()
    assert numbers(alice) == (1500.0, 0, 1500.0, 0)


def test_r2_an_unknown_rating_is_refused_and_nothing_recorded(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    with pytest.raises(Invalid, match="chess"):
        services.match_result_record(winner=alice, loser=bob, length=5, rating_kind="chess")
    assert not MatchResult.objects.exists()


def test_r4_the_rebuild_replays_both_ratings_bit_for_bit(make_player):
    players = [make_player(name) for name in ("alice", "bob", "carol", "dave")]
    draw = random.Random(11)
    for _result in range(40):
        winner, loser = draw.sample(players, 2)
        services.match_result_record(
            winner=winner,
            loser=loser,
            length=draw.choice([1, 3, 5, 7]),
            rated=draw.random() < 0.9,
            rating_kind=draw.choice(RatingKind.values),
        )
    before = {player.pk: numbers(player) for player in players}
    history = list(RatingChange.objects.values_list("player", "rating_after", "result"))
    assert services.ratings_rebuild() == MatchResult.objects.filter(rated=True).count()
    assert {player.pk: numbers(player) for player in players} == before  # exactly
    assert list(RatingChange.objects.values_list("player", "rating_after", "result")) == history


def test_r4_a_removed_tavli_result_rebuilds_the_tavli_rating(make_player, staff):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5)
    wrong = services.match_result_record(
        winner=alice, loser=bob, length=5, rating_kind=RatingKind.TAVLI
    )
    services.match_result_delete(result=wrong, deleted_by=staff.user)
    assert numbers(alice) == pytest.approx((1500.0 + FIRST_WIN, 5, 1500.0, 0))


# The API ---------------------------------------------------------------------------------


def test_r2_staff_record_a_tavli_result_through_the_api(staff_api, make_player):
    make_player("alice"), make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "rated": True, "rating_kind": "tavli"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["rating_kind"] == "tavli"
    assert body["rating_changes"]["alice"] == pytest.approx(FIRST_WIN)
    alice = Player.objects.get(user__username="alice")
    assert (alice.rating, alice.tavli_rating) == pytest.approx((1500.0, 1500.0 + FIRST_WIN))


def test_r2_a_result_without_a_rating_kind_is_backgammon(staff_api, make_player):
    make_player("alice"), make_player("bob")
    body = staff_api.post(
        "/api/results/", {"winner": "alice", "loser": "bob", "length": 5}, format="json"
    ).json()
    assert body["rating_kind"] == "backgammon"
    assert set(body) >= {"id", "winner", "loser", "length", "rated", "rating_changes"}
    assert Player.objects.get(user__username="alice").rating == pytest.approx(1500 + FIRST_WIN)


def test_r2_an_unknown_rating_kind_is_a_400_and_nothing_recorded(staff_api, make_player):
    make_player("alice"), make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "rating_kind": "chess"},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()) >= {"error", "detail"}
    assert not MatchResult.objects.exists()


def test_r2_the_player_card_and_ratings_carry_both_ratings(api, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    fibs = services.match_result_record(winner=bob, loser=alice, length=3)
    tavli = services.match_result_record(
        winner=alice, loser=bob, length=5, rating_kind=RatingKind.TAVLI
    )
    client = api.as_user(bob.user)
    card = client.get("/api/players/alice/").json()
    alice = reload(alice)
    assert (card["rating"], card["experience"]) == (alice.rating, 3)
    assert (card["tavli_rating"], card["tavli_experience"]) == (alice.tavli_rating, 5)
    body = client.get("/api/players/alice/ratings/").json()
    assert [entry["result"] for entry in body["history"]] == [fibs.pk]
    assert [entry["result"] for entry in body["tavli_history"]] == [tavli.pk]
    assert body["tavli_history"][0]["rating"] == alice.tavli_rating
    assert body["tavli_history"][0]["change"] == pytest.approx(FIRST_WIN)
    assert (body["tavli_rating"], body["tavli_experience"]) == (alice.tavli_rating, 5)


def test_r2_the_leaderboard_ranks_by_either_rating(api, make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    services.match_result_record(winner=alice, loser=bob, length=5)
    services.match_result_record(winner=carol, loser=alice, length=5, rating_kind="tavli")
    client = api.as_user(alice.user)
    fibs = client.get("/api/leaderboard/").json()["results"]
    assert [(row["rank"], row["username"]) for row in fibs] == [
        (1, "alice"),
        (2, "carol"),
        (3, "bob"),
    ]
    tavli = client.get("/api/leaderboard/?rating_kind=tavli").json()["results"]
    assert [(row["rank"], row["username"]) for row in tavli] == [
        (1, "carol"),
        (2, "bob"),
        (3, "alice"),
    ]
    assert tavli[0]["tavli_rating"] == pytest.approx(1500 + FIRST_WIN)
    assert tavli[0]["rating"] == 1500.0
    refused = client.get("/api/leaderboard/?rating_kind=chess")
    assert refused.status_code == 400
    assert set(refused.json()) >= {"error", "detail"}


def test_r2_staff_record_a_tavli_result_in_the_admin(client, staff, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    client.force_login(staff.user)
    response = client.post(
        "/admin/club/matchresult/add/",
        {
            "winner": alice.pk,
            "loser": bob.pk,
            "length": 5,
            "rated": "on",
            "rating_kind": "tavli",
            "ended_by": "played",
            "played_at_0": "2026-11-01",
            "played_at_1": "20:00:00",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert numbers(alice) == pytest.approx((1500.0, 0, 1500.0 + FIRST_WIN, 5))


# The pages -------------------------------------------------------------------------------


def test_r2_the_player_page_shows_both_ratings_and_both_charts(client, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5, rating_kind="tavli")
    html = client.get("/players/alice/").content.decode()
    assert f'<dd class="tavli-rating">{1500 + FIRST_WIN:.1f}</dd>' in html
    assert '<dd class="rating">1500.0</dd>' in html
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart"') == 2
    fibs_chart = html.split('id="rating-chart"')[1].split("</figure>")[0]
    tavli_chart = html.split('id="tavli-rating-chart"')[1].split("</figure>")[0]
    assert "No rated matches yet" in fibs_chart and "<polyline" not in fibs_chart
    assert "Tavli rating history" in tavli_chart and "<polyline" in tavli_chart
    assert "+22.4" in html and "· tavli" in html


def test_r2_the_players_page_lists_either_rating(client, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5)
    services.match_result_record(winner=bob, loser=alice, length=5, rating_kind="tavli")
    fibs = client.get("/players/").content.decode()
    assert fibs.index(">Alice<") < fibs.index(">Bob<")
    assert f"{1500 + FIRST_WIN:.1f}" in fibs and "?rating_kind=tavli" in fibs
    tavli = client.get("/players/?rating_kind=tavli").content.decode()
    assert tavli.index(">Bob<") < tavli.index(">Alice<")
    assert "Tavli ratings:" in tavli


def test_r2_the_demo_club_has_results_in_both_ratings(settings):
    settings.DEBUG = True
    call_command("load_demo", stdout=StringIO())
    kinds = set(MatchResult.objects.filter(rated=True).values_list("rating_kind", flat=True))
    assert kinds == {"backgammon", "tavli"}
    alice = Player.objects.get(user__username="alice")
    assert alice.tavli_rating != 1500.0 and alice.tavli_experience == 10


def test_r2_the_results_page_says_which_rating_each_result_moved(client, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5)
    services.match_result_record(winner=bob, loser=alice, length=3, rating_kind="tavli")
    services.match_result_record(winner=bob, loser=alice, length=3, rated=False)
    html = client.get("/results/").content.decode()
    assert html.count("yes · backgammon") == 1 and html.count("yes · tavli") == 1
    assert html.count(">no<") == 1
