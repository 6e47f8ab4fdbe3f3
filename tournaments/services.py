"""Every write a tournament makes: keyword-only functions named ``<noun>_<verb>``, each one
transaction.

Each service locks the tournament row (``select_for_update``), checks the state it
finds, and saves the tournament with a conditional update on ``version`` (so two
requests that read the same state cannot both write, on SQLite too, where row locks are
a no-op). A refused request raises a ``web.errors`` exception before anything is
written. Money moves only through ``club.services.ledger_post`` and results only through
``club.services.match_result_record``, each with the tournament or the pairing as its
source.

The life of a tournament: ``tournament_create`` (draft) → ``tournament_open``
(registration open; entries can be added in the draft too) → ``entry_add`` /
``entry_withdraw`` / ``entry_seed_set`` → ``tournament_start`` (draw, round 1) →
``pairing_result_record`` for each match (the next round starts by itself once a round
is complete, but the last chance of a tournament with buy-backs: ``entry_buy_back``,
then ``round_start_next``) → ``tournament_finish`` (payouts). A round's deadline
(``round_deadline_set``) is applied once by ``round_deadline_apply``, from its Celery
task or beat's sweep ``rounds_deadline_sweep``.
"""

import logging
import random
import secrets
from collections import defaultdict
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import transaction as db_transaction
from django.db.models import Count
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club import services as club_services
from club.memos import Memo, MemoKind
from club.models import Account, MatchResult, Player, SourceKind, Transaction
from club.services import LegSpec
from matches import services as matches_services
from matches.models import Action, Match
from tournaments import formats
from tournaments.models import Clock, DeadlineRule, Entry, Pairing, Round, Tournament
from tournaments.selectors import next_round_impossible, tournament_pool_balance
from web import clock
from web.errors import Conflict, Invalid, ServiceError
from web.schedule import send_at

EDITABLE = (Tournament.Status.DRAFT, Tournament.Status.OPEN)
DEADLINE_TASK = "tournaments.round_deadline"
log = logging.getLogger("tournaments")


# The formats' values ------------------------------------------------------------------


def format_options(*, tournament: Tournament) -> formats.FormatOptions:
    """The formats' options a tournament's fields say."""
    seeding = (
        formats.Seeding.RANDOM
        if tournament.seeding == Tournament.Seeding.RANDOM
        else formats.Seeding.RATING
    )
    kind = formats.Format(tournament.format)
    if kind is formats.Format.SINGLE_ELIMINATION:
        return formats.SingleElimination(
            seeding=seeding,
            consolation_through_round=tournament.consolation_through_round,
            last_chance_after_round=tournament.last_chance_after_round,
        )
    if kind is formats.Format.DOUBLE_ELIMINATION:
        return formats.DoubleElimination(seeding=seeding, bracket_reset=tournament.bracket_reset)
    if kind is formats.Format.SWISS:
        return formats.Swiss(rounds=tournament.swiss_rounds, seeding=seeding)
    return formats.RoundRobin(seeding=seeding)


def state_of(tournament: Tournament) -> formats.Tournament:
    """The formats' tournament a drawn tournament stores."""
    if tournament.state is None:
        raise Conflict(_("%(name)s has not been drawn yet.") % {"name": tournament.name})
    return formats.Tournament.from_dict(tournament.state)


def _refusal(error: formats.TournamentError) -> Invalid:
    return Invalid(_("The draw cannot be made: %(reason)s.") % {"reason": error})


# Creating and changing a tournament ---------------------------------------------------


