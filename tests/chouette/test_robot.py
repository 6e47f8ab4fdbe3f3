"""The practice robot at an online chouette (docs/practice.md, "At a chouette"): seated
at an online session only, one a session; a whole game played through the services with
the robot as box, as captain and as crew member (the members driven by the test, the
engine's worker played in the test's process as in tests/matches/test_robot.py); nobody
acts for it; a session it sat at moves no money."""

from decimal import Decimal

import pytest

from analysis.robot_engine import decide
from backgammon.game import Game, Phase
from backgammon.notation import format_play
from backgammon.team import BOX, TEAM
from chouette import online, services
from chouette.models import Chouette, ChouetteGame
from club.models import Player, Transaction
from club.selectors import robot_get
from matches import table_engine
from matches.errors import NotYourTurn
from matches.models import Action, Table
from web.errors import Conflict, Invalid

pytestmark = pytest.mark.usefixtures("robots")


@pytest.fixture
def robot(robots):
    return robot_get(strength="expert")


def seat(worker, staff, order, *, cube="multiple", stake="2.00", **options):
    """An online session seated in ``order`` (box first), its first game started."""
    made = services.chouette_create(
        players=order,
        order=order,
        recorded_by=staff.user,
        options=services.ChouetteOptions(stake=Decimal(stake), mode="online", cube=cube, **options),
    )
    humans = next(player for player in order if not player.robot)
    worker.run(online.chouette_game_start, chouette=made, by=humans)
    return made


def state(chouette: Chouette) -> tuple[Table, Game]:
    table = Table.objects.get(chouette__pk=chouette.pk)
    return table, Game.from_dict(table.state)


class Humans:
    """The members at the table, driven by the test: each doubles once a game when the
    rules let them (the box every member it may, a member on their own cube), takes
    every double, rolls and plays the first legal play; the robot answering in between.
    The captain's roll, which ends the team's cube round, waits for the robot's answers."""

    def __init__(self, worker, chouette, players, *, doubles=True):
        self.worker, self.chouette, self.doubles = worker, chouette, doubles
        self.players = {player.username: player for player in players if not player.robot}
        self.box = players[0].username
        self.doubled: set[str] = set()

    def act(self, name, act, turn_no, **body):
        self.worker.run(
            online.chouette_act,
            chouette=self.chouette,
            player=self.players[name],
            act=act,
            turn_no=turn_no,
            **body,
        )

    def play(self) -> Game:
        for _ in range(3000):
            table, game = state(self.chouette)
            if game.over:
                return game
            if self._must_act(table, game) or self.worker.answer() or self.step(table, game):
                continue
            raise AssertionError(f"nobody acts: {game.awaiting}, phase {game.phase}")
        raise AssertionError("the game never ended")

    def step(self, table: Table, game: Game) -> bool:
        """One human action, the captain's roll included, if one is due."""
        if self._must_act(table, game):
            return True
        captain = str(game.captain)
        if game.on_roll == TEAM and game.phase is Phase.ROLL and captain in self.players:
            self.act(captain, "roll", table.turn_no)
            return True
        return False

    def _must_act(self, table: Table, game: Game) -> bool:
        """One human action other than the captain's roll, if one is due."""
        awaiting, base = game.awaiting, table.turn_base
        if game.phase is Phase.TAKE_OR_PASS:
            if awaiting.box and self.box in self.players:
                holder = next(c.holder for c in game.contracts if c.pending == TEAM)
                self.act(self.box, "take", base + game.offered_at(holder))
                return True
            for member in awaiting.members:
                if member in self.players:
                    self.act(member, "take", base + game.offered_at(member))
                    return True
            return False
        if game.on_roll == BOX:
            if self.box not in self.players:
                return False
            if game.phase is Phase.ROLL and self._doubling(self.box, game):
                self.act(self.box, "double", table.turn_no)
            elif game.phase is Phase.ROLL:
                self.act(self.box, "roll", table.turn_no)
            else:
                self.act(self.box, "move", table.turn_no, play=self._first(game))
            return True
        if game.phase is Phase.MOVE:
            captain = str(game.captain)
            if captain not in self.players:
                return False
            self.act(captain, "move", table.turn_no, play=self._first(game))
            return True
        for member in game.live_holders:
            if member in self.players and self._doubling(member, game):
                self.act(member, "double", table.turn_no)
                return True
        return False

    def _doubling(self, name: str, game: Game) -> bool:
        if not self.doubles or name in self.doubled:
            return False
        if name == self.box:
            may = not game.doubled and any(c.can_offer(BOX) for c in game.contracts)
        else:
            may = game.may_double(name)
        if may:
            self.doubled.add(name)
        return may

    @staticmethod
    def _first(game: Game) -> str:
        plays = game.legal_plays()
        return format_play(plays[0].steps) if plays else ""


