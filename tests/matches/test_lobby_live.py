"""The lobby on the live channel (issue 22, finding 1): ``lobby:<player id>`` moves
with the commit of every change a member's lobby shows (an invitation made, accepted,
declined or withdrawn; an open challenge; a match that starts or ends), only its member
may follow it, and the page's list is a live region answered alone (``?live=region``)."""

import threading

import pytest
from django.db import transaction

from matches import selectors, services
from matches.models import Match
from tests import threads
from tests.matches.conftest import start
from web.errors import Forbidden

# Committed for real: the lobbies move once the change is committed.
pytestmark = pytest.mark.django_db(transaction=True)


def lobbies(*players) -> list[int]:
    versions = selectors.lobby_versions([player.pk for player in players])
    return [versions[player.pk] for player in players]


def invite(creator, opponent, **kwargs):
    kwargs.setdefault("length", 3)
    options = services.MatchOptions(**kwargs)
    return services.match_create(creator=creator, opponent=opponent, options=options)


def moved(before: list[int], after: list[int]) -> list[bool]:
    return [new > old for old, new in zip(before, after, strict=True)]


def test_an_invitation_moves_its_two_players_lobbies_and_no_one_elses(alice, bob, carol):
    before = lobbies(alice, bob, carol)
    invite(alice, bob)
    assert moved(before, lobbies(alice, bob, carol)) == [True, True, False]


@pytest.mark.parametrize("who", ["opponent", "creator"])
def test_an_invitation_declined_or_withdrawn_moves_its_two_players_lobbies(alice, bob, carol, who):
    match = invite(alice, bob)
    before = lobbies(alice, bob, carol)
    services.match_decline(match=match, player=bob if who == "opponent" else alice)
    assert moved(before, lobbies(alice, bob, carol)) == [True, True, False]


def test_an_accepted_invitation_moves_every_lobby_the_match_is_played_in_each(alice, bob, carol):
    match = invite(alice, bob)
    before = lobbies(alice, bob, carol)
    services.match_accept(match=match, player=bob)
    assert moved(before, lobbies(alice, bob, carol)) == [True, True, True]


def test_an_open_challenge_made_accepted_or_withdrawn_moves_every_lobby(alice, bob, carol):
    before = lobbies(alice, bob, carol)
    challenge = invite(alice, None)
    after_made = lobbies(alice, bob, carol)
    assert moved(before, after_made) == [True, True, True]
    services.match_accept(match=challenge, player=carol)
    after_accepted = lobbies(alice, bob, carol)
    assert moved(after_made, after_accepted) == [True, True, True]
    withdrawn = invite(bob, None)
    before = lobbies(alice, bob, carol)
    services.match_decline(match=withdrawn, player=bob)
    assert moved(before, lobbies(alice, bob, carol)) == [True, True, True]


def test_a_match_that_ends_or_is_called_off_moves_every_lobby(alice, bob, carol):
    match = start(alice, bob)
    before = lobbies(alice, bob, carol)
    services.match_abandon(match=match, player=bob)
    assert selectors.match_list().get(pk=match.pk).status == "finished"
    assert moved(before, lobbies(alice, bob, carol)) == [True, True, True]
    called_off = start(bob, carol)
    before = lobbies(alice, bob, carol)
    services.match_call_off(match=called_off)
    assert moved(before, lobbies(alice, bob, carol)) == [True, True, True]


def test_the_lobbies_move_once_the_change_is_committed(alice, bob):
    before = lobbies(alice, bob)
    with transaction.atomic():
        invite(alice, bob)
        assert lobbies(alice, bob) == before  # a page fetching now would not see it yet
    assert moved(before, lobbies(alice, bob)) == [True, True]


def test_a_refused_change_moves_no_lobby(alice, bob, carol):
    match = invite(alice, bob)
    before = lobbies(alice, bob, carol)
    with pytest.raises(Forbidden):
        services.match_accept(match=match, player=carol)  # the invitation is bob's
    assert lobbies(alice, bob, carol) == before


def test_a_member_follows_their_own_lobby(api, alice):
    topic = f"lobby:{alice.pk}"
    invite(alice, None)
    response = api.as_user(alice.user).get("/api/live/", {"topic": topic})
    assert response.status_code == 200
    assert response.json() == {"topic": topic, "version": lobbies(alice)[0], "state": None}
    stream = api.as_user(alice.user).get("/api/live/stream/", {"topic": topic})
    assert stream.status_code == 200 and stream["Content-Type"].startswith("text/event-stream")
    stream.close()


def test_another_members_lobby_is_403_and_a_visitor_401(api, alice, bob):
    topic = f"lobby:{alice.pk}"
    for path in ("/api/live/", "/api/live/stream/"):
        response = api.as_user(bob.user).get(path, {"topic": topic})
        assert response.status_code == 403 and response.json()["error"] == "forbidden"
    api.credentials()
    for path in ("/api/live/", "/api/live/stream/"):
        response = api.get(path, {"topic": topic})
        assert response.status_code == 401 and response.json()["error"] == "not_authenticated"


@pytest.mark.parametrize("key", ["999999", "alice", "0", "-1", ""])
def test_a_lobby_of_no_player_is_404(api, alice, key):
    response = api.as_user(alice.user).get("/api/live/", {"topic": f"lobby:{key}"})
    assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_the_lobby_page_follows_the_members_lobby_topic(logged_in, alice, bob):
    invite(bob, alice)
    page = logged_in(alice).get("/play/").content.decode()
    region = page.split("data-live-region")[1]
    assert f'data-live-topic="lobby:{alice.pk}"' in region.split(">")[0]
    assert f'data-live-version="{lobbies(alice)[0]}"' in region.split(">")[0]
    assert "club/live_region.js" in page and 'id="new-match"' in page


def test_the_region_alone_shows_the_lists_and_marks_what_the_page_waits_for(
    logged_in, alice, bob, carol
):
    waiting = invite(alice, bob)
    region = logged_in(alice).get("/play/?live=region")
    assert region.status_code == 200
    html = region.content.decode()
    assert "<header" not in html
    assert html.count("data-live-region") == 1 and 'id="new-match"' not in html
    assert f'data-live-awaits="{waiting.pk}"' in html.split('id="sent"')[1]
    services.match_accept(match=waiting, player=bob)
    html = logged_in(alice).get("/play/?live=region").content.decode()
    assert f'data-live-awaits="{waiting.pk}"' not in html
    mine = html.split('id="my-matches"')[1].split("</section>")[0]
    assert f'data-live-arrives="{waiting.pk}" data-live-href="/play/{waiting.pk}/"' in mine
    assert f'data-live-version="{lobbies(alice)[0]}"' in html
    # A watcher's list of matches being played takes nobody anywhere.
    watching = logged_in(carol).get("/play/?live=region").content.decode()
    assert "data-live-arrives" not in watching and f"/play/{waiting.pk}/" in watching


def test_changes_at_once_each_move_the_lobbies_once(alice, bob, carol):
    """Twenty matches made at once, the lobbies' rows made by the first of them: each
    counted, none lost, no writer waiting on another for ever (both engines)."""
    made = iter(range(20))
    lock = threading.Lock()

    def make():
        with lock:
            n = next(made)
        return invite(alice, bob) if n % 2 else invite(carol, None)

    outcomes = threads.at_once(make, 20)
    assert all(isinstance(outcome, Match) for outcome in outcomes), outcomes
    # Ten invitations (alice's and bob's own), ten open challenges (every lobby's).
    assert lobbies(alice, bob, carol) == [20, 20, 10]
