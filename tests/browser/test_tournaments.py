"""A tournament's public page in real browsers, on a phone and on a laptop: the drawn
bracket with its players and results, a Swiss's standings, the online matches watchable
from it, the page following the live channel as results come in (swapped in, not
reloaded) for a visitor who is not logged in too, a player entering and withdrawing
from it, and the director's payout rows with their sum."""

import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from club import selectors as club_selectors
from club.models import SourceKind, Transaction
from matches.demo import play_on
from matches.models import Match
from tests.browser.helpers import log_in
from tests.browser.test_layout import assert_fits
from tournaments import services
from tournaments.models import Entry, Pairing, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
# Set on the page before a result comes in: still there after, so the page was not reloaded.
MARK = "() => { window.stillTheSamePage = true; }"
SAME_PAGE = "() => window.stillTheSamePage === true"


@pytest.fixture
def field(make_player):
    """Eight players rated from the top down (Ann the best), and the director."""
    return [
        make_player(name.lower(), display_name=name, rating=1700.0 - 10 * index)
        for index, name in enumerate(NAMES)
    ]


def knockout(staff, field, **options):
    tournament = services.tournament_create(
        created_by=staff.user,
        name="Club cup",
        format="single_elimination",
        match_lengths="1",
        **options,
    )
    for player in field:
        services.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    return services.tournament_start(tournament=tournament)


def pairing(tournament, key):
    return Pairing.objects.select_related("first__player", "second__player", "match").get(
        round__tournament=tournament, key=key
    )


def fixture_box(page, key):
    return page.locator(f'svg.bracket g.fixture[data-pairing="{key}"]')


def test_the_bracket_shows_players_results_and_matches_and_follows_them_live(
    page, staff, field, device, screenshot
):
    tournament = knockout(staff, field, online=True, consolation_through_round=1)
    # A mixed first round: main-1-1 on the big board (Ann beat Hal there), the others
    # online; main-1-2's match is played to its end before anyone looks.
    board = services.pairing_play_on_board(pairing=pairing(tournament, "main-1-1"))
    services.pairing_result_record(pairing=board, winner=board.first, recorded_by=staff.user)
    finished = play_on(pairing(tournament, "main-1-2").match)
    assert finished.status == Match.Status.FINISHED
    decided = pairing(tournament, "main-1-2")
    assert decided.winner is not None and decided.winner.player == finished.winner

    log_in(page, "cat")
    page.goto(f"/tournaments/{tournament.pk}/")
    expect(page.locator("h1")).to_have_text("Club cup")
    # Every player is drawn in the main bracket, the board result and the online one marked.
    main = page.locator("section.bracket").first
    drawn = main.locator("svg.bracket").text_content()
    for name in NAMES:
        assert name in drawn, (name, drawn)
    assert fixture_box(page, "main-1-1").locator("text.won").text_content() == "Ann ✓"
    online_winner = decided.winner.player.display_name
    assert fixture_box(page, "main-1-2").locator("text.won").text_content() == f"{online_winner} ✓"
    # The two winners stand in their semi-final already; the rounds list says the rest.
    semi = fixture_box(page, "main-2-1").text_content()
    assert "Ann" in semi and online_winner in semi
    rows = page.locator("section.round tbody tr")
    assert rows.count() == 4

    # The matches being played are watchable from the page: a link to their board.
    watching = pairing(tournament, "main-1-3")
    link = page.locator(f'section.round a[href="/play/{watching.match_id}/"]')
    expect(link).to_have_text("playing online: watch")
    assert page.locator('section.round a[href^="/play/"]').count() == 2  # main-1-3, main-1-4
    # ... and from the bracket: the boxes of the matches being played link to their boards.
    drawn_links = page.locator("svg.bracket a.watch").evaluate_all(
        "links => links.map(a => [a.querySelector('g').dataset.pairing, a.getAttribute('href')])"
    )
    assert sorted(drawn_links) == [
        ["main-1-3", f"/play/{watching.match_id}/"],
        ["main-1-4", f"/play/{pairing(tournament, 'main-1-4').match_id}/"],
    ]
    assert_fits(page)
    bracket_box = main.locator(".scroll-x")
    if device == "phone":  # the bracket scrolls inside its own box, the page does not
        assert bracket_box.evaluate("(box) => box.scrollWidth > box.clientWidth")
    screenshot("tournament-bracket")

    # Results come in while the page is open: it follows them without a reload.
    page.evaluate(MARK)
    play_on(watching.match)
    watching.refresh_from_db()
    winner = watching.winner.player.display_name
    expect(fixture_box(page, "main-1-3").locator("text.won")).to_have_text(
        f"{winner} ✓", timeout=10_000
    )
    assert page.evaluate(SAME_PAGE)
    last = pairing(tournament, "main-1-4")
    play_on(last.match)
    last.refresh_from_db()
    # The round is complete: the consolation is drawn with the first round's losers, and
    # round 2's matches are linked.
    losers = sorted(
        pairing(tournament, key).loser.player.display_name
        for key in ("main-1-1", "main-1-2", "main-1-3", "main-1-4")
    )
    expect(page.locator("section.round h2", has_text="Round 2")).to_be_visible(timeout=10_000)
    assert page.evaluate(SAME_PAGE)
    consolation = page.locator("section.bracket", has_text="Consolation").text_content()
    assert all(name in consolation for name in losers), (losers, consolation)
    tournament.refresh_from_db()
    assert tournament.rounds.count() == 2
    second = Pairing.objects.filter(round__tournament=tournament, round__number=2)
    assert second.count() == 4 and not second.filter(match__isnull=True).exists()
    for row in second:  # linked from the rounds' list and from the bracket
        expect(page.locator(f'a[href="/play/{row.match_id}/"]')).to_have_count(2)
    assert page.locator("svg.bracket a.watch").count() == 4
    assert_fits(page)
    screenshot("tournament-bracket-round-2")

    # A watcher taps the semi-final in the bracket and is on its board.
    semi_final = pairing(tournament, "main-2-1")
    fixture_box(page, "main-2-1").click()
    page.wait_for_url(f"**/play/{semi_final.match_id}/")
    expect(page.locator("svg.board")).to_be_visible()
    heading = page.locator("main").inner_text()  # the board names players as the site does
    assert semi_final.first.player.display_name in heading
    assert semi_final.second.player.display_name in heading


