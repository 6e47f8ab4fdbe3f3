"""The database when it is busy: a write transaction held elsewhere (a maintenance
command, a bulk import) for longer than the database's timeout leaves reads answering at
once and makes writes answer 503 JSON with ``Retry-After``, changing nothing; a burst of
mixed writes at once answers no 5xx.

Run on both engines. On SQLite the holder's ``BEGIN IMMEDIATE`` takes the file's write
lock; readers go on beside it (WAL) and a writer waits the busy ``timeout`` (20 s in
production, 1 s here). On PostgreSQL the holder locks the accounts' rows a payment
locks, readers go on (MVCC), and a writer waits ``lock_timeout`` (1 s here)."""

import threading
import time
from decimal import Decimal

import pytest
from django.db import connection, transaction

from club import services
from club.models import Account, Player, Transaction
from club.parties import CLUB
from tests import threads
from tests.matches.api_helpers import client_for, start_match
from web.api_errors import RETRY_AFTER_SECONDS

BUSY_TIMEOUT_SECONDS = 1


@pytest.fixture
def short_busy_timeout(monkeypatch):
    """Every connection opened from now on gives up waiting for a lock after a second."""
    options = connection.settings_dict.setdefault("OPTIONS", {})
    if connection.vendor == "sqlite":
        monkeypatch.setitem(options, "timeout", BUSY_TIMEOUT_SECONDS)
    else:
        monkeypatch.setitem(options, "options", f"-c lock_timeout={BUSY_TIMEOUT_SECONDS * 1000}")
    connection.close()
    yield
    connection.close()


@pytest.fixture
def writes_held():
    """A write transaction on the club's accounts, held from another connection until
    the test is over."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                list(Account.objects.select_for_update())
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10)
    yield
    release.set()
    holder.join()


@pytest.mark.django_db(transaction=True)
def test_a_write_held_elsewhere_leaves_reads_free_and_writes_a_503(
    make_player, staff, short_busy_timeout, request
):
    alice = make_player("alice")
    services.payment_record(payer=alice, payee=CLUB, amount=Decimal("5.00"), recorded_by=staff.user)
    posted = Transaction.objects.count()
    staff_client, alice_client = client_for(staff.user), client_for(alice.user)
    request.getfixturevalue("writes_held")

    started = time.monotonic()
    read = alice_client.get("/api/players/alice/ledger/")
    assert read.status_code == 200
    assert read.json()["balance"] == "5.00"
    assert time.monotonic() - started < BUSY_TIMEOUT_SECONDS

    payment = {"payer": "alice", "payee": "club", "amount": "2.50", "memo": "Entry"}
    written = staff_client.post("/api/ledger/payments/", payment, format="json")
    assert written.status_code == 503
    assert written["Content-Type"] == "application/json"
    assert written.json()["error"] == "unavailable"
    assert written["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert Transaction.objects.count() == posted


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_mixed_writes_answers_no_server_error(make_player, staff):
    """36 writes at once: payments, new players, results and moves, each its own client."""
    members = [make_player(name) for name in ("alice", "bob", "carol", "dave")]
    matches = [start_match(members[i % 2], members[2 + i % 2]) for i in range(8)]
    staff_client = client_for(staff.user)
    requests = []
    for number in range(12):
        payment = {"payer": members[number % 4].username, "payee": "club", "amount": "1.00"}
        requests.append(("/api/ledger/payments/", payment, staff_client))
    for number in range(8):
        player = {
            "username": f"newcomer{number}",
            "password": "a-long-secret-9",
            "display_name": f"Newcomer {number}",
        }
        requests.append(("/api/players/", player, staff_client))
        result = {
            "winner": members[number % 4].username,
            "loser": members[(number + 1) % 4].username,
            "length": 3,
        }
        requests.append(("/api/results/", result, staff_client))
    for clients, match in matches:
        game = match["game"]
        move = {"turn_no": game["turn_no"], "play": game["legal_plays"][0]}
        requests.append((f"/api/matches/{match['id']}/move/", move, clients[game["turn"]]))
    pending = list(requests)

    def send():
        path, body, client = pending.pop()
        return path, client.post(path, body, format="json")

    outcomes = threads.at_once(send, len(requests))

    assert not [o for o in outcomes if isinstance(o, BaseException)]
    statuses: dict[str, set[int]] = {}
    for path, response in outcomes:
        statuses.setdefault(path, set()).add(response.status_code)
    expected = {path: {200 if "/move/" in path else 201} for path, _body, _client in requests}
    assert statuses == expected
    assert Player.objects.filter(user__username__startswith="newcomer").count() == 8
    assert Transaction.objects.filter(kind="payment").count() == 12


@pytest.mark.django_db
def test_a_write_waits_the_same_busy_timeout_on_both_engines(settings):
    """DATABASE_BUSY_TIMEOUT (20 s) is SQLite's busy timeout and PostgreSQL's lock_timeout:
    without the latter a payment queued behind a long holder on PostgreSQL would wait for
    ever instead of answering 503."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SHOW lock_timeout")
            assert cursor.fetchone()[0] == f"{settings.DATABASE_BUSY_TIMEOUT}s"
        else:
            cursor.execute("PRAGMA busy_timeout")
            assert cursor.fetchone()[0] == settings.DATABASE_BUSY_TIMEOUT * 1000
    assert settings.DATABASE_BUSY_TIMEOUT == 20
