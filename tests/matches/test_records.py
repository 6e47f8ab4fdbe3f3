"""What a played match leaves: a log that replays (``manage.py matches_check``), a
``.mat`` file GNU Backgammon imports to the same score, dice anyone can verify, and a
server seed that appears nowhere before the end."""

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from backgammon import dice as core_dice
from matches import selectors, services
from matches.models import Match, Table
from tests.matches.conftest import act, game_of, on_turn, play_out, start

pytestmark = pytest.mark.django_db


def test_matches_check_passes_on_replayable_logs_and_fails_on_a_changed_state(alice, bob):
    play_out(start(alice, bob, length=1), alice, bob)
    playing = start(bob, alice, length=3)
    out = io.StringIO()
    call_command("matches_check", stdout=out)
    assert "2 tables checked" in out.getvalue()
    state = dict(playing.table.state)
    board = [list(side) for side in state["board"]]
    board[0][5] -= 1  # a checker of the first player moved from its 6 to its 5 point
    board[0][4] += 1
    state["board"] = board
    Table.objects.filter(pk=playing.table_id).update(state=state)
    with pytest.raises(CommandError, match="1 table") as failed:
        call_command("matches_check", stdout=io.StringIO())
    assert f"table {playing.table_id}: stored state differs in board" in str(failed.value)


# GNU Backgammon keeps the imported match in its global state, which the oracle test's
# calls would then run against: the import runs in a process of its own.
GNUBG_FINAL_SCORE = """
import json, sys
import gnubg
gnubg.command(f'import mat "{sys.argv[1]}"')
games = [game["info"] for game in gnubg.match(analysis=False, boards=False)["games"]]
last = games[-1]
final = [last["score-X"], last["score-O"]]
final["XO".index(last["winner"])] += last["points-won"]
print(json.dumps({"games": len(games), "final": final}))
"""


def test_gnubg_imports_the_mat_export_of_a_played_match_to_its_final_score(
    alice, bob, tmp_path: Path
):
    match = play_out(start(alice, bob, length=3), alice, bob)
    path = tmp_path / "match.mat"
    path.write_text(selectors.match_export_mat(match))
    imported = subprocess.run(
        [sys.executable, "-c", GNUBG_FINAL_SCORE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    read = json.loads(imported.stdout.strip().splitlines()[-1])
    score = selectors.match_detail(match)["score"]
    assert read["games"] == match.table.game_number
    # gnubg's X is player 1 (alice); a match ends at N or past it by the last game's points
    assert read["final"] == [score["alice"], score["bob"]]


def test_t2_the_dice_are_revealed_at_the_end_and_verify(alice, bob):
    match = start(alice, bob, length=1)
    shown = selectors.match_dice(match)
    assert set(shown) == {"commitment", "client_seed", "algorithm"}
    match = play_out(match, alice, bob)
    revealed = selectors.match_dice(match)
    assert core_dice.commitment(bytes.fromhex(revealed["server_seed"])) == shown["commitment"]
    core_dice.verify(revealed)
    opening = revealed["rolls"][0]
    assert len(opening) == 2


def test_the_server_seed_appears_nowhere_before_the_end(api, alice, bob, staff, caplog):
    caplog.set_level(logging.DEBUG)
    match = start(alice, bob, length=3, clock="blitz")
    seed = bytes(match.server_seed).hex()
    seen = [repr(match), str(match), str(selectors.match_detail(match)), str(match.table.state)]
    seen.append(str(selectors.match_dice(match)))
    follower = api.as_user(bob.user)
    live_answer = {"topic": f"table:{match.table_id}"}  # the live answer carries the state
    for _ in range(6):
        player = on_turn(match, alice, bob)
        game = game_of(match)
        if game["phase"] == "roll":
            match = act(match, player, "roll")
        else:
            match = act(match, player, "move", play=game["legal_plays"][0])
        seen.append(str(selectors.match_detail(match)))
        answer = follower.get("/api/live/", live_answer)
        assert answer.json()["state"] is not None
        seen.append(answer.content.decode())
    try:
        act(match, alice if on_turn(match, alice, bob) == bob else bob, "roll")
    except services.Forbidden as refused:
        seen.append(str(refused))
    admin = Client()
    admin.force_login(staff.user)
    for path in (
        f"/admin/matches/match/{match.pk}/change/",
        "/admin/matches/match/",
        f"/admin/matches/table/{match.table_id}/change/",
        "/admin/matches/action/",
    ):
        response = admin.get(path)
        assert response.status_code == 200, path
        seen.append(response.content.decode())
    seen += [record.getMessage() for record in caplog.records]
    assert not any(seed in text for text in seen)
    assert not any(bytes(match.server_seed).hex().upper() in text for text in seen)


def test_the_demo_club_has_a_finished_match_and_one_in_play(settings):
    settings.DEBUG = True
    call_command("load_demo", stdout=io.StringIO())
    call_command("load_demo", stdout=io.StringIO())  # the second time adds nothing
    own = Match.objects.filter(tournament_pairing__isnull=True)  # the tournaments' are theirs
    assert list(own.order_by("id").values_list("status", flat=True)) == ["finished", "playing"]
    assert selectors.tables_check() == []
