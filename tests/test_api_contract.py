"""The API keeps its own contract: schemathesis over every operation of ``/api/schema/``.

Every check schemathesis has (no server errors, only documented status codes, responses
that conform to their schemas, schema-valid requests accepted, schema-violating requests
refused, authentication not ignored...) runs on every operation the schema lists, as a
member of the staff and as a plain player, in-process and against a club with players,
results and books to act on: an endpoint added to the API is inside this test the day it
is written. Settings (how many requests, the one documented exception) are in
``tests/schemathesis.toml``.
"""

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, settings

from analysis import services as analysis_services
from analysis.engine import Engine
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import export_mat
from chouette import online as chouette_online
from chouette import services as chouette_services
from club import money, services
from club.models import Account, SourceKind
from club.parties import CLUB
from club.services import LegSpec
from config.wsgi import application
from matches import selectors as matches_selectors
from matches import services as matches_services
from tests.factories import token_for
from tournaments import services as tournament_services
from web import live

CONFIG = schemathesis.Config.from_path(Path(__file__).with_name("schemathesis.toml"))
schema = schemathesis.openapi.from_wsgi("/api/schema/", application, config=CONFIG)


def _a_moment_a_result_can_have(moment: Any) -> bool:
    """From 1900 on, not ahead of the clock (tests/club/test_ratings.py)."""
    try:
        played_at = datetime.fromisoformat(moment)
        return services.EARLIEST_RESULT <= played_at <= timezone.now() + services.MAX_CLOCK_SKEW
    except (TypeError, ValueError):  # absent, or a date-time Python reads another way
        return True


def _a_match_that_can_be(body: dict[str, Any]) -> bool:
    """tests/matches/test_api_errors.py proves each: a money session (length 0) has a
    stake and is unrated, a match has no stake and none of money play's options (P3),
    autoplay on timeout is for unrated play, a custom clock has some time."""
    money_session = body.get("length") == 0
    options = body.get("options") or {}
    tavli = matches_services.plays_tavli(options=options, tavli=body.get("tavli"))
    rated = body.get("rated", not money_session)
    clock = body.get("clock")
    return (
        # docs/matches.md, tests/matches/test_api_tavli.py: a tavli match takes no variant;
        # the tavli games have no cube and no backgammons (their own rating: docs/ratings.md).
        not ("tavli" in body and "variant" in options)
        and not (tavli and options.get("backgammon_value", 3) != 3)
        and not (tavli and any(options.get(name) for name in MONEY_ONLY_OPTIONS))
        and ("stake" in body) == money_session
        and not (money_session and rated)
        and (money_session or not any(options.get(name) for name in MONEY_ONLY_OPTIONS))
        and (body.get("on_timeout") != "autoplay" or not rated)
        and not (isinstance(clock, dict) and clock.get("delay", 0) + clock.get("reserve", 0) == 0)
    )


MONEY_ONLY_OPTIONS = ("jacoby", "beavers", "automatic_doubles")


def _online_options(body: dict[str, Any]) -> bool:
    options = body.get("options") or {}
    return (
        options.get("turn_time") is not None
        or options.get("consulting", "full") != "full"
        or bool(options.get("same_action"))
        or bool(options.get("automatic_doubles"))
        or options.get("cube_max") is not None
    )


def _same_action_with_multiple_cubes(body: dict[str, Any]) -> bool:
    options = body.get("options") or {}
    return not options.get("same_action") or options.get("cube") == "multiple"


# Rules that tie a field to another field, or to the clock, are more than a schema can
# say. The services enforce them and each has its own test (tests/club/test_ratings.py,
# test_ledger.py); the fuzzer is told them here, so that what it sends as a valid
# request is one. A new rule of that kind gets its line here.
CROSS_FIELD_RULES: dict[tuple[str, str], Callable[[dict[str, Any]], bool]] = {
    ("POST", "/api/results/"): lambda body: (
        body.get("winner") != body.get("loser")
        and _a_moment_a_result_can_have(body.get("played_at"))
    ),
    ("POST", "/api/ledger/payments/"): lambda body: body.get("payer") != body.get("payee"),
    ("POST", "/api/matches/"): _a_match_that_can_be,
    # tests/chouette/test_api.py: the players are different people, an order is them;
    # tests/chouette/test_services.py: the clock and consulting are online options;
    # tests/chouette/test_online_options.py: so are the cube options, and H9 needs
    # multiple cubes.
    ("POST", "/api/chouettes/"): lambda body: (
        len(set(body.get("players", []))) == len(body.get("players", []))
        and sorted(body.get("order", body.get("players", []))) == sorted(body.get("players", []))
        and (body.get("mode") == "online" or not _online_options(body))
        and _same_action_with_multiple_cubes(body)
    ),
}


@schema.hook
def filter_case(context, case):
    """Valid requests only where the schema means them so (``CROSS_FIELD_RULES``); every
    invalid request the fuzzer makes up is sent."""
    rule = CROSS_FIELD_RULES.get((case.method.upper(), case.path))
    meant_valid = case.meta is None or case.meta.generation.mode.is_positive
    if rule is None or not meant_valid or not isinstance(case.body, dict):
        return True
    return rule(case.body)


