"""The chouette pages: the list and opening a session, the scorekeeper's form (a game in
a few taps, undo, join, leave, close) and the table page that follows the live channel."""

import json
import re
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import translation

from chouette import online, selectors
from chouette.models import Chouette, ChouetteGame
from club.models import SourceKind, Transaction
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

CONFIRM = {"confirm": "yes"}  # what the confirmation page sends back


@pytest.fixture
def keeper_client(client, make_player):
    keeper = make_player("keeper")
    client.login(username="keeper", password=PASSWORD)
    client.keeper = keeper
    return client


def opened(client, members, **extra):
    form = {
        "players": ["alice", "bob", "carol", "dave"],
        "order": "alice bob carol dave",
        "stake": "2.00",
        "cube": "multiple",
        "jacoby": "on",
        "box_keeps": "beats_captain",
        "partner_from": "7",
        **extra,
    }
    response = client.post("/chouettes/", form)
    assert response.status_code == 302, response.content.decode()
    return Chouette.objects.get()


def test_the_pages_need_a_login(client, members):
    assert client.get("/chouettes/").status_code == 302


def test_opening_a_chouette_from_the_list_leads_to_the_scorekeepers_form(keeper_client, members):
    chouette = opened(keeper_client, members)
    assert chouette.recorded_by == keeper_client.keeper.user
    assert selectors.chouette_seating(chouette=chouette).players == (
        "alice",
        "bob",
        "carol",
        "dave",
    )
    listed = keeper_client.get("/chouettes/").content.decode()
    assert f'href="/chouettes/{chouette.pk}/"' in listed and "Alice" in listed


def test_a_chouette_that_cannot_open_says_why_and_opens_nothing(keeper_client, members):
    response = keeper_client.post(
        "/chouettes/",
        {
            "players": ["alice", "bob"],
            "stake": "2.00",
            "cube": "single",
            "box_keeps": "beats_captain",
        },
        follow=True,
    )
    assert "at least 3 players" in response.content.decode()
    assert not Chouette.objects.exists()


def test_the_scorekeeper_records_a_game_in_a_few_taps(keeper_client, members):
    chouette = opened(keeper_client, members)
    form = keeper_client.get(f"/chouettes/{chouette.pk}/record/").content.decode()
    for name in ("bob", "carol", "dave"):
        assert f'name="outcome_{name}"' in form and f'name="stake_{name}"' in form
    response = keeper_client.post(
        f"/chouettes/{chouette.pk}/record/",
        {
            "version": "0",
            "winner": "team",
            "result": "gammon",
            "outcome_bob": "played",
            "stake_bob": "2",
            "outcome_carol": "passed",
            "stake_carol": "1",
            "outcome_dave": "played",
            "stake_dave": "1",
        },
        follow=True,
    )
    assert "The game is recorded." in response.content.decode()
    chouette.refresh_from_db()
    # bob wins a gammon at 2 (+4), carol passed (-1), dave's untouched cube a single (+1).
    assert selectors.chouette_scores(chouette=chouette) == {
        "alice": -4,
        "carol": -1,
        "dave": 1,
        "bob": 4,
    }


def test_a_stale_form_is_refused_with_a_message_and_nothing_recorded(keeper_client, members):
    chouette = opened(keeper_client, members)
    sent = {
        "version": "0",
        "winner": "box",
        "result": "single",
        **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
        **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
    }
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", sent)
    again = keeper_client.post(f"/chouettes/{chouette.pk}/record/", sent, follow=True)
    assert "changed since you looked" in again.content.decode()
    assert ChouetteGame.objects.count() == 1


def test_undo_join_leave_and_close_from_the_scorekeepers_form(keeper_client, members):
    chouette = opened(keeper_client, members)
    base = f"/chouettes/{chouette.pk}/"
    sent = {
        "winner": "box",
        "result": "single",
        **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
        **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
    }
    keeper_client.post(base + "record/", {**sent, "version": "0"})
    assert (
        "Game 1 is undone."
        in keeper_client.post(
            base + "undo/", {"version": "1", **CONFIRM}, follow=True
        ).content.decode()
    )
    keeper_client.post(base + "record/", {**sent, "version": "2"})
    joined = keeper_client.post(base + "join/", {"player": "erin", "version": "3"}, follow=True)
    assert "Erin joins at the end of the line." in joined.content.decode()
    left = keeper_client.post(
        base + "leave/", {"player": "bob", "version": "4", **CONFIRM}, follow=True
    )
    assert "Bob leaves and settles -2.00." in left.content.decode()
    closed = keeper_client.post(base + "close/", {"version": "5", **CONFIRM}, follow=True)
    assert "closed and settled" in closed.content.decode()
    chouette.refresh_from_db()
    assert chouette.status == "closed"
    assert Transaction.objects.filter(kind=SourceKind.CHOUETTE).count() == 2
    refused = keeper_client.post(base + "close/", {}, follow=True).content.decode()
    assert "This chouette is closed." in refused


