"""Ledger memos as a kind and parameters, read in the reader's language (issue 22, item
10): written so by every service that writes one, rendered through gettext on the
statement page, in its CSV and in the API (whose ``memo`` keeps the text recorded),
and the existing rows given their kind by the migration, from their English (or
translated) text."""

import importlib
from decimal import Decimal as D
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.utils import translation

from club import services
from club.memos import MEMO_TEXTS, Memo, MemoKind, memo_parser, memo_render
from club.models import SourceKind, Transaction
from club.parties import CLUB
from club.services import LegSpec
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db
LANGUAGES = ["bg", "el", "ro"]


@pytest.fixture(autouse=True)
def language_back():
    """A request in Bulgarian leaves the thread's language active: the next test's back
    to the default."""
    yield
    translation.deactivate()


def legs(alice, bob, amount="5.00"):
    return [
        LegSpec(account=services.account_open_for_player(player=alice), amount=D(amount)),
        LegSpec(account=services.account_open_for_player(player=bob), amount=-D(amount)),
    ]


@pytest.fixture
def friday(make_player, staff):
    """Alice enters the Friday knockout (5.00): the entry fee's memo is the server's."""
    alice = make_player("alice", display_name="Alice")
    tournament = tournament_services.tournament_create(
        created_by=staff.user,
        name="Friday knockout",
        format="single_elimination",
        entry_fee=D("5.00"),
    )
    entry = tournament_services.entry_add(
        tournament=tournament, player=alice, recorded_by=staff.user
    )
    return alice, entry.fee_transaction


def test_a_server_memo_is_stored_as_its_kind_its_parameters_and_its_english_text(friday):
    _alice, fee = friday
    with translation.override("bg"):  # whoever's language the request was in
        posted = Transaction.objects.get(pk=fee.pk)
    assert posted.memo_kind == MemoKind.ENTRY_FEE
    assert posted.memo_params == {"name": "Friday knockout"}
    assert posted.memo == "Entry fee: Friday knockout"


def test_every_kind_is_read_in_bulgarian_through_gettext():
    """Each kind's text is a msgid rendered with gettext in the active language: with the
    catalogue's Bulgarian where it has it (every kind's text had one before this change),
    and the rendering is exactly gettext(msgid) % parameters."""
    params = {
        MemoKind.PAYMENT: {"payer": None, "payee": "Alice"},
        MemoKind.REVERSAL: {"id": 7, "memo": {"kind": "prizes", "params": {"name": "Cup"}}},
        MemoKind.MONEY_SESSION: {
            "id": 3, "first": "alice", "second": "bob", "a": 5, "b": 2, "stake": "1.00",
        },
        MemoKind.ENTRY_FEE: {"name": "Friday knockout"},
        MemoKind.ENTRY_FEE_REFUNDED: {"name": "Friday knockout"},
        MemoKind.BUY_BACK: {"name": "Friday knockout"},
        MemoKind.PRIZES: {"name": "Friday knockout"},
        MemoKind.CHOUETTE_LEAVES: {"id": 3, "player": "Bob"},
        MemoKind.CHOUETTE_SETTLEMENT: {"id": 3},
    }  # fmt: skip
    assert set(params) == set(MEMO_TEXTS)
    with translation.override("bg"):
        shown = {kind: memo_render(kind=kind, params=p, memo="") for kind, p in params.items()}
        for kind, text in shown.items():
            if kind not in (MemoKind.PAYMENT, MemoKind.REVERSAL):
                assert text == translation.gettext(MEMO_TEXTS[kind]) % params[kind]
    assert shown[MemoKind.ENTRY_FEE] == "Такса за участие: Friday knockout"
    assert shown[MemoKind.CHOUETTE_SETTLEMENT] == "Шует №3: уреждане"
    assert shown[MemoKind.CHOUETTE_LEAVES] == "Шует №3: Bob напуска"
    assert shown[MemoKind.PAYMENT] == "Плащане от клуба към Alice"  # the club, declined
    assert shown[MemoKind.REVERSAL] == "Сторно на #7: Награди: Cup"  # the original's too
    with translation.override("en"):
        assert memo_render(kind="entry_fee", params=params[MemoKind.ENTRY_FEE], memo="") == (
            "Entry fee: Friday knockout"
        )


