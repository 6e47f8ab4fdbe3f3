"""Every write to a chouette: keyword-only functions named ``chouette_<verb>``, each one
transaction.

Each write locks the session row (``select_for_update``), checks the ``version`` the
client saw when it sent one (``StaleVersion`` otherwise), and moves the version on with a
conditional UPDATE (``... WHERE version = N``) before it writes anything else, so two
requests that read the same version cannot both apply, on SQLite (where
``select_for_update`` does nothing) as on PostgreSQL. Every refusal is raised before
anything is written. Money goes to the ledger only through ``club.services.ledger_post``,
as one balanced transaction with the session as its source.

Who may write (docs/chouette.md, "Who records"): the session's scorekeeper (the member
who opened it), anyone seated at it, and the club's staff; a player may also join a
session themself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction as db_transaction
from django.db.models import F
from django.utils.translation import gettext as _

from backgammon.chouette import (
    MIN_PARTNER_FROM,
    GameRecord,
    Outcome,
    RecordDict,
    order_as_entered,
    roll_for_order,
    score_game,
)
from backgammon.dice import DiceStream, commitment, make_client_seed, new_server_seed
from backgammon.errors import (
    AlreadySeated,
    BackgammonError,
    InvalidGameRecord,
    NotSeated,
    TooFewPlayers,
)
from chouette import selectors
from chouette.models import Chouette, ChouetteGame, GamePoints, Membership
from club import money
from club.memos import Memo, MemoKind
from club.models import Player, SourceKind, Transaction
from club.services import LegSpec, account_open_for_player, ledger_post, money_check
from matches.models import Table
from web import clock
from web.errors import Conflict, Forbidden, Invalid, NotFound

# The most a point may be worth, and the most players at one table: more is a typo.
MAX_STAKE = Decimal("1000")
MAX_PLAYERS = 16
# Online: the time a turn or an answer may take (a day at most: a correspondence chouette).
MIN_TURN_TIME, MAX_TURN_TIME = 5, 86400
# Online (H11): the most automatic doubles a game may have (as for a money session), and
# the faces a maximum cube may be (a cube that may never turn is no chouette's).
MAX_AUTOMATIC_DOUBLES = 6
CUBE_MAX_VALUES = tuple(2**power for power in range(1, 11))


class StaleVersion(Conflict):
    """The session changed since the client last read it (a repeated or crossed request)."""

    code = "stale_version"


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a leave or a close settled: each player's amount (positive: received) and
    the ledger transaction posting it (None when every amount was zero)."""

    amounts: Mapping[str, Decimal]
    transaction: Transaction | None


# Create ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChouetteOptions:
    """What a chouette is opened with, checked once here when made (``Invalid``): built
    by the API's serializer, the page's form and the demo alike. Its fields are the
    session's own (``Chouette``): ``stake`` a point, ``mode`` (recorded or online), the
    cube (``cube``, ``jacoby``, ``beavers``), the box's partner and who keeps the box
    (``partner_from``, ``box_keeps``), and the online options ``turn_time``,
    ``no_answer``, ``consulting`` and the cube options ``same_action`` (H9),
    ``automatic_doubles`` and ``cube_max`` (H11) (docs/chouette.md)."""

    stake: Decimal
    mode: str = Chouette.Mode.RECORDED
    cube: str = Chouette.Cube.SINGLE
    jacoby: bool = True
    beavers: bool = False
    box_keeps: str = Chouette.BoxKeeps.BEATS_CAPTAIN
    partner_from: int | None = 7
    turn_time: int | None = None
    no_answer: str = Chouette.NoAnswer.PASS
    consulting: str = Chouette.Consulting.FULL
    same_action: bool = False
    automatic_doubles: int = 0
    cube_max: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in Chouette.Mode.values:
            raise Invalid(_("A chouette is recorded or online."))
        for value, choices in (
            (self.cube, Chouette.Cube),
            (self.box_keeps, Chouette.BoxKeeps),
            (self.no_answer, Chouette.NoAnswer),
            (self.consulting, Chouette.Consulting),
        ):
            if value not in choices.values:
                raise Invalid(_("%(value)s is not an option of a chouette.") % {"value": value})
        partner_from, turn_time = self.partner_from, self.turn_time
        if partner_from is not None and not MIN_PARTNER_FROM <= partner_from <= MAX_PLAYERS:
            raise Invalid(
                _("The box takes a partner from %(least)s to %(most)s players, or never.")
                % {"least": MIN_PARTNER_FROM, "most": MAX_PLAYERS}
            )
        if turn_time is not None and not MIN_TURN_TIME <= turn_time <= MAX_TURN_TIME:
            raise Invalid(
                _("A turn lasts from %(least)s to %(most)s seconds, or has no clock.")
                % {"least": MIN_TURN_TIME, "most": MAX_TURN_TIME}
            )
        if not self.online and (
            turn_time is not None or self.consulting != Chouette.Consulting.FULL
        ):
            raise Invalid(_("The clock and consulting are options of an online chouette."))
        _cube_options_check(self)
        object.__setattr__(self, "stake", _stake_check(self.stake))

    @property
    def online(self) -> bool:
        return self.mode == Chouette.Mode.ONLINE


