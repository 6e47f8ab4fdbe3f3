"""The double-entry ledger: posting, reversing, immutability, balances, statements,
payments, settle-up, ``ledger_check``, the admin and the API."""

import csv
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from club import money, selectors, services
from club.models import Account, Leg, Player, RowImmutable, SourceKind, Transaction
from club.parties import CLUB
from tests.factories import leg
from web.errors import Conflict, Forbidden, Invalid
from web.spreadsheets import spreadsheet_cell

pytestmark = pytest.mark.django_db

D = Decimal


def at(day: str, hour: int = 20) -> datetime:
    return timezone.make_aware(datetime.fromisoformat(f"{day}T{hour:02d}:00:00"))


def balance(player: Player) -> Decimal:
    return selectors.player_balance(player=player)


def post(legs, memo="test posting", **kwargs) -> Transaction:
    """Post ``(owner, amount)`` pairs (``tests.factories.leg`` names the accounts)."""
    return services.ledger_post(
        legs=[leg(owner, amount) for owner, amount in legs], memo=memo, **kwargs
    )


# Posting ------------------------------------------------------------------------------


def test_a_posting_records_its_legs_who_when_memo_and_source(make_player, staff):
    alice, bob = make_player("alice"), make_player("bob")
    posted = post(
        [(alice, D("12.50")), (bob, D("-12.50"))],
        memo="Chouette night",
        kind=SourceKind.CHOUETTE,
        source=staff,  # any saved object; chouette sessions will link themselves
        recorded_by=staff.user,
        at=at("2026-03-01"),
    )
    posted = Transaction.objects.get(pk=posted.pk)
    assert posted.memo == "Chouette night"
    assert posted.kind == "chouette"
    assert posted.recorded_by == staff.user
    assert posted.at == at("2026-03-01")
    assert posted.recorded_at is not None
    assert posted.source == staff
    assert sorted(posted.legs.values_list("amount", flat=True)) == [D("-12.50"), D("12.50")]
    assert (balance(alice), balance(bob)) == (D("12.50"), D("-12.50"))


def test_players_made_before_the_ledger_get_their_account_when_it_is_first_opened(make_player):
    alice = make_player("alice")  # the fixture makes the player row only
    assert not Account.objects.filter(player=alice).exists()
    assert balance(alice) == D("0.00")
    account = services.account_open_for_player(player=alice)
    assert services.account_open_for_player(player=alice) == account
    assert Account.objects.get(player=alice).kind == Account.Kind.PLAYER


def test_player_create_opens_the_players_account_and_reserves_club(db):
    gina = services.player_create(username="gina", password="pw-gina-1")
    assert Account.objects.filter(player=gina, kind="player").count() == 1
    with pytest.raises(Conflict, match="reserved"):
        services.player_create(username="Club", password="pw-club-1")


def test_club_accounts_are_one_per_kind(db):
    cash = services.club_account_open(kind=Account.Kind.CLUB_CASH)
    assert services.club_account_open(kind=Account.Kind.CLUB_CASH) == cash
    assert services.club_account_open(kind=Account.Kind.PRIZE_POOL) != cash
    with pytest.raises(Invalid):
        services.club_account_open(kind=Account.Kind.PLAYER)


@pytest.mark.parametrize(
    ("legs", "why"),
    [
        ([("A", "1.005"), ("B", "-1.005")], "more than two decimal places"),
        ([("A", "5.00"), ("B", "-4.99")], "sum to"),
        ([("A", "0.00"), ("B", "0.00")], "zero"),
        ([("A", "5.00")], "at least two legs"),
        ([], "at least two legs"),
        ([("A", 5.0), ("B", -5.0)], "decimal"),
        ([("A", "NaN"), ("B", "1")], "not an amount"),
        ([("A", "1e15"), ("B", "-1e15")], "not an amount"),
    ],
)
def test_ledger_post_refuses_bad_legs_and_posts_nothing(make_player, legs, why):
    players = {"A": make_player("alice"), "B": make_player("bob")}
    with pytest.raises(Invalid, match=why):
        post([(players[who], D(a) if isinstance(a, str) else a) for who, a in legs])
    assert not Transaction.objects.exists()
    assert not Leg.objects.exists()


def test_ledger_post_needs_a_memo_and_a_known_kind(make_player):
    alice = make_player("alice")
    with pytest.raises(Invalid, match="memo"):
        post([(alice, D("1")), (CLUB, D("-1"))], memo="  ")
    with pytest.raises(Invalid, match="kind"):
        post([(alice, D("1")), (CLUB, D("-1"))], kind="lottery")
    assert not Transaction.objects.exists()


