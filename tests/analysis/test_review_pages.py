"""The review pages beyond a match's: an imported match's (reached by the upload page)
and an online chouette's games (whose cube each decision is on), the one template and
script of the match's review; who may see them: any member (docs/analysis.md, "The
review pages")."""

import re

from analysis import services
from analysis.models import ImportedMatch, MatchAnalysis
from tests.analysis.conftest import mat_file
from tests.analysis.running import analyse_now
from tests.analysis.test_chouette_app import played  # noqa: F401  (fixture)
from tests.chouette.conftest import members, open_chouette  # noqa: F401  (fixtures)

BOARD = '<svg xmlns="http://www.w3.org/2000/svg" class="board'


def upload(client, text, **fields):
    return client.post("/play/import/", {**fields, "file": mat_file(text)})


def decisions_shown(html):
    return re.findall(r'<li class="decision([^"]*)" data-game="(\d+)">', html)


def without_inline_code(html):
    page = html[html.index("<main") :]
    return "style=" not in page and not re.findall(r"<script(?![^>]*\bsrc=)", page)


# The upload page and an imported match's review ---------------------------------------


def test_a_member_uploads_a_match_and_reviews_it(
    client, api, alice, bob, mat_text, sent, django_capture_on_commit_callbacks
):
    client.force_login(alice.user)
    form = client.get("/play/import/")
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(client, mat_text)
    imported = ImportedMatch.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/play/imported/{imported.pk}/review/"
    analysis = MatchAnalysis.objects.get(imported=imported)
    waiting = client.get(answer["Location"]).content.decode()
    assert "Analysis running: 0%" in waiting
    assert f'data-live-topic="analysis:{analysis.pk}"' in waiting
    assert "analysis/progress.js" in waiting and without_inline_code(waiting)
    assert analyse_now(analysis, job=sent.jobs[analysis.pk]) == "done"
    body = api.as_user(bob.user).get(f"/api/matches/import/{imported.pk}/analysis/").json()
    decisions = [d for g in body["games"] for d in g["decisions"]]
    client.force_login(bob.user)
    html = client.get(answer["Location"]).content.decode()
    shown = decisions_shown(html)
    assert len(shown) == len(decisions) == html.count(BOARD)
    for (classes, _game), decision in zip(shown, decisions, strict=True):
        assert ("mark-blunder" in classes) == (decision["mark"] == "blunder")
    assert [int(n) for n in re.findall(r'id="game-(\d+)"', html)] == [1, 2, 3]
    assert f'<dd class="played">{decisions[0]["played"]}</dd>' in html
    assert "analysis/review.js" in html and "Analysis running" not in html
    assert without_inline_code(html)


def test_the_upload_page_says_what_is_wrong_and_stores_nothing(client, alice, carol, settings):
    client.force_login(alice.user)
    corrupt = upload(client, " 1 point match\n\n Game 1\n alice : 0   bob : 0\n  1) 31: 24/21\n")
    assert corrupt.status_code == 200
    assert "The file is not a match the club can read" in corrupt.content.decode()
    settings.ANALYSIS_IMPORT_MAX_BYTES = 10
    too_large = upload(client, "x" * 11)
    assert "A .mat file is at most 10 bytes." in too_large.content.decode()
    assert not ImportedMatch.objects.exists() and not MatchAnalysis.objects.exists()


def test_a_stranger_may_not_upload_a_match_of_others(client, alice, bob, carol, mat_text, sent):
    client.force_login(carol.user)
    answer = upload(client, mat_text)
    assert answer.status_code == 200 and "You may import only a match you played in" in (
        answer.content.decode()
    )
    named = upload(client, mat_text, player_2="carol")
    assert named.status_code == 302 and ImportedMatch.objects.get().player_2 == carol


def test_an_imported_review_is_for_members(client, alice, mat_text, sent):
    client.force_login(alice.user)
    upload(client, mat_text)
    path = f"/play/imported/{ImportedMatch.objects.get().pk}/review/"
    assert client.get("/play/imported/999999/review/").status_code == 404
    client.logout()
    for address in (path, "/play/import/"):
        answer = client.get(address)
        assert answer.status_code == 302 and "/login/" in answer["Location"]