def tournament_check(*, tournament: Tournament) -> None:
    """Refuse options no tournament can run with (``Invalid``): checked on the unsaved or
    changed row, so the admin's form and the services say the same."""
    if tournament.format not in {kind.value for kind in formats.Format}:
        raise Invalid(_("%(format)s is not a tournament format.") % {"format": tournament.format})
    if tournament.format == formats.Format.SWISS and tournament.swiss_rounds < 1:
        raise Invalid(_("A Swiss needs one round or more."))
    try:
        tournament.lengths  # noqa: B018  # reading them is the check
    except ValueError:
        raise Invalid(_("Match lengths are points per round, like 5, 5, 7, 9.")) from None
    if any(not 1 <= length <= club_services.MAX_MATCH_LENGTH for length in tournament.lengths):
        raise Invalid(
            _("A match is 1 to %(most)s points long.") % {"most": club_services.MAX_MATCH_LENGTH}
        )
    fee = club_services.money_check(amount=Decimal(tournament.entry_fee))
    if fee < 0:
        raise Invalid(_("The entry fee cannot be negative."))
    cut = Decimal(tournament.house_cut_percent)
    if not 0 <= cut <= 100:
        raise Invalid(_("The house cut is 0 to 100 percent."))
    try:
        formats.PayoutTable.from_dict(tournament.payout_table)
    except (formats.InvalidPayoutTable, formats.InvalidAmount) as error:
        raise Invalid(
            _("The payout table does not add up: %(reason)s.") % {"reason": error}
        ) from None
    for named in [tournament.clock, *tournament.clocks]:
        if named not in Clock.values:
            raise Invalid(_("%(clock)s is not a clock.") % {"clock": named})
    if not 0 <= tournament.round_deadline_hours <= MAX_DEADLINE_HOURS:
        raise Invalid(_("A round lasts 0 to %(most)s hours.") % {"most": MAX_DEADLINE_HOURS})
    if tournament.deadline_rule not in DeadlineRule.values:
        raise Invalid(_("%(rule)s is not a deadline rule.") % {"rule": tournament.deadline_rule})
    buy_back = club_services.money_check(amount=Decimal(tournament.buy_back_fee))
    if buy_back < 0:
        raise Invalid(_("The buy-back fee cannot be negative."))
    if buy_back > 0 and (
        tournament.format != formats.Format.SINGLE_ELIMINATION
        or tournament.last_chance_after_round < 1
    ):
        raise Invalid(
            _("A buy-back buys into the last chance: it needs a single elimination with one.")
        )
    if tournament.seeding not in Tournament.Seeding.values:
        raise Invalid(_("%(seeding)s is not a way to seed.") % {"seeding": tournament.seeding})


OPTION_FIELDS = (
    "name",
    "format",
    "seeding",
    "match_lengths",
    "round_clocks",
    "round_deadline_hours",
    "deadline_rule",
    "rated",
    "online",
    "clock",
    "entry_fee",
    "buy_back_fee",
    "house_cut_percent",
    "payout_table",
    "consolation_through_round",
    "last_chance_after_round",
    "bracket_reset",
    "swiss_rounds",
)
# The options of rounds not started yet: the director may change them while it runs.
ROUND_FIELDS = ("match_lengths", "round_clocks", "round_deadline_hours", "deadline_rule")
MAX_DEADLINE_HOURS = 24 * 60


@db_transaction.atomic
def tournament_create(*, created_by: User | None, **options: Any) -> Tournament:
    """A new tournament, in the draft, with the options given (``OPTION_FIELDS``; the
    others keep the model's defaults). A secret draw seed is chosen now and only its
    commitment shown until the draw."""
    unknown = set(options) - set(OPTION_FIELDS)
    if unknown:
        raise Invalid(_("Unknown options: %(names)s.") % {"names": ", ".join(sorted(unknown))})
    tournament = Tournament(**options, created_by=created_by, draw_seed=secrets.token_hex(32))
    tournament_check(tournament=tournament)
    tournament.save()
    return tournament


def _lock(tournament: Tournament) -> Tournament:
    """The tournament's row, locked, as it is now."""
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _save(tournament: Tournament, *fields: str) -> None:
    """Write ``fields`` only if nobody has written the tournament since it was read."""
    seen = tournament.version
    values = {field: getattr(tournament, field) for field in fields}
    if not Tournament.objects.filter(pk=tournament.pk, version=seen).update(
        **values, version=seen + 1
    ):
        raise Conflict(_("The tournament changed meanwhile: look again and retry."))
    tournament.version = seen + 1


def _editable(tournament: Tournament) -> None:
    if tournament.status not in EDITABLE:
        raise Conflict(
            _("%(name)s has been drawn: its options and entries are fixed.")
            % {"name": tournament.name}
        )


@db_transaction.atomic
def tournament_update(*, tournament: Tournament, **options: Any) -> Tournament:
    """Change a tournament's options before the draw; the rounds' lengths, clocks and
    deadlines (``ROUND_FIELDS``, for the rounds not started yet) until it is finished.
    The entry fee stays as it is once anyone has entered (their fees are in the books)."""
    locked = _lock(tournament)
    if set(options) - set(ROUND_FIELDS) or locked.status == Tournament.Status.FINISHED:
        _editable(locked)
    unknown = set(options) - set(OPTION_FIELDS)
    if unknown:
        raise Invalid(_("Unknown options: %(names)s.") % {"names": ", ".join(sorted(unknown))})
    if (
        "entry_fee" in options
        and Decimal(options["entry_fee"]) != locked.entry_fee
        and locked.entries.exists()
    ):
        raise Conflict(_("Players have entered: the entry fee cannot change now."))
    for name, value in options.items():
        setattr(locked, name, value)
    tournament_check(tournament=locked)
    _save(locked, *options)
    return locked


