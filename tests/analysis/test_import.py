"""POST /api/matches/import/: a match played elsewhere, uploaded as a .mat file, is
stored and analysed like a finished match; bad files, strangers and unknown members
are refused with a clear error and nothing stored (docs/analysis.md, "Imported matches")."""

import pytest

from analysis import services
from analysis.models import ImportedMatch, MatchAnalysis
from club.models import MatchResult
from tests.analysis.conftest import mat_file
from tests.analysis.running import analyse_now

URL = "/api/matches/import/"


def upload(client, text, **fields):
    return client.post(URL, {**fields, "file": mat_file(text)}, format="multipart")


def nothing_stored():
    return not ImportedMatch.objects.exists() and not MatchAnalysis.objects.exists()


def test_a_player_imports_a_match_and_it_is_analysed(
    api, alice, bob, mat_text, sent, django_capture_on_commit_callbacks
):
    ratings = (alice.rating, bob.rating)
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(api.as_user(alice.user), mat_text)
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["length"] == 3 and body["games"] == 3
    assert body["players"] == [
        {"name": "alice", "username": "alice"},
        {"name": "bob", "username": "bob"},
    ]
    # Started by the upload itself: its job went to the engine worker, the games read.
    assert body["analysis"]["status"] == "running"
    analysis = MatchAnalysis.objects.get(imported_id=body["id"])
    assert sent == [analysis.pk]
    assert analyse_now(analysis, job=sent.jobs[analysis.pk]) == "done"
    read = api.as_user(bob.user).get(f"{URL}{body['id']}/analysis/").json()
    assert read["status"] == "done" and read["progress"] == 1.0
    assert [p["username"] for p in read["players"]] == ["alice", "bob"]
    assert [g["number"] for g in read["games"]] == [1, 2, 3]
    assert all(p["decisions"] > 0 for p in read["players"])
    assert {f.player for f in analysis.players.all()} == {alice, bob}
    # Unrated: an imported match records no result and moves no rating.
    assert not MatchResult.objects.exists()
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert (alice.rating, bob.rating) == ratings


def test_names_that_are_no_members_are_guests_or_mapped(
    api, alice, mat_text, sent, django_capture_on_commit_callbacks
):
    text = mat_text.replace('"alice"', '"Alice Smith"').replace('"bob"', '"Zed"')
    text = text.replace(" alice : ", " Alice Smith : ").replace(" bob : ", " Zed : ")
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(api.as_user(alice.user), text, player_1="alice")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["players"] == [
        {"name": "Alice Smith", "username": "alice"},
        {"name": "Zed", "username": None},
    ]
    analysis = MatchAnalysis.objects.get(imported_id=answer.json()["id"])
    analyse_now(analysis, job=sent.jobs[analysis.pk])
    guest = analysis.players.get(side=1)
    assert guest.username == "Zed" and guest.player is None


def test_staff_may_import_a_match_of_guests(api, staff, mat_text, sent):
    text = mat_text.replace('"alice"', '"Xena"').replace('"bob"', '"Yuri"')
    answer = upload(api.as_user(staff.user), text)
    assert answer.status_code == 201
    assert [p["username"] for p in answer.json()["players"]] == [None, None]


def test_a_stranger_may_not_import_a_match_of_others(api, alice, bob, carol, mat_text, sent):
    answer = upload(api.as_user(carol.user), mat_text)
    assert answer.status_code == 403 and answer.json()["error"] == "forbidden"
    assert "player_1" in answer.json()["detail"]
    assert nothing_stored() and sent == []


def test_a_corrupt_file_names_the_game_and_move_of_its_first_problem(
    api, alice, bob, mat_text, sent
):
    # Game 2, move 2: alice's 23 played with a 1.
    corrupt = mat_text.replace("23: 13/10 13/11", "23: 13/10 13/12", 1)
    assert corrupt != mat_text
    answer = upload(api.as_user(alice.user), corrupt)
    assert answer.status_code == 400
    body = answer.json()
    assert body["error"] == "invalid" and body["reason"] == "invalid_mat"
    assert "game 2, move 2" in body["detail"]
    assert nothing_stored() and sent == []


@pytest.mark.parametrize(
    "content",
    [b"", b"\x00\xff\xfe not a match at all", b'; [Player 1 "a"]\n 3 point match\n'],
    ids=["empty", "binary", "no-game"],
)
def test_a_file_that_is_no_match_is_refused(api, alice, content, sent):
    answer = upload(api.as_user(alice.user), content)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid"
    assert nothing_stored()


