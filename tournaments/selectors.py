"""Every read of the tournaments that is more than a ``get``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from decimal import Decimal
from typing import NotRequired, TypedDict

from django.contrib.contenttypes.models import ContentType
from django.db.models import Prefetch, QuerySet, Sum
from django.urls import reverse
from django.utils.translation import gettext as _
from django_stubs_ext import StrOrPromise

from club.models import Account, Leg
from tournaments import bracket, formats
from tournaments.models import BRACKET_TITLES, Entry, Pairing, Round, Tournament, pairing_label
from web import clock, live
from web.errors import NotFound

ZERO = Decimal("0.00")
ELIMINATIONS = {formats.Format.SINGLE_ELIMINATION.value, formats.Format.DOUBLE_ELIMINATION.value}


def tournament_list(*, status: str = "", format: str = "") -> QuerySet[Tournament]:
    """Tournaments, newest first; ``status`` and ``format`` filter when given."""
    tournaments = Tournament.objects.all()
    if status:
        tournaments = tournaments.filter(status=status)
    if format:
        tournaments = tournaments.filter(format=format)
    return tournaments


def tournament_get(*, pk: int) -> Tournament:
    """A tournament with its entries, rounds and pairings, or ``NotFound``."""
    pairings = Pairing.objects.select_related(
        "first__player__user", "second__player__user", "winner__player__user"
    ).order_by("id")
    tournament = (
        Tournament.objects.prefetch_related(
            Prefetch("entries", Entry.objects.select_related("player__user")),
            Prefetch("rounds", Round.objects.prefetch_related(Prefetch("pairings", pairings))),
        )
        .filter(pk=pk)
        .first()
    )
    if tournament is None:
        raise NotFound(_("There is no tournament %(id)s.") % {"id": pk})
    return tournament


def next_round_impossible(*, tournament: Tournament) -> bool:
    """The next round of a running Swiss cannot be paired: every way to pair it would
    repeat a match or give a second bye (``formats.PairingImpossible``)."""
    if tournament.status != Tournament.Status.RUNNING or tournament.state is None:
        return False
    state = formats.Tournament.from_dict(tournament.state)
    if not isinstance(state.format, formats.Swiss) or not state.next_round_ready:
        return False
    try:
        state.start_round()
    except formats.PairingImpossible:
        return True
    return False


def tournament_pool_balance(*, tournament: Tournament) -> Decimal:
    """What the prize pool holds for this tournament: fees in, refunds and prizes out
    (exactly zero once it is paid out)."""
    total = Leg.objects.filter(
        account__kind=Account.Kind.PRIZE_POOL,
        transaction__source_type=ContentType.objects.get_for_model(Tournament),
        transaction__source_id=tournament.pk,
    ).aggregate(total=Sum("amount"))["total"]
    return (total or ZERO).quantize(ZERO)


@dataclass(frozen=True)
class StandingLine:
    """One entry's line: ``place`` is ``None`` in an elimination still being played;
    ``buchholz`` is ``None`` in an elimination (it has no tie-breaks)."""

    entry: Entry
    place: str | None
    score: int
    wins: int
    losses: int
    byes: int
    buchholz: int | None


def tournament_standings(*, tournament: Tournament) -> list[StandingLine]:
    """The standings: a Swiss's or round robin's by score and tie-breaks; an
    elimination's by the main event's final places once complete, before that those
    still in first (fewest losses, then most wins, then seed)."""
    if tournament.state is None:
        return []
    state = formats.Tournament.from_dict(tournament.state)
    entries = {str(entry.pk): entry for entry in tournament.entries.all()}
    if isinstance(state.format, formats.Swiss | formats.RoundRobin):
        return [
            StandingLine(
                entry=entries[line.entry],
                place=str(line.place),
                score=line.score,
                wins=line.wins,
                losses=line.losses,
                byes=line.byes,
                buchholz=line.buchholz,
            )
            for line in state.standings()
        ]
    wins, losses, byes = Counter[str](), Counter[str](), Counter[str]()
    for pairing in state.pairings:
        if pairing.bye:
            byes[pairing.players[0]] += 1
        elif pairing.winner is not None and pairing.loser is not None:
            wins[pairing.winner] += 1
            losses[pairing.loser] += 1
    places: dict[str, str] = {}
    if state.complete:
        for final in state.final_places():
            if final.event is formats.Event.MAIN:
                places.update((entry, str(final.place)) for entry in final.entries)
    order = {entry: index for index, entry in enumerate(state.seed_order)}
    ranked = sorted(
        state.seed_order,
        key=lambda e: (
            int(places[e].split("-")[0]) if e in places else 0,
            losses[e],
            -wins[e],
            order[e],
        ),
    )
    return [
        StandingLine(
            entry=entries[entry],
            place=places.get(entry),
            score=wins[entry] + byes[entry],
            wins=wins[entry],
            losses=losses[entry],
            byes=byes[entry],
            buchholz=None,
        )
        for entry in ranked
    ]


@dataclass(frozen=True)
class PrizeLine:
    entry: Entry | None  # None: the club's house cut
    amount: Decimal


def tournament_prizes(*, tournament: Tournament) -> list[PrizeLine]:
    """What the payout paid: each player's prize, biggest first, then the house cut."""
    if tournament.payout_transaction_id is None:
        return []
    entries = {entry.player_id: entry for entry in tournament.entries.all()}
    legs = Leg.objects.filter(transaction_id=tournament.payout_transaction_id, amount__gt=0)
    lines = [
        PrizeLine(
            entry=entries.get(leg.account.player_id) if leg.account.player_id else None,
            amount=leg.amount,
        )
        for leg in legs.select_related("account")
    ]
    return sorted(lines, key=lambda line: (line.entry is None, -line.amount))