@db_transaction.atomic
def tournament_open(*, tournament: Tournament) -> Tournament:
    """Open registration: players may enter themselves."""
    locked = _lock(tournament)
    if locked.status != Tournament.Status.DRAFT:
        raise Conflict(
            _("Registration for %(name)s is not in the draft: it is %(status)s.")
            % {"name": locked.name, "status": locked.get_status_display()}
        )
    locked.status = Tournament.Status.OPEN
    _save(locked, "status")
    return locked


# Entries ------------------------------------------------------------------------------


def _seed_check(tournament: Tournament, seed: int | None, entry: Entry | None = None) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 1:
        raise Invalid(_("A seed is a whole number from 1."))
    taken = tournament.entries.filter(seed=seed)
    if entry is not None:
        taken = taken.exclude(pk=entry.pk)
    if taken.exists():
        raise Conflict(
            _("Seed %(seed)s is %(player)s's already.")
            % {"seed": seed, "player": taken.get().player}
        )


@db_transaction.atomic
def entry_add(
    *, tournament: Tournament, player: Player, recorded_by: User | None, seed: int | None = None
) -> Entry:
    """Enter a player (before the draw, once each); the entry fee is posted to the books,
    player to prize pool, with the tournament as its source."""
    if player.robot:
        raise Invalid(_("The practice robot plays only the matches members invite it to."))
    locked = _lock(tournament)
    _editable(locked)
    if locked.entries.filter(player=player).exists():
        raise Conflict(
            _("%(player)s has entered %(name)s already.") % {"player": player, "name": locked.name}
        )
    _seed_check(locked, seed)
    entry = Entry.objects.create(tournament=locked, player=player, seed=seed)
    if locked.entry_fee > 0:
        entry.fee_transaction = _post_fee(locked, player, locked.entry_fee, recorded_by)
        entry.save(update_fields=["fee_transaction"])
    _save(locked)
    return entry


def _post_fee(
    tournament: Tournament, player: Player, amount: Decimal, recorded_by: User | None
) -> Transaction:
    """Move ``amount`` from the player to the prize pool (a refund is a negative amount)."""
    kind = MemoKind.ENTRY_FEE if amount > 0 else MemoKind.ENTRY_FEE_REFUNDED
    memo = Memo.of(kind, name=tournament.name)
    return _post_to_pool(tournament, player, amount, memo, recorded_by)


def _post_to_pool(
    tournament: Tournament, player: Player, amount: Decimal, memo: Memo, recorded_by: User | None
) -> Transaction:
    """One balanced transaction, ``amount`` from the player to the prize pool, the
    tournament as its source."""
    return club_services.ledger_post(
        legs=[
            LegSpec(account=club_services.account_open_for_player(player=player), amount=-amount),
            LegSpec(
                account=club_services.club_account_open(kind=Account.Kind.PRIZE_POOL),
                amount=amount,
            ),
        ],
        memo=memo,
        kind=SourceKind.TOURNAMENT,
        source=tournament,
        recorded_by=recorded_by,
    )


@db_transaction.atomic
def entry_withdraw(*, entry: Entry, recorded_by: User | None) -> None:
    """Take an entry back before the draw; a fee paid is refunded (prize pool to player)."""
    locked = _lock(entry.tournament)
    _editable(locked)
    row = Entry.objects.filter(pk=entry.pk, tournament=locked).first()
    if row is None:
        raise Conflict(_("That entry has been withdrawn already."))
    if row.fee_transaction_id is not None:
        _post_fee(locked, row.player, -locked.entry_fee, recorded_by)
    row.delete()
    _save(locked)


@db_transaction.atomic
def entry_seed_set(*, entry: Entry, seed: int | None) -> Entry:
    """Seed an entry by hand (``None``: not seeded by hand), before the draw."""
    locked = _lock(entry.tournament)
    _editable(locked)
    row = Entry.objects.get(pk=entry.pk, tournament=locked)
    _seed_check(locked, seed, row)
    row.seed = seed
    row.save(update_fields=["seed"])
    _save(locked)
    return row


# The draw and the rounds --------------------------------------------------------------


@db_transaction.atomic
def tournament_start(*, tournament: Tournament) -> Tournament:
    """Close registration, draw (by the seeding method, a random draw from the published
    seed) and start round 1."""
    locked = _lock(tournament)
    if locked.status not in EDITABLE:
        raise Conflict(_("%(name)s has been drawn already.") % {"name": locked.name})
    entries = list(locked.entries.select_related("player").order_by("id"))
    if locked.seeding == Tournament.Seeding.MANUAL and any(e.seed is None for e in entries):
        raise Invalid(_("Seeding by hand: give every entry a seed (1, 2, 3...) first."))
    try:
        state = formats.Tournament(
            format=format_options(tournament=locked),
            entries=tuple(
                formats.Entry(str(entry.pk), rating=entry.player.rating, seed=entry.seed)
                for entry in entries
            ),
        )
        state = state.draw(rng=random.Random(locked.draw_seed)).start_round()
    except formats.TournamentError as error:
        raise _refusal(error) from None
    for entry in entries:
        entry.rating = entry.player.rating
    Entry.objects.bulk_update(entries, ["rating"])
    locked.status = Tournament.Status.RUNNING
    locked.started_at = clock.now()
    _store(locked, state)
    _save(locked, "status", "started_at", "state")
    return locked