def test_postings_to_the_club_accounts_show_in_the_trial_balance(make_player):
    alice = make_player("alice")
    post([(alice, D("30.00")), ("prize_pool", D("-20.00")), ("fees", D("-10.00"))])
    books = selectors.trial_balance()
    by_kind = {account.kind: amount for account, amount in books.rows if not account.player_id}
    assert by_kind["prize_pool"] == D("-20.00")
    assert by_kind["fees"] == D("-10.00")
    assert books.total == D("0.00")


# Property tests -----------------------------------------------------------------------

ACCOUNT_COUNT = 5
cents = st.integers(min_value=-(10**8), max_value=10**8).filter(bool)
legs_strategy = st.lists(
    st.tuples(st.integers(0, ACCOUNT_COUNT - 1), cents), min_size=1, max_size=6
)


@pytest.fixture
def accounts(make_player):
    players = [make_player(name) for name in ("alice", "bob", "carol")]
    return [services.account_open_for_player(player=p) for p in players] + [
        services.club_account_open(kind=Account.Kind.CLUB_CASH),
        services.club_account_open(kind=Account.Kind.PRIZE_POOL),
    ]


def balanced(picks, closing_account):
    """Random legs, closed by one more leg that brings their sum to zero."""
    legs = [(index, value) for index, value in picks]
    rest = -sum(value for _i, value in legs)
    if rest:
        legs.append((closing_account, rest))
    return legs


@hypothesis_settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(picks=legs_strategy, closing=st.integers(0, ACCOUNT_COUNT - 1), off=cents)
def test_property_every_posted_transaction_balances_and_unbalanced_ones_post_nothing(
    accounts, picks, closing, off
):
    with transaction.atomic():
        legs = [(accounts[i], D(c) / 100) for i, c in balanced(picks, closing)]
        before = Transaction.objects.count()
        if len(legs) >= 2:
            posted = post(legs)
            stored = list(posted.legs.values_list("account_id", "amount"))
            assert sum(amount for _a, amount in stored) == 0
            assert sorted(stored) == sorted((a.pk, amount) for a, amount in legs)
        unbalanced = [*legs, (accounts[closing], D(off) / 100)]
        count = Transaction.objects.count()
        with pytest.raises(Invalid):
            post(unbalanced)
        assert Transaction.objects.count() == count <= before + 1
        transaction.set_rollback(True)


operations = st.lists(
    st.one_of(
        st.tuples(st.just("post"), legs_strategy, st.integers(0, ACCOUNT_COUNT - 1)),
        st.tuples(st.just("reverse"), st.integers(0, 50)),
    ),
    min_size=1,
    max_size=12,
)


@hypothesis_settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=operations)
def test_property_postings_and_reversals_keep_the_trial_balance_at_exactly_zero(accounts, steps):
    with transaction.atomic():
        expected = {account.pk: D("0.00") for account in accounts}
        posted: list[Transaction] = []
        for step in steps:
            if step[0] == "post":
                legs = [(accounts[i], D(c) / 100) for i, c in balanced(step[1], step[2])]
                if len(legs) < 2:
                    continue
                posted.append(post(legs))
                for account, amount in legs:
                    expected[account.pk] += amount
            elif posted:
                original = posted[step[1] % len(posted)]
                if Transaction.objects.filter(reverses=original).exists():
                    with pytest.raises(Conflict):
                        services.ledger_reverse(transaction=original, recorded_by=None)
                    continue
                reversal = services.ledger_reverse(transaction=original, recorded_by=None)
                assert reversal.reverses == original
                posted.append(reversal)
                for leg in original.legs.all():
                    expected[leg.account_id] -= leg.amount
            books = selectors.trial_balance()
            assert books.total == D("0.00")
            assert selectors.ledger_total() == D("0.00")
            actual = {account.pk: amount for account, amount in books.rows}
            assert {pk: actual[pk] for pk in expected} == expected
            assert all(actual[pk] == 0 for pk in actual.keys() - expected.keys())
        transaction.set_rollback(True)


# Reversals and immutability -----------------------------------------------------------


