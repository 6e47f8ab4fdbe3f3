"""The error rate over time on the club's pages: the PR history chart on the player page
(drawn by the rating chart's code) and the club's PR table beside the ratings, each
filtered by game kind; no inline script or style (docs/analysis.md, "PR over time")."""

import re

import pytest

from analysis import services
from analysis.models import MatchAnalysis
from analysis.selectors import GameKind, pr_history, pr_table
from matches.demo import play_on
from tests.analysis.running import analyse_now
from tests.matches.conftest import start


@pytest.fixture
def analysed(alice, bob, monkeypatch, django_capture_on_commit_callbacks):
    """Two 1-point matches between alice and bob, each analysed."""
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            match = play_on(start(alice, bob, length=1))
        analysis = MatchAnalysis.objects.get(match=match)
        assert analyse_now(analysis) == "done"


def no_inline_code(html: str) -> bool:
    return "<script" not in html and "style=" not in html and "<style" not in html


def fragment(html: str, start_marker: str, end_marker: str) -> str:
    return html[html.index(start_marker) : html.index(end_marker, html.index(start_marker))]


def test_the_player_page_draws_the_pr_history(client, alice, analysed):
    html = client.get("/players/alice/").content.decode()
    chart = fragment(html, 'id="pr-chart"', "</figure>")
    assert "Error rate (PR) history" in chart and "<polyline" in chart
    points = re.search(r'<polyline class="line" fill="none" points="([^"]+)"', chart)
    assert points is not None and len(points.group(1).split()) == 2
    history = pr_history(player=alice)
    assert f"<title>{history[-1].pr:.1f}</title>" in chart
    assert no_inline_code(fragment(html, 'id="pr-chart"', "</nav>"))


def test_the_chart_filters_by_game_kind(client, alice, analysed):
    html = client.get("/players/alice/?pr_kind=chouette").content.decode()
    chart = fragment(html, 'id="pr-chart"', "</figure>")
    assert "<polyline" not in chart and "Fewer than two games analysed yet" in chart
    assert "<strong>chouettes</strong>" in html


def test_the_club_table_ranks_players_by_pr(client, alice, bob, analysed):
    rows = pr_table()
    assert {row.player.username for row in rows} == {"alice", "bob"}
    assert rows == sorted(rows, key=lambda r: r.pr)
    assert all(row.games == 2 and row.decisions > 0 for row in rows)
    html = client.get("/players/").content.decode()
    table = fragment(html, 'id="pr"', "</table>")
    assert table.index(rows[0].player.display_name) < table.index(rows[1].player.display_name)
    assert f"{rows[0].pr:.1f}" in table
    assert no_inline_code(table)


def test_the_club_table_filters_by_game_kind(client, analysed):
    assert pr_table(kind=GameKind.MONEY) == [] and len(pr_table(kind=GameKind.MATCH)) == 2
    html = client.get("/players/?rating_kind=tavli&pr_kind=money").content.decode()
    section = html[html.index('id="pr"') :]
    assert "No game analysed yet." in section
    # The kind links keep the page's other parameters.
    assert "rating_kind=tavli&amp;pr_kind=match" in section