def _store(tournament: Tournament, state: formats.Tournament) -> None:
    """Keep the state: a round just started gets its rows (walkovers decided, matches
    started, its deadline set), and the next round starts whenever one is ready (but
    the last chance of a tournament with buy-backs, which the director starts)."""
    while True:
        current = state.current_round
        if current is not None and not tournament.rounds.filter(number=current.number).exists():
            state = _round_open(tournament, state, current)
        if not _next_round_starts(tournament, state):
            break
        try:
            state = state.start_round()
        except formats.PairingImpossible:
            break  # the director is told (selectors.next_round_impossible) and decides
    tournament.state = state.to_dict()


def _next_round_starts(tournament: Tournament, state: formats.Tournament) -> bool:
    """The next round starts by itself: it is ready, and it is not the last chance's
    first round of a tournament with buy-backs (held open for them)."""
    held = tournament.buy_backs and len(state.rounds) == tournament.last_chance_after_round
    return state.next_round_ready and not held


def _round_open(
    tournament: Tournament, state: formats.Tournament, current: formats.Round
) -> formats.Tournament:
    """The rows of a round just started, at its length and clock, with its deadline."""
    now = clock.now()
    hours = tournament.round_deadline_hours
    played = Round.objects.create(
        tournament=tournament,
        number=current.number,
        length=tournament.length_of_round(current.number),
        clock=tournament.clock_of_round(current.number),
        started_at=now,
        deadline=now + timedelta(hours=hours) if hours else None,
    )
    rows = Pairing.objects.bulk_create(
        Pairing(
            round=played,
            key=pairing.id,
            bracket=pairing.bracket.value,
            position=pairing.position,
            first_id=int(pairing.players[0]),
            second_id=int(pairing.players[1]) if len(pairing.players) == 2 else None,
            winner_id=int(pairing.winner) if pairing.winner is not None else None,
            source=Pairing.Source.BYE if pairing.bye else "",
            decided_at=now if pairing.bye else None,
        )
        for pairing in current.pairings
    )
    state = _walkovers(tournament, state, rows, now)
    if tournament.online:
        _matches_start(tournament, played, rows)
    if played.deadline is not None:
        _deadline_schedule(played, played.deadline)
    return state


def _walkovers(
    tournament: Tournament, state: formats.Tournament, rows: list[Pairing], now: datetime
) -> formats.Tournament:
    """With buy-backs, the last chance is for those who bought back: a player who did not
    loses their last-chance pairing by walkover; if neither did, the better seed of the
    draw goes through (the bracket's shape is fixed at the draw)."""
    if not tournament.buy_backs:
        return state
    bought = set(
        tournament.entries.filter(buy_back_transaction__isnull=False).values_list("pk", flat=True)
    )
    decided = []
    for row in rows:
        if row.bracket != formats.Bracket.LAST_CHANCE or row.second_id is None:
            continue
        sides = [row.first_id, row.second_id]
        playing = [side for side in sides if side in bought]
        if len(playing) == 2:
            continue
        row.winner_id = playing[0] if playing else _better_seed_of(state.seed_order, sides)
        row.source = Pairing.Source.WALKOVER
        row.decided_at = now
        decided.append(row)
        state = state.record_result(row.key, str(row.winner_id))
    Pairing.objects.bulk_update(decided, ["winner", "source", "decided_at"])
    return state


def _matches_start(tournament: Tournament, played: Round, rows: list[Pairing]) -> None:
    """Online: each pairing of a new round still to play (not a bye, not a walkover) gets
    its server match, at the round's length and clock, started at once (both players are
    seated, the first-named as the match's creator: no invitation to answer)."""
    entries = Entry.objects.select_related("player").in_bulk(
        [row.first_id for row in rows] + [row.second_id for row in rows if row.second_id]
    )
    for row in rows:
        if row.second_id is None or row.winner_id is not None:
            continue
        first, second = entries[row.first_id].player, entries[row.second_id].player
        options = matches_services.MatchOptions(
            length=played.length, rated=tournament.rated, clock=played.clock
        )
        match = matches_services.match_create(creator=first, opponent=second, options=options)
        row.match = matches_services.match_accept(match=match, player=second)
        row.save(update_fields=["match"])