@db_transaction.atomic
def chouette_create(
    *,
    players: Sequence[Player],
    recorded_by: User,
    options: ChouetteOptions,
    order: Sequence[Player] | None = None,
) -> Chouette:
    """Open a chouette for ``players`` as ``options`` say, its scorekeeper
    ``recorded_by``. The order is ``order`` (box first) when the table rolled it itself,
    else one die each from the session's verifiable dice (H1). Online, the session gets
    its table and always its dice (the games' rolls)."""
    if len(players) > MAX_PLAYERS:
        raise Invalid(_("A chouette seats at most %(most)s players.") % {"most": MAX_PLAYERS})
    online = options.online
    _robot_check(players, online=online)
    names = [player.username for player in players]
    chouette = Chouette(**asdict(options), recorded_by=recorded_by)
    try:
        if order is not None:
            seated = order_as_entered(names, [player.username for player in order])
        if order is None or online:
            seed, chouette.client_seed = new_server_seed(), make_client_seed()
            stream = DiceStream(seed, chouette.client_seed)
            if order is None:
                rolled = roll_for_order(names, stream)
                seated, chouette.throws = rolled.order, [list(map(list, t)) for t in rolled.throws]
            chouette.server_seed, chouette.dice_commitment = seed, commitment(seed)
            chouette.dice_used = stream.used
    except BackgammonError as error:
        raise Invalid(_("The players cannot sit down: %(why)s") % {"why": error}) from None
    by_name = {player.username: player for player in players}
    chouette.seats = [by_name[name].pk for name in seated]
    if online:
        chouette.table = Table.objects.create(delay=options.turn_time)
    chouette.save()
    Membership.objects.bulk_create(
        Membership(chouette=chouette, player=by_name[name]) for name in seated
    )
    return chouette


def _robot_check(players: Iterable[Player], *, online: bool) -> None:
    """The practice robot sits at an online chouette only (it plays on the server),
    one robot a session (docs/practice.md, "At a chouette")."""
    robots = sum(1 for player in players if player.robot)
    if robots and not online:
        raise Invalid(_("The practice robot sits only at an online chouette."))
    if robots > 1:
        raise Invalid(_("One practice robot sits at a chouette, not more."))


def _cube_options_check(options: ChouetteOptions) -> None:
    """H9 and H11's cube options: the engine plays them, so they are an online session's;
    "same value, same action" is a rule of multiple cubes."""
    same_action, automatic_doubles = options.same_action, options.automatic_doubles
    cube_max = options.cube_max
    if not options.online and (same_action or automatic_doubles or cube_max is not None):
        raise Invalid(
            _(
                "Same value, same action, automatic doubles and a maximum cube are options "
                "of an online chouette: the server's engine plays them."
            )
        )
    if same_action and options.cube != Chouette.Cube.MULTIPLE:
        raise Invalid(
            _("Same value, same action (H9) is a rule of multiple cubes: choose multiple cubes.")
        )
    if not 0 <= automatic_doubles <= MAX_AUTOMATIC_DOUBLES:
        raise Invalid(
            _("Automatic doubles are limited to from 0 (off) to %(most)s.")
            % {"most": MAX_AUTOMATIC_DOUBLES}
        )
    if cube_max is not None and cube_max not in CUBE_MAX_VALUES:
        raise Invalid(
            _("A maximum cube is a cube face from 2 to %(most)s.") % {"most": CUBE_MAX_VALUES[-1]}
        )


