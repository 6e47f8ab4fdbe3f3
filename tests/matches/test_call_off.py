"""Calling off a match nobody has acted in yet (a tournament pairing moved to a real
board): closed without a result, its clock stopped, its log still replaying; refused
once a player has acted."""

import pytest

from club.models import MatchResult
from matches import selectors, services, table_engine
from matches.models import Match, Table
from tests.matches.conftest import act, game_of, on_turn, play_out, start
from web.errors import Conflict

pytestmark = pytest.mark.django_db


def test_an_unplayed_match_is_called_off_without_a_result(alice, bob, clock):
    match = start(alice, bob, clock="blitz")
    turn_no = game_of(match)["turn_no"]
    assert Table.objects.get(pk=match.table_id).deadline is not None
    version = Table.objects.get(pk=match.table_id).version
    services.match_call_off(match=match)
    match.refresh_from_db()
    table = Table.objects.get(pk=match.table_id)
    assert match.status == Match.Status.DECLINED and match.finished_at is not None
    assert match.winner is None and match.result is None and match.ended_by == ""
    assert (table.status, table.deadline) == (Table.Status.CLOSED, None)
    assert table.version == version + 1  # its watchers are told
    assert not MatchResult.objects.exists()
    for player in (alice, bob):
        player.refresh_from_db()
        assert (player.rating, player.experience) == (1500, 0)  # no rating moved
    # Its clock is stopped: the timeout of the turn it was at does nothing.
    clock.advance(3600)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=turn_no) is False
    assert table_engine.tables_sweep() == 0
    assert selectors.tables_check() == []  # the log still replays to the stored state
    with pytest.raises(Conflict, match="not being played"):
        services.match_call_off(match=match)
    with pytest.raises(Conflict, match="not being played"):
        act(match, on_turn(match, alice, bob), "move", play=game_of(match)["legal_plays"][0])


def test_a_match_someone_has_acted_in_cannot_be_called_off(alice, bob):
    match = start(alice, bob)
    game = game_of(match)
    match = act(match, on_turn(match, alice, bob), "move", play=game["legal_plays"][0])
    with pytest.raises(Conflict, match="has begun"):
        services.match_call_off(match=match)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING
    finished = play_out(match, alice, bob)
    with pytest.raises(Conflict, match="not being played"):
        services.match_call_off(match=finished)
    assert Match.objects.get(pk=match.pk).result is not None