def robot_kinds(chouette: Chouette, robot: Player) -> set[str]:
    return set(
        Action.objects.filter(table__chouette__pk=chouette.pk, actor=robot).values_list(
            "kind", flat=True
        )
    )


def finished(chouette: Chouette) -> ChouetteGame:
    (game,) = ChouetteGame.objects.filter(chouette__pk=chouette.pk)
    assert sum(point.points for point in game.points.all()) == 0
    return game


@pytest.mark.parametrize("cube", ["multiple", "single"])
def test_a_whole_game_with_the_robot_as_box(members, staff, worker, robot, cube):
    alice, bob = members["alice"], members["bob"]
    order = [robot, alice, bob]
    chouette = seat(worker, staff, order, cube=cube)
    game = Humans(worker, chouette, order).play()
    assert game.over
    finished(chouette)
    kinds = robot_kinds(chouette, robot)
    assert {"move"} <= kinds
    assert kinds & {"take", "pass", "beaver"}, "the box answered the team's double"


@pytest.mark.parametrize("cube", ["multiple", "single"])
def test_a_whole_game_with_the_robot_as_crew_member(members, staff, worker, robot, cube):
    alice, bob = members["alice"], members["bob"]
    order = [alice, bob, robot]
    chouette = seat(worker, staff, order, cube=cube)
    game = Humans(worker, chouette, order).play()
    assert game.over
    finished(chouette)
    kinds = robot_kinds(chouette, robot)
    assert kinds & {"take", "pass", "beaver"}, "the robot answered the box's double"
    assert "move" not in kinds  # the captain moves for the team


def test_a_whole_game_with_the_robot_as_captain(members, staff, worker, robot):
    alice, bob = members["alice"], members["bob"]
    order = [alice, robot, bob]
    chouette = seat(worker, staff, order)
    game = Humans(worker, chouette, order).play()
    assert game.over
    finished(chouette)
    assert "move" in robot_kinds(chouette, robot)


@pytest.mark.parametrize("cube", ["multiple", "single"])
def test_a_crew_members_double_on_its_own_cube_goes_to_the_box(members, staff, worker, robot, cube):
    """The engine's choice is tests/analysis/test_robot_chouette.py's: here the robot
    doubles whenever it may, and the table applies it on its own cube (the captain's
    roll sending it to the box, or, one team cube, with the captain's proposal)."""
    alice, bob = members["alice"], members["bob"]
    order = [alice, bob, robot]

    def doubles(request):
        game = Game.from_dict(request["game"])
        if game.may_double(request["seat"]):
            return {"act": "double"}
        return decide(request)

    worker.decides = doubles
    chouette = seat(worker, staff, order, cube=cube)
    Humans(worker, chouette, order).play()
    finished(chouette)
    made = Action.objects.filter(table__chouette__pk=chouette.pk, actor=robot, kind="double")
    assert made.exists()
    assert all(action.payload["holders"] == [robot.username] for action in made)


def robot_owes(worker, staff, order):
    """A session where the robot is to act, its request taken."""
    chouette = seat(worker, staff, order, partner_from=None)
    humans = Humans(worker, chouette, order)
    for _ in range(500):
        if worker.asked:
            return chouette, worker.asked.pop()
        table, game = state(chouette)
        assert humans.step(table, game), "the robot was never to act"
    raise AssertionError("the robot never had to act")


