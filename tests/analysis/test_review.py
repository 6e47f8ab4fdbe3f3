"""The review page of a match: every decision with the board its decider saw, the dice,
the play made and the best, the loss, blunders highlighted; stepped by a static script
(no inline script or style)."""

import re

import pytest

from analysis import services
from analysis.engine import Engine, analyse_match
from analysis.models import MatchAnalysis
from analysis.selectors import _states_by_roll
from analysis.selfplay import Player, best, play_match, worst
from matches.demo import play_on
from tests.analysis.running import analyse_now
from tests.matches.conftest import start


@pytest.fixture
def finished(alice, bob, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    with django_capture_on_commit_callbacks(execute=True):
        return play_on(start(alice, bob, length=3))


def review(client, user, match):
    client.force_login(user)
    return client.get(f"/play/{match.pk}/review/").content.decode()


def test_every_decision_is_shown_with_its_board(client, alice, api, finished):
    analysis = MatchAnalysis.objects.get(match=finished)
    analyse_now(analysis)
    body = api.as_user(alice.user).get(f"/api/matches/{finished.pk}/analysis/").json()
    html = review(client, alice.user, finished)
    items = re.findall(r'<li class="decision([^"]*)" data-game="(\d+)">', html)
    decisions = [d for g in body["games"] for d in g["decisions"]]
    assert len(items) == len(decisions) and html.count(
        '<svg xmlns="http://www.w3.org/2000/svg" class="board'
    ) == len(decisions)
    for (classes, _game), decision in zip(items, decisions, strict=True):
        assert ("mark-blunder" in classes) == (decision["mark"] == "blunder")
    assert any(d["mark"] for d in decisions)  # play_on plays the first legal play
    assert [int(n) for n in re.findall(r'id="game-(\d+)"', html)] == [
        g["number"] for g in body["games"]
    ]
    first = decisions[0]
    assert first["kind"] == "checker"
    assert f'<dd class="played">{first["played"]}</dd>' in html
    assert f'<dd class="best">{first["best"]}</dd>' in html
    assert "analysis/review.js" in html
    page = html[html.index("<main") :]
    assert "style=" not in page and "<style" not in page
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == []


def test_a_match_not_analysed_says_so(client, alice, finished):
    MatchAnalysis.objects.filter(match=finished).delete()
    assert "This match has not been analysed." in review(client, alice.user, finished)


def test_a_queued_analysis_says_so(client, alice, finished):
    assert "Analysis queued" in review(client, alice.user, finished)


def test_the_review_is_for_members(client, finished):
    answer = client.get(f"/play/{finished.pk}/review/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]


def test_every_decision_the_engine_makes_has_its_board_state():
    """The page finds each decision's position the way the engine numbers them, cube
    decisions and answers included."""
    engine = Engine(0)
    record = play_match(engine, (Player("alice", best), Player("bob", worst)), 7, seed=3)
    judged = analyse_match(engine, record)
    answers = 0
    for game, decisions in zip(record.games, judged, strict=True):
        states = _states_by_roll(game)
        for d in decisions:
            answer = d.played in ("take", "pass", "beaver")
            answers += answer
            state = states[("answer" if answer else d.kind.value, d.move_number)]
            deciding = state.turn if answer else state.on_roll
            assert deciding == d.side
    assert answers > 0