@pytest.fixture
def in_process_requests():
    """Requests sent straight to the WSGI application stay inside the test's transaction
    (what Django's test client does: no connection closed between requests)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def _double_and_pass(match, *players):
    """The opening play, then a double passed: a match to 1 is over."""
    for act in ("move", "double", "pass"):
        game = matches_selectors.match_detail(match)["game"]
        (player,) = [p for p in players if p.username == game["turn"]]
        play = game["legal_plays"][0] if act == "move" else ""
        match = matches_services.match_act(
            match=match, player=player, turn_no=game["turn_no"], act=act, play=play
        )
    assert match.status == "finished"


def _an_online_chouette(*players, staff):
    """An online chouette with its first game on, alice in the box."""
    order = list(players)
    chouette = chouette_services.chouette_create(
        players=order,
        order=order,
        recorded_by=staff.user,
        options=chouette_services.ChouetteOptions(stake=Decimal("1.00"), mode="online"),
    )
    chouette_online.chouette_game_start(chouette=chouette, by=order[0])


@pytest.fixture(scope="module")
def match_played_elsewhere():
    """A 1-point match between alice and bob, as a .mat file."""
    players = (Player("alice", human), Player("bob", human))
    return export_mat(play_match(Engine(0), players, 1, seed=2))


@pytest.fixture
def club_with_books(make_player, staff, robots, match_played_elsewhere):
    """The players the schema's examples name (alice and bob, password as in the token
    example; dave and erin sit at the example chouette), a rated result, a payment, a
    balance no single leg could hold, matches: one being played, one finished (its dice
    revealed), an open challenge, a tournament being played, an online chouette with
    its first game on, a match alice uploaded; and the practice robots (an example
    invites one)."""
    alice, bob = make_player("alice"), make_player("bob")
    dave, _erin = make_player("dave"), make_player("erin")
    playing = matches_services.match_create(
        creator=alice, opponent=bob, options=matches_services.MatchOptions(length=3)
    )
    matches_services.match_accept(match=playing, player=bob)
    finished = matches_services.match_create(
        creator=bob, opponent=alice, options=matches_services.MatchOptions(length=1)
    )
    _double_and_pass(matches_services.match_accept(match=finished, player=alice), alice, bob)
    matches_services.match_create(
        creator=bob,
        opponent=None,
        options=matches_services.MatchOptions(length=0, rated=False, stake=Decimal("1.00")),
    )
    tournament = tournament_services.tournament_create(
        created_by=staff.user, name="Club night", format="round_robin"
    )
    for player in (alice, bob):
        tournament_services.entry_add(tournament=tournament, player=player, recorded_by=None)
    tournament_services.tournament_start(tournament=tournament)
    services.match_result_record(winner=alice, loser=bob, length=5, recorded_by=staff.user)
    _an_online_chouette(alice, bob, dave, staff=staff)
    analysis_services.imported_match_create(user=alice.user, text=match_played_elsewhere)
    services.payment_record(
        payer=alice, payee=CLUB, amount=Decimal("12.50"), recorded_by=staff.user
    )
    fees = services.club_account_open(kind=Account.Kind.FEES)
    for _ in range(3):
        services.ledger_post(
            legs=[
                LegSpec(
                    account=services.account_open_for_player(player=bob),
                    amount=money.MAX_LEG_AMOUNT,
                ),
                LegSpec(account=fees, amount=-money.MAX_LEG_AMOUNT),
            ],
            memo="The biggest leg the books take, three times over",
            kind=SourceKind.OTHER,
        )


@pytest.fixture
def short_live_streams(monkeypatch):
    """A live stream the fuzzer opens on a topic that exists lasts half a second, not
    five minutes (the test client reads a stream to its end)."""
    monkeypatch.setattr(live, "STREAM_FOR", 0.5)


@pytest.fixture(params=["staff", "player"])
def token(request, club_with_books, in_process_requests, staff, make_player):
    user = staff.user if request.param == "staff" else make_player("carol").user
    return token_for(user)


@schema.parametrize()
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
def test_every_operation_keeps_the_schema(case, token, short_live_streams):
    case.call_and_validate(headers={"Authorization": f"Token {token}"})


def test_every_documented_request_example_succeeds_for_staff(club_with_books, staff, api):
    """The examples the schema documents are requests that work on the club the fuzzer
    acts on, so that it walks every write's success path too, not only its refusals."""
    staff_api = api.as_user(staff.user)
    sent = 0
    for path, methods in schema.raw_schema["paths"].items():
        for method, operation in methods.items():
            content = operation.get("requestBody", {}).get("content", {})
            for example in content.get("application/json", {}).get("examples", {}).values():
                response = getattr(staff_api, method)(path, example["value"], format="json")
                assert response.status_code < 300, (method, path, response.json())
                sent += 1
    assert sent >= 4  # token, player, payment, result
