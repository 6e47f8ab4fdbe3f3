"""An online chouette in real browsers (issue 9, item 6): the box, the captain and two
crew members, each on their own board page in a browser context of their own (a phone or
a laptop), play a game's opening; the box doubles, two take and one passes from their own
pages, the captain moves by tapping checkers; and the big screen's table page, a fifth
context, follows every step live without reloading."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from backgammon.game import Game
from backgammon.moves import Step
from backgammon.notation import format_play
from chouette import online, selectors, services
from chouette.models import Chouette, Proposal
from matches.models import Action, Table
from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import DEVICES, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STATE = "() => JSON.parse(document.getElementById('table-state').textContent)"
NAMES = ("alice", "bob", "carol", "dave")


@pytest.fixture
def contexts(browser, live_server):
    opened = []

    def open_context(**options):
        context = browser.new_context(base_url=live_server.url, **options)
        opened.append(context)
        return context.new_page()

    yield open_context
    for context in opened:
        context.close()


def game_of(chouette):
    return selectors.chouette_online_game(chouette=Chouette.objects.get(pk=chouette.pk))


def state_of(page):
    return page.evaluate(STATE)


def wait_for_turn(page, turn_no):
    """The page has drawn turn ``turn_no`` (or later) by itself."""
    page.wait_for_function(f"() => ({STATE})().turn_no >= {turn_no}", timeout=10_000)


def move_by_notation(page, chouette):
    game = game_of(chouette)
    wait_for_turn(page, game["turn_no"])
    page.locator("form.notation[data-act=move] input[name=play]").fill(game["legal_plays"][0])
    page.get_by_role("button", name="Play it").click()
    page.wait_for_function(f"() => ({STATE})().turn_no > {game['turn_no']}", timeout=10_000)


def move_by_taps(page, chouette, after_first_step=None):
    """Tap a checker, then one of its lit landing points, until the play is whole; then
    confirm it (the captain's way on a phone). ``after_first_step`` runs once the first
    step is drawn."""
    game = game_of(chouette)
    wait_for_turn(page, game["turn_no"])
    board = page.locator("svg.board")
    for taps in range(1, 5):
        state = state_of(page)
        origin, landings = next(iter(state["steps"].items()))
        board.locator(f'[data-point="{origin}"]').first.click()
        expect(board.locator(".landing").first).to_be_visible()
        board.locator(f'[data-point="{next(iter(landings))}"]').first.click()
        page.wait_for_function(f"() => ({STATE})().pending.length === {taps}", timeout=10_000)
        if taps == 1 and after_first_step is not None:
            after_first_step()
        confirm = page.get_by_role("button", name="Confirm the play")
        if confirm.count():
            played = state_of(page)["play"]
            confirm.click()
            page.wait_for_function(f"() => ({STATE})().turn_no > {game['turn_no']}", timeout=10_000)
            return played
    raise AssertionError("four taps made no whole play")


def roll(page, chouette):
    game = game_of(chouette)
    wait_for_turn(page, game["turn_no"])
    page.get_by_role("button", name="Roll", exact=True).click()
    page.wait_for_function(f"() => ({STATE})().turn_no > {game['turn_no']}", timeout=10_000)


def test_four_players_play_an_online_opening_and_the_big_screen_follows_it_live(
    contexts, make_player, device
):
    members = {name: make_player(name, display_name=name.title()) for name in NAMES}
    make_player("erin", display_name="Erin")
    chouette = services.chouette_create(
        players=list(members.values()),
        order=list(members.values()),
        recorded_by=members["alice"].user,
        options=services.ChouetteOptions(
            stake=Decimal("1.00"), mode="online", cube="multiple", jacoby=False
        ),
    )
    pages = {}
    for name in NAMES:
        page = contexts(**DEVICES[device])
        log_in(page, name)
        page.goto(f"/chouettes/{chouette.pk}/play/")
        pages[name] = page
    big = contexts(viewport={"width": 1920, "height": 1080})
    log_in(big, "erin")
    big.goto(f"/chouettes/{chouette.pk}/")
    big.evaluate("() => { window.notReloaded = true; }")
    expect(big.locator("section.games h2")).to_have_text("0 games")

    # Any seated player starts the game; every board and the big screen draw it.
    expect(pages["alice"].locator("p.role")).to_contain_text("You are the box")
    expect(pages["bob"].locator("p.role")).to_contain_text("You are the captain")
    pages["carol"].get_by_role("button", name="Start the next game").click()
    for page in [*pages.values(), big]:
        expect(page.locator("svg.board")).to_be_visible(timeout=10_000)
    assert Table.objects.get(chouette__pk=chouette.pk).status == Table.Status.PLAYING

    # The opening: whoever won the opening roll moves; then to the box's roll.
    if game_of(chouette)["awaiting"] == ["bob"]:
        dave_proposes = game_of(chouette)
        pages["dave"].locator("form.notation[data-act=proposals] input[name=play]").fill(
            dave_proposes["legal_plays"][-1]
        )
        pages["dave"].get_by_role("button", name="Propose it").click()
        expect(pages["carol"].locator("section.proposals")).to_contain_text(
            dave_proposes["legal_plays"][-1], timeout=10_000
        )
        assert pages["alice"].locator("section.proposals").count() == 0  # never the box's
        assert Proposal.objects.filter(chouette=chouette, player=members["dave"]).count() == 1
        move_by_taps(pages["bob"], chouette)
    else:
        move_by_notation(pages["alice"], chouette)
        roll(pages["bob"], chouette)
        move_by_taps(pages["bob"], chouette)
    assert game_of(chouette)["awaiting"] == ["alice"] and game_of(chouette)["phase"] == "roll"

    # The box doubles everyone; bob and carol take, dave passes, each on their own page.
    box = pages["alice"]
    wait_for_turn(box, game_of(chouette)["turn_no"])
    box.get_by_role("button", name="Double every member").click()
    expect(big.locator("table.cubes tr.cube-offered")).to_have_count(3, timeout=10_000)
    for name, answer in (("bob", "Take"), ("carol", "Take"), ("dave", "Pass")):
        page = pages[name]
        expect(page.locator("p.doubled")).to_have_text(
            "The box doubles you to 2: take or pass.", timeout=10_000
        )
        page.get_by_role("button", name=answer, exact=True).click()
    expect(pages["dave"].locator("p.role")).to_contain_text(
        "you are out of this game", timeout=10_000
    )
    expect(big.locator("table.cubes tr.cube-passed")).to_have_count(1, timeout=10_000)
    expect(big.locator("table.cubes tr.cube-live")).to_have_count(2)
    state = Game.from_dict(Table.objects.get(chouette__pk=chouette.pk).state)
    assert {c.holder: (c.value, c.owner, c.live) for c in state.contracts} == {
        "bob": (2, 1, True),
        "carol": (2, 1, True),
        "dave": (1, None, False),
    }
    answers = Action.objects.filter(table__chouette__pk=chouette.pk, kind__in=["take", "pass"])
    assert sorted((a.actor.user.username, a.kind) for a in answers) == [
        ("bob", "take"),
        ("carol", "take"),
        ("dave", "pass"),
    ]

    # The box rolls and moves; the captain rolls and moves by taps; the big screen follows.
    version = int(big.locator("[data-live-topic]").get_attribute("data-live-version"))
    roll(box, chouette)
    if game_of(chouette)["awaiting"] == ["alice"]:  # else the box danced: the turn passed
        move_by_notation(box, chouette)
    roll(pages["bob"], chouette)

    def carol_advises():
        """A proposal moves the session on while the captain taps: his board is drawn
        again, live, with his step kept."""
        seen = state_of(pages["bob"])["version"]
        game = game_of(chouette)
        online.chouette_propose(
            chouette=Chouette.objects.get(pk=chouette.pk),
            player=members["carol"],
            turn_no=game["turn_no"],
            kind="play",
            play=game["legal_plays"][-1],
        )
        pages["bob"].wait_for_function(f"() => ({STATE})().version > {seen}", timeout=10_000)
        assert len(state_of(pages["bob"])["pending"]) == 1
        expect(pages["bob"].locator("section.proposals")).to_contain_text("Carol")

    # A checker on the bar may dance (the roll passes the turn by itself); else he taps.
    if game_of(chouette)["awaiting"] == ["bob"]:
        played = move_by_taps(pages["bob"], chouette, after_first_step=carol_advises)
        last = Action.objects.filter(table__chouette__pk=chouette.pk, kind="move").latest("id")
        assert last.actor == members["bob"]  # the play tapped went to the API whole
        assert format_play(Step(*step) for step in last.payload["steps"]) == played
    final = Chouette.objects.get(pk=chouette.pk).version
    big.wait_for_function(
        f"() => Number(document.querySelector('[data-live-topic]').dataset.liveVersion) >= {final}",
        timeout=10_000,
    )
    assert final > version and big.evaluate("() => window.notReloaded === true")
    expect(big.locator("p.awaiting")).to_contain_text("Alice")

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, page in pages.items():
        page.screenshot(
            path=str(SCREENSHOTS / f"chouette-online-{name}-{device}.png"), full_page=True
        )
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= page.viewport_size["width"], (name, width)
    big.screenshot(
        path=str(SCREENSHOTS / f"chouette-online-big-screen-{device}.png"), full_page=True
    )


def play_through_services(chouette, members, until):
    """Roll and play the first legal play for whoever is on turn until ``until(game)``."""
    for _step in range(200):
        game = game_of(chouette)
        if until(game):
            return game
        act = "roll" if game["phase"] == "roll" else "move"
        play = {"play": game["legal_plays"][0] if game["legal_plays"] else ""}
        online.chouette_act(
            chouette=Chouette.objects.get(pk=chouette.pk),
            player=members[game["awaiting"][0]],
            act=act,
            turn_no=game["turn_no"],
            **({} if act == "roll" else play),
        )
    raise AssertionError("the game did not get there")


def test_resignations_are_offered_and_answered_from_the_members_boards(
    contexts, make_player, device
):
    """The resign form posts the matches' words (``value``): the box offers a gammon to
    every member, who answer on their own boards; the captain offers a single for the
    team (the crew sees no form) and the box answers each contract in line."""
    members = {name: make_player(name, display_name=name.title()) for name in NAMES}
    chouette = services.chouette_create(
        players=list(members.values()),
        order=list(members.values()),
        recorded_by=members["alice"].user,
        options=services.ChouetteOptions(stake=Decimal("1.00"), mode="online", cube="multiple"),
    )
    online.chouette_game_start(chouette=chouette, by=members["alice"])
    play_through_services(
        chouette, members, lambda g: g["phase"] == "roll" and g["awaiting"] == ["alice"]
    )
    pages = {}
    for name in ("alice", "bob", "carol"):
        pages[name] = contexts(**DEVICES[device])
        log_in(pages[name], name)
        pages[name].goto(f"/chouettes/{chouette.pk}/play/")

    box = pages["alice"]
    box.locator("form.resign select[name=value]").select_option("gammon")
    box.get_by_role("button", name="Offer to resign").click()
    for name in ("bob", "carol"):
        expect(pages[name].locator("p.resigning")).to_have_text(
            "The box offers to resign a gammon: you answer for your own cube.", timeout=10_000
        )
    offer = game_of(chouette)["resignation"]
    assert (offer["value"], offer["offered_by"]) == ("gammon", "box")
    for name in ("bob", "carol"):
        pages[name].get_by_role("button", name="Play on").click()
        expect(pages[name].locator("p.resigning")).to_have_count(0, timeout=10_000)
    online.chouette_act(
        chouette=Chouette.objects.get(pk=chouette.pk),
        player=members["dave"],
        act="reject_resign",
        turn_no=offer["offered_at"],
    )
    rejected = Action.objects.filter(table__chouette__pk=chouette.pk, kind="reject_resign")
    assert sorted(a.actor.user.username for a in rejected) == ["bob", "carol", "dave"]

    game = play_through_services(
        chouette, members, lambda g: g["phase"] == "roll" and g["awaiting"] == ["bob"]
    )
    captain = pages["bob"]
    wait_for_turn(captain, game["turn_no"])
    expect(captain.locator("form.resign .hint")).to_have_text(
        "For the team: every contract still in the game; the box answers each."
    )
    wait_for_turn(pages["carol"], game["turn_no"])
    assert pages["carol"].locator("form.resign").count() == 0  # the crew does not offer
    captain.get_by_role("button", name="Offer to resign").click()  # a single game
    for name, answer in (("Bob", "Accept the resignation"), ("Carol", "Play on"),
                         ("Dave", "Accept the resignation")):  # fmt: skip
        expect(box.locator("p.resigning")).to_have_text(
            f"The team offers to resign a single game: you answer each cube in line, now {name}.",
            timeout=10_000,
        )
        box.get_by_role("button", name=answer).click()
    expect(box.locator("p.resigning")).to_have_count(0, timeout=10_000)
    expect(pages["carol"].locator("p.role")).to_contain_text("You are the captain", timeout=10_000)
    state = Game.from_dict(Table.objects.get(chouette__pk=chouette.pk).state)
    assert [(r.holder, r.value.value) for r in state.team.resigned] == [
        ("bob", "single"),
        ("dave", "single"),
    ]
    assert state.in_play("carol") and not state.in_play("bob") and not state.in_play("dave")