def test_a_memo_written_by_hand_or_unknown_is_shown_as_stored(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    posted = services.ledger_post(legs=legs(alice, bob), memo="Cash at the bar")
    assert (posted.memo_kind, posted.memo_params) == ("text", {})
    with translation.override("bg"):
        assert posted.memo_translated == "Cash at the bar"
        # A kind this server does not know, or parameters that do not fit: the stored text.
        assert memo_render(kind="from_the_future", params={}, memo="Stored") == "Stored"
        assert memo_render(kind="entry_fee", params={}, memo="Stored") == "Stored"


def test_the_services_write_kinds_payments_and_reversals_included(make_player, staff, friday):
    alice, fee = friday
    paid = services.payment_record(
        payer=CLUB, payee=alice, amount=D("2.00"), recorded_by=staff.user
    )
    assert (paid.memo_kind, paid.memo_params) == ("payment", {"payer": None, "payee": "Alice"})
    assert paid.memo == "Payment from the club to Alice"
    noted = services.payment_record(
        payer=alice, payee=CLUB, amount=D("1.00"), recorded_by=staff.user, memo="Cash"
    )
    assert (noted.memo_kind, noted.memo) == ("text", "Cash")
    reversal = services.ledger_reverse(transaction=fee, recorded_by=staff.user)
    assert reversal.memo_kind == "reversal"
    assert reversal.memo_params == {
        "id": fee.pk,
        "memo": {"kind": "entry_fee", "params": {"name": "Friday knockout"}, "memo": fee.memo},
    }
    assert reversal.memo == f"Reversal of #{fee.pk}: Entry fee: Friday knockout"
    with translation.override("bg"):
        assert reversal.memo_translated == f"Сторно на #{fee.pk}: Такса за участие: Friday knockout"


def test_the_statement_page_csv_and_api_read_memos_in_the_readers_language(
    client, api, friday, staff
):
    alice, fee = friday
    client.force_login(alice.user)
    page = client.get("/players/alice/statement/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Такса за участие: Friday knockout" in page and "Entry fee:" not in page
    csv = client.get("/players/alice/statement.csv", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert csv.splitlines()[0] == "date,memo,amount,balance"  # fixed column names
    assert ",Такса за участие: Friday knockout,-5.00,-5.00" in csv
    english = client.get("/players/alice/statement.csv", HTTP_ACCEPT_LANGUAGE="en")
    assert ",Entry fee: Friday knockout,-5.00,-5.00" in english.content.decode()

    member = api.as_user(alice.user)
    body = member.get("/api/players/alice/ledger/", HTTP_ACCEPT_LANGUAGE="bg").json()
    assert body["entries"] == [
        {
            "at": body["entries"][0]["at"],
            "amount": "-5.00",
            "memo": "Entry fee: Friday knockout",  # the contract's field: the text recorded
            "memo_kind": "entry_fee",
            "memo_params": {"name": "Friday knockout"},
            "memo_translated": "Такса за участие: Friday knockout",
            "transaction": fee.pk,
            "kind": "tournament",
            "running_balance": "-5.00",
        }
    ]


def test_the_parser_reads_english_and_translated_texts_back_into_kinds():
    parse = memo_parser(LANGUAGES)
    assert parse("Entry fee: Friday knockout", "tournament") == (
        "entry_fee",
        {"name": "Friday knockout"},
    )
    assert parse("Такса за участие: Friday knockout", "tournament") == (
        "entry_fee",
        {"name": "Friday knockout"},
    )
    assert parse("Chouette #3: settlement", "chouette") == ("chouette_settlement", {"id": 3})
    assert parse("Chouette #3: Bob leaves", "chouette") == (
        "chouette_leaves",
        {"id": 3, "player": "Bob"},
    )
    assert parse("Payment from the club to Alice", "payment") == (
        "payment",
        {"payer": None, "payee": "Alice"},
    )
    assert parse("Prizes: Cup", "prize") == ("prizes", {"name": "Cup"})
    assert parse("Money session 4: alice 3, bob 1 at 1.00 a point", "money_session") == (
        "money_session",
        {"id": 4, "first": "alice", "a": "3", "second": "bob", "b": "1", "stake": "1.00"},
    )
    assert parse("Reversal of #9: Chouette #3: settlement", "correction") == (
        "reversal",
        {
            "id": 9,
            "memo": {
                "kind": "chouette_settlement",
                "params": {"id": 3},
                "memo": "Chouette #3: settlement",
            },
        },
    )
    # What no kind of its transaction reads stays text: a note, a memo that may be cut.
    assert parse("Entry fee: cash", "payment") == ("text", {})
    assert parse("Demo chouette night (club fee 5.00)", "chouette") == ("text", {})
    assert parse("Entry fee: " + "x" * 189, "tournament") == ("text", {})
    assert parse("Chouette #x: settlement", "chouette") == ("text", {})


def test_the_migration_gives_existing_rows_their_kind_and_keeps_their_text(make_player):
    """Rows written before the kinds (a memo's text only, in English or in the writer's
    language) get their kind and parameters; their text, legs and all else unchanged."""
    migration = importlib.import_module("club.migrations.0006_transaction_memo_kind")
    alice, bob = make_player("alice"), make_player("bob")
    old = {
        "Entry fee: Friday knockout": SourceKind.TOURNAMENT,
        "Шует №3: уреждане": SourceKind.CHOUETTE,
        "Payment from Alice to the club": SourceKind.PAYMENT,
        "Cash": SourceKind.PAYMENT,
    }
    rows = {
        memo: services.ledger_post(legs=legs(alice, bob), memo=memo, kind=kind)
        for memo, kind in old.items()
    }
    assert {row.memo_kind for row in rows.values()} == {"text"}  # as written before
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # the postings' deferred checks, done now
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")

    def execute(sql):
        with connection.cursor() as cursor:
            cursor.execute(sql)

    migration.give_memos_their_kind(apps, SimpleNamespace(connection=connection, execute=execute))
    after = {memo: Transaction.objects.get(pk=row.pk) for memo, row in rows.items()}
    assert after["Entry fee: Friday knockout"].memo_kind == "entry_fee"
    assert after["Entry fee: Friday knockout"].memo_params == {"name": "Friday knockout"}
    assert (after["Шует №3: уреждане"].memo_kind, after["Шует №3: уреждане"].memo_params) == (
        "chouette_settlement",
        {"id": 3},
    )
    payment = after["Payment from Alice to the club"]
    assert (payment.memo_kind, payment.memo_params) == (
        "payment",
        {"payer": "Alice", "payee": None},
    )
    assert (after["Cash"].memo_kind, after["Cash"].memo_params) == ("text", {})
    for memo, row in after.items():
        assert row.memo == memo and row.at == rows[memo].at
        assert sorted(leg.amount for leg in row.legs.all()) == [D("-5.00"), D("5.00")]
    with translation.override("el"):
        assert after["Entry fee: Friday knockout"].memo_translated != "Entry fee: Friday knockout"
    if connection.vendor == "postgresql":  # the append-only guard is back
        with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:
            cursor.execute("UPDATE club_transaction SET memo = 'x' WHERE id = %s", [payment.pk])


def test_a_memo_of_the_server_is_made_json():
    memo = Memo.of(MemoKind.MONEY_SESSION, id=1, first="a", second="b", a=1, b=0, stake=D("2.50"))
    assert memo.params["stake"] == "2.50" and memo.params["a"] == 1
    assert memo.source_text() == "Money session 1: a 1, b 0 at 2.50 a point"