def test_a_nul_character_is_refused_even_where_the_format_ignores_it(api, alice, mat_text, sent):
    answer = upload(api.as_user(alice.user), "; a comment \x00\n" + mat_text)
    assert answer.status_code == 400 and "NUL" in answer.json()["detail"]
    assert nothing_stored()


def test_a_file_too_large_is_refused(api, alice, mat_text, settings, sent):
    settings.ANALYSIS_IMPORT_MAX_BYTES = len(mat_text.encode()) - 1
    answer = upload(api.as_user(alice.user), mat_text)
    assert answer.status_code == 413 and answer.json()["error"] == "too_large"
    assert nothing_stored()


def test_a_body_over_the_request_limit_is_refused_before_it_is_read(api, alice, settings, sent):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    answer = upload(api.as_user(alice.user), b"x" * 2000)
    assert answer.status_code == 413 and answer.json()["error"] == "too_large"
    assert nothing_stored()


def test_a_mapping_to_no_member_or_to_one_member_twice_is_refused(api, alice, bob, mat_text, sent):
    client = api.as_user(alice.user)
    answer = upload(client, mat_text, player_2="nobody")
    assert answer.status_code == 400 and "nobody" in answer.json()["detail"]
    answer = upload(client, mat_text, player_2="alice")
    assert answer.status_code == 400
    answer = upload(client, mat_text, player_3="alice")
    assert answer.status_code == 400 and "player_3" in answer.json()["fields"]
    assert nothing_stored()


def test_only_a_file_upload_is_taken(api, alice, sent):
    answer = api.as_user(alice.user).post(URL, {"file": "x"}, format="json")
    assert answer.status_code == 415
    assert answer.json()["error"] == "unsupported_media_type"
    api.credentials()  # logged out
    assert api.post(URL, {}, format="multipart").status_code == 401
    assert nothing_stored()


def test_an_unknown_import_is_not_found(api, alice):
    answer = api.as_user(alice.user).get(f"{URL}999999/analysis/")
    assert answer.status_code == 404 and answer.json()["error"] == "not_found"


# Asking again: POST /api/matches/import/{id}/analysis/ ------------------------------------


@pytest.fixture
def imported(api, alice, bob, mat_text, sent, django_capture_on_commit_callbacks):
    """alice's upload of her match with bob, its analysis running (its job sent)."""
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(api.as_user(alice.user), mat_text)
    assert answer.status_code == 201
    return ImportedMatch.objects.get(pk=answer.json()["id"])


def ask_again(client, imported, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(f"{URL}{imported.pk}/analysis/")


def test_the_uploader_asks_again_for_a_failed_analysis(
    api, alice, imported, sent, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(imported=imported)
    services.analysis_fail(analysis_id=analysis.pk, message="The engine failed: boom")
    answer = ask_again(api.as_user(alice.user), imported, django_capture_on_commit_callbacks)
    assert answer.status_code == 202
    assert answer.json()["status"] == "queued" and answer.json()["error"] == ""
    assert sent == [analysis.pk, analysis.pk]


def test_a_done_analysis_at_the_same_depth_is_not_queued_again(
    api, alice, imported, sent, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(imported=imported)
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status="done", progress=1.0, plies=0)
    answer = ask_again(api.as_user(alice.user), imported, django_capture_on_commit_callbacks)
    assert answer.status_code == 202 and answer.json()["status"] == "done"
    assert sent == [analysis.pk]


def test_a_deeper_setting_queues_an_import_again(
    api, alice, imported, sent, settings, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(imported=imported)
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status="done", progress=1.0, plies=0)
    settings.ANALYSIS_PLIES = 1
    answer = ask_again(api.as_user(alice.user), imported, django_capture_on_commit_callbacks)
    assert answer.status_code == 202 and answer.json()["status"] == "queued"
    assert sent == [analysis.pk, analysis.pk]


def test_staff_may_ask_again_a_stranger_may_not(
    api, bob, carol, staff, imported, sent, django_capture_on_commit_callbacks
):
    # bob played in the match alice uploaded: asking is the uploader's (and staff's).
    for stranger in (bob, carol):
        answer = ask_again(api.as_user(stranger.user), imported, django_capture_on_commit_callbacks)
        assert answer.status_code == 403 and answer.json()["error"] == "forbidden"
        assert "uploaded" in answer.json()["detail"]
    answer = ask_again(api.as_user(staff.user), imported, django_capture_on_commit_callbacks)
    assert answer.status_code == 202 and answer.json()["status"] == "running"
    assert len(sent) == 1  # on its way already: not sent again


def test_asking_for_an_unknown_import_is_not_found(api, alice, sent):
    answer = api.as_user(alice.user).post(f"{URL}999999/analysis/")
    assert answer.status_code == 404 and answer.json()["error"] == "not_found"
    assert sent == []
