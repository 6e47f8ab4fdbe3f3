"""Pages: the leaderboard, the player page and its chart, results, statements, the trial
balance and settle-up."""

import re
from datetime import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from club import services
from club.charts import rating_chart_svg
from club.models import Transaction
from club.parties import CLUB
from tests.factories import leg

pytestmark = pytest.mark.django_db

D = Decimal


def at(day: str) -> datetime:
    return timezone.make_aware(datetime.fromisoformat(f"{day}T20:00:00"))


@pytest.fixture
def club_night(make_player, staff):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    services.match_result_record(winner=alice, loser=bob, length=5, played_at=at("2026-03-01"))
    services.match_result_record(
        winner=carol, loser=alice, length=3, played_at=at("2026-03-02"), ended_by="timeout"
    )
    services.match_result_record(
        winner=bob, loser=carol, length=7, rated=False, played_at=at("2026-03-03")
    )
    services.ledger_post(
        legs=[leg(alice, D("12.50")), leg(bob, D("-12.50"))],
        memo="Chouette night",
        kind="chouette",
        at=at("2026-03-01"),
    )
    services.payment_record(
        payer=bob, payee=CLUB, amount=D("2.50"), recorded_by=staff.user, at=at("2026-03-04")
    )
    return alice, bob, carol


# The chart ----------------------------------------------------------------------------