def test_the_table_page_shows_the_seats_scores_and_games_and_follows_the_live_topic(
    keeper_client, members
):
    chouette = opened(keeper_client, members, partner_from="4")
    page = keeper_client.get(f"/chouettes/{chouette.pk}/").content.decode()
    assert f'data-live-topic="chouette:{chouette.pk}"' in page
    assert 'data-live-version="0"' in page and "club/live_region.js" in page
    assert "Box" in page and "Partner" in page and "Captain" in page
    live = keeper_client.get(f"/api/live/?topic=chouette:{chouette.pk}&since=0&wait=0").json()
    assert live == {"topic": f"chouette:{chouette.pk}", "version": 0, "state": None}
    keeper_client.post(f"/chouettes/{chouette.pk}/close/", CONFIRM)
    moved = keeper_client.get(f"/api/live/?topic=chouette:{chouette.pk}&since=0&wait=0").json()
    body = keeper_client.get(f"/api/chouettes/{chouette.pk}/").json()
    assert moved["version"] == 1 and moved["state"] == body  # the session as its GET says
    assert body["status"] == "closed"
    assert keeper_client.get("/api/live/?topic=chouette:999&wait=0").status_code == 404


def test_the_table_page_answers_its_live_region_alone_when_live_region_js_asks(
    keeper_client, members
):
    chouette = opened(keeper_client, members, partner_from="4")
    page = keeper_client.get(f"/chouettes/{chouette.pk}/").content.decode()
    region = keeper_client.get(f"/chouettes/{chouette.pk}/?live=region").content.decode()
    assert region.startswith('<div class="chouette-live" data-live-region')
    assert f'data-live-topic="chouette:{chouette.pk}" data-live-version="0"' in region
    assert region.strip() in page  # the page's own region, as it is
    assert "<header" not in region and "<html" not in region and "live_region.js" not in region


def test_the_big_screen_is_the_table_without_the_site_and_its_region_stays_big(
    keeper_client, members
):
    """?screen=big (docs/pages.md, "The big screen"): no header or footer, main marked
    big-screen; live_region.js asks for the page's own address with ?live=region added,
    and the region it gets is the big screen's too (its link back to the normal page)."""
    chouette = opened(keeper_client, members)
    page = keeper_client.get(f"/chouettes/{chouette.pk}/").content.decode()
    assert "<header" in page and "<footer" in page
    assert 'class="page-wide chouette-table"' in page
    assert f'href="/chouettes/{chouette.pk}/?screen=big" class="screen-switch">Big screen<' in page
    big = keeper_client.get(f"/chouettes/{chouette.pk}/?screen=big").content.decode()
    assert "<header" not in big and "<footer" not in big
    assert 'class="page-wide chouette-table big-screen"' in big
    assert "live_region.js" in big
    region = keeper_client.get(f"/chouettes/{chouette.pk}/?screen=big&live=region")
    assert region.content.decode().strip() in big
    assert f'href="/chouettes/{chouette.pk}/" class="screen-switch">Normal page<' in big
    other = keeper_client.get(f"/chouettes/{chouette.pk}/?screen=small").content.decode()
    assert "<header" in other and "big-screen" not in other  # only "big" asks for it