def test_a_reversal_turns_every_leg_and_points_at_the_original(make_player, staff):
    alice, bob = make_player("alice"), make_player("bob")
    original = post([(alice, D("7.00")), (bob, D("-7.00"))], memo="Money session")
    reversal = services.ledger_reverse(transaction=original, recorded_by=staff.user)
    assert reversal.reverses == original
    assert reversal.source == original
    assert reversal.kind == SourceKind.CORRECTION
    assert reversal.recorded_by == staff.user
    assert reversal.memo == f"Reversal of #{original.pk}: Money session"
    assert Transaction.objects.get(pk=original.pk).reversed_by == reversal
    assert (balance(alice), balance(bob)) == (D("0.00"), D("0.00"))
    assert Transaction.objects.count() == 2  # the original is still there


def test_a_transaction_is_reversed_once_but_a_reversal_can_be_reversed(make_player):
    alice = make_player("alice")
    original = post([(alice, D("3.00")), (CLUB, D("-3.00"))])
    reversal = services.ledger_reverse(transaction=original, recorded_by=None)
    with pytest.raises(Conflict):
        services.ledger_reverse(transaction=original, recorded_by=None)
    services.ledger_reverse(transaction=reversal, recorded_by=None)
    assert balance(alice) == D("3.00")


def test_reverses_must_be_the_exact_negation(make_player):
    alice = make_player("alice")
    original = post([(alice, D("3.00")), (CLUB, D("-3.00"))])
    with pytest.raises(Invalid):
        post(
            [(alice, D("-2.00")), (CLUB, D("2.00"))],
            kind=SourceKind.CORRECTION,
            reverses=original,
        )
    assert Transaction.objects.count() == 1


def test_legs_and_transactions_cannot_be_updated_or_deleted_through_the_orm(make_player):
    alice = make_player("alice")
    posted = post([(alice, D("3.00")), (CLUB, D("-3.00"))])
    leg = posted.legs.first()
    leg.amount = D("4.00")
    with pytest.raises(RowImmutable):
        leg.save()
    with pytest.raises(RowImmutable):
        leg.delete()
    with pytest.raises(RowImmutable):
        Leg.objects.filter(pk=leg.pk).update(amount=D("4.00"))
    with pytest.raises(RowImmutable):
        Leg.objects.all().delete()
    posted.memo = "changed"
    with pytest.raises(RowImmutable):
        posted.save()
    with pytest.raises(RowImmutable):
        posted.delete()
    with pytest.raises(RowImmutable):
        Transaction.objects.update(memo="changed")
    with pytest.raises(RowImmutable):
        Leg.objects.bulk_update([leg], ["amount"])
    assert Leg.objects.get(pk=leg.pk).amount == D("3.00")
    assert Transaction.objects.get(pk=posted.pk).memo == "test posting"


def test_only_ledger_post_writes_the_ledger(make_player):
    alice = make_player("alice")
    posted = post([(alice, D("3.00")), (CLUB, D("-3.00"))])
    account = services.account_open_for_player(player=alice)
    with pytest.raises(RowImmutable):
        Leg.objects.create(transaction=posted, account=account, amount=D("1.00"))
    with pytest.raises(RowImmutable):
        Leg.objects.bulk_create([Leg(transaction=posted, account=account, amount=D("1.00"))])
    with pytest.raises(RowImmutable):
        Transaction.objects.create(at=timezone.now(), memo="sneaky", kind="other")
    assert Leg.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_postings_and_reversals_commit(make_player):
    # With real commits: on PostgreSQL the deferred triggers run and accept them.
    alice, bob = make_player("alice"), make_player("bob")
    posted = post([(alice, D("2.50")), (bob, D("-1.50")), ("fees", D("-1.00"))])
    services.ledger_reverse(transaction=posted, recorded_by=None)
    services.payment_record(
        payer=alice,
        payee=CLUB,
        amount=D("1.00"),
        recorded_by=make_player("boss", staff=True).user,
    )
    assert Transaction.objects.count() == 3
    assert selectors.ledger_total() == D("0.00")


def raw_transaction(cursor, memo="raw") -> int:
    cursor.execute(
        "INSERT INTO club_transaction (at, recorded_at, memo, kind) VALUES (%s, %s, %s, 'other')",
        [timezone.now(), timezone.now(), memo],
    )
    cursor.execute("SELECT MAX(id) FROM club_transaction")
    return cursor.fetchone()[0]