def test_chart_draws_a_polyline_through_every_rating_with_axes_and_labels():
    svg = rating_chart_svg(
        [1500.0, 1522.36, 1510.0, 1540.2], first_label="1 Mar", last_label="9 Mar"
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    points = re.search(r'<polyline[^>]* points="([^"]+)"', svg).group(1).split()
    assert len(points) == 4
    xs = [float(p.split(",")[0]) for p in points]
    ys = [float(p.split(",")[1]) for p in points]
    assert xs == sorted(xs)  # left to right in match order
    assert ys[1] < ys[0] and ys[2] > ys[1] and ys[3] == min(ys)  # higher rating, higher up
    assert svg.count('class="axis"') == 2
    assert ">1500<" in svg and ">1550<" in svg  # the range, rounded out to tens
    assert "1 Mar" in svg and "9 Mar" in svg
    assert "Rated matches" in svg and "Rating history" in svg


def test_chart_escapes_its_labels():
    svg = rating_chart_svg([1500.0, 1510.0], first_label="<script>", last_label='"x"')
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg


def test_chart_without_rated_matches_says_so():
    svg = rating_chart_svg([1500.0])
    assert "<polyline" not in svg
    assert "No rated matches yet" in svg


def test_chart_of_a_flat_history_still_has_a_range():
    svg = rating_chart_svg([1500.0, 1500.0])
    assert "nan" not in svg.lower() and "inf" not in svg.lower()
    assert "<polyline" in svg


# Players ------------------------------------------------------------------------------


def test_leaderboard_ranks_players_with_one_decimal(client, club_night):
    html = client.get("/players/").content.decode()
    # carol 1500 + 4*5*sqrt(3)*P..., alice and bob: order by rating, one decimal shown.
    rows = re.findall(r"<tr><td class=\"num\">(\d+)</td><td><a href=\"/players/(\w+)/\"", html)
    assert [rank for rank, _name in rows] == ["1", "2", "3", "4"]
    names = [name for _rank, name in rows]
    assert names.index("carol") < names.index("director") < names.index("bob")
    assert re.search(r"<td class=\"num\">15\d\d\.\d</td>", html)
    assert "1500.0" in html  # the staff member, unrated


def test_player_page_shows_rating_experience_chart_and_results(client, club_night):
    alice, _bob, _carol = club_night
    response = client.get("/players/alice/")
    assert response.status_code == 200
    html = response.content.decode()
    alice.refresh_from_db()
    assert f"{alice.rating:.1f}" in html
    assert "<dd>8</dd>" in html  # experience: 5 + 3
    assert "<svg" in html and "<polyline" in html
    assert "lost to" in html and "won against" in html
    assert "lost on time" in html
    assert "Balance" not in html  # anonymous visitors see no balance


def test_player_page_shows_balance_and_statement_link_to_the_player_and_staff(
    client, club_night, staff
):
    alice, _bob, carol = club_night
    for viewer in (alice, staff):
        client.force_login(viewer.user)
        html = client.get("/players/alice/").content.decode()
        assert "Balance" in html and "12.50" in html
        assert 'href="/players/alice/statement/"' in html
    client.force_login(carol.user)
    html = client.get("/players/alice/").content.decode()
    assert "Balance" not in html and "12.50" not in html  # a member's books are theirs
    assert 'href="/players/alice/statement/"' not in html


def test_player_page_of_a_new_player_has_an_empty_chart(client, make_player):
    make_player("zoe")
    html = client.get("/players/zoe/").content.decode()
    assert "<svg" in html and "No rated matches yet" in html and "No results yet" in html


def test_unknown_player_page_is_404(client):
    assert client.get("/players/nobody/").status_code == 404


def test_results_page_lists_every_result(client, club_night):
    html = client.get("/results/").content.decode()
    assert html.count('href="/players/bob/"') == 2
    assert "lost on time" in html


# The ledger ---------------------------------------------------------------------------


def test_statement_page_shows_entries_and_balance(client, club_night):
    _alice, bob, _carol = club_night
    client.force_login(bob.user)
    html = client.get("/players/bob/statement/").content.decode()
    assert "Chouette night" in html
    assert "Payment from Bob to the club" in html
    assert "-10.00" in html  # -12.50 + 2.50
    assert 'href="/players/bob/statement.csv"' in html


def test_statement_page_at_a_date(client, club_night):
    _alice, bob, _carol = club_night
    client.force_login(bob.user)
    html = client.get("/players/bob/statement/?at=2026-03-02").content.decode()
    assert "-12.50" in html
    assert "Payment from Bob" not in html
    assert 'href="/players/bob/statement.csv?at=2026-03-02"' in html
    html = client.get("/players/bob/statement/?at=yesterday").content.decode()
    assert "not a date" in html


def test_statement_page_is_for_the_player_and_staff(client, club_night, staff):
    alice, _bob, _carol = club_night
    client.force_login(alice.user)
    assert client.get("/players/bob/statement/").status_code == 403
    client.force_login(staff.user)
    assert client.get("/players/bob/statement/").status_code == 200
    client.logout()
    response = client.get("/players/bob/statement/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_ledger_page_is_the_players_own_statement(client, club_night):
    alice, _bob, _carol = club_night
    assert client.get("/ledger/").status_code == 302  # log in first
    client.force_login(alice.user)
    html = client.get("/ledger/").content.decode()
    assert "Your statement" in html and "Chouette night" in html and "12.50" in html
    assert "/ledger/trial-balance/" not in html


def test_ledger_page_links_staff_to_the_books(client, club_night, staff):
    client.force_login(staff.user)
    html = client.get("/ledger/").content.decode()
    assert 'href="/ledger/trial-balance/"' in html and 'href="/ledger/settle-up/"' in html


def test_trial_balance_page_for_staff_sums_to_zero(client, club_night, staff):
    client.force_login(staff.user)
    html = client.get("/ledger/trial-balance/").content.decode()
    assert 'class="num total">0.00<' in html
    assert "Club cash" in html and "Alice" in html
    assert ">-2.50<" in html  # the club's cash account: it holds 2.50
    html = client.get("/ledger/trial-balance/?at=2026-03-01").content.decode()
    assert ">-2.50<" not in html


def test_trial_balance_and_settle_up_are_for_staff_only(client, club_night):
    alice, _bob, _carol = club_night
    client.force_login(alice.user)
    for path in ("/ledger/trial-balance/", "/ledger/settle-up/"):
        response = client.get(path)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    before = Transaction.objects.count()
    client.post("/ledger/settle-up/", {"payer": "bob", "payee": "alice", "amount": "10.00"})
    assert Transaction.objects.count() == before


def test_settle_up_page_lists_and_records_the_fewest_payments(client, club_night, staff):
    client.force_login(staff.user)
    html = client.get("/ledger/settle-up/").content.decode()
    # Alice is owed 12.50; Bob owes 10.00; the club holds Bob's 2.50.
    assert "2 payments." in html
    assert 'name="payer" value="bob"' in html and 'name="payee" value="alice"' in html
    assert 'name="payer" value="club"' in html
    response = client.post(
        "/ledger/settle-up/", {"payer": "bob", "payee": "alice", "amount": "10.00"}
    )
    assert response.status_code == 302
    client.post("/ledger/settle-up/", {"payer": "club", "payee": "alice", "amount": "2.50"})
    html = client.get("/ledger/settle-up/").content.decode()
    assert "nobody owes anything" in html


def test_settle_up_page_reports_a_refused_payment(client, club_night, staff):
    client.force_login(staff.user)
    before = Transaction.objects.count()
    response = client.post(
        "/ledger/settle-up/", {"payer": "bob", "payee": "bob", "amount": "1.00"}, follow=True
    )
    assert "must be different" in response.content.decode()
    assert Transaction.objects.count() == before


def test_rating_changes_are_shown_signed_with_one_decimal(client, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    services.match_result_record(winner=alice, loser=bob, length=5)
    html = client.get("/players/alice/").content.decode()
    assert ">+22.4<" in html
    html = client.get("/players/bob/").content.decode()
    assert ">-22.4<" in html


def test_trial_balance_page_says_when_a_date_is_none_and_shows_everything(
    client, club_night, staff
):
    client.force_login(staff.user)
    html = client.get("/ledger/trial-balance/?at=yesterday").content.decode()
    assert "That is not a date (YYYY-MM-DD); showing everything." in html
    assert ">-2.50<" in html
    html = client.get("/ledger/trial-balance/?at=").content.decode()  # the empty date field
    assert "not a date" not in html
