"""What every endpoint shares (docs/api.md): JSON errors on any path and any method, one
view class per operation, input taken exactly as the schema says, lists paged one way,
errors and limits in the schema."""

import json

import pytest
from django.test import Client, RequestFactory
from django.utils import translation

from club import services
from club.models import MatchResult
from web.api_errors import csrf_failure

pytestmark = pytest.mark.django_db

METHODS = ["get", "post", "put", "patch", "delete"]


# Bad input on any path is JSON ------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", ["/api/nothing-here/", "/api/players", "/api/x/y/z"])
def test_unknown_api_paths_are_a_json_404_to_every_method(method, path):
    # A real browser's client: CSRF checks on, as they are for anyone but the test client.
    response = getattr(Client(enforce_csrf_checks=True), method)(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize("method", METHODS)
def test_unknown_api_paths_are_a_json_404_to_a_logged_in_session_too(method, make_player):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_player("alice").user)
    body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
    response = getattr(client, method)("/api/nothing-here/", **body)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_a_path_with_a_newline_is_a_json_404(client):
    response = client.get("/api/players/a%0Ab/ledger/")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_a_session_write_without_its_csrf_token_is_a_json_403(make_player, staff):
    make_player("alice")
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff.user)
    response = client.post(
        "/api/ledger/payments/",
        {"payer": "alice", "payee": "club", "amount": "5.00"},
        content_type="application/json",
    )
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "forbidden"
    assert "CSRF" in body["detail"]


def test_the_csrf_failure_view_answers_json_under_api_and_the_page_elsewhere():
    factory = RequestFactory()
    api = csrf_failure(factory.post("/api/results/"), reason="CSRF cookie not set.")
    assert api.status_code == 403
    assert api["Content-Type"] == "application/json"
    assert json.loads(api.content)["error"] == "forbidden"
    page = csrf_failure(factory.post("/login/"), reason="CSRF cookie not set.")
    assert page.status_code == 403
    assert page["Content-Type"].startswith("text/html")