def test_nobody_acts_for_the_robot(members, staff, worker, robot):
    alice, bob = members["alice"], members["bob"]
    chouette, request = robot_owes(worker, staff, [robot, alice, bob])
    table, game = state(chouette)
    assert game.on_roll == BOX and request["seat"] is None
    for member in (alice, bob):
        for act in ("roll", "double"):
            with pytest.raises(NotYourTurn):
                online.chouette_act(
                    chouette=chouette, player=member, act=act, turn_no=table.turn_no
                )
    assert table_engine.robot_act(
        table_id=table.pk, turn_no=request["turn_no"], action=decide(request)
    )
    again = decide(request)  # the same answer late: the table has moved on
    assert not table_engine.robot_act(table_id=table.pk, turn_no=request["turn_no"], action=again)


def test_a_member_cannot_answer_the_double_on_the_robots_cube(members, staff, worker, robot):
    alice, bob = members["alice"], members["bob"]
    order = [alice, bob, robot]
    chouette = seat(worker, staff, order, partner_from=None)
    humans = Humans(worker, chouette, order, doubles=False)
    for _ in range(500):
        worker.answer()
        table, game = state(chouette)
        if game.on_roll == BOX and game.phase is Phase.ROLL:
            break
        humans.step(table, game)
    humans.act("alice", "double", table.turn_no, to=[robot.username])
    worker.asked.clear()
    table, game = state(chouette)
    offered = table.turn_base + game.offered_at(robot.username)
    for member in (alice, bob):
        with pytest.raises(Conflict, match="No double waits"):
            online.chouette_act(chouette=chouette, player=member, act="take", turn_no=offered)


def test_the_robot_sits_at_an_online_chouette_only_and_alone(members, staff, robot, worker):
    alice, bob, carol = members["alice"], members["bob"], members["carol"]
    recorded = services.ChouetteOptions(stake=Decimal("1.00"))
    with pytest.raises(Invalid, match="only at an online chouette"):
        services.chouette_create(
            players=[alice, bob, robot], order=[alice, bob, robot],
            recorded_by=staff.user, options=recorded,
        )  # fmt: skip
    other = robot_get(strength="beginner")
    with pytest.raises(Invalid, match="One practice robot"):
        seat(worker, staff, [alice, robot, other])
    made = services.chouette_create(
        players=[alice, bob, carol],
        order=[alice, bob, carol],
        recorded_by=staff.user,
        options=services.ChouetteOptions(stake=Decimal("1.00"), mode="online"),
    )
    services.chouette_join(chouette=made, player=robot, by=alice.user)
    with pytest.raises(Invalid, match="One practice robot"):
        services.chouette_join(chouette=made, player=other, by=alice.user)
    book = services.chouette_create(
        players=[alice, bob, carol], order=[alice, bob, carol], recorded_by=staff.user,
        options=recorded,
    )  # fmt: skip
    with pytest.raises(Invalid, match="only at an online chouette"):
        services.chouette_join(chouette=book, player=robot, by=alice.user)


def test_a_chouette_with_the_robot_moves_no_money(members, staff, worker, robot):
    alice, bob = members["alice"], members["bob"]
    order = [robot, alice, bob]
    chouette = seat(worker, staff, order)
    Humans(worker, chouette, order).play()
    game = finished(chouette)
    assert any(point.points for point in game.points.all())
    settlement = services.chouette_close(chouette=chouette, by=alice.user)
    assert any(settlement.amounts.values())
    assert settlement.transaction is None and not Transaction.objects.exists()


def test_the_sweep_asks_again_for_a_robot_at_a_chouette(members, staff, worker, robot, clock):
    alice, bob = members["alice"], members["bob"]
    _chouette, request = robot_owes(worker, staff, [robot, alice, bob])
    worker.asked.clear()
    assert table_engine.robots_ask_again() == 0
    clock.advance(table_engine.ROBOT_ASK_AGAIN + 1)
    assert table_engine.robots_ask_again() == 1
    assert worker.asked == [request]