# Games -----------------------------------------------------------------------------------


@db_transaction.atomic
def chouette_game_record(
    *,
    chouette: Chouette,
    record: Mapping[str, Any],
    recorded_by: User,
    version: int | None = None,
) -> ChouetteGame:
    """Record a game played on a real board (API.md's recorded form): its points for
    every seated player through ``backgammon.chouette.score_game`` (the box always
    minus the others' sum), and the seating after it (H3, H7, H12)."""
    locked = _locked(chouette, version=version, by=recorded_by)
    if locked.mode != Chouette.Mode.RECORDED:
        raise Conflict(_("An online chouette's games are played on the server."))
    names = selectors.chouette_names(chouette=locked)
    seating = selectors.chouette_seating(chouette=locked, names=names)
    try:
        game = GameRecord.from_dict(record)
        if locked.cube == Chouette.Cube.SINGLE:
            _single_cube_check(game)
        scored = score_game(seating, game)
    except InvalidGameRecord as error:
        raise Invalid(_("The game cannot be recorded: %(why)s") % {"why": error}) from None
    ids = {name: pk for pk, name in names.items()}
    return chouette_game_write(
        locked=locked,
        record=game.to_dict(),
        points={ids[name]: points for name, points in scored.points.items()},
        seats_after=[ids[name] for name in scored.next_seating.players],
        recorded_by=recorded_by,
    )


def _single_cube_check(game: GameRecord) -> None:
    """One team cube (H4): the members who played to the end played it at one value, and
    the box's pass of the team's double is every member's who was still in."""
    played = {(m.stake, m.cube_turned) for m in game.members if m.outcome is Outcome.PLAYED}
    box_passed = {m.stake for m in game.members if m.outcome is Outcome.BOX_PASSED}
    if len(played) > 1:
        raise InvalidGameRecord(
            "with one team cube, every member who played on played it at the same value"
        )
    if box_passed and played:
        raise InvalidGameRecord(
            "with one team cube, the box passing the team's double passes every member still in"
        )
    if len(box_passed) > 1:
        raise InvalidGameRecord("with one team cube, the box passed one double at one value")


@db_transaction.atomic
def chouette_game_undo(
    *,
    chouette: Chouette,
    recorded_by: User,
    number: int | None = None,
    version: int | None = None,
) -> ChouetteGame:
    """Take back the last game in effect with a reversing row: its points negated, the
    seating as it was before it. ``number``: the game the client means (``Conflict``
    when it is not the last one). Refused once anyone has joined or left after it (a
    leaver's settlement already counted it)."""
    locked = _locked(chouette, version=version, by=recorded_by)
    last = selectors.chouette_last_game(chouette=locked)
    if last is None:
        raise Conflict(_("There is no game to undo."))
    if number is not None and number != last.number:
        raise Conflict(
            _("Game %(number)s is not the last game in effect (that is game %(last)s).")
            % {"number": number, "last": last.number}
        )
    if selectors.membership_changes_since(chouette=locked, row=last.number).exists():
        raise Conflict(
            _("Players joined or left after game %(number)s: it can no longer be undone.")
            % {"number": last.number}
        )
    return chouette_game_write(
        locked=locked,
        record=last.record,
        points={row.player_id: -row.points for row in last.points.all()},
        seats_after=last.seats_before,
        recorded_by=recorded_by,
        undoes=last,
    )