def test_a_players_chouettes_and_their_points(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.post(
        f"/chouettes/{chouette.pk}/record/",
        {
            "version": "0",
            "winner": "box",
            "result": "single",
            **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
            **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
        },
    )
    page = keeper_client.get("/chouettes/?player=alice").content.decode()
    assert "Chouettes of Alice" in page and '<strong class="">3</strong>' in page
    assert keeper_client.get("/chouettes/?player=nobody").status_code == 404
    assert Decimal(chouette.stake) == Decimal("2.00")


def test_the_table_page_speaks_the_members_language(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.cookies["django_language"] = "bg"
    page = keeper_client.get(f"/chouettes/{chouette.pk}/").content.decode()
    assert "Кутията" in page and "Капитан" in page and "Още няма партии." in page


def test_a_players_page_links_to_their_chouettes(keeper_client, members):
    page = keeper_client.get("/players/alice/").content.decode()
    assert 'href="/chouettes/?player=alice"' in page


def test_a_member_who_may_not_record_is_told_so_and_nothing_changes(keeper_client, members):
    chouette = opened(keeper_client, members)
    client = Client()  # another browser than the scorekeeper's
    client.login(username="erin", password=PASSWORD)
    form = client.get(f"/chouettes/{chouette.pk}/record/").content.decode()
    assert "Only the chouette's scorekeeper" in form and "record-game" not in form
    refused = client.post(f"/chouettes/{chouette.pk}/close/", {}, follow=True).content.decode()
    assert "Only the chouette&#x27;s scorekeeper" in refused
    chouette.refresh_from_db()
    assert chouette.status == "open" and chouette.version == 0


# What posts money or cannot be taken back asks first (issue 22) -------------------------

BOX_WINS = {
    "winner": "box",
    "result": "single",
    **{f"outcome_{n}": "played" for n in ("bob", "carol", "dave")},
    **{f"stake_{n}": "1" for n in ("bob", "carol", "dave")},
}


def hidden(html, name):
    found = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)">', html)
    return found.group(1) if found else None


def confirmed_form(html):
    """The fields the confirmation page sends back when its button is pressed."""
    return {
        name: hidden(html, name) for name in ("version", "player", "confirm") if hidden(html, name)
    }


def test_close_without_confirmation_shows_the_settlement_and_posts_nothing(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", {**BOX_WINS, "version": "0"})
    asked = keeper_client.post(f"/chouettes/{chouette.pk}/close/", {"version": "1"})
    assert asked.status_code == 200
    page = asked.content.decode()
    assert f"Close chouette #{chouette.pk} and settle?" in page
    assert "posts the settlement to the ledger" in page
    # alice, the box, won 3 points at 2.00 a point; each member lost 1.
    assert "receives 6.00" in page and page.count("pays 2.00") == 3
    assert 'class="danger"' in page and f'href="/chouettes/{chouette.pk}/record/"' in page
    assert confirmed_form(page) == {"version": "1", "confirm": "yes"}
    assert not Transaction.objects.exists()
    chouette.refresh_from_db()
    assert (chouette.status, chouette.version) == ("open", 1)

    done = keeper_client.post(f"/chouettes/{chouette.pk}/close/", confirmed_form(page), follow=True)
    assert "closed and settled in the ledger" in done.content.decode()
    chouette.refresh_from_db()
    assert chouette.status == "closed"
    legs = {
        leg.account.player.username: leg.amount
        for leg in Transaction.objects.get(kind=SourceKind.CHOUETTE).legs.all()
    }
    assert legs == {
        "alice": Decimal("6.00"),
        "bob": Decimal("-2.00"),
        "carol": Decimal("-2.00"),
        "dave": Decimal("-2.00"),
    }


def test_a_cancelled_confirmation_posts_nothing(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", {**BOX_WINS, "version": "0"})
    for action, sent in (("close", {}), ("leave", {"player": "bob"}), ("undo", {})):
        page = keeper_client.post(f"/chouettes/{chouette.pk}/{action}/", sent).content.decode()
        cancel = re.search(r'<a class="button" href="([^"]+)">Cancel</a>', page)
        assert cancel is not None, action
        back = keeper_client.get(cancel.group(1))  # Cancel is a link: it sends nothing
        assert back.status_code == 200 and "Record the game" in back.content.decode()
    assert not Transaction.objects.exists()
    chouette.refresh_from_db()
    assert (chouette.status, chouette.version, ChouetteGame.objects.count()) == ("open", 1, 1)
    assert chouette.memberships.filter(left_after__isnull=False).count() == 0


def test_leaving_shows_what_the_leaver_settles_and_posts_it_once_confirmed(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", {**BOX_WINS, "version": "0"})
    page = keeper_client.post(
        f"/chouettes/{chouette.pk}/leave/", {"player": "bob", "version": "1"}
    ).content.decode()
    assert "Bob leaves and settles?" in page and "cannot be taken back" in page
    assert "pays 2.00" in page and "receives 2.00" in page  # bob to alice, the box
    assert confirmed_form(page) == {"version": "1", "player": "bob", "confirm": "yes"}
    assert not Transaction.objects.exists()
    left = keeper_client.post(f"/chouettes/{chouette.pk}/leave/", confirmed_form(page), follow=True)
    assert "Bob leaves and settles -2.00." in left.content.decode()
    assert Transaction.objects.filter(kind=SourceKind.CHOUETTE).count() == 1


def test_undoing_a_game_asks_first(keeper_client, members):
    chouette = opened(keeper_client, members)
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", {**BOX_WINS, "version": "0"})
    page = keeper_client.post(f"/chouettes/{chouette.pk}/undo/", {"version": "1"}).content.decode()
    assert "Undo game 1?" in page and "cannot itself be undone" in page
    assert ChouetteGame.objects.count() == 1
    undone = keeper_client.post(
        f"/chouettes/{chouette.pk}/undo/", confirmed_form(page), follow=True
    )
    assert "Game 1 is undone." in undone.content.decode()
    assert ChouetteGame.objects.count() == 2


def test_a_confirmation_is_for_the_session_as_it_was_shown(keeper_client, members):
    """The amounts confirmed are those shown: a game recorded in between makes the
    confirmation stale, and nothing is posted."""
    chouette = opened(keeper_client, members)
    page = keeper_client.post(f"/chouettes/{chouette.pk}/close/", {}).content.decode()
    assert hidden(page, "version") == "0"
    keeper_client.post(f"/chouettes/{chouette.pk}/record/", {**BOX_WINS, "version": "0"})
    stale = keeper_client.post(
        f"/chouettes/{chouette.pk}/close/", confirmed_form(page), follow=True
    )
    assert "changed since you looked" in stale.content.decode()
    assert not Transaction.objects.exists()
    chouette.refresh_from_db()
    assert chouette.status == "open"


def test_who_may_not_act_is_refused_at_once_with_nothing_to_confirm(keeper_client, members):
    chouette = opened(keeper_client, members)
    client = Client()
    client.login(username="erin", password=PASSWORD)
    refused = client.post(f"/chouettes/{chouette.pk}/close/", {}, follow=True).content.decode()
    assert "Only the chouette&#x27;s scorekeeper" in refused and "confirm" not in refused
    assert not Transaction.objects.exists()


def test_the_actions_that_post_money_or_cannot_be_undone_look_different(keeper_client, members):
    chouette = opened(keeper_client, members)
    page = keeper_client.get(f"/chouettes/{chouette.pk}/record/").content.decode()
    zone = page[page.index('class="keeper-actions danger-zone"') :]
    for action in ("undo", "leave", "close"):
        form = re.search(rf'action="/chouettes/{chouette.pk}/{action}/".*?</form>', zone)
        assert form is not None and 'class="danger"' in form.group(0), action
    ordinary = re.search(rf'action="/chouettes/{chouette.pk}/join/".*?</form>', page)
    assert ordinary is not None and "danger" not in ordinary.group(0)
    assert page.index("/join/") < page.index("danger-zone")  # apart, above the zone


def test_the_scorekeepers_page_follows_the_live_topic_outside_its_game_form(keeper_client, members):
    chouette = opened(keeper_client, members)
    page = keeper_client.get(f"/chouettes/{chouette.pk}/record/").content.decode()
    assert "club/live_region.js" in page
    region = keeper_client.get(f"/chouettes/{chouette.pk}/record/?live=region").content.decode()
    assert region.startswith('<div class="keeper-live" data-live-region')
    assert f'data-live-topic="chouette:{chouette.pk}" data-live-version="0"' in region
    assert "<header" not in region and "record-game" not in region  # the taps stay put
    assert "/close/" in region and 'class="scores"' in region


# Each member's own board (online) ------------------------------------------------------


@pytest.fixture
def online_table(members, open_chouette):
    """An online chouette started: alice the box, bob the captain, carol and dave the
    crew; ``act`` plays through the services, ``page`` is a member's board as HTML."""

    def make(**options):
        options = {"cube": "multiple", "jacoby": False, "beavers": True, **options}
        chouette = open_chouette("alice", "bob", "carol", "dave", mode="online", **options)
        online.chouette_game_start(chouette=chouette, by=members["bob"])
        return Table(chouette.pk, members)

    return make


class Table:
    def __init__(self, pk, members):
        self.pk, self.members = pk, members
        self.clients = {}

    @property
    def chouette(self):
        return Chouette.objects.get(pk=self.pk)

    @property
    def game(self):
        return selectors.chouette_online_game(chouette=self.chouette)

    def act(self, name, act, turn_no=None, **body):
        turn = self.game["turn_no"] if turn_no is None else turn_no
        online.chouette_act(
            chouette=self.chouette, player=self.members[name], act=act, turn_no=turn, **body
        )

    def page(self, name, path="play/", **query):
        if name not in self.clients:
            self.clients[name] = Client()
            self.clients[name].force_login(self.members[name].user)
        url = path if path.startswith("/") else f"/chouettes/{self.pk}/{path}"
        response = self.clients[name].get(url, query)
        assert response.status_code == 200, response.status_code
        return response.content.decode()

    def state(self, html):
        found = re.search(r'<script id="table-state" type="application/json">(.*?)</script>', html)
        return json.loads(found.group(1))

    def play_until(self, done):
        for _step in range(500):
            game = self.game
            if done(game):
                return game
            mover = game["awaiting"][0]
            if game["phase"] == "roll":
                self.act(mover, "roll")
            else:
                plays = game["legal_plays"]
                self.act(mover, "move", play=plays[0] if plays else "")
        raise AssertionError("the game did not get there")


def buttons(html):
    """The actions a page offers: each button's or form's data-act."""
    return sorted(set(re.findall(r'data-act="([a-z_]+)"', html)))


def box_on_roll(game):
    return game["phase"] == "roll" and game["awaiting"] == ["alice"]


def captain_moving(game):
    return game["phase"] == "move" and game["awaiting"] == ["bob"] and len(game["legal_plays"]) > 1


def test_each_member_sees_only_their_own_decisions_on_the_box_s_roll(online_table):
    table = online_table()
    table.play_until(box_on_roll)
    box = table.page("alice")
    assert "You are the box" in box and "<svg" in box and "Waiting for: you" in box
    assert buttons(box) == ["double", "resign", "roll"]
    assert "Double every member" in box and box.count('name="to"') == 3
    assert 'data-many="to"' in box
    for crew in ("bob", "carol", "dave"):
        page = table.page(crew)
        assert buttons(page) == [], crew
        assert "Waiting for: Alice" in page
    assert "You are the captain" in table.page("bob")
    assert "You are in the crew" in table.page("carol")
    watcher = table.page("erin")
    assert "You are watching" in watcher and buttons(watcher) == []
    assert 'class="cubes"' in watcher and watcher.count("cube-live") == 3


def test_the_box_doubles_and_each_member_answers_their_own_cube(online_table):
    table = online_table()
    table.play_until(box_on_roll)
    table.act("alice", "double", to=["carol", "dave"])
    offered = table.game["cubes"]["carol"]["offered_at"]
    for name in ("carol", "dave"):
        page = table.page(name)
        assert "The box doubles you to 2: take or pass." in page
        assert buttons(page) == ["beaver", "pass", "proposals", "take"]  # H2: advice too
        assert page.count(f'data-turn-no="{offered}"') == 3
    assert buttons(table.page("bob")) == []  # his cube was not doubled
    assert buttons(table.page("alice")) == []
    table.act("carol", "take", turn_no=offered)
    carol = table.page("carol")
    assert "take or pass" not in carol and buttons(carol) == ["proposals"]  # advice still
    assert "cube-passed" not in carol
    table.act("dave", "pass", turn_no=offered)
    dave = table.page("dave")
    assert "you are out of this game" in dave and buttons(dave) == []
    assert dave.count("cube-passed") == 1


def test_the_captain_moves_by_steps_and_the_whole_play_goes_to_the_api(online_table, api):
    table = online_table()
    game = table.play_until(captain_moving)
    page = table.page("bob")
    state = table.state(page)
    assert state["my_turn"] and state["steps"] and state["pending"] == []
    assert 'data-act="move"' in page and "Tap a checker" in page
    for crew in ("carol", "dave", "alice"):
        assert table.state(table.page(crew))["my_turn"] is False
    origin, landings = next(iter(state["steps"].items()))
    die = next(iter(landings.values()))
    step = f"{origin}-{die}"
    fragment = table.page("bob", "play/board/", turn_no=game["turn_no"], steps=step)
    stepped = table.state(fragment)
    assert stepped["pending"] == [[int(origin), die]] and "Played so far:" in fragment
    assert 'data-act="undo"' in fragment and 'data-act="move"' not in fragment
    # Steps sent for another turn, or that do not fit, are dropped.
    stale = table.page("bob", "play/board/", turn_no=game["turn_no"] - 1, steps=step)
    assert table.state(stale)["pending"] == []
    wrong = table.page("bob", "play/board/", turn_no=game["turn_no"], steps="3-6.1-1")
    assert table.state(wrong)["pending"] == []
    while not stepped["play"] or "Confirm the play" not in fragment:
        origin, landings = next(iter(stepped["steps"].items()))
        steps = [*stepped["pending"], [int(origin), next(iter(landings.values()))]]
        query = ".".join(f"{o}-{d}" for o, d in steps)
        fragment = table.page("bob", "play/board/", turn_no=game["turn_no"], steps=query)
        stepped = table.state(fragment)
    moved = api.as_user(table.members["bob"].user).post(
        f"/api/chouettes/{table.pk}/move/",
        {"turn_no": game["turn_no"], "play": stepped["play"]},
        format="json",
    )
    assert moved.status_code == 200, moved.json()
    assert moved.json()["game"]["turn_no"] > game["turn_no"]


def test_h2_the_crew_advises_the_captain_and_the_box_never_sees_it(online_table):
    table = online_table()
    game = table.play_until(captain_moving)
    carol = table.page("carol")
    assert "Advise the captain" in carol and 'name="kind" value="play"' in carol
    assert "Advise the captain" not in table.page("bob")  # the captain plays, not advises
    assert "Advise the captain" not in table.page("alice")
    online.chouette_propose(
        chouette=table.chouette,
        player=table.members["dave"],
        turn_no=game["turn_no"],
        kind="play",
        play=game["legal_plays"][1],
    )
    proposal = f"<code>{game['legal_plays'][1]}</code>"
    for team in ("bob", "carol", "dave"):
        page = table.page(team)
        assert 'class="proposals"' in page and proposal in page, team
    for outsider in ("alice", "erin"):
        page = table.page(outsider)
        assert "proposals" not in page and proposal not in page, outsider


def test_no_cube_no_talk_leaves_only_cube_advice_and_none_turns_it_off(online_table):
    cube_only = online_table(consulting="cube")
    cube_only.play_until(captain_moving)
    assert "Advise the captain" not in cube_only.page("carol")
    cube_only.play_until(lambda g: g["phase"] == "roll" and g["awaiting"] == ["bob"])
    carol = cube_only.page("carol")
    assert "Propose: double" in carol and "Propose: no double" in carol
    silent = online_table(consulting="none")
    silent.play_until(lambda g: g["phase"] == "roll" and g["awaiting"] == ["bob"])
    assert "Advise the captain" not in silent.page("carol")


def test_on_the_team_s_cube_round_every_member_doubles_on_their_own_cube(online_table):
    table = online_table()
    table.play_until(lambda g: g["phase"] == "roll" and g["awaiting"] == ["bob"])
    assert buttons(table.page("carol")) == ["double", "proposals"]  # the captain resigns
    assert "Double the box on your cube" in table.page("carol")
    assert buttons(table.page("bob")) == ["double", "resign", "roll"]
    table.act("carol", "double")
    assert "Send the team's doubles to the box" in table.page("bob")
    table.act("bob", "roll")  # sends carol's double: the box answers it
    box = table.page("alice")
    assert "The team doubles you to 2: take or pass." in box
    assert buttons(box) == ["beaver", "pass", "take"]  # beavers on: the box may beaver it


def test_one_team_cube_is_a_proposal_of_the_team_s_double(online_table):
    table = online_table(cube="single")
    table.play_until(lambda g: g["phase"] == "roll" and g["awaiting"] == ["bob"])
    assert "Propose the team's double" in table.page("dave")
    table.play_until(box_on_roll)
    box = table.page("alice")
    assert "Double every member" not in box and 'name="to"' not in box


def test_between_games_a_seated_player_starts_the_next_one(online_table):
    table = online_table()
    table.play_until(lambda g: g["phase"] == "over")
    assert "The game is over" in table.page("carol")
    assert buttons(table.page("carol")) == ["start"]
    assert buttons(table.page("erin")) == []


def test_the_table_page_and_the_list_link_seated_players_to_their_board(online_table, members):
    table = online_table()
    link = f'href="/chouettes/{table.pk}/play/"'
    assert link in table.page("carol", "") and link not in table.page("erin", "")
    assert link in table.page("dave", "/chouettes/")
    assert link not in table.page("erin", "/chouettes/")


def test_a_recorded_chouette_has_no_online_board(keeper_client, members):
    chouette = opened(keeper_client, members)
    assert keeper_client.get(f"/chouettes/{chouette.pk}/play/").status_code == 404


def test_a_member_s_board_speaks_their_language(online_table):
    table = online_table()
    table.play_until(box_on_roll)
    table.clients["alice"] = Client()
    table.clients["alice"].force_login(table.members["alice"].user)
    table.clients["alice"].cookies["django_language"] = "el"
    page = table.page("alice")
    assert "Είσαι στο κουτί" in page and "Διπλασίασε όλα τα μέλη" in page


def test_a_user_who_is_no_player_gets_a_403_page(online_table):
    table = online_table()
    client = Client()
    client.force_login(UserFactory(username="accountant"))
    response = client.get(f"/chouettes/{table.pk}/play/")
    assert response.status_code == 403
    assert "Only the club&#x27;s players play chouettes." in response.content.decode()


def test_s4_the_box_offers_to_resign_and_each_member_answers_for_their_own_cube(online_table):
    table = online_table()
    table.play_until(box_on_roll)
    assert 'data-act="resign"' in table.page("alice")
    assert 'data-act="resign"' not in table.page("carol")  # not on the box's turn
    assert '<option value="gammon">' in table.page("alice")
    table.act("alice", "resign", value="gammon")
    offered = table.game["resignation"]["offered_at"]
    for name in ("bob", "carol", "dave"):
        page = table.page(name)
        assert "The box offers to resign a gammon: you answer for your own cube." in page
        assert buttons(page) == ["accept_resign", "reject_resign"], name
        assert page.count(f'data-turn-no="{offered}"') == 2
    assert buttons(table.page("alice")) == []
    table.act("bob", "accept_resign", turn_no=offered)
    assert "you are out of this game" in table.page("bob")
    assert buttons(table.page("bob")) == []
    assert buttons(table.page("carol")) == ["accept_resign", "reject_resign"]


def test_s4_the_captain_resigns_for_the_team_and_the_box_answers_each_contract(online_table):
    table = online_table()
    table.play_until(lambda g: g["phase"] == "move" and g["awaiting"] == ["bob"])
    bob = table.page("bob")
    assert 'data-act="resign"' in bob and '<select name="value">' in bob
    assert "For the team: every contract still in the game; the box answers each." in bob
    for crew in ("carol", "dave"):  # only the captain offers the team's resignation (H2)
        assert 'data-act="resign"' not in table.page(crew), crew
    assert 'data-act="resign"' not in table.page("alice")
    table.act("bob", "resign", value="single")
    offered = table.game["resignation"]["offered_at"]
    for name, next_cube in (("Bob", "bob"), ("Carol", "carol"), ("Dave", "dave")):
        box = table.page("alice")
        assert (
            f"The team offers to resign a single game: you answer each cube in line, now {name}."
            in box
        )
        assert buttons(box) == ["accept_resign", "reject_resign"]
        assert box.count(f'data-turn-no="{offered}"') == 2
        for member in ("bob", "carol", "dave"):
            assert "accept_resign" not in table.page(member), member
        assert table.game["resignation"]["contracts"][0] == next_cube
        table.act("alice", "reject_resign" if name == "Carol" else "accept_resign",
                  turn_no=offered)  # fmt: skip
    assert "you are out of this game" in table.page("bob")
    assert "you are out of this game" in table.page("dave")
    assert 'data-act="resign"' in table.page("carol")  # she moves for the team now (H7)


def test_s4_the_captain_s_resign_hint_speaks_each_language(online_table):
    table = online_table()
    table.play_until(lambda g: g["phase"] == "move" and g["awaiting"] == ["bob"])
    english = "For the team: every contract still in the game; the box answers each."
    for language in ("bg", "el", "ro"):
        with translation.override(language):
            hint = translation.gettext(english)
        assert hint != english, language
        table.clients["bob"] = Client()
        table.clients["bob"].force_login(table.members["bob"].user)
        table.clients["bob"].cookies["django_language"] = language
        assert hint in table.page("bob"), language


def test_an_online_chouette_opened_from_the_list_leads_to_the_opener_s_board(
    keeper_client, members
):
    response = keeper_client.post(
        "/chouettes/",
        {
            "mode": "online",
            "players": ["alice", "bob", "carol", "keeper"],
            "order": "alice bob carol keeper",
            "stake": "2.00",
            "cube": "multiple",
            "box_keeps": "beats_captain",
            "turn_time": "60",
            "no_answer": "take",
            "consulting": "cube",
        },
    )
    chouette = Chouette.objects.get()
    assert response.status_code == 302 and response.url == f"/chouettes/{chouette.pk}/play/"
    assert (chouette.mode, chouette.turn_time, chouette.no_answer, chouette.consulting) == (
        "online",
        60,
        "take",
        "cube",
    )
    assert chouette.table is not None and chouette.table.delay == 60
    board = keeper_client.get(response.url).content.decode()
    assert 'data-act="start"' in board and "The first game has not started." in board


def test_a_recorded_chouette_leaves_the_online_options_aside(keeper_client, members):
    response = keeper_client.post(
        "/chouettes/",
        {
            "players": ["alice", "bob", "carol"],
            "stake": "2.00",
            "cube": "single",
            "box_keeps": "beats_captain",
            "turn_time": "60",
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0].endswith("/record/")  # the clock is left aside
    assert Chouette.objects.get().turn_time is None


def test_the_turn_s_clock_is_on_every_board_when_the_session_has_one(online_table):
    table = online_table(turn_time=60)
    for name in ("alice", "carol", "erin"):
        left = re.search(r'class="clock" data-left="([0-9.]+)" data-running', table.page(name))
        assert left is not None and 50 <= float(left.group(1)) <= 60, name
    assert 'class="clock"' not in online_table().page("alice")  # no clock, none shown


def _open_chouette_labels(page: str) -> list[str]:
    """The texts of the labels of the form that opens a chouette (their fields left out)."""
    form = page.split('class="stacked open-chouette"')[1].split("</form>")[0]
    labels = re.findall(r"<label[^>]*>(.*?)</label>", form, re.S)
    texts = [re.sub(r"<[^>]*>.*?</[^>]*>|<[^>]*>", " ", label).split() for label in labels]
    return [" ".join(words) for words in texts if words]


def test_the_open_chouette_form_s_labels_are_capitalised(keeper_client, members):
    page = keeper_client.get("/chouettes/").content.decode()
    labels = _open_chouette_labels(page)
    for label in ("Mode", "Seconds a turn", "A member who does not answer in time", "Consulting"):
        assert any(text.startswith(label) for text in labels), (label, labels)
    assert [text for text in labels if not text[0].isupper()] == []
    # The choices that stand alone too (those of 'The box keeps the box when' end its sentence).
    assert ">Recorded (played on a real board)</option>" in page
    assert ">Multiple cubes</option>" in page and ">No consulting</option>" in page
    assert ">the box beats the captain</option>" in page


@pytest.mark.parametrize("language", ["bg", "el", "ro"])
def test_the_open_chouette_form_s_labels_are_capitalised_in_every_language(
    keeper_client, members, language
):
    with translation.override(language):
        page = keeper_client.get("/chouettes/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'lang="{language}"' in page
    labels = _open_chouette_labels(page)
    assert labels and [text for text in labels if not text[0].isupper()] == []


def test_the_open_chouette_form_s_checkboxes_come_before_their_labels(keeper_client, members):
    page = keeper_client.get("/chouettes/").content.decode()
    for name, label in (("jacoby", "Jacoby rule"), ("beavers", "Beavers")):
        found = re.search(
            rf'<label class="check"><input type="checkbox" name="{name}"[^>]*> {label}</label>',
            page,
        )
        assert found, name


def test_an_online_chouette_s_scorekeeper_page_has_no_record_form(online_table, staff):
    table = online_table()
    page = table.page("bob", "record/")  # a seated player may keep the score
    assert "record-game" not in page and 'name="winner"' not in page
    assert "Record the game" not in page and "played on the server" in page
    assert "/close/" in page and "/leave/" in page  # the session's own buttons stay
    client = Client()
    client.force_login(staff.user)  # the scorekeeper who opened it
    refused = client.post(
        f"/chouettes/{table.pk}/record/",
        {**BOX_WINS, "version": str(table.chouette.version)},
        follow=True,
    )
    assert "An online chouette&#x27;s games are played on the server." in refused.content.decode()
    assert not ChouetteGame.objects.exists()


def test_the_role_line_follows_the_rotation(online_table):
    table = online_table()
    table.play_until(captain_moving)
    for path in ("?live=region", "record/?live=region"):
        assert "Bob moves for the team" in table.page("carol", path), path
    assert "Bob moves for the team" in table.page("carol", "play/board/")
    game = table.play_until(lambda g: g["phase"] == "over")
    seating = selectors.chouette_seating(chouette=table.chouette)
    assert (seating.box, seating.captain) != ("alice", "bob")  # the game rotated the seats
    shown = {name: name.title() for name in ("alice", "bob", "carol", "dave")}
    for path in ("?live=region", "record/?live=region", "play/board/"):
        page = table.page("carol", path)
        assert "moves for the team" not in page, path
        assert "The game is over" in page, path
    region = table.page("carol", "record/?live=region")
    box = re.search(
        r'<div class="seat box"><span class="role">Box</span> <span class="name">(\w+)', region
    )
    captain = re.search(
        r'<div class="seat captain"><span class="role">Captain</span> <span class="name">(\w+)',
        region,
    )
    assert (box.group(1), captain.group(1)) == (shown[seating.box], shown[seating.captain])
    assert game["number"] == 1


def test_closing_or_leaving_while_an_online_game_is_on_is_refused_with_nothing_to_confirm(
    online_table,
):
    table = online_table()
    client = Client()
    client.force_login(table.members["bob"].user)
    for action, sent in (("close", {}), ("leave", {"player": "dave"})):
        refused = client.post(f"/chouettes/{table.pk}/{action}/", sent, follow=True)
        page = refused.content.decode()
        assert "players join, leave or close between games" in page, action
        assert 'name="confirm"' not in page, action
    assert not Transaction.objects.exists()
    assert table.chouette.status == "open"
