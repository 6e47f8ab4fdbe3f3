"""An online chouette's games analysed per member through the app: queued when a game
ends (the table_game_finished signal), run with the real engine, read and asked for at
/api/chouettes/{id}/analysis/ by its players or staff (docs/analysis.md, "Chouettes")."""

import pytest

from analysis import services
from analysis.models import MatchAnalysis
from chouette import online
from tests.analysis.running import analyse_now
from tests.chouette.conftest import members, open_chouette  # noqa: F401  (fixtures)
from tests.chouette.test_online_services import act, body, box_to_roll, play_until


@pytest.fixture
def sent(monkeypatch):
    ids = []
    monkeypatch.setattr(services, "_send", ids.append)
    return ids


@pytest.fixture
def played(open_chouette, members, sent, django_capture_on_commit_callbacks):  # noqa: F811
    """An online chouette (alice the box, bob captain, carol and dave the crew) whose
    first game ended at the box's first double: bob and dave pass, carol takes, then
    the game is played out."""
    chouette = open_chouette("alice", "bob", "carol", "dave", mode="online", cube="multiple")
    with django_capture_on_commit_callbacks(execute=True):
        online.chouette_game_start(chouette=chouette, by=members["alice"])
        play_until(chouette, members, box_rolls=False, stop=box_to_roll)
        act(chouette, members, "alice", "double")
        offered = body(chouette)["cubes"]["bob"]["offered_at"]
        for name, answer in (("bob", "pass"), ("carol", "take"), ("dave", "pass")):
            act(chouette, members, name, answer, turn_no=offered)
        play_until(chouette, members, box_rolls=True, stop=lambda g: g["phase"] == "over")
    return chouette


def url(chouette):
    return f"/api/chouettes/{chouette.pk}/analysis/"


def test_a_finished_game_is_queued_and_judged_per_member(api, members, played, sent):  # noqa: F811
    analysis = MatchAnalysis.objects.get(table=played.table, game_number=1)
    assert analysis.seats == ["alice", "bob", "carol", "dave"] and sent == [analysis.pk]
    assert analyse_now(analysis) == "done"
    answer = api.as_user(members["carol"].user).get(url(played))
    assert answer.status_code == 200
    body_ = answer.json()
    assert body_["status"] == "done" and body_["progress"] == 1.0
    assert [p["username"] for p in body_["players"]] == ["alice", "bob", "carol", "dave"]
    (game,) = body_["games"]
    assert game["number"] == 1 and game["status"] == "done"
    # The box's double on each member's cube, and each member's own answer.
    answers = {
        d["cube_of"]: d["played"]
        for d in game["decisions"]
        if d["kind"] == "cube" and d["player"] != "alice" and d["played"] in ("take", "pass")
    }
    assert answers == {"bob": "pass", "carol": "take", "dave": "pass"}
    doubles = [d for d in game["decisions"] if d["player"] == "alice" and d["played"] == "double"]
    assert sorted(d["cube_of"] for d in doubles) == ["bob", "carol", "dave"]
    figures = {p["username"]: p for p in body_["players"]}
    for name in ("bob", "carol", "dave"):
        assert figures[name]["cube_decisions"] >= 1 and figures[name]["cube_pr"] is not None
    # The team's checker plays are its captain's: bob's until he passed, carol's after.
    movers = {d["player"] for d in game["decisions"] if d["kind"] == "checker"}
    assert movers <= {"alice", "bob", "carol"} and "alice" in movers
    assert all(d["cube_of"] is None for d in game["decisions"] if d["kind"] == "checker")


def test_a_player_asks_again_a_stranger_may_not(api, members, staff, played, sent):  # noqa: F811
    analysis = MatchAnalysis.objects.get(table=played.table)
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status="failed", error="boom")
    assert api.as_user(members["erin"].user).post(url(played)).status_code == 403
    answer = api.as_user(members["dave"].user).post(url(played))
    assert answer.status_code == 202 and answer.json()["status"] == "queued"
    assert api.as_user(staff.user).post(url(played)).status_code == 202


def test_a_recorded_or_missing_chouette_has_no_analysis(api, members, open_chouette, sent):  # noqa: F811
    recorded = open_chouette("alice", "bob", "carol")
    client = api.as_user(members["alice"].user)
    for chouette_url in (url(recorded), "/api/chouettes/999999/analysis/"):
        assert client.get(chouette_url).status_code == 404
        assert client.post(chouette_url).status_code == 404