def test_a_robot_captain_leaves_its_crew_time_to_double(members, staff, worker, robot):
    alice, bob = members["alice"], members["bob"]
    order = [alice, robot, bob]
    chouette = seat(worker, staff, order, partner_from=None)
    humans = Humans(worker, chouette, order, doubles=False)
    for _ in range(500):
        table, game = state(chouette)
        if game.on_roll == TEAM and game.phase is Phase.ROLL:
            break
        if not worker.answer():
            humans.step(table, game)
    (request,) = worker.asked
    assert request["seat"] == robot.username and game.may_double("bob")
    assert request["countdown"] == online.ROBOT_CAPTAIN_WAITS
    humans.act("bob", "double", table.turn_no)
    (again,) = worker.asked[1:]
    assert "countdown" not in again  # nobody else could double: it acts at once


def test_a_request_with_a_countdown_is_sent_that_much_later(monkeypatch, settings):
    sent: list[dict] = []

    class App:
        @staticmethod
        def send_task(name, **options):
            sent.append({"name": name, **options})

    monkeypatch.setattr(table_engine, "current_app", App)
    table_engine.robot_ask({"table": 1, "turn_no": 3, "countdown": 5.0})
    table_engine.robot_ask({"table": 1, "turn_no": 4})
    later, now = sent
    assert later["countdown"] == 5.0 and later["expires"] == 5.0 + table_engine.ROBOT_ASK_AGAIN
    assert now["countdown"] is None and now["expires"] == table_engine.ROBOT_ASK_AGAIN
    assert later["queue"] == settings.ANALYSIS_QUEUE


def test_the_api_seats_the_robot_at_an_online_chouette_and_it_plays(api, members, worker, robot):
    alice = members["alice"]
    client = api.as_user(alice.user)
    order = [robot.username, "alice", "bob"]
    body = {"players": order, "order": order, "stake": "1.00"}
    refused = client.post("/api/chouettes/", body, format="json")
    assert refused.status_code == 400 and "online" in refused.json()["detail"]
    opened = client.post("/api/chouettes/", {**body, "mode": "online"}, format="json")
    assert opened.status_code == 201, opened.json()
    started = worker.run(client.post, path=f"/api/chouettes/{opened.json()['id']}/start/")
    assert started.status_code == 200, started.json()
    game = started.json()["game"]
    assert (game["awaiting"] == [robot.username]) == bool(worker.asked)
    worker.answer()
    chouette = Chouette.objects.get(pk=opened.json()["id"])
    _table, after = state(chouette)
    assert after.on_roll == TEAM  # the robot, the box, moved if it had the opening roll


def test_the_robot_as_the_boxs_partner_is_never_asked(members, staff, worker, robot):
    alice, bob, carol = members["alice"], members["bob"], members["carol"]
    order = [alice, bob, robot, carol]
    chouette = seat(worker, staff, order, partner_from=4)
    _table, game = state(chouette)
    assert robot.username not in game.options.holders  # the partner (H12)
    Humans(worker, chouette, order).play()
    finished(chouette)
    assert not robot_kinds(chouette, robot)


def test_an_answer_the_rules_refuse_changes_nothing(members, staff, worker, robot):
    alice, bob = members["alice"], members["bob"]
    chouette, request = robot_owes(worker, staff, [alice, bob, robot])
    table = Table.objects.get(chouette__pk=chouette.pk)
    refused = (
        {"act": "move", "play": "24/1"},
        {"act": "resign"},
        {"act": "fly"},
        {"act": "double", "to": ["alice"]},  # only the box names whom it doubles
    )
    for action in refused:
        answer = table_engine.robot_act(
            table_id=table.pk, turn_no=request["turn_no"], action=action
        )
        assert not answer, action
    assert Table.objects.get(pk=table.pk).version == table.version
