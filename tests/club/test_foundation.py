"""The service skeleton: pages, health, auth, players API and the error shape."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from club.auth import TokenAuthentication
from club.models import Player
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_home_page_renders_with_navigation(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for path in ("/play/", "/chouettes/", "/tournaments/", "/players/", "/ledger/"):
        assert f'href="{path}"' in html


@pytest.mark.parametrize("path", ["/play/", "/chouettes/", "/tournaments/", "/players/"])
def test_every_navigation_page_renders_for_a_member(client, make_player, path):
    client.force_login(make_player("alice").user)
    assert client.get(path).status_code == 200


def test_the_lobby_asks_a_visitor_to_log_in(client):
    response = client.get("/play/")
    assert response.status_code == 302
    assert response.url == "/login/?next=/play/"


def test_admin_link_shown_to_staff_only(client, make_player, staff):
    alice = make_player("alice")
    client.force_login(alice.user)
    assert "/admin/" not in client.get("/").content.decode()
    client.force_login(staff.user)
    assert "/admin/" in client.get("/").content.decode()


def test_login_and_logout_pages(client, make_player):
    make_player("alice")
    assert client.get("/login/").status_code == 200
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert "alice" in client.get("/").content.decode().lower()
    client.post("/logout/")
    assert "_auth_user_id" not in client.session


def test_login_page_says_credentials_are_wrong_without_saying_which(client, make_player):
    make_player("alice")
    response = client.post("/login/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "Wrong username or password" in response.content.decode()


def test_healthz_ok_when_database_and_broker_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_healthz_503_names_the_broker_when_it_is_down(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_BROKER_TRANSPORT = None  # Redis's own (the filesystem's is web.broker's)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["problems"][0].startswith("broker:")


def test_admin_login_page(client):
    assert client.get("/admin/login/").status_code == 200


def test_api_docs_and_schema_served_without_network(client):
    assert client.get("/api/docs/").status_code == 200
    html = client.get("/api/docs/").content.decode()
    assert "cdn" not in html.lower()
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/players/{username}/" in schema.content


def test_token_for_right_credentials(api, make_player):
    make_player("alice")
    response = api.post(
        "/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    assert len(response.json()["token"]) == 40


@pytest.mark.parametrize(
    "credentials",
    [{"username": "alice", "password": "wrong"}, {"username": "nobody", "password": PASSWORD}],
)
def test_wrong_credentials_are_400_without_saying_which(api, make_player, credentials):
    make_player("alice")
    response = api.post("/api/auth/token/", credentials, format="json")
    assert response.status_code == 400
    assert response.json() == {"error": "invalid", "detail": "Wrong username or password."}


def test_staff_creates_a_player(staff_api):
    response = staff_api.post(
        "/api/players/",
        {"username": "gina", "password": "s3cret-pw", "display_name": "Gina"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json() == {
        "username": "gina",
        "display_name": "Gina",
        "rating": 1500.0,
        "experience": 0,
        "tavli_rating": 1500.0,
        "tavli_experience": 0,
        "balance": "0.00",
    }
    assert get_user_model().objects.get(username="gina").check_password("s3cret-pw")


def test_a_player_may_not_create_players(api, make_player):
    alice = make_player("alice")
    response = api.as_user(alice.user).post(
        "/api/players/", {"username": "gina", "password": "s3cret-pw"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
    assert not Player.objects.filter(user__username="gina").exists()


def test_a_token_reads_its_user_and_player_in_one_query_and_refuses_as_drf_does(
    api, make_player, django_assert_num_queries
):
    alice = make_player("alice")
    client = api.as_user(alice.user)
    request = client.get("/api/players/alice/").wsgi_request
    cache.clear()  # the request stored the token (tests/club/test_auth_cache.py): a miss
    with django_assert_num_queries(1):
        user, _token = TokenAuthentication().authenticate(request)
        assert user.player == alice
    with django_assert_num_queries(0):  # now a hit
        user, _token = TokenAuthentication().authenticate(request)
        assert user.player == alice
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert client.get("/api/players/alice/").json() == {
        "error": "not_authenticated",
        "detail": "Invalid token.",
    }
    alice.user.is_active = False
    alice.user.save()
    refused = api.as_user(alice.user).get("/api/players/alice/")
    assert refused.status_code == 401
    assert refused.json()["detail"] == "User inactive or deleted."


def test_anonymous_gets_401_json(api):
    response = api.get("/api/players/alice/")
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


@pytest.mark.parametrize(
    ("username", "why"), [("alice", "taken"), ("ALICE", "taken"), ("club", "reserved")]
)
def test_a_taken_username_is_a_conflict_and_nothing_changes(staff_api, make_player, username, why):
    make_player("alice")
    before = Player.objects.count()
    response = staff_api.post(
        "/api/players/", {"username": username, "password": "s3cret-pw"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["error"] == "conflict"
    assert why in response.json()["detail"]
    assert Player.objects.count() == before


def test_missing_fields_say_which(staff_api):
    response = staff_api.post("/api/players/", {"username": "gina"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid"
    assert "password" in body["detail"]


def test_get_player(api, make_player):
    alice = make_player("alice", display_name="Alice A.")
    response = api.as_user(alice.user).get("/api/players/alice/")
    assert response.status_code == 200
    assert response.json()["display_name"] == "Alice A."


def test_unknown_player_is_404_json(staff_api):
    response = staff_api.get("/api/players/nobody/")
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "detail": "There is no player called nobody."}


@pytest.mark.parametrize("path", ["/api/nothing-here/", "/api/players", "/api/x/y/z"])
def test_unknown_api_paths_are_404_json(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_malformed_json_is_400(staff_api):
    response = staff_api.post("/api/players/", data="{not json", content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "malformed"
    assert "JSON" in body["detail"]


def test_staff_add_a_player_in_the_admin(client, staff):
    client.force_login(staff.user)
    response = client.post(
        "/admin/club/player/add/",
        {"username": "gina", "password": "s3cret-pw", "display_name": "Gina"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    player = Player.objects.get(user__username="gina")
    assert player.display_name == "Gina"
    assert player.user.check_password("s3cret-pw")


def test_healthz_503_names_the_database_when_it_is_down(tmp_path):
    """A real unreachable PostgreSQL, in a separate process with its own settings."""
    import os
    import subprocess
    import sys

    from django.conf import settings as django_settings

    probe = (
        "from django.test import Client; "
        "r = Client().get('/healthz'); "
        "print(r.status_code, r.json()['problems'][0].split(':')[0])"
    )
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/nothing",
        "VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "ALLOWED_HOSTS": "testserver",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", probe],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.strip().splitlines()[-1] == "503 database", result.stderr[-2000:]