def test_a_swiss_shows_its_standings_and_they_follow_the_results(
    page, staff, field, device, screenshot
):
    swiss = services.tournament_create(
        created_by=staff.user, name="Swiss night", format="swiss", swiss_rounds=2
    )
    for player in field[:4]:
        services.entry_add(tournament=swiss, player=player, recorded_by=staff.user)
    swiss = services.tournament_start(tournament=swiss)
    first, second = Pairing.objects.filter(round__tournament=swiss).order_by("position")
    services.pairing_result_record(pairing=first, winner=first.second, recorded_by=staff.user)

    log_in(page, "ann")
    page.goto(f"/tournaments/{swiss.pk}/")
    standings = page.locator("table.standings")
    expect(standings.locator("tbody tr")).to_have_count(4)
    assert page.locator("svg.bracket").count() == 0  # a Swiss has no bracket
    leader = standings.locator("tbody tr").first.locator("td").all_inner_texts()
    # Place, player, score, won, lost, byes, Buchholz.
    assert leader == ["1", first.second.player.display_name, "1", "1", "0", "0", "0"], leader
    assert_fits(page)
    screenshot("tournament-swiss")

    page.evaluate(MARK)
    services.pairing_result_record(pairing=second, winner=second.first, recorded_by=staff.user)
    # The round is complete: round 2 is paired and the standings hold two winners.
    expect(page.locator("section.round h2", has_text="Round 2")).to_be_visible(timeout=10_000)
    assert page.evaluate(SAME_PAGE)
    scores = standings.locator("tbody tr td:nth-child(3)").all_inner_texts()
    assert scores == ["1", "1", "0", "0"]
    swiss.refresh_from_db()
    assert swiss.rounds.count() == 2
    winners = {first.second.player.display_name, second.first.player.display_name}
    top_two = standings.locator("tbody tr td:nth-child(2)").all_inner_texts()[:2]
    assert set(top_two) == winners
    assert_fits(page)