def test_a_failed_imports_review_offers_its_uploader_to_analyse_again(
    client, alice, bob, staff, mat_text, sent
):
    client.force_login(alice.user)
    review = upload(client, mat_text)["Location"]
    imported = ImportedMatch.objects.get()
    analysis = MatchAnalysis.objects.get(imported=imported)
    services.analysis_fail(analysis_id=analysis.pk, message="The engine failed: boom")
    asks = (
        f'<form class="inline" data-analysis-request="/api/matches/import/{imported.pk}/analysis/">'
    )
    for page in (review, f"/analysis/{analysis.pk}/progress/"):
        html = client.get(page).content.decode()
        assert "The analysis failed: The engine failed: boom" in html
        assert asks in html and "Analyse again" in html and "csrfmiddlewaretoken" in html
    client.force_login(staff.user)
    assert asks in client.get(review).content.decode()
    # bob played in the match alice uploaded: asking again is the uploader's and staff's.
    client.force_login(bob.user)
    watched = client.get(review).content.decode()
    assert "The engine failed: boom" in watched and "Analyse again" not in watched


# A chouette's review ------------------------------------------------------------------


def test_a_chouettes_games_are_reviewed_with_whose_cube(client, members, played, sent):  # noqa: F811
    analysis = MatchAnalysis.objects.get(table=played.table, game_number=1)
    client.force_login(members["erin"].user)  # any member: not one of its players
    waiting = client.get(f"/chouettes/{played.pk}/review/").content.decode()
    assert "Analysis queued" in waiting and not decisions_shown(waiting)
    assert analyse_now(analysis) == "done"
    html = client.get(f"/chouettes/{played.pk}/review/").content.decode()
    decisions = list(analysis.decisions.all())
    assert len(decisions_shown(html)) == len(decisions) == html.count(BOARD)
    assert 'id="game-1"' in html and without_inline_code(html)
    cubes = re.findall(r'<dd class="cube-of">(\w+)</dd>', html)
    assert set(cubes) == {"bob", "carol", "dave"}
    assert len(cubes) == sum(1 for d in decisions if d.kind == "cube")
    players = set(re.findall(r'<dd class="player">(\w+)</dd>', html))
    assert "alice" in players and players <= {"alice", "bob", "carol", "dave"}
    figures = re.findall(r"<tr><td>(\w+)</td><td class=\"num\">", html)
    assert figures == ["alice", "bob", "carol", "dave"]
    table = client.get(f"/chouettes/{played.pk}/").content.decode()
    assert f'href="/chouettes/{played.pk}/review/"' in table


def test_a_chouette_not_played_online_has_no_review(client, members, open_chouette):  # noqa: F811
    client.force_login(members["alice"].user)
    recorded = open_chouette("alice", "bob", "carol")
    assert client.get(f"/chouettes/{recorded.pk}/review/").status_code == 404
    assert client.get("/chouettes/999999/review/").status_code == 404
    assert "chouette-review" not in client.get(f"/chouettes/{recorded.pk}/").content.decode()
    online = open_chouette("alice", "bob", "carol", mode="online")
    html = client.get(f"/chouettes/{online.pk}/review/").content.decode()
    assert "No game of this chouette is over yet" in html


# The player page's links ----------------------------------------------------------------


def test_the_player_page_links_each_game_analysed_to_its_review(
    client, alice, bob, mat_text, sent, django_capture_on_commit_callbacks
):
    client.force_login(alice.user)
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, mat_text)
    imported = ImportedMatch.objects.get()
    analysis = MatchAnalysis.objects.get(imported=imported)
    page = client.get("/players/alice/").content.decode()
    assert 'href="/play/import/"' in page and "/review/" not in page
    analyse_now(analysis, job=sent.jobs[analysis.pk])
    page = client.get("/players/alice/").content.decode()
    assert f'href="/play/imported/{imported.pk}/review/"' in page