@db_transaction.atomic
def round_start_next(*, tournament: Tournament) -> Tournament:
    """Start the round held for buy-backs (the last chance's first): buy-backs close, and
    those who did not buy back lose their last-chance pairings by walkover."""
    locked = _lock(tournament)
    if locked.status != Tournament.Status.RUNNING:
        raise Conflict(_("%(name)s is not running.") % {"name": locked.name})
    state = state_of(locked)
    if not state.next_round_ready:
        raise Conflict(
            _("%(name)s has no round to start: the current one is still being played.")
            % {"name": locked.name}
        )
    _store(locked, state.start_round())
    _save(locked, "state")
    return locked


@db_transaction.atomic
def pairing_result_record(
    *,
    pairing: Pairing,
    winner: Entry,
    recorded_by: User | None,
    match: Match | None = None,
    ended_by: str = MatchResult.EndedBy.PLAYED,
) -> Pairing:
    """Record who won a pairing and move the tournament on.

    Over the board (``match`` None): the result is recorded with
    ``club.services.match_result_record`` (the pairing as its source, the round's
    length, rated if the tournament is), so ratings move at once. Online: ``match`` is
    the pairing's server match (``pairing.match_id``), whose own result is linked (or
    recorded with the match as its source if the match has not recorded it). This is the
    hook the matches app calls when a tournament match ends. ``ended_by``: a board
    pairing decided at its round's deadline is ``timeout``.

    A pairing played online takes no result from the director: its match decides it.
    Once every pairing of the round has a result, the next round is drawn and started.
    A second result for the same pairing is refused (``Conflict``), so a repeated
    request counts once.
    """
    locked = _lock(pairing.round.tournament)
    row = Pairing.objects.select_related("first__player", "second__player", "round").get(
        pk=pairing.pk
    )
    if locked.status != Tournament.Status.RUNNING:
        raise Conflict(_("%(name)s is not running.") % {"name": locked.name})
    if row.bye:
        raise Conflict(_("%(pairing)s is a bye: it has no result to enter.") % {"pairing": row})
    if row.winner_id is not None:
        raise Conflict(
            _("%(pairing)s has its result already: %(winner)s won.")
            % {"pairing": row, "winner": row.winner}
        )
    if winner.pk not in (row.first_id, row.second_id):
        raise Invalid(
            _("%(player)s does not play in %(pairing)s.") % {"player": winner, "pairing": row}
        )
    if match is None and row.match_id is not None:
        raise Conflict(_("%(pairing)s is played online: its match decides it.") % {"pairing": row})
    if match is not None and match.pk != row.match_id:
        raise Invalid(_("That match is not this pairing's."))
    loser = row.second if winner.pk == row.first_id else row.first
    assert loser is not None  # not a bye
    state = state_of(locked).record_result(row.key, str(winner.pk))
    row.result = _result(locked, row, winner, loser, match, recorded_by, ended_by)
    row.winner = winner
    row.source = Pairing.Source.OVER_THE_BOARD if match is None else Pairing.Source.ONLINE
    row.decided_at = clock.now()
    row.save(update_fields=["result", "winner", "source", "decided_at"])
    _store(locked, state)
    _save(locked, "state")
    return row


def _result(
    tournament: Tournament,
    pairing: Pairing,
    winner: Entry,
    loser: Entry,
    match: Match | None,
    recorded_by: User | None,
    ended_by: str,
) -> MatchResult:
    """The rated (or not) result of a pairing: recorded now, or the online match's own."""
    if match is not None:
        found = MatchResult.objects.filter(
            source_type=ContentType.objects.get_for_model(match), source_id=match.pk
        ).first()
        if found is not None:
            if (found.winner_id, found.loser_id) != (winner.player_id, loser.player_id):
                raise Invalid(_("The match's result names another winner."))
            return found
    return club_services.match_result_record(
        winner=winner.player,
        loser=loser.player,
        length=pairing.round.length,
        rated=tournament.rated,
        ended_by=ended_by,
        source=match or pairing,
        recorded_by=recorded_by,
    )


@db_transaction.atomic
def pairing_result_from_match(*, match_id: int) -> Pairing | None:
    """Online: the pairing of a match that has ended takes its winner (and the match's
    own result). Harmless to repeat or to call early: a pairing decided already, or a
    match not finished, is left as it is (``None``)."""
    pairing = Pairing.objects.select_related("round__tournament").filter(match_id=match_id).first()
    if pairing is None:
        return None
    _lock(pairing.round.tournament)
    row = Pairing.objects.select_related("first", "second", "round", "match").get(pk=pairing.pk)
    match = row.match
    if row.winner_id is not None or match is None or match.winner_id is None:
        return None
    winner = row.first if row.first.player_id == match.winner_id else row.second
    if winner is None or match.status != Match.Status.FINISHED:
        return None
    return pairing_result_record(pairing=row, winner=winner, recorded_by=None, match=match)