def test_a_player_enters_from_the_public_page_and_the_big_screen_sees_it(
    page, browser, live_server, staff, field, device
):
    tournament = services.tournament_create(
        created_by=staff.user,
        name="Friday knockout",
        format="single_elimination",
        entry_fee=Decimal("10.00"),
    )
    tournament = services.tournament_open(tournament=tournament)
    screen = browser.new_context(base_url=live_server.url, viewport={"width": 1920, "height": 1080})
    big = screen.new_page()
    log_in(big, "hal")
    big.goto(f"/tournaments/{tournament.pk}/")
    expect(big.locator("main")).to_contain_text("0 entries so far.")

    log_in(page, "ben")
    page.goto(f"/tournaments/{tournament.pk}/")
    assert_fits(page)
    page.get_by_role("button", name="Enter (entry fee 10.00)").click()
    expect(page.locator(".messages")).to_contain_text("You have entered Friday knockout.")
    entry = Entry.objects.get(tournament=tournament)
    assert entry.player.display_name == "Ben" and entry.paid
    assert club_selectors.player_balance(player=entry.player) == Decimal("-10.00")
    expect(page.locator("ul.entries li")).to_have_text(["Ben"])
    # The big screen shows the entry by itself.
    expect(big.locator("ul.entries li")).to_have_text(["Ben"], timeout=10_000)
    expect(big.locator("main")).to_contain_text("1 entry so far.")

    page.get_by_role("button", name="Withdraw").click()
    expect(page.locator(".messages")).to_contain_text("You have withdrawn from Friday knockout.")
    assert not Entry.objects.filter(tournament=tournament).exists()
    assert club_selectors.player_balance(player=field[1]) == Decimal("0.00")
    fees = Transaction.objects.filter(kind=SourceKind.TOURNAMENT, source_id=tournament.pk)
    assert fees.count() == 2  # the fee and its refund
    expect(big.locator("main")).to_contain_text("0 entries so far.", timeout=10_000)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.OPEN
    screen.close()


def test_a_visitor_who_is_not_logged_in_sees_the_bracket_follow_the_results(
    page, staff, field, device
):
    """Issue 22: a club's screen shows the bracket without anyone logged in; the page
    follows the public topic, names pairings "Round 1, match 2", never their keys."""
    tournament = knockout(staff, field[:4])
    page.goto(f"/tournaments/{tournament.pk}/")
    expect(page.locator("h1")).to_have_text("Club cup")
    expect(page.locator("header")).to_contain_text("Log in")  # nobody is logged in
    rows = page.locator("section.round tbody tr td:first-child")
    expect(rows).to_have_text(["Round 1, match 1", "Round 1, match 2"])
    final = fixture_box(page, "main-2-1").text_content()
    assert "Winner: Round 1, match 1" in final and "main-1-1" not in final
    page.evaluate(MARK)

    played = pairing(tournament, "main-1-2")
    services.pairing_result_record(pairing=played, winner=played.second, recorded_by=staff.user)
    winner = played.second.player.display_name
    expect(fixture_box(page, "main-1-2").locator("text.won")).to_have_text(
        f"{winner} ✓", timeout=10_000
    )
    expect(fixture_box(page, "main-2-1")).to_contain_text(winner)
    assert page.evaluate(SAME_PAGE)  # swapped in, not reloaded
    assert_fits(page)


def test_the_director_fills_in_the_payout_rows_and_sees_their_sum(page, staff, device):
    """Issue 22: the payout table is rows with their sum kept up to date as the director
    types (static/tournaments/payout_table.js), red while it is not 100."""
    log_in(page, "director")
    page.goto("/admin/tournaments/tournament/add/")
    total = page.locator(".payout-table .payout-sum")
    expect(total).to_have_text("100")  # the default table: 70 and 30
    page.locator('input[name="payout_table-1-share"]').fill("20")
    expect(total).to_have_text("90")
    expect(total).to_have_class(re.compile("payout-off"))
    page.get_by_role("button", name="Add a place").click()
    expect(page.locator(".payout-table tr.payout-row")).to_have_count(6)
    page.locator('input[name="payout_table-5-place"]').fill("3")
    page.locator('input[name="payout_table-5-share"]').fill("10")
    expect(total).to_have_text("100")
    expect(total).not_to_have_class(re.compile("payout-off"))
    page.locator("#id_name").fill("Browser cup")
    page.locator("#id_format").select_option("single_elimination")
    page.locator('input[name="_save"]').click()
    expect(page.locator(".messagelist")).to_contain_text("Browser cup")
    saved = Tournament.objects.get(name="Browser cup")
    assert saved.payout_table == {
        "unit": "percent",
        "places": {"main": {"1": "70", "2": "20", "3": "10"}},
    }