def test_a_page_form_without_its_csrf_token_gets_django_s_page(make_player):
    make_player("alice")
    response = Client(enforce_csrf_checks=True).post("/login/", {"username": "alice"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")


# One view class per operation -----------------------------------------------------------


def test_a_shared_path_answers_each_method_with_its_own_class(api, make_player, staff):
    alice = make_player("alice")
    make_player("bob")
    member = api.as_user(alice.user)
    assert member.get("/api/results/").status_code == 200  # any member lists
    refused = member.post("/api/results/", {"winner": "alice", "loser": "bob", "length": 3})
    assert refused.status_code == 403  # only staff record
    api.as_user(staff.user)
    created = api.post(
        "/api/results/", {"winner": "alice", "loser": "bob", "length": 3}, format="json"
    )
    assert created.status_code == 201
    assert MatchResult.objects.count() == 1


def test_a_method_no_class_of_a_shared_path_answers_is_a_json_405_naming_the_others(staff_api):
    response = staff_api.delete("/api/results/")
    assert response.status_code == 405
    assert response["Allow"] == "GET, POST, OPTIONS"
    assert response.json()["error"] == "method_not_allowed"
    assert staff_api.head("/api/results/").status_code == 200
    options = staff_api.options("/api/results/")
    assert options.status_code == 200
    assert options["Allow"] == "GET, POST, OPTIONS"


# Input exactly as the schema says ----------------------------------------------------


@pytest.fixture
def two_players(make_player):
    return make_player("alice"), make_player("bob")


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ({"rate": False}, "rate", "There is no such field."),  # a typo is not "rated"
        ({"length": "5"}, "length", "Must be a whole number."),
        ({"length": 5.0}, "length", "Must be a whole number."),
        ({"length": True}, "length", "Must be a whole number."),
        ({"rated": "false"}, "rated", "Must be true or false."),
        ({"rated": 0}, "rated", "Must be true or false."),
        ({"winner": 7}, "winner", "Must be a string."),
        ({"winner": " alice"}, "winner", "This value does not match the required pattern."),
    ],
)
def test_input_is_taken_exactly_as_the_schema_says_or_refused(
    staff_api, two_players, extra, field, message
):
    body = {"winner": "alice", "loser": "bob", "length": 5, **extra}
    response = staff_api.post("/api/results/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid"
    assert response.json()["fields"][field] == [message]
    assert not MatchResult.objects.exists()


def test_the_api_reads_json_only(staff_api, two_players):
    response = staff_api.post("/api/results/", {"winner": "alice", "loser": "bob", "length": 5})
    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"


# Lists: one way to page ----------------------------------------------------------------


@pytest.fixture
def fifty_one_results(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    for _ in range(51):
        services.match_result_record(winner=alice, loser=bob, length=1, rated=False)


def test_a_list_pages_fifty_at_a_time(api, fifty_one_results, make_player):
    client = api.as_user(make_player("carol").user)
    first = client.get("/api/results/").json()
    assert first["count"] == 51
    assert len(first["results"]) == 50
    assert first["previous"] is None
    assert first["next"].endswith("/api/results/?page=2")
    second = client.get(first["next"]).json()
    assert len(second["results"]) == 1 and second["next"] is None
    assert second["results"][0]["id"] == min(MatchResult.objects.values_list("id", flat=True))


@pytest.mark.parametrize(
    ("page", "status", "error"),
    [
        ("3", 404, "not_found"),
        ("0", 400, "invalid"),
        ("two", 400, "invalid"),
        ("last", 400, "invalid"),
    ],
)
def test_a_page_past_the_end_is_unknown_and_a_page_that_is_no_number_is_malformed(
    staff_api, fifty_one_results, page, status, error
):
    response = staff_api.get(f"/api/results/?page={page}")
    assert response.status_code == status
    assert response.json()["error"] == error


def test_the_leaderboard_ranks_over_the_whole_club_on_every_page(api, make_player):
    players = [make_player(f"p{n:02d}") for n in range(51)]
    services.match_result_record(winner=players[50], loser=players[0], length=5)
    client = api.as_user(players[1].user)
    first = client.get("/api/leaderboard/").json()
    last = client.get("/api/leaderboard/?page=2").json()["results"]
    assert first["results"][0] == {**first["results"][0], "rank": 1, "username": "p50"}
    assert [row["rank"] for row in first["results"]] == list(range(1, 51))
    assert last == [{**last[0], "rank": 51, "username": "p00"}]


def test_a_filter_that_names_nobody_is_an_empty_list_and_an_empty_one_filters_nothing(
    staff_api, fifty_one_results
):
    body = staff_api.get("/api/results/?player=nobody").json()
    assert (body["count"], body["results"]) == (0, [])
    assert staff_api.get("/api/results/?player=").json()["count"] == 51
    refused = staff_api.get("/api/results/?player=al%20ice")
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid"


# The schema says all of it -----------------------------------------------------------


@pytest.fixture
def schema(client):
    return client.get("/api/schema/?format=json").json()


def operation(schema, method, path):
    return schema["paths"][path][method]


def test_every_error_answer_is_documented_with_the_error_body(schema):
    assert schema["components"]["schemas"]["ErrorOutput"]["required"] == ["detail", "error"]
    for path, methods in schema["paths"].items():
        for method, described in methods.items():
            for status, response in described["responses"].items():
                if not status.startswith("2"):
                    body = response["content"]["application/json"]["schema"]
                    assert body == {"$ref": "#/components/schemas/ErrorOutput"}, (path, method)


@pytest.mark.parametrize(
    ("method", "path", "errors"),
    [
        ("post", "/api/auth/token/", ["400", "413", "429", "503"]),
        ("get", "/api/leaderboard/", ["400", "401", "404", "503"]),  # 400, 404: the page
        ("post", "/api/results/", ["400", "401", "403", "404", "413", "429", "503"]),
        ("get", "/api/results/{id}/", ["401", "404", "503"]),
        ("post", "/api/players/", ["400", "401", "403", "409", "413", "429", "503"]),
        ("get", "/api/players/{username}/", ["401", "404", "503"]),
        ("get", "/api/players/{username}/ledger/", ["400", "401", "403", "404", "503"]),
    ],
)
def test_each_operation_documents_the_errors_it_can_answer(schema, method, path, errors):
    responses = operation(schema, method, path)["responses"]
    assert sorted(status for status in responses if not status.startswith("2")) == errors


def test_request_bodies_refuse_what_they_do_not_declare(schema):
    for name in ("ResultInput", "PaymentInput", "PlayerInput", "TokenInput"):
        assert schema["components"]["schemas"][name]["additionalProperties"] is False


def test_the_schema_states_the_limits(schema):
    components = schema["components"]["schemas"]
    length = components["ResultInput"]["properties"]["length"]
    assert (length["minimum"], length["maximum"]) == (1, 64)
    amount = components["PaymentInput"]["properties"]["amount"]
    assert (amount["type"], amount["minimum"], amount["maximum"]) == ("string", 0.01, 100000.0)
    assert amount["pattern"].startswith("^")
    winner = components["ResultInput"]["properties"]["winner"]
    assert winner["pattern"] == "^[A-Za-z0-9_.@+-]{1,150}$"
    assert "5 minutes" in components["ResultInput"]["properties"]["played_at"]["description"]
    result_id = operation(schema, "get", "/api/results/{id}/")["parameters"][0]["schema"]
    assert (result_id["minimum"], result_id["maximum"]) == (1, 2**63 - 1)


def test_lists_and_their_filters_are_in_the_schema(schema):
    listed = operation(schema, "get", "/api/results/")
    parameters = {p["name"]: p for p in listed["parameters"]}
    assert parameters["page"]["schema"] == {"type": "integer", "minimum": 1}
    assert parameters["player"]["schema"]["pattern"] == "^([A-Za-z0-9_.@+-]{1,150})?$"
    page = listed["responses"]["200"]["content"]["application/json"]["schema"]
    assert page == {"$ref": "#/components/schemas/PaginatedResultOutputList"}
    paged = schema["components"]["schemas"]["PaginatedResultOutputList"]
    assert set(paged["properties"]) == {"count", "next", "previous", "results"}


def test_error_details_speak_the_language_asked_for(staff_api, two_players):
    response = staff_api.post(
        "/api/results/",
        {"winner": "alice", "loser": "bob", "length": 5, "rate": False},
        format="json",
        headers={"accept-language": "bg"},
    )
    assert response.json()["fields"] == {"rate": ["Няма такова поле."]}
    assert response.json()["error"] == "invalid"  # codes are for programs: never translated
    response = staff_api.post(
        "/api/ledger/payments/",
        {"payer": "alice", "payee": "bob", "amount": "1e9"},
        format="json",
        headers={"accept-language": "el"},
    )
    english = 'Must be an amount from 0.01 to %(most)s with at most two places, like "12.50".'
    with translation.override("el"):
        greek = translation.gettext(english) % {"most": "100000.00"}
    assert greek != english % {"most": "100000.00"}
    assert response.json()["fields"]["amount"] == [greek]