def chouette_game_write(
    *,
    locked: Chouette,
    record: RecordDict,
    points: Mapping[int, int],
    seats_after: list[int],
    recorded_by: User | None,
    undoes: ChouetteGame | None = None,
    also: Mapping[str, Any] | None = None,
    rows: int | None = None,
) -> ChouetteGame:
    """The game row and its points; the seats and ``also`` (other fields of the session)
    moved on in the version's one UPDATE. ``rows``: the session's game rows, when the
    caller read them with the locked row (``selectors.game_rows``)."""
    seats_before = locked.seats
    number = (selectors.chouette_rows(chouette=locked) if rows is None else rows) + 1
    chouette_version_advance(locked=locked, seats=seats_after, **(also or {}))
    row = ChouetteGame.objects.create(
        chouette=locked,
        number=number,
        record=record,
        seats_before=seats_before,
        seats_after=seats_after,
        undoes=undoes,
        recorded_by=recorded_by,
    )
    GamePoints.objects.bulk_create(
        GamePoints(game=row, player_id=pk, points=value) for pk, value in points.items()
    )
    return row


# Joining, leaving, closing -------------------------------------------------------------


@db_transaction.atomic
def chouette_join(
    *, chouette: Chouette, player: Player, by: User, version: int | None = None
) -> Chouette:
    """``player`` joins between games at the end of the line (H13)."""
    locked = _locked(chouette, version=version, by=by, joining=player)
    _between_games(locked)
    names = selectors.chouette_names(chouette=locked)
    if player.robot:
        seated = Player.objects.filter(pk__in=locked.seats)
        _robot_check([*seated, player], online=locked.mode == Chouette.Mode.ONLINE)
    try:
        seating = selectors.chouette_seating(chouette=locked, names=names).join(player.username)
    except AlreadySeated:
        raise Conflict(
            _("%(player)s already sits at this chouette.") % {"player": player.display_name}
        ) from None
    ids = {**{name: pk for pk, name in names.items()}, player.username: player.pk}
    rows = selectors.chouette_rows(chouette=locked)
    chouette_version_advance(locked=locked, seats=[ids[name] for name in seating.players])
    Membership.objects.create(chouette=locked, player=player, joined_after=rows)
    return locked


@db_transaction.atomic
def chouette_leave(
    *, chouette: Chouette, player: Player, by: User, version: int | None = None
) -> Settlement:
    """``player`` leaves between games and settles at once (H13): what they won from or
    lost to each player, times the stake, posted as one balanced transaction with the
    session as its source. A box who leaves hands the box to the captain. Refused when
    fewer than three players would be left: close the session instead."""
    locked = _locked(chouette, version=version, by=by)
    _between_games(locked)
    names = selectors.chouette_names(chouette=locked)
    try:
        seating = selectors.chouette_seating(chouette=locked, names=names).leave(player.username)
    except NotSeated:
        raise Invalid(
            _("%(player)s does not sit at this chouette.") % {"player": player.display_name}
        ) from None
    except TooFewPlayers:
        raise Conflict(
            _("A chouette needs at least three players to go on: close it instead.")
        ) from None
    amounts = selectors.chouette_leaving_amounts(
        chouette=locked, username=player.username, names=names
    )
    ids = {name: pk for pk, name in names.items()}
    rows = selectors.chouette_rows(chouette=locked)
    posted = _post(
        locked,
        amounts,
        memo=Memo.of(MemoKind.CHOUETTE_LEAVES, id=locked.pk, player=player.display_name),
        by=by,
    )
    chouette_version_advance(locked=locked, seats=[ids[name] for name in seating.players])
    membership = locked.memberships.get(player=player, left_after__isnull=True)
    membership.left_at, membership.left_after, membership.settlement = clock.now(), rows, posted
    membership.save(update_fields=["left_at", "left_after", "settlement"])
    return Settlement(amounts=amounts, transaction=posted)