def pairings_online_collect() -> int:
    """Every pairing whose online match has finished and which has no result yet (the
    beat's sweep, for a signal that was lost); how many were decided."""
    decided = 0
    waiting = Pairing.objects.filter(winner__isnull=True, match__status=Match.Status.FINISHED)
    for match_id in waiting.values_list("match_id", flat=True):
        assert match_id is not None
        try:
            decided += pairing_result_from_match(match_id=match_id) is not None
        except ServiceError as error:
            log.warning("match %s: its pairing's result refused: %s", match_id, error.message)
    return decided


# Mixed pairings: online or on a real board, chosen per pairing -------------------------


def _undecided_pairing(pairing: Pairing) -> tuple[Tournament, Pairing]:
    """The tournament (locked) and the pairing as they are now, if the pairing still
    waits for its result."""
    locked = _lock(pairing.round.tournament)
    row = Pairing.objects.select_related("first__player", "second__player", "round", "match").get(
        pk=pairing.pk
    )
    if locked.status != Tournament.Status.RUNNING:
        raise Conflict(_("%(name)s is not running.") % {"name": locked.name})
    if row.bye:
        raise Conflict(_("%(pairing)s is a bye: nothing is played.") % {"pairing": row})
    if row.winner_id is not None:
        raise Conflict(_("%(pairing)s has been played already.") % {"pairing": row})
    return locked, row


@db_transaction.atomic
def pairing_play_on_board(*, pairing: Pairing) -> Pairing:
    """The pairing is played on a real board and the director enters its result: its
    online match, if it has one, is called off (refused once either player has acted in
    it) and the pairing no longer names it."""
    locked, row = _undecided_pairing(pairing)
    if row.match is None:
        raise Conflict(_("%(pairing)s is played on a board already.") % {"pairing": row})
    matches_services.match_call_off(match=row.match)
    row.match = None
    row.save(update_fields=["match"])
    _save(locked)
    return row


@db_transaction.atomic
def pairing_play_online(*, pairing: Pairing) -> Pairing:
    """The pairing is played online: its match on the server is created and started now
    (the round's length and clock, rated when the tournament is), and its
    end decides the pairing."""
    locked, row = _undecided_pairing(pairing)
    if row.match_id is not None:
        raise Conflict(_("%(pairing)s is played online already.") % {"pairing": row})
    _matches_start(locked, row.round, [row])
    _save(locked)
    return row


# Round deadlines ----------------------------------------------------------------------


def _deadline_schedule(played: Round, eta: datetime) -> None:
    """Send the deadline's task once the round is committed (lost: beat's sweep
    ``tournaments.deadlines`` applies it)."""
    round_id = played.pk
    db_transaction.on_commit(
        lambda: send_at(
            DEADLINE_TASK, args=[round_id], eta=eta, queue=settings.TOURNAMENTS_DEADLINE_QUEUE
        ),
        robust=True,
    )


@db_transaction.atomic
def round_deadline_set(*, played: Round, deadline: datetime | None) -> Round:
    """The director moves a round's deadline (``None``: no deadline). A new deadline is
    applied once more when it passes; one already past is applied at once. Refused for
    a round whose pairings all have their result."""
    locked = _lock(played.tournament)
    row = Round.objects.select_for_update().get(pk=played.pk)
    if locked.status != Tournament.Status.RUNNING:
        raise Conflict(_("%(name)s is not running.") % {"name": locked.name})
    if not row.pairings.filter(winner__isnull=True).exists():
        raise Conflict(_("%(round)s is complete: it needs no deadline.") % {"round": row})
    row.deadline = deadline
    row.deadline_applied_at = None
    row.save(update_fields=["deadline", "deadline_applied_at"])
    if deadline is not None:
        _deadline_schedule(row, deadline)
    _save(locked)
    return row


