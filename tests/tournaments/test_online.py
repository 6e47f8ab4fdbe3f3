"""Online pairings: each is a match on the server, and the match's end decides it."""

import pytest

from matches import services as matches_services
from matches.models import Match
from tournaments import services, tasks
from tournaments.models import Pairing
from web.errors import Conflict


@pytest.fixture
def online(staff, make_player):
    """A four-player online knockout to 3 then 5 points, drawn: round 1 is being played."""
    tournament = services.tournament_create(
        created_by=staff.user,
        name="Online cup",
        format="single_elimination",
        online=True,
        match_lengths="3, 5",
    )
    for n, name in enumerate(["ann", "ben", "cat", "dan"]):
        player = make_player(name, rating=1600.0 - 10 * n)
        services.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    return services.tournament_start(tournament=tournament)


def first_round(tournament):
    return list(
        Pairing.objects.filter(round__tournament=tournament, round__number=1)
        .select_related("first__player", "second__player", "match")
        .order_by("position")
    )


def test_a_round_starts_its_matches(online):
    pairings = first_round(online)
    assert len(pairings) == 2
    for pairing in pairings:
        match = pairing.match
        assert match.status == Match.Status.PLAYING
        assert (match.creator, match.opponent) == (pairing.first.player, pairing.second.player)
        assert (match.length, match.rated) == (3, True)


def test_the_director_cannot_enter_an_online_pairings_result(online, staff):
    pairing = first_round(online)[0]
    with pytest.raises(Conflict, match="played online"):
        services.pairing_result_record(
            pairing=pairing, winner=pairing.first, recorded_by=staff.user
        )
    assert Pairing.objects.get(pk=pairing.pk).winner is None


def test_a_matchs_end_decides_its_pairing_and_moves_the_bracket_on(
    online, django_capture_on_commit_callbacks
):
    top, bottom = first_round(online)
    # dan (bottom of the top pairing) abandons: ann wins; the signal decides the pairing.
    with django_capture_on_commit_callbacks(execute=True):
        matches_services.match_abandon(match=top.match, player=top.second.player)
    top.refresh_from_db()
    assert top.winner == top.first and top.source == Pairing.Source.ONLINE
    assert top.result == Match.objects.get(pk=top.match_id).result  # the match's own result
    # The other match ends while the signal is lost: the beat's sweep decides it.
    matches_services.match_abandon(match=bottom.match, player=bottom.first.player)
    assert Pairing.objects.get(pk=bottom.pk).winner is None
    assert tasks.collect() == 1
    assert tasks.collect() == 0  # harmless to repeat
    final = Pairing.objects.get(round__tournament=online, round__number=2)
    assert {final.first.player.username, final.second.player.username} == {"ann", "cat"}
    assert final.match.status == Match.Status.PLAYING and final.match.length == 5


def test_the_page_links_the_matches_being_played(client, online):
    page = client.get(f"/tournaments/{online.pk}/").content.decode()
    for pairing in first_round(online):
        assert f'href="/play/{pairing.match_id}/"' in page
    assert "played online" in page
