"""FIBS ratings: the formula by hand, results recorded incrementally, the rebuild, the API
and the admin."""

import math
import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from club import ratings, services
from club.models import MatchResult, Player, RatingChange
from web.errors import Conflict, Invalid

pytestmark = pytest.mark.django_db

EXACT = 1e-9


def reload(player: Player) -> Player:
    return Player.objects.get(pk=player.pk)


# The formula, by hand ------------------------------------------------------------------


def test_equal_ratings_new_players_5_point_match_winner_gains_what_loser_loses():
    # D = 0: P_upset = 1 / (10^0 + 1) = 0.5. Experience 0: K = 5 for both.
    # 4 * K * sqrt(n) * P = 4 * 5 * sqrt(5) * 0.5 = 10 * sqrt(5) = 22.3607 (to 4 places)
    update = ratings.rate_match(
        winner_rating=1500.0,
        winner_experience=0,
        loser_rating=1500.0,
        loser_experience=0,
        length=5,
    )
    by_hand = 10 * math.sqrt(5)
    assert by_hand == pytest.approx(22.360679775, abs=EXACT)
    assert update.winner_change == pytest.approx(by_hand, abs=EXACT)
    assert update.loser_change == pytest.approx(-by_hand, abs=EXACT)
    assert update.winner_rating == pytest.approx(1522.360679775, abs=EXACT)
    assert update.loser_rating == pytest.approx(1477.639320225, abs=EXACT)
    assert (update.winner_experience, update.loser_experience) == (5, 5)
    assert (update.winner_k, update.loser_k) == (5.0, 5.0)


def test_100_point_favourite_winning_a_5_point_match_gains_4K_root_n_times_p_upset():
    # D = 100, n = 5: D * sqrt(n) / 2000 = 100 * 2.2360680 / 2000 = 0.1118034
    # 10^0.1118034 = 1.2935836; P_upset = 1 / 2.2935836 = 0.4359939
    # favourite wins: P = P_upset; change = 4 * 5 * 2.2360680 * 0.4359939 = 19.4982397
    p_upset = 1 / (10 ** (100 * math.sqrt(5) / 2000) + 1)
    assert p_upset == pytest.approx(0.4359938939, abs=EXACT)
    update = ratings.rate_match(
        winner_rating=1600.0,
        winner_experience=0,
        loser_rating=1500.0,
        loser_experience=0,
        length=5,
    )
    assert update.winner_change == pytest.approx(4 * 5 * math.sqrt(5) * p_upset, abs=EXACT)
    assert update.winner_change == pytest.approx(19.4982396888, abs=EXACT)
    assert update.loser_change == pytest.approx(-19.4982396888, abs=EXACT)


def test_100_point_favourite_losing_a_5_point_match_loses_4K_root_n_times_1_minus_p_upset():
    # underdog wins: P = 1 - P_upset = 0.5640061; change = 4 * 5 * 2.2360680 * 0.5640061
    # = 25.2231199
    p_upset = 1 / (10 ** (100 * math.sqrt(5) / 2000) + 1)
    update = ratings.rate_match(
        winner_rating=1500.0,
        winner_experience=0,
        loser_rating=1600.0,
        loser_experience=0,
        length=5,
    )
    assert update.winner_change == pytest.approx(4 * 5 * math.sqrt(5) * (1 - p_upset), abs=EXACT)
    assert update.winner_change == pytest.approx(25.2231198612, abs=EXACT)
    assert update.loser_change == pytest.approx(-25.2231198612, abs=EXACT)
    assert update.loser_rating == pytest.approx(1574.7768801388, abs=EXACT)


def test_new_players_larger_K_against_a_veteran_each_uses_their_own_K():
    # Equal ratings, 5 points, P = 0.5. Newcomer: experience 0, K = max(1, 5 - 0) = 5.
    # Veteran: experience 500, K = max(1, 5 - 500/100) = max(1, 0) = 1.
    # newcomer wins: +4 * 5 * sqrt(5) * 0.5 = +22.3607; veteran: -4 * 1 * sqrt(5) * 0.5 = -4.4721
    update = ratings.rate_match(
        winner_rating=1500.0,
        winner_experience=0,
        loser_rating=1500.0,
        loser_experience=500,
        length=5,
    )
    assert (update.winner_k, update.loser_k) == (5.0, 1.0)
    assert update.winner_change == pytest.approx(22.360679775, abs=EXACT)
    assert update.loser_change == pytest.approx(-4.472135955, abs=EXACT)
    assert (update.winner_experience, update.loser_experience) == (5, 505)