def _source_labels(within: formats.Bracket) -> bracket.SourceLabels:
    """How a side whose player is not known yet reads in a box of the bracket ``within``,
    in the language of the request."""
    return {
        formats.SlotKind.SEED: lambda side: _("Seed %(seed)s") % {"seed": side.source.index + 1},
        formats.SlotKind.WINNER: lambda side: (
            _("Winner: %(pairing)s") % {"pairing": pairing_label(side.source.ref, within=within)}
        ),
        formats.SlotKind.LOSER: lambda side: (
            _("Loser: %(pairing)s") % {"pairing": pairing_label(side.source.ref, within=within)}
        ),
        formats.SlotKind.POOL: lambda side: _("to be drawn"),
        formats.SlotKind.NOBODY: lambda side: _("bye"),
    }


class TournamentDraw(TypedDict):
    """What the bracket page and the admin draw (``tournament_draw``)."""

    tournament: Tournament
    brackets: list[tuple[StrOrPromise, bracket.BracketDrawing]]
    standings: list[StandingLine]
    elimination: bool
    rounds: QuerySet[Round]
    prizes: list[PrizeLine]
    my_entry: NotRequired[Entry | None]  # the public page's: the viewer's own entry
    big_screen: NotRequired[bool]  # the public page's: the room's TV asked (?screen=big)


def tournament_draw(*, tournament: Tournament) -> TournamentDraw:
    """What the bracket page and the admin draw: the brackets of an elimination (as
    drawings), the standings, the rounds and the prizes paid."""
    brackets: list[tuple[StrOrPromise, bracket.BracketDrawing]] = []
    if tournament.state is not None and tournament.format in ELIMINATIONS:
        names = {str(entry.pk): entry.player.display_name for entry in tournament.entries.all()}
        state = formats.Tournament.from_dict(tournament.state)
        watched = {
            pairing.key: reverse("play-match", args=[pairing.match_id])
            for played in tournament.rounds.all()
            for pairing in played.pairings.all()
            if pairing.match_id is not None and pairing.winner_id is None
        }
        brackets = [
            (BRACKET_TITLES[drawing.bracket], drawing)
            for drawing in bracket.draw_brackets(state.fixtures(), names, _source_labels, watched)
        ]
    return {
        "tournament": tournament,
        "brackets": brackets,
        "standings": tournament_standings(tournament=tournament),
        "elimination": tournament.format in ELIMINATIONS,
        "rounds": tournament.rounds.all(),
        "prizes": tournament_prizes(tournament=tournament),
    }


def tournament_versions(keys: Collection[str]) -> dict[str, int]:
    """The live channel's versions of the tournaments named by id (unknown ids, and
    keys that cannot be an id, left out)."""
    ids = {int(key): key for key in keys if key.isascii() and key.isdigit() and len(key) < 19}
    return {ids[pk]: version for pk, version in live.versions_by_id(Tournament, ids).items()}


def rounds_overdue() -> QuerySet[Round]:
    """Rounds whose deadline has passed with a pairing still waiting for its result."""
    return Round.objects.filter(
        deadline__lte=clock.now(),
        pairings__winner__isnull=True,
        tournament__status=Tournament.Status.RUNNING,
    ).distinct()


def round_overdue_pairings(*, played: Round) -> list[Pairing]:
    """The round's pairings still waiting for a result once its deadline has passed."""
    if played.deadline is None or played.deadline > clock.now():
        return []
    return list(
        played.pairings.filter(winner__isnull=True)
        .select_related("first__player", "second__player")
        .order_by("bracket", "position")
    )