@db_transaction.atomic
def round_deadline_apply(*, round_id: int) -> bool:
    """Apply a round's deadline once it has passed, once: under the tournament's and
    the round's row locks, a deadline not due, applied already or of a tournament not
    running is left alone (False). The unfinished pairings are then overdue; by the
    tournament's ``deadline_rule`` they are only listed, or each is decided
    (``_deadline_winner``): an online one through the matches' forfeit (its loser
    abandons), a board one through the director's result path (``timeout``). A refusal
    rolls everything back."""
    found = Round.objects.filter(pk=round_id).values_list("tournament_id", flat=True).first()
    if found is None:
        return False
    locked = Tournament.objects.select_for_update().get(pk=found)
    row = Round.objects.select_for_update().get(pk=round_id)
    now = clock.now()
    if (
        locked.status != Tournament.Status.RUNNING
        or row.deadline is None
        or row.deadline > now
        or row.deadline_applied_at is not None
    ):
        return False
    row.deadline_applied_at = now
    row.save(update_fields=["deadline_applied_at"])
    overdue = list(
        row.pairings.filter(winner__isnull=True, second__isnull=False)
        .select_related("first", "second", "match")
        .order_by("bracket", "position")
    )
    log.info("round %s: deadline passed, %s pairings overdue", round_id, len(overdue))
    if locked.deadline_rule == DeadlineRule.LIST:
        return True
    seed_order = state_of(locked).seed_order
    for pairing in overdue:
        _deadline_decide(locked.deadline_rule, seed_order, pairing)
    return True


def _deadline_decide(rule: str, seed_order: tuple[str, ...], pairing: Pairing) -> None:
    match = pairing.match
    if match is None:
        pairing_result_record(
            pairing=pairing,
            winner=_deadline_winner(rule, seed_order, pairing),
            recorded_by=None,
            ended_by=MatchResult.EndedBy.TIMEOUT,
        )
        return
    if match.status == Match.Status.PLAYING:
        winner = _deadline_winner(rule, seed_order, pairing)
        loser = pairing.second if winner.pk == pairing.first_id else pairing.first
        assert loser is not None  # not a bye
        matches_services.match_abandon(match=match, player=loser.player)
    pairing_result_from_match(match_id=match.pk)


def _deadline_winner(rule: str, seed_order: tuple[str, ...], pairing: Pairing) -> Entry:
    """Who wins an overdue pairing. ``leader``: the player ahead in the online match's
    score. Otherwise, or level: the side that did not play loses, that is the one who
    made fewer actions in the match (a board pairing has none to count). Level again
    (both absent, or both played as much): the better seed of the draw wins."""
    first, second = pairing.first, pairing.second
    assert second is not None  # not a bye
    match = pairing.match
    if match is not None:
        if rule == DeadlineRule.LEADER:
            score = match.state["score"]  # the creator, the first-named, first
            if score[0] != score[1]:
                return first if score[0] > score[1] else second
        counts = dict(
            Action.objects.filter(table_id=match.table_id, actor__isnull=False)
            .values_list("actor_id")
            .annotate(total=Count("pk"))
            .values_list("actor_id", "total")
        )
        made = counts.get(first.player_id, 0), counts.get(second.player_id, 0)
        if made[0] != made[1]:
            return first if made[0] > made[1] else second
    better = _better_seed_of(seed_order, [first.pk, second.pk])
    return first if better == first.pk else second


def _better_seed_of(seed_order: tuple[str, ...], entry_ids: list[int]) -> int:
    return min(entry_ids, key=lambda entry_id: seed_order.index(str(entry_id)))


def rounds_deadline_sweep() -> int:
    """Every round whose deadline has passed and not been applied (beat's sweep, for a
    task that was lost); how many were applied, each in its own transaction."""
    due = Round.objects.filter(
        tournament__status=Tournament.Status.RUNNING,
        deadline__lte=clock.now(),
        deadline_applied_at__isnull=True,
    ).values_list("pk", flat=True)
    applied = 0
    for round_id in due:
        try:
            applied += round_deadline_apply(round_id=round_id)
        except ServiceError as error:
            log.warning("round %s: its deadline refused: %s", round_id, error.message)
    return applied


# Buy-backs ----------------------------------------------------------------------------


@db_transaction.atomic
def entry_buy_back(*, entry: Entry, recorded_by: User | None) -> Entry:
    """A player knocked out before the last chance buys into it: the buy-back fee is
    posted (player to prize pool, the tournament as its source) and the entry marked.
    Open until the director starts the last chance; once each."""
    locked = _lock(entry.tournament)
    row = Entry.objects.select_related("player").get(pk=entry.pk, tournament=locked)
    if not locked.buy_backs:
        raise Conflict(_("%(name)s has no buy-back.") % {"name": locked.name})
    if locked.status != Tournament.Status.RUNNING:
        raise Conflict(_("%(name)s is not running.") % {"name": locked.name})
    if row.bought_back:
        raise Conflict(
            _("%(player)s has bought back into %(name)s already.")
            % {"player": row.player, "name": locked.name}
        )
    state = state_of(locked)
    if len(state.rounds) > locked.last_chance_after_round:
        raise Conflict(
            _("The last chance of %(name)s has started: buy-backs are closed.")
            % {"name": locked.name}
        )
    if not _knocked_out_before_last_chance(state, row):
        raise Conflict(
            _("%(player)s is not out: only a player knocked out by round %(round)s buys back.")
            % {"player": row.player, "round": locked.last_chance_after_round}
        )
    memo = Memo.of(MemoKind.BUY_BACK, name=locked.name)
    row.buy_back_transaction = _post_to_pool(
        locked, row.player, locked.buy_back_fee, memo, recorded_by
    )
    row.save(update_fields=["buy_back_transaction"])
    _save(locked)
    return row