@pytest.mark.parametrize(
    ("experience", "k"), [(0, 5.0), (50, 4.5), (250, 2.5), (399, 1.01), (400, 1.0), (10_000, 1.0)]
)
def test_k_is_5_minus_experience_over_100_but_never_below_1(experience, k):
    assert ratings.k_factor(experience) == pytest.approx(k, abs=EXACT)


def test_equal_ratings_use_half_whoever_wins():
    assert ratings.win_probability_used(winner_rating=1500, loser_rating=1500, length=7) == 0.5


def test_a_rated_match_has_at_least_one_point():
    with pytest.raises(ValueError):
        ratings.rate_match(
            winner_rating=1500, winner_experience=0, loser_rating=1500, loser_experience=0, length=0
        )


# Recording results ---------------------------------------------------------------------


def test_recording_a_rated_result_changes_both_ratings_and_experience(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    result = services.match_result_record(winner=alice, loser=bob, length=5)
    alice, bob = reload(alice), reload(bob)
    assert alice.rating == pytest.approx(1500 + 10 * math.sqrt(5), abs=EXACT)
    assert bob.rating == pytest.approx(1500 - 10 * math.sqrt(5), abs=EXACT)
    assert (alice.experience, bob.experience) == (5, 5)
    history = {c.player_id: c for c in result.rating_changes.all()}
    assert history[alice.pk].rating_before == 1500.0
    assert history[alice.pk].rating_after == alice.rating
    assert history[bob.pk].change == pytest.approx(-10 * math.sqrt(5), abs=EXACT)
    assert history[bob.pk].experience_after == 5


def test_k_comes_from_experience_before_the_match(make_player):
    # Alice has 398 points of experience (K = 1.02); a 5-point match takes her past 400,
    # but this match is still rated with K = 1.02.
    alice = make_player("alice", experience=398)
    bob = make_player("bob", experience=398)
    services.match_result_record(winner=alice, loser=bob, length=5)
    alice = reload(alice)
    assert alice.rating == pytest.approx(1500 + 4 * 1.02 * math.sqrt(5) * 0.5, abs=EXACT)
    assert alice.experience == 403
    services.match_result_record(winner=alice, loser=bob, length=1)
    change = RatingChange.objects.filter(player=alice).order_by("-id").first()
    assert change.k == 1.0


def test_an_unrated_result_changes_nothing(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    result = services.match_result_record(winner=alice, loser=bob, length=7, rated=False)
    alice, bob = reload(alice), reload(bob)
    assert (alice.rating, alice.experience, bob.rating, bob.experience) == (1500.0, 0, 1500.0, 0)
    assert not result.rating_changes.exists()
    assert MatchResult.objects.get().rated is False


def test_a_money_session_is_never_rated_and_changes_nothing(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    with pytest.raises(Invalid):
        services.match_result_record(winner=alice, loser=bob, length=0, rated=True)
    services.match_result_record(winner=alice, loser=bob, length=0, rated=False)
    assert reload(alice).rating == 1500.0 and reload(alice).experience == 0
    assert not RatingChange.objects.exists()


@pytest.mark.parametrize("ended_by", ["timeout", "abandoned", "resigned"])
def test_a_match_lost_on_time_or_abandoned_counts_as_a_loss(make_player, ended_by):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5, ended_by=ended_by)
    assert reload(alice).rating == pytest.approx(1500 + 10 * math.sqrt(5), abs=EXACT)
    assert reload(bob).rating == pytest.approx(1500 - 10 * math.sqrt(5), abs=EXACT)
    assert reload(bob).experience == 5


def test_a_player_cannot_play_themself_and_nothing_is_recorded(make_player):
    alice = make_player("alice")
    with pytest.raises(Invalid):
        services.match_result_record(winner=alice, loser=alice, length=5)
    assert not MatchResult.objects.exists()


def test_one_result_per_source_match(make_player, staff):
    # Any saved object can be a source; the server's matches will link their Match.
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=3, source=staff)
    with pytest.raises(Conflict):
        services.match_result_record(winner=alice, loser=bob, length=3, source=staff)
    assert MatchResult.objects.count() == 1
    assert reload(alice).experience == 3
    assert MatchResult.objects.get().source == staff


def snapshot():
    players = sorted(Player.objects.values_list("pk", "rating", "experience"))
    changes = sorted(
        RatingChange.objects.values_list(
            "result_id",
            "player_id",
            "rating_before",
            "change",
            "rating_after",
            "k",
            "experience_before",
            "experience_after",
        )
    )
    return players, changes


def record_random_results(make_player, seed: int, count: int):
    rng = random.Random(seed)
    players = [make_player(f"p{i}") for i in range(6)]
    for _ in range(count):
        winner, loser = rng.sample(players, 2)
        services.match_result_record(
            winner=winner,
            loser=loser,
            length=rng.choice([1, 3, 5, 7, 9, 11, 13, 17, 25]),
            rated=rng.random() < 0.85,
            ended_by=rng.choice(MatchResult.EndedBy.values),
        )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ratings_rebuild_arrives_at_exactly_the_incremental_numbers(make_player, seed):
    record_random_results(make_player, seed, 80)
    before = snapshot()
    assert len(before[1]) > 100
    replayed = services.ratings_rebuild()
    assert replayed == MatchResult.objects.filter(rated=True).count()
    assert snapshot() == before  # exactly equal floats, not approximately


def test_ratings_rebuild_command_repairs_ratings_and_shows_progress(make_player):
    record_random_results(make_player, 7, 30)
    before = snapshot()
    Player.objects.update(rating=1234.5, experience=99)  # damage them
    RatingChange.objects.filter(pk__in=RatingChange.objects.values("pk")[:5]).delete()
    out = StringIO()
    call_command("ratings_rebuild", stdout=out)
    assert snapshot() == before
    text = out.getvalue()
    rated = MatchResult.objects.filter(rated=True).count()
    assert f"results: {rated}/{rated}" in text
    assert f"Ratings rebuilt from {rated} rated results." in text


def test_removing_a_result_rebuilds_every_rating_without_it(make_player, staff):
    alice, bob = make_player("alice"), make_player("bob")
    first = services.match_result_record(winner=alice, loser=bob, length=5)
    services.match_result_record(winner=bob, loser=alice, length=3)
    services.match_result_delete(result=first, deleted_by=staff.user)
    alice, bob = reload(alice), reload(bob)
    assert alice.experience == bob.experience == 3
    assert bob.rating == pytest.approx(1500 + 4 * 5 * math.sqrt(3) * 0.5, abs=EXACT)


# The API ------------------------------------------------------------------------------


def test_staff_post_a_result_201_with_rating_changes(staff_api, make_player):
    make_player("alice")
    make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "rated": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("winner", "loser", "length", "rated")} == {
        "winner": "alice",
        "loser": "bob",
        "length": 5,
        "rated": True,
    }
    assert body["id"] == MatchResult.objects.get().pk
    assert set(body["rating_changes"]) == {"alice", "bob"}
    assert body["rating_changes"]["alice"] == pytest.approx(22.360679775, abs=EXACT)
    assert body["rating_changes"]["bob"] == pytest.approx(-22.360679775, abs=EXACT)
    assert body["ended_by"] == "played"