def raw_leg(cursor, transaction_id: int, account: Account, amount: str) -> None:
    cursor.execute(
        "INSERT INTO club_leg (transaction_id, account_id, amount) VALUES (%s, %s, %s)",
        [transaction_id, account.pk, D(amount)],
    )


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_postgresql_rejects_an_unbalanced_raw_sql_insert_at_commit(make_player):
    alice = services.account_open_for_player(player=make_player("alice"))
    cash = services.club_account_open(kind=Account.Kind.CLUB_CASH)
    with (
        pytest.raises(IntegrityError, match="does not balance"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        created = raw_transaction(cursor)
        raw_leg(cursor, created, alice, "5.00")
        raw_leg(cursor, created, cash, "-4.00")
    assert not Transaction.objects.exists()
    with (
        pytest.raises(IntegrityError, match="at least two"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        raw_transaction(cursor, "no legs")
    assert not Transaction.objects.exists()
    # A balanced raw insert is accepted: the trigger checks sums, not who wrote them.
    with transaction.atomic(), connection.cursor() as cursor:
        created = raw_transaction(cursor)
        raw_leg(cursor, created, alice, "5.00")
        raw_leg(cursor, created, cash, "-5.00")
    assert Transaction.objects.count() == 1


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_postgresql_refuses_raw_sql_updates_and_deletes_of_the_ledger(make_player):
    alice = make_player("alice")
    posted = post([(alice, D("3.00")), (CLUB, D("-3.00"))])
    for statement in (
        "UPDATE club_leg SET amount = 4 WHERE transaction_id = %s",
        "DELETE FROM club_leg WHERE transaction_id = %s",
        "UPDATE club_transaction SET memo = 'changed' WHERE id = %s",
        "DELETE FROM club_transaction WHERE id = %s",
    ):
        with (
            pytest.raises(IntegrityError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement, [posted.pk])
    assert balance(alice) == D("3.00")
    assert Transaction.objects.get().memo == "test posting"


# Balances and statements --------------------------------------------------------------


@pytest.fixture
def march(make_player, staff):
    """Alice wins a chouette, is paid by the club, loses a money session to Bob."""
    alice, bob = make_player("alice"), make_player("bob")
    post(
        [(alice, D("12.50")), (bob, D("-12.50"))],
        memo="Chouette, 1 March",
        kind=SourceKind.CHOUETTE,
        at=at("2026-03-01"),
    )
    services.payment_record(
        payer=CLUB, payee=alice, amount=D("12.50"), recorded_by=staff.user, at=at("2026-03-05")
    )
    post(
        [(alice, D("-7.25")), (bob, D("7.25"))],
        memo="Money session, 9 March",
        kind=SourceKind.MONEY_SESSION,
        at=at("2026-03-09"),
    )
    return alice, bob


def test_balance_at_any_date(march):
    alice, bob = march
    on = {day: selectors.player_balance(player=alice, on=date.fromisoformat(day)) for day in (
        "2026-02-28", "2026-03-01", "2026-03-04", "2026-03-05", "2026-03-09"
    )}  # fmt: skip
    assert on == {
        "2026-02-28": D("0.00"),
        "2026-03-01": D("12.50"),
        "2026-03-04": D("12.50"),
        "2026-03-05": D("0.00"),
        "2026-03-09": D("-7.25"),
    }
    assert balance(alice) == D("-7.25")
    assert balance(bob) == D("-5.25")


def test_statement_csv_contents_are_exact(client, march):
    alice, _bob = march
    client.force_login(alice.user)
    response = client.get("/players/alice/statement.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert response.content.decode() == (
        "date,memo,amount,balance\n"
        '2026-03-01,"Chouette, 1 March",12.50,12.50\n'
        "2026-03-05,Payment from the club to Alice,-12.50,0.00\n"
        '2026-03-09,"Money session, 9 March",-7.25,-7.25\n'
    )


def test_statement_csv_at_a_date_stops_there(client, march):
    alice, _bob = march
    client.force_login(alice.user)
    response = client.get("/players/alice/statement.csv?at=2026-03-04")
    assert response.content.decode() == (
        'date,memo,amount,balance\n2026-03-01,"Chouette, 1 March",12.50,12.50\n'
    )


def test_statement_csv_is_for_the_player_and_staff_only(client, march, make_player, staff):
    carol = make_player("carol")
    client.force_login(carol.user)
    assert client.get("/players/alice/statement.csv").status_code == 403
    client.force_login(staff.user)
    assert client.get("/players/alice/statement.csv").status_code == 200
    client.logout()
    assert client.get("/players/alice/statement.csv").status_code == 302


# The ledger API -----------------------------------------------------------------------


def test_player_ledger_api_gives_balance_and_entries(api, march):
    alice, _bob = march
    body = api.as_user(alice.user).get("/api/players/alice/ledger/").json()
    assert body["balance"] == "-7.25"
    assert [(e["amount"], e["memo"]) for e in body["entries"]] == [
        ("12.50", "Chouette, 1 March"),
        ("-12.50", "Payment from the club to Alice"),
        ("-7.25", "Money session, 9 March"),
    ]
    assert [e["running_balance"] for e in body["entries"]] == ["12.50", "0.00", "-7.25"]
    assert all(isinstance(e["transaction"], int) for e in body["entries"])
    assert body["entries"][0]["at"].startswith("2026-03-01T20:00:00")
    at_date = api.get("/api/players/alice/ledger/?at=2026-03-04").json()
    assert at_date["balance"] == "12.50" and len(at_date["entries"]) == 1
    assert api.get("/api/players/alice/ledger/?at=March").json()["error"] == "invalid"


def test_player_card_gives_the_balance_to_the_player_and_staff_only(api, march, make_player, staff):
    alice, _bob = march
    carol = make_player("carol")
    assert api.as_user(alice.user).get("/api/players/alice/").json()["balance"] == "-7.25"
    assert api.as_user(staff.user).get("/api/players/alice/").json()["balance"] == "-7.25"
    others = api.as_user(carol.user).get("/api/players/alice/").json()
    assert others["balance"] is None
    assert others["rating"] == 1500.0  # the rest of the card is for every member
    assert api.get("/api/players/carol/").json()["balance"] == "0.00"


def test_a_players_ledger_is_for_them_and_staff_only(api, march, make_player, staff):
    carol = make_player("carol")
    response = api.as_user(carol.user).get("/api/players/alice/ledger/")
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
    assert api.as_user(staff.user).get("/api/players/alice/ledger/").status_code == 200
    api.credentials()
    assert api.get("/api/players/alice/ledger/").status_code == 401
    assert api.as_user(staff.user).get("/api/players/nobody/ledger/").status_code == 404


def test_staff_record_a_payment_between_players(staff_api, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    post([(alice, D("-20.00")), (bob, D("20.00"))], memo="Chouette")
    response = staff_api.post(
        "/api/ledger/payments/",
        {"payer": "alice", "payee": "bob", "amount": "20.00", "memo": "Cash at the table"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["amount"] == "20.00"
    assert (body["payer"], body["payee"], body["memo"]) == ("alice", "bob", "Cash at the table")
    payment = Transaction.objects.get(pk=body["transaction"])
    assert payment.kind == "payment"
    assert payment.recorded_by.username == "director"
    # The payer's balance rises, the payee's falls: both are now square.
    assert (balance(alice), balance(bob)) == (D("0.00"), D("0.00"))


def test_staff_record_a_payment_to_and_from_the_club(staff_api, make_player):
    alice = make_player("alice")
    response = staff_api.post(
        "/api/ledger/payments/", {"payer": "alice", "payee": "club", "amount": "5"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["memo"] == "Payment from Alice to the club"
    assert response.json()["amount"] == "5.00"
    assert balance(alice) == D("5.00")
    cash = services.club_account_open(kind=Account.Kind.CLUB_CASH)
    assert selectors.account_balance(account=cash) == D("-5.00")
    staff_api.post(
        "/api/ledger/payments/",
        {"payer": "club", "payee": "alice", "amount": "5.00"},
        format="json",
    )
    assert balance(alice) == D("0.00")
    assert selectors.account_balance(account=cash) == D("0.00")


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"payer": "alice", "payee": "bob", "amount": "1.005"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": 1.005}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": "0"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": "0.00"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": "-3"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": "ten"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": "NaN"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": "1e20"}, 400, "invalid"),
        ({"payer": "alice", "payee": "bob", "amount": 5}, 400, "invalid"),  # money is a string
        ({"payer": "alice", "payee": "bob", "amount": "5.00", "note": "x"}, 400, "invalid"),
        ({"payer": "alice", "payee": "alice", "amount": "5.00"}, 400, "invalid"),
        ({"payer": "club", "payee": "club", "amount": "5.00"}, 400, "invalid"),
        ({"payer": "alice", "payee": "nobody", "amount": "5.00"}, 404, "not_found"),
        ({"payer": "nobody", "payee": "club", "amount": "5.00"}, 404, "not_found"),
        ({"payer": "alice", "amount": "5.00"}, 400, "invalid"),
    ],
)
def test_bad_payments_are_4xx_json_and_post_nothing(staff_api, make_player, body, status, error):
    make_player("alice")
    make_player("bob")
    response = staff_api.post("/api/ledger/payments/", body, format="json")
    assert response.status_code == status, response.content
    assert response.json()["error"] == error
    assert response.json()["detail"]
    assert not Transaction.objects.exists()


def test_a_player_may_not_record_payments(api, make_player):
    alice, _bob = make_player("alice"), make_player("bob")
    response = api.as_user(alice.user).post(
        "/api/ledger/payments/", {"payer": "bob", "payee": "alice", "amount": "5.00"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
    assert not Transaction.objects.exists()
    with pytest.raises(Forbidden):
        services.payment_record(payer=alice, payee=CLUB, amount=D("1.00"), recorded_by=alice.user)
    assert not Transaction.objects.exists()


def test_trial_balance_api_for_staff_sums_to_zero(staff_api, api, march):
    body = staff_api.get("/api/ledger/trial-balance/").json()
    assert body["total"] == "0.00"
    rows = {row["username"] or row["kind"]: row["balance"] for row in body["accounts"]}
    assert rows["alice"] == "-7.25"
    assert rows["bob"] == "-5.25"
    assert rows["club_cash"] == "12.50"
    alice, _bob = march
    assert api.as_user(alice.user).get("/api/ledger/trial-balance/").status_code == 403


def test_settle_up_api_for_staff(staff_api, march):
    body = staff_api.get("/api/ledger/settle-up/").json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    # Alice owes 7.25 and Bob 5.25; nobody is owed, so both pay the club.
    assert sorted((p["payer"], p["payee"], p["amount"]) for p in body["results"]) == [
        ("alice", "club", "7.25"),
        ("bob", "club", "5.25"),
    ]


def test_schema_documents_the_ledger_endpoints(client):
    schema = client.get("/api/schema/").content.decode()
    for path in (
        "/api/players/{username}/ledger/",
        "/api/ledger/payments/",
        "/api/ledger/trial-balance/",
        "/api/ledger/settle-up/",
    ):
        assert path in schema


# ledger_check -------------------------------------------------------------------------


def test_ledger_check_passes_on_a_good_ledger(march):
    original = Transaction.objects.first()
    services.ledger_reverse(transaction=original, recorded_by=None)
    out = StringIO()
    call_command("ledger_check", stdout=out)
    assert "The ledger balances: 4 transactions" in out.getvalue()
    assert "transactions: 4/4" in out.getvalue()


def test_ledger_check_reads_the_sum_of_the_legs_to_the_cent(db, make_player):
    """A prize payout's legs: 37.80 + 16.20 + 6.00 - 60.00, which a database summing in
    floating point (SQLite) makes -3.55e-15."""
    alice, bob = make_player("alice"), make_player("bob")
    services.ledger_post(
        legs=[
            leg(alice, Decimal("37.80")),
            leg(bob, Decimal("16.20")),
            leg("fees", Decimal("6.00")),
            leg("prize_pool", Decimal("-60.00")),
        ],
        memo="Prizes",
        kind=SourceKind.PRIZE,
    )
    out = StringIO()
    call_command("ledger_check", stdout=out)
    assert "The ledger balances: 1 transactions" in out.getvalue()


def test_ledger_check_passes_on_an_empty_ledger(db):
    out = StringIO()
    call_command("ledger_check", stdout=out)
    assert "The ledger balances: 0 transactions" in out.getvalue()


@contextmanager
def raw_sql_breakage():
    """A savepoint for raw SQL that breaks the books, rolled back afterwards.

    Nothing in it is ever committed, so no PostgreSQL trigger fires (as on SQLite, where
    there is none): rolling back the savepoint also drops the checks PostgreSQL had
    deferred, which Django's test teardown would otherwise run.
    """
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def test_ledger_check_fails_naming_a_transaction_broken_with_raw_sql(march):
    alice, _bob = march
    broken = Transaction.objects.order_by("id")[1]
    err = StringIO()
    with raw_sql_breakage():
        with connection.cursor() as cursor:
            raw_leg(cursor, broken.pk, services.account_open_for_player(player=alice), "0.01")
            lonely = raw_transaction(cursor, "one leg")
            raw_leg(cursor, lonely, services.club_account_open(kind=Account.Kind.FEES), "-0.01")
        with pytest.raises(CommandError, match="does not balance"):
            call_command("ledger_check", stdout=StringIO(), stderr=err)
    problems = err.getvalue()
    assert f"transaction {broken.pk} does not balance: its legs sum to 0.01" in problems
    assert f"transaction {lonely} has 1 leg(s)" in problems
    assert f"transaction {lonely} does not balance: its legs sum to -0.01" in problems
    assert f"transaction {broken.pk + 1} " not in problems


def test_ledger_check_fails_when_the_whole_ledger_is_off(march):
    alice, _bob = march
    err = StringIO()
    with raw_sql_breakage():
        with connection.cursor() as cursor:
            lonely = raw_transaction(cursor, "half a posting")
            raw_leg(cursor, lonely, services.account_open_for_player(player=alice), "3.00")
        with pytest.raises(CommandError):
            call_command("ledger_check", stdout=StringIO(), stderr=err)
    assert "the ledger does not balance: all legs sum to 3.00" in err.getvalue()


def test_ledger_check_fails_on_a_reversal_that_does_not_mirror_its_original(march):
    original = Transaction.objects.order_by("id").first()
    alice, bob = march
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO club_transaction (at, recorded_at, memo, kind, reverses_id) "
            "VALUES (%s, %s, 'bad reversal', 'correction', %s)",
            [timezone.now(), timezone.now(), original.pk],
        )
        cursor.execute("SELECT MAX(id) FROM club_transaction")
        bad = cursor.fetchone()[0]
        raw_leg(cursor, bad, services.account_open_for_player(player=alice), "-1.00")
        raw_leg(cursor, bad, services.account_open_for_player(player=bob), "1.00")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("ledger_check", stdout=StringIO(), stderr=err)
    assert f"transaction {bad} does not exactly reverse transaction {original.pk}" in (
        err.getvalue()
    )


# The admin ----------------------------------------------------------------------------


def test_the_ledger_is_read_only_in_the_admin(client, staff, march):
    client.force_login(staff.user)
    posted = Transaction.objects.first()
    assert client.get("/admin/club/transaction/").status_code == 200
    assert client.get(f"/admin/club/transaction/{posted.pk}/change/").status_code == 200
    assert client.get("/admin/club/transaction/add/").status_code == 403
    assert client.get(f"/admin/club/transaction/{posted.pk}/delete/").status_code == 403
    response = client.post(
        f"/admin/club/transaction/{posted.pk}/change/", {"memo": "changed", "kind": "other"}
    )
    assert response.status_code == 403
    assert client.get("/admin/club/account/").status_code == 200
    assert client.get("/admin/club/account/add/").status_code == 403
    assert Transaction.objects.get(pk=posted.pk).memo == "Chouette, 1 March"
    html = client.get("/admin/club/transaction/").content.decode()
    assert "delete_selected" not in html
    assert "reverse_selected" in html


def test_admin_action_reverses_the_selected_transactions(client, staff, march):
    alice, bob = march
    client.force_login(staff.user)
    ids = list(Transaction.objects.values_list("pk", flat=True))
    response = client.post(
        "/admin/club/transaction/", {"action": "reverse_selected", "_selected_action": ids}
    )
    assert response.status_code == 302
    assert Transaction.objects.filter(reverses__isnull=False).count() == 3
    assert (balance(alice), balance(bob)) == (D("0.00"), D("0.00"))
    assert set(
        Transaction.objects.filter(reverses__isnull=False).values_list("recorded_by", flat=True)
    ) == {staff.user.pk}
    # Reversing again is refused with a message, and nothing is posted.
    client.post("/admin/club/transaction/", {"action": "reverse_selected", "_selected_action": ids})
    assert Transaction.objects.count() == 6


def test_staff_record_a_payment_in_the_admin(client, staff, make_player):
    alice = make_player("alice")
    client.force_login(staff.user)
    assert client.get("/admin/club/payment/add/").status_code == 200
    response = client.post(
        "/admin/club/payment/add/",
        {"payer": alice.pk, "payee": "", "amount": "15.00", "memo": "Membership"},
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    payment = Transaction.objects.get()
    assert (payment.kind, payment.memo, payment.recorded_by) == (
        "payment",
        "Membership",
        staff.user,
    )
    assert balance(alice) == D("15.00")
    assert client.get("/admin/club/payment/").status_code == 200
    assert client.get(f"/admin/club/payment/{payment.pk}/change/").status_code == 200


@pytest.mark.parametrize(
    "amount_and_parties",
    [("15.00", "same"), ("1.005", "two"), ("0", "two"), ("-3", "two"), ("", "two")],
)
def test_admin_refuses_a_bad_payment(client, staff, make_player, amount_and_parties):
    amount, parties = amount_and_parties
    alice, bob = make_player("alice"), make_player("bob")
    client.force_login(staff.user)
    payee = alice.pk if parties == "same" else bob.pk
    response = client.post(
        "/admin/club/payment/add/", {"payer": alice.pk, "payee": payee, "amount": amount}
    )
    assert response.status_code == 200
    assert not Transaction.objects.exists()


# What no club could mean -------------------------------------------------------------


def test_a_payment_moves_at_most_100000(staff_api, make_player, staff):
    alice = make_player("alice")
    ok = {"payer": "alice", "payee": "club", "amount": "100000.00"}
    assert staff_api.post("/api/ledger/payments/", ok, format="json").status_code == 201
    for amount in ("100000.01", "10000000000.00"):
        response = staff_api.post("/api/ledger/payments/", {**ok, "amount": amount}, format="json")
        assert response.status_code == 400
        assert response.json()["error"] == "invalid"
        assert "100000" in response.json()["detail"]
    with pytest.raises(Invalid, match=r"at most 100000\.00"):
        services.payment_record(
            payer=alice, payee=CLUB, amount=D("10000000000.00"), recorded_by=staff.user
        )
    assert balance(alice) == D("100000.00")


def test_the_admin_refuses_a_payment_over_100000(client, staff, make_player):
    alice = make_player("alice")
    client.force_login(staff.user)
    response = client.post(
        "/admin/club/payment/add/", {"payer": alice.pk, "payee": "", "amount": "10000000000.00"}
    )
    assert response.status_code == 200
    assert "at most 100000.00" in response.content.decode()
    assert not Transaction.objects.exists()


def test_a_balance_past_any_single_leg_still_answers_in_full(api, make_player, staff):
    """Money fields answer whatever the books hold: a balance is a sum of legs."""
    bob = make_player("bob")
    for _ in range(3):
        post([(bob, money.MAX_LEG_AMOUNT), ("fees", -money.MAX_LEG_AMOUNT)])
    whole = "2999999999999.97"
    assert str(balance(bob)) == whole
    member = api.as_user(bob.user)
    assert member.get("/api/players/bob/").json()["balance"] == whole
    ledger = member.get("/api/players/bob/ledger/").json()
    assert ledger["balance"] == whole == ledger["entries"][-1]["running_balance"]
    books = api.as_user(staff.user).get("/api/ledger/trial-balance/").json()
    assert {row["username"]: row["balance"] for row in books["accounts"]}["bob"] == whole
    assert books["total"] == "0.00"


def test_a_statement_csv_at_a_date_that_is_none_is_refused(client, march):
    alice, _bob = march
    client.force_login(alice.user)
    response = client.get("/players/alice/statement.csv?at=March")
    assert response.status_code == 400
    assert "at: March is not a date (YYYY-MM-DD)." in response.content.decode()


@pytest.mark.parametrize(
    "value", ["", "March", "2026-3-4", "20260304", "2026-02-30", "\uff12\uff10\uff12\uff16-03-04"]
)
def test_the_api_refuses_an_at_that_is_not_a_date(api, march, value):
    alice, _bob = march
    response = api.as_user(alice.user).get(f"/api/players/alice/ledger/?at={value}")
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid",
        "detail": f"at: {value} is not a date (YYYY-MM-DD).",
    }


def test_the_books_at_the_last_day_of_the_calendar_are_all_the_books(api, march):
    alice, _bob = march
    body = api.as_user(alice.user).get("/api/players/alice/ledger/?at=9999-12-31").json()
    assert body["balance"] == "-7.25"


@pytest.mark.parametrize(
    "memo",
    ['=HYPERLINK("http://evil.example","Click")', "+1+1", "-2+3+cmd|' /C calc'!A0", "@SUM(A1)"],
)
def test_a_memo_a_spreadsheet_would_run_is_written_as_text(client, staff, make_player, memo):
    """OWASP's rule: a cell beginning with = + - @ gets a single quote in front; the
    amounts, plain numbers, stay numbers."""
    alice = make_player("alice")
    services.payment_record(
        payer=CLUB, payee=alice, amount=D("3.00"), recorded_by=staff.user, memo=memo
    )
    client.force_login(alice.user)
    statement = client.get("/players/alice/statement.csv").content.decode()
    (_header, (_date, cell, amount, balance)) = csv.reader(StringIO(statement))
    assert (cell, amount, balance) == (f"'{memo}", "-3.00", "-3.00")


@pytest.mark.parametrize(
    ("value", "cell"),
    [("\tTab", "'\tTab"), ("\rReturn", "'\rReturn"), ("=1", "'=1"), ("-", "'-"),
     ("-7.25", "-7.25"), ("+3", "+3"), (D("-0.50"), "-0.50"), ("Entry - March", "Entry - March")],
)  # fmt: skip
def test_a_spreadsheet_cell_is_text_unless_a_plain_number(value, cell):
    assert spreadsheet_cell(value) == cell