def _knocked_out_before_last_chance(state: formats.Tournament, entry: Entry) -> bool:
    """The entry lost one of the matches whose losers the last chance takes."""
    assert state.plan is not None  # a single elimination
    feeders = {
        feeder
        for pool in state.plan.pools
        if pool.bracket is formats.Bracket.LAST_CHANCE
        for feeder in pool.feeders
    }
    return any(
        pairing.id in feeders and pairing.loser == str(entry.pk) for pairing in state.pairings
    )


# Payouts ------------------------------------------------------------------------------


@db_transaction.atomic
def tournament_finish(*, tournament: Tournament, recorded_by: User | None) -> Tournament:
    """Pay out a complete tournament: one balanced transaction takes the fees collected
    out of the prize pool, the house cut to the club's fees, the rest to the places by
    the payout table, to the cent; the tournament's prize pool is then exactly zero. A
    Swiss whose next round cannot be paired ends here after its rounds played."""
    locked = _lock(tournament)
    if locked.status != Tournament.Status.RUNNING:
        raise Conflict(
            _("%(name)s cannot be paid out: it is %(status)s.")
            % {"name": locked.name, "status": locked.get_status_display()}
        )
    state = state_of(locked)
    if next_round_impossible(tournament=locked):
        state = state.end_after_rounds_played()
        locked.swiss_rounds = len(state.rounds)
        locked.state = state.to_dict()
    if not state.complete:
        waiting = Pairing.objects.filter(round__tournament=locked, winner__isnull=True).count()
        raise Conflict(
            ngettext(
                "%(name)s is not over: %(count)s pairing is waiting for its result.",
                "%(name)s is not over: %(count)s pairings are waiting for their result.",
                waiting,
            )
            % {"name": locked.name, "count": waiting}
        )
    entries = list(locked.entries.all())
    pool = formats.prize_pool(
        entry_fee=locked.entry_fee,
        entries=sum(entry.fee_transaction_id is not None for entry in entries),
        buy_back_fee=locked.buy_back_fee,
        buy_backs=sum(entry.bought_back for entry in entries),
        house_cut_percent=locked.house_cut_percent,
    )
    if tournament_pool_balance(tournament=locked) != pool.collected:
        raise Conflict(_("The prize pool's books do not match the fees: see the ledger."))
    try:
        lines = formats.payouts(
            pool=pool.pool,
            table=formats.PayoutTable.from_dict(locked.payout_table),
            places=state.final_places(),
        )
    except (formats.InvalidPayoutTable, formats.InvalidAmount) as error:
        raise Invalid(_("The payout table does not fit: %(reason)s.") % {"reason": error}) from None
    if pool.collected:
        locked.payout_transaction = _post_payouts(locked, pool, lines, recorded_by)
    locked.status = Tournament.Status.FINISHED
    locked.finished_at = clock.now()
    _save(locked, "status", "finished_at", "payout_transaction", "swiss_rounds", "state")
    return locked


def _post_payouts(
    tournament: Tournament,
    pool: formats.PrizePool,
    lines: tuple[formats.Payout, ...],
    recorded_by: User | None,
) -> Transaction:
    won: dict[int, Decimal] = defaultdict(Decimal)
    for line in lines:
        won[int(line.entry)] += line.amount
    entries = Entry.objects.select_related("player").in_bulk(list(won))
    legs = [
        LegSpec(
            account=club_services.club_account_open(kind=Account.Kind.PRIZE_POOL),
            amount=-pool.collected,
        )
    ]
    if pool.house_cut:
        legs.append(
            LegSpec(
                account=club_services.club_account_open(kind=Account.Kind.FEES),
                amount=pool.house_cut,
            )
        )
    legs += [
        LegSpec(
            account=club_services.account_open_for_player(player=entries[entry_id].player),
            amount=amount,
        )
        for entry_id, amount in sorted(won.items())
    ]
    return club_services.ledger_post(
        legs=legs,
        memo=Memo.of(MemoKind.PRIZES, name=tournament.name),
        kind=SourceKind.PRIZE,
        source=tournament,
        recorded_by=recorded_by,
    )