def test_timeout_result_through_the_api_counts_as_a_loss(staff_api, make_player):
    make_player("alice")
    make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 1, "ended_by": "timeout"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["rating_changes"]["bob"] < 0


def test_unrated_result_through_the_api_reports_zero_changes(staff_api, make_player):
    make_player("alice")
    make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "rated": False},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["rating_changes"] == {"alice": 0.0, "bob": 0.0}


def test_a_player_may_not_post_results(api, make_player):
    alice = make_player("alice")
    make_player("bob")
    response = api.as_user(alice.user).post(
        "/api/results/", {"winner": "alice", "loser": "bob", "length": 5}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
    assert not MatchResult.objects.exists()


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"winner": "alice", "loser": "nobody", "length": 5}, 404, "not_found"),
        ({"winner": "alice", "loser": "alice", "length": 5}, 400, "invalid"),
        ({"winner": "alice", "loser": "bob", "length": 0}, 400, "invalid"),
        ({"winner": "alice", "loser": "bob", "length": "five"}, 400, "invalid"),
        ({"winner": "alice", "loser": "bob", "length": 5, "ended_by": "rain"}, 400, "invalid"),
        ({"winner": "alice", "length": 5}, 400, "invalid"),
        ({"winner": "alice", "loser": "bob", "length": 198}, 400, "invalid"),
        ({"winner": "alice", "loser": "bob", "length": 5, "rated": "no"}, 400, "invalid"),
        ({"winner": "alice", "loser": "bob", "length": 5, "rate": False}, 400, "invalid"),
        (
            {"winner": "alice", "loser": "bob", "length": 5, "played_at": "9691-03-01T20:00:00Z"},
            400,
            "invalid",
        ),
    ],
)
def test_bad_results_are_refused_and_nothing_changes(staff_api, make_player, body, status, error):
    make_player("alice")
    make_player("bob")
    response = staff_api.post("/api/results/", body, format="json")
    assert response.status_code == status
    assert response.json()["error"] == error
    assert not MatchResult.objects.exists()
    assert set(Player.objects.values_list("rating", flat=True)) == {1500.0}