@db_transaction.atomic
def chouette_close(*, chouette: Chouette, by: User, version: int | None = None) -> Settlement:
    """End the session (H14): every seated player's unsettled points times the stake,
    posted as one balanced transaction with the session as its source (every seated
    player is named in the amounts, 0.00 included)."""
    locked = _locked(chouette, version=version, by=by)
    _between_games(locked)
    amounts = selectors.chouette_closing_amounts(chouette=locked)
    posted = _post(locked, amounts, memo=Memo.of(MemoKind.CHOUETTE_SETTLEMENT, id=locked.pk), by=by)
    chouette_version_advance(
        locked=locked, status=Chouette.Status.CLOSED, closed_at=clock.now(), settlement=posted
    )
    if locked.table_id is not None:
        Table.objects.filter(pk=locked.table_id).update(status=Table.Status.CLOSED, deadline=None)
    return Settlement(amounts=amounts, transaction=posted)


# The pieces ------------------------------------------------------------------------------


def may_record(*, chouette: Chouette, user: User) -> bool:
    """The scorekeeper, anyone seated and staff write to a session (docs/chouette.md)."""
    if user.is_staff or chouette.recorded_by_id == user.pk:
        return True
    player = getattr(user, "player", None)
    return player is not None and player.pk in chouette.seats


def _locked(
    chouette: Chouette, *, version: int | None, by: User, joining: Player | None = None
) -> Chouette:
    """The session row, locked, open, ``by`` allowed to write to it, at ``version``."""
    try:
        locked = Chouette.objects.select_for_update().get(pk=chouette.pk)
    except Chouette.DoesNotExist:
        raise NotFound(_("There is no chouette #%(id)s.") % {"id": chouette.pk}) from None
    self_join = joining is not None and joining.user_id == by.pk
    if not self_join and not may_record(chouette=locked, user=by):
        raise Forbidden(
            _("Only the chouette's scorekeeper, its players and the club's staff record it.")
        )
    if locked.status != Chouette.Status.OPEN:
        raise Conflict(_("This chouette is closed."))
    if version is not None and version != locked.version:
        raise StaleVersion(
            _("The chouette changed since you looked (version %(now)s, not %(seen)s): reload it.")
            % {"now": locked.version, "seen": version}
        )
    return locked


def _between_games(locked: Chouette) -> None:
    """Joining, leaving and closing wait for the end of an online game in play (H13)."""
    if selectors.chouette_game_on(chouette=locked):
        raise Conflict(_("A game is being played: players join, leave or close between games."))


def chouette_version_advance(*, locked: Chouette, **fields: Any) -> None:
    """Move the version of the locked session on with a conditional UPDATE, and set
    ``fields`` with it (``StaleVersion`` if another request moved it first)."""
    updated = Chouette.objects.filter(pk=locked.pk, version=locked.version).update(
        version=F("version") + 1, **fields
    )
    if updated != 1:
        raise StaleVersion(_("The chouette changed while this request ran: reload it."))
    locked.version += 1
    for name, value in fields.items():
        setattr(locked, name, value)


def _post(
    locked: Chouette, amounts: Mapping[str, Decimal], *, memo: Memo, by: User
) -> Transaction | None:
    """The non-zero amounts as one balanced ledger transaction (None when nothing moves).
    A session the practice robot sat at is practice: nothing moves (docs/practice.md)."""
    moving = {name: amount for name, amount in amounts.items() if amount}
    if not moving or locked.memberships.filter(player__robot__gt="").exists():
        return None
    players = {
        player.username: player
        for player in Player.objects.filter(user__username__in=moving).select_related("user")
    }
    return ledger_post(
        legs=[
            LegSpec(account=account_open_for_player(player=players[name]), amount=amount)
            for name, amount in moving.items()
        ],
        memo=memo,
        kind=SourceKind.CHOUETTE,
        source=locked,
        recorded_by=by,
    )


def _stake_check(stake: Decimal) -> Decimal:
    stake = money_check(amount=stake, positive=True)
    if stake > MAX_STAKE:
        raise Invalid(
            _("A point is worth at most %(most)s; %(stake)s is more.")
            % {"most": MAX_STAKE, "stake": stake}
        )
    return stake.quantize(money.CENT)