def test_players_see_results(api, make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    services.match_result_record(winner=alice, loser=bob, length=5)
    services.match_result_record(winner=carol, loser=bob, length=3, rated=False)
    client = api.as_user(carol.user)
    everything = client.get("/api/results/").json()
    assert (everything["count"], everything["next"], everything["previous"]) == (2, None, None)
    assert [r["winner"] for r in everything["results"]] == ["carol", "alice"]
    alices = client.get("/api/results/?player=alice").json()["results"]
    assert [r["winner"] for r in alices] == ["alice"]
    one = client.get(f"/api/results/{everything['results'][1]['id']}/").json()
    assert one["rating_changes"]["alice"] == pytest.approx(22.360679775, abs=EXACT)
    assert client.get("/api/results/99999/").status_code == 404


def test_player_card_gives_the_real_rating_and_experience(api, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5)
    body = api.as_user(bob.user).get("/api/players/alice/").json()
    assert body["rating"] == pytest.approx(1522.360679775, abs=EXACT)
    assert body["experience"] == 5


def test_rating_history_api_lists_every_change_with_its_result(api, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    first = services.match_result_record(winner=alice, loser=bob, length=5)
    second = services.match_result_record(winner=bob, loser=alice, length=3)
    services.match_result_record(winner=bob, loser=alice, length=3, rated=False)
    body = api.as_user(bob.user).get("/api/players/alice/ratings/").json()
    alice = reload(alice)
    assert body["rating"] == alice.rating
    assert body["experience"] == 8
    assert [h["result"] for h in body["history"]] == [first.pk, second.pk]
    assert body["history"][0]["change"] == pytest.approx(22.360679775, abs=EXACT)
    assert body["history"][-1]["rating"] == alice.rating
    assert body["history"][1]["change"] < 0
    assert all(h["at"] for h in body["history"])


def test_rating_history_of_a_new_player_is_empty(api, make_player):
    alice = make_player("alice")
    body = api.as_user(alice.user).get("/api/players/alice/ratings/").json()
    assert body == {
        "rating": 1500.0,
        "experience": 0,
        "history": [],
        "tavli_rating": 1500.0,
        "tavli_experience": 0,
        "tavli_history": [],
    }


def test_leaderboard_api_ranks_by_rating(api, make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    services.match_result_record(winner=carol, loser=bob, length=5)
    body = api.as_user(alice.user).get("/api/leaderboard/").json()
    assert body["count"] == 3
    assert [(row["rank"], row["username"]) for row in body["results"]] == [
        (1, "carol"),
        (2, "alice"),
        (3, "bob"),
    ]
    assert body["results"][0]["rating"] == pytest.approx(1522.360679775, abs=EXACT)
    assert body["results"][0]["experience"] == 5


def test_schema_documents_the_results_and_ratings_endpoints(client):
    schema = client.get("/api/schema/").content.decode()
    for path in (
        "/api/results/",
        "/api/players/{username}/ratings/",
        "/api/leaderboard/",
    ):
        assert path in schema


# The admin ----------------------------------------------------------------------------


def admin_result(winner: Player, loser: Player, **changes) -> dict:
    """The admin's "add match result" form, filled in."""
    form = {
        "winner": winner.pk,
        "loser": loser.pk,
        "length": 5,
        "rated": "on",
        "rating_kind": "backgammon",
        "ended_by": "played",
        "played_at_0": "2026-11-01",
        "played_at_1": "20:00:00",
    }
    return {**form, **changes}


def test_staff_record_a_result_in_the_admin_and_ratings_update(client, staff, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    client.force_login(staff.user)
    assert client.get("/admin/club/matchresult/add/").status_code == 200
    response = client.post(
        "/admin/club/matchresult/add/",
        admin_result(alice, bob),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    result = MatchResult.objects.get()
    assert result.recorded_by == staff.user
    assert reload(alice).rating == pytest.approx(1522.360679775, abs=EXACT)


def test_admin_refuses_a_result_against_oneself(client, staff, make_player):
    alice = make_player("alice")
    client.force_login(staff.user)
    response = client.post(
        "/admin/club/matchresult/add/",
        admin_result(alice, alice),
    )
    assert response.status_code == 200
    assert not MatchResult.objects.exists()


def test_admin_action_removes_a_result_and_rebuilds(client, staff, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    result = services.match_result_record(winner=alice, loser=bob, length=5)
    client.force_login(staff.user)
    response = client.post(
        "/admin/club/matchresult/",
        {"action": "delete_and_rebuild", "_selected_action": [result.pk]},
    )
    assert response.status_code == 302
    assert not MatchResult.objects.exists()
    assert reload(alice).rating == 1500.0 and reload(alice).experience == 0


def test_rating_history_is_read_only_in_the_admin(client, staff, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5)
    change = RatingChange.objects.first()
    client.force_login(staff.user)
    assert client.get("/admin/club/ratingchange/").status_code == 200
    assert client.get("/admin/club/ratingchange/add/").status_code == 403
    assert client.get(f"/admin/club/ratingchange/{change.pk}/delete/").status_code == 403
    assert client.get("/admin/club/matchresult/").status_code == 200
    result = MatchResult.objects.get()
    assert client.get(f"/admin/club/matchresult/{result.pk}/delete/").status_code == 403


# What no club could mean -------------------------------------------------------------


def test_the_longest_match_is_64_points(staff_api, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=64)
    with pytest.raises(Invalid, match="between 1 and 64"):
        services.match_result_record(winner=alice, loser=bob, length=65)
    response = staff_api.post(
        "/api/results/", {"winner": "alice", "loser": "bob", "length": 65}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["fields"]["length"]
    assert MatchResult.objects.count() == 1


def test_a_result_may_say_it_was_played_up_to_five_minutes_ahead_of_the_clock(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(
        winner=alice, loser=bob, length=3, played_at=timezone.now() + timedelta(minutes=4)
    )
    with pytest.raises(Invalid, match="in the future"):
        services.match_result_record(
            winner=alice, loser=bob, length=3, played_at=timezone.now() + timedelta(minutes=6)
        )
    assert MatchResult.objects.count() == 1
    assert reload(alice).experience == 3


def test_a_result_played_in_the_year_9691_is_refused_by_the_api_and_the_admin(
    staff_api, client, staff, make_player
):
    alice, bob = make_player("alice"), make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "played_at": "9691-03-01T20:00:00Z"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert "in the future" in response.json()["detail"]
    client.force_login(staff.user)
    response = client.post(
        "/admin/club/matchresult/add/",
        admin_result(alice, bob, played_at_0="9691-03-01"),
    )
    assert response.status_code == 200
    assert "in the future" in response.content.decode()
    assert not MatchResult.objects.exists()
    assert reload(alice).rating == 1500.0


@pytest.mark.parametrize("played_at", ["0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z"])
def test_a_result_played_before_1900_is_refused_and_moves_no_rating(
    staff_api, make_player, played_at
):
    alice, bob = make_player("alice"), make_player("bob")
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "played_at": played_at},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert "1900-01-01" in response.json()["detail"]
    assert not MatchResult.objects.exists()
    assert reload(alice).rating == reload(bob).rating == 1500.0


def test_a_result_played_on_the_first_moment_of_1900_is_recorded(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(
        winner=alice, loser=bob, length=3, played_at=services.EARLIEST_RESULT
    )
    assert MatchResult.objects.get().played_at == services.EARLIEST_RESULT
