"""Chouette pages: the list of sessions (and opening one), the table page for the club's
big screen, and the scorekeeper's form (recorded mode: a game in a few taps, undo, join,
leave, close). Every write goes through ``chouette.services``; a refusal comes back as a
message on the page, and nothing is changed."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, NotRequired, TypedDict

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Field, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from backgammon.chouette import BoardResult, Outcome, RecordDict, Winner
from backgammon.errors import BackgammonError
from backgammon.game import Game, Phase
from backgammon.notation import format_play
from backgammon.team import BOX, TEAM
from chouette import selectors, services
from chouette.models import Chouette, ChouetteGame, Proposal
from club import money
from club import selectors as club_selectors
from club.auth import member
from club.models import Player
from matches import selectors as match_selectors
from matches.board import Home, board_svg, can_confirm, picture_for
from matches.models import PlaySettings
from matches.selectors import BoardState
from web import clock
from web.errors import NotFound, ServiceError
from web.pages import big_screen, live_template

CUBE_CHOICES = [(value, str(value)) for value in (1, 2, 4, 8, 16, 32, 64)]


def _chouette_or_404(pk: int) -> Chouette:
    """The chouette as its card reads it (its table, scorekeeper and games played in one
    query), or a 404."""
    try:
        return selectors.chouette_card_get(pk=pk)
    except NotFound as error:
        raise Http404(str(error.message)) from None


def _players(usernames: list[str]) -> list[Player]:
    return [club_selectors.player_get(username=name) for name in usernames]


# The list, and opening a chouette --------------------------------------------------------


def _label(name: str) -> Any:
    """A session field's own translated name, capitalised as a form's label (the model
    keeps it lowercase for the admin's sentences)."""
    field = Chouette._meta.get_field(name)
    assert isinstance(field, Field)
    return capfirst(field.verbose_name)


def _capitalised(choices: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Choices that stand alone in a list, capitalised as the labels are (those that end
    a label's sentence, 'The box keeps the box when' ..., stay lowercase)."""
    return [(value, capfirst(name)) for value, name in choices]


class ChouetteForm(forms.Form):
    """Open a chouette, recorded or online: who plays, at what stake, with which options
    (the clock and consulting only for one played on the server)."""

    mode = forms.ChoiceField(
        label=_label("mode"),
        choices=_capitalised(Chouette.Mode.choices),
        initial=Chouette.Mode.RECORDED,
        required=False,
    )
    players = forms.MultipleChoiceField(
        label=gettext_lazy("Players"), widget=forms.CheckboxSelectMultiple
    )
    order = forms.CharField(
        label=gettext_lazy("Order already rolled (optional)"),
        required=False,
        help_text=gettext_lazy(
            "Usernames, box first, separated by spaces. Left empty, the server rolls."
        ),
    )
    stake = forms.DecimalField(
        label=gettext_lazy("Stake per point"),
        max_digits=money.LEG_DIGITS,
        decimal_places=money.PLACES,
        initial=Decimal("1.00"),
    )
    cube = forms.ChoiceField(
        label=gettext_lazy("Cube"), choices=_capitalised(Chouette.Cube.choices)
    )
    jacoby = forms.BooleanField(label=gettext_lazy("Jacoby rule"), required=False, initial=True)
    beavers = forms.BooleanField(label=gettext_lazy("Beavers"), required=False)
    box_keeps = forms.ChoiceField(
        label=gettext_lazy("The box keeps the box when"), choices=Chouette.BoxKeeps.choices
    )
    partner_from = forms.IntegerField(
        label=gettext_lazy("Box partner from (players)"),
        required=False,
        initial=7,
        min_value=4,
        max_value=services.MAX_PLAYERS,
        help_text=gettext_lazy("Empty: no partner."),
    )
    turn_time = forms.IntegerField(
        label=_label("turn_time"),
        required=False,
        min_value=services.MIN_TURN_TIME,
        max_value=services.MAX_TURN_TIME,
        help_text=gettext_lazy("Online only; empty: no clock."),
    )
    no_answer = forms.ChoiceField(
        label=_label("no_answer"), choices=Chouette.NoAnswer.choices, required=False
    )
    consulting = forms.ChoiceField(
        label=_label("consulting"),
        choices=_capitalised(Chouette.Consulting.choices),
        required=False,
    )

    def clean_mode(self) -> str:
        return str(self.cleaned_data["mode"] or Chouette.Mode.RECORDED)

    def clean_no_answer(self) -> str:
        return str(self.cleaned_data["no_answer"] or Chouette.NoAnswer.PASS)

    def clean_consulting(self) -> str:
        return str(self.cleaned_data["consulting"] or Chouette.Consulting.FULL)

    def options(self) -> services.ChouetteOptions:
        """The session's options (``Invalid`` as the service's): those of a session played
        on the server only for one."""
        values = self.cleaned_data
        online = (
            {name: values[name] for name in ("turn_time", "no_answer", "consulting")}
            if values["mode"] == Chouette.Mode.ONLINE
            else {}
        )
        return services.ChouetteOptions(
            stake=values["stake"],
            mode=values["mode"],
            cube=values["cube"],
            jacoby=values["jacoby"],
            beavers=values["beavers"],
            box_keeps=values["box_keeps"],
            partner_from=values["partner_from"],
            **online,
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["players"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [
            (player.username, player.display_name)
            for player in Player.objects.select_related("user").order_by("display_name")
        ]


@login_required
@require_http_methods(["GET", "POST"])
def chouettes(request: HttpRequest) -> HttpResponse:
    """The sessions, open ones first, newest first (``?player=`` one player's, with their
    points); and the form that opens one."""
    form = ChouetteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        values = form.cleaned_data
        order = values["order"].split()
        try:
            chouette = services.chouette_create(
                players=_players(values["players"]),
                order=_players(order) if order else None,
                recorded_by=member(request.user),
                options=form.options(),
            )
        except ServiceError as error:
            messages.error(request, str(error.message))
        else:
            online = chouette.mode == Chouette.Mode.ONLINE
            return redirect("chouette-play" if online else "chouette-record", pk=chouette.pk)
    username = request.GET.get("player", "")
    sessions = selectors.chouette_list().order_by("-status", "-id")
    shown = None
    if username:
        try:
            shown = club_selectors.player_get(username=username)
        except NotFound as error:
            raise Http404(str(error.message)) from None
        sessions = sessions.filter(memberships__player=shown).distinct()
    page = Paginator(sessions, 50).get_page(request.GET.get("page"))
    points = {
        chouette.pk: total
        for chouette, total in (selectors.player_chouettes(player=shown) if shown else [])
    }
    me = getattr(request.user, "player", None)
    rows = [(chouette, points.get(chouette.pk), _plays_online(chouette, me)) for chouette in page]
    return render(
        request,
        "chouette/chouettes.html",
        {
            "page": page,
            "rows": rows,
            "shown": shown,
            "total": sum(points.values()) if shown else None,
            "form": form,
        },
    )


def _plays_online(chouette: Chouette, player: Player | None) -> bool:
    """Whether ``player`` is seated at an open online session: their own board is linked."""
    return (
        player is not None
        and chouette.mode == Chouette.Mode.ONLINE
        and chouette.status == Chouette.Status.OPEN
        and player.pk in chouette.seats
    )


# The table page ------------------------------------------------------------------------


class GameRow(TypedDict):
    """A game in the table's list: its row, and each seated player's points (None:
    not in that game)."""

    row: ChouetteGame
    points: list[int | None]


class TablePage(TypedDict):
    """What the table page and the scorekeeper's form draw: online, the game on the
    table (None: none yet, or recorded) and once there is one the board from the team's
    side, who must act, the cubes (``_add_online``); the last four, each view's own."""

    chouette: Chouette
    box: str
    box_name: str
    captain_name: str
    crew_names: list[str]
    partner_name: str | None
    line: list[str]
    seated: list[tuple[str, str, int]]
    games: list[GameRow]
    games_played: int
    topic: str
    game: selectors.OnlineGame | None
    board: NotRequired[SafeString]
    awaiting_names: NotRequired[list[str]]
    mover_name: NotRequired[str | None]
    cubes: NotRequired[list[tuple[str, selectors.OnlineCube]]]
    may_record: NotRequired[bool]
    plays_online: NotRequired[bool]
    big_screen: NotRequired[bool]
    form: NotRequired["GameForm"]
    others: NotRequired[QuerySet[Player]]


def _table_context(chouette: Chouette) -> TablePage:
    """What the table page and the scorekeeper's form show: the seats, the scores, the
    games (newest first) with each one's points in seat order. The players, their points
    and display names in one query (``selectors.chouette_standing``), the games with
    their points in two, whatever the seats and the games."""
    standing = selectors.chouette_standing(chouette=chouette)
    names = standing.names
    seating = selectors.chouette_seating(chouette=chouette, names=names)
    scores = standing.scores(chouette.seats)
    display = {names[pk]: shown for pk, shown in standing.display_names.items()}
    seated = list(seating.players)
    games: list[GameRow] = [
        {
            "row": game,
            "points": [
                next((p.points for p in game.points.all() if names[p.player_id] == n), None)
                for n in seated
            ],
        }
        for game in reversed(list(selectors.chouette_game_list(chouette=chouette)))
    ]
    page: TablePage = {
        "chouette": chouette,
        "box": seating.box,
        "box_name": display[seating.box],
        "captain_name": display[seating.captain],
        "crew_names": [display[name] for name in seating.crew],
        "partner_name": display[seating.partner] if seating.partner else None,
        "line": list(seating.line),
        "seated": [(name, display[name], scores[name]) for name in seated],
        "games": games,
        "games_played": standing.games,
        "topic": f"chouette:{chouette.pk}",
        "game": None,
    }
    _add_online(page, chouette, names=names, display=display)
    return page


def _add_online(
    page: TablePage, chouette: Chouette, *, names: dict[int, str], display: dict[str, str]
) -> None:
    """Online: the board from the team's side, who must act, and each member's cube."""
    game = selectors.chouette_online_game(chouette=chouette, names=names)
    if game is None or chouette.table is None or chouette.table.state is None:
        return
    played = Game.from_dict(chouette.table.state)
    box = display[names[chouette.seats[0]]]
    svg = board_svg(picture_for(played, TEAM), names=(_("the team"), box))
    page["game"] = game
    page["board"] = mark_safe(svg)  # board_svg escapes every name it draws
    page["awaiting_names"] = [display[name] for name in game["awaiting"]]
    page["mover_name"] = _mover_name(game, display)
    page["cubes"] = [(display[name], cube) for name, cube in game["cubes"].items()]


def _mover_name(game: selectors.OnlineGame, display: dict[str, str]) -> str | None:
    """Who moves for the team in the game on the table (H7); None once it is over: its
    last captain may sit in the box by then, and the seats say who leads the next."""
    if game["captain"] is None or game["phase"] == Phase.OVER.value:
        return None
    return display[game["captain"]]


@login_required
@require_GET
def chouette(request: HttpRequest, pk: int) -> HttpResponse:
    """The table page for the big screen: box, captain, crew in line order, partner,
    running scores and the games; it follows the live channel (``chouette:<id>``),
    fetching its live region alone on each new version. With ``?screen=big``, the room's
    TV: no site header, the board the screen's height (docs/pages.md)."""
    shown = _chouette_or_404(pk)
    context = _table_context(shown)
    context["big_screen"] = big_screen(request)
    context["may_record"] = services.may_record(chouette=shown, user=member(request.user))
    context["plays_online"] = _plays_online(shown, getattr(request.user, "player", None))
    template = live_template(request, page="chouette/table.html", region="chouette/_live.html")
    return render(request, template, context)


# The scorekeeper's form ------------------------------------------------------------------


class GameForm(forms.Form):
    """One game played on the board: who won, how, and each member's cube."""

    winner = forms.ChoiceField(
        label=gettext_lazy("Winner on the board"),
        choices=[
            (Winner.TEAM.value, gettext_lazy("Team")),
            (Winner.BOX.value, gettext_lazy("Box")),
        ],
        widget=forms.RadioSelect,
    )
    result = forms.ChoiceField(
        label=gettext_lazy("Result"),
        choices=[
            (BoardResult.SINGLE.value, gettext_lazy("Single")),
            (BoardResult.GAMMON.value, gettext_lazy("Gammon")),
            (BoardResult.BACKGAMMON.value, gettext_lazy("Backgammon")),
        ],
        initial=BoardResult.SINGLE.value,
        widget=forms.RadioSelect,
    )
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    OUTCOMES = [
        (Outcome.PLAYED.value, gettext_lazy("Played")),
        (Outcome.PASSED.value, gettext_lazy("Passed")),
        (Outcome.BOX_PASSED.value, gettext_lazy("Box passed")),
    ]

    def __init__(self, *args: Any, line: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = line
        for name in line:
            self.fields[f"outcome_{name}"] = forms.ChoiceField(
                label=gettext_lazy("Outcome"),
                choices=self.OUTCOMES,
                initial=Outcome.PLAYED.value,
                widget=forms.RadioSelect,
            )
            self.fields[f"stake_{name}"] = forms.TypedChoiceField(
                label=gettext_lazy("Cube"), choices=CUBE_CHOICES, coerce=int, initial=1
            )
            self.fields[f"untouched_{name}"] = forms.BooleanField(
                label=gettext_lazy("Cube never turned"), required=False
            )

    def members(self) -> list[tuple[str, forms.BoundField, forms.BoundField, forms.BoundField]]:
        """Each member's three fields, in line order, for the template."""
        return [
            (name, self[f"outcome_{name}"], self[f"stake_{name}"], self[f"untouched_{name}"])
            for name in self.line
        ]

    def record(self) -> RecordDict:
        """The game in API.md's recorded form."""
        values = self.cleaned_data
        return {
            "winner": values["winner"],
            "result": values["result"],
            "members": [
                {
                    "player": name,
                    "stake": values[f"stake_{name}"],
                    "outcome": values[f"outcome_{name}"],
                    "cube_turned": values[f"stake_{name}"] > 1 and not values[f"untouched_{name}"],
                }
                for name in self.line
            ],
        }


@login_required
@require_http_methods(["GET", "POST"])
def chouette_record(request: HttpRequest, pk: int) -> HttpResponse:
    """The scorekeeper's page: the game just played (a recorded session only: an online
    one's games are played on the server), and undo, join, leave and close. The seats,
    scores and buttons follow the live channel (``chouette:<id>``) as the table page's
    do; the game form stays out of that region, so a redraw never clears its taps."""
    shown = _chouette_or_404(pk)
    context = _table_context(shown)
    form = (
        None
        if shown.mode == Chouette.Mode.ONLINE
        else GameForm(
            request.POST or None, line=context["line"], initial={"version": shown.version}
        )
    )
    if request.method == "POST":
        if form is None:
            messages.error(request, _("An online chouette's games are played on the server."))
            return redirect("chouette-record", pk=shown.pk)
        if form.is_valid():
            try:
                services.chouette_game_record(
                    chouette=shown,
                    record=form.record(),
                    recorded_by=member(request.user),
                    version=form.cleaned_data["version"],
                )
            except ServiceError as error:
                messages.error(request, str(error.message))
            else:
                messages.success(request, _("The game is recorded."))
                return redirect("chouette-record", pk=shown.pk)
        else:
            messages.error(request, _("Say who won, how, and each member's cube."))
    context["may_record"] = services.may_record(chouette=shown, user=member(request.user))
    if form is not None:
        context["form"] = form
    context["others"] = (
        Player.objects.exclude(pk__in=shown.seats).select_related("user").order_by("display_name")
    )
    template = live_template(request, page="chouette/record.html", region="chouette/_keeper.html")
    return render(request, template, context)


def _version(request: HttpRequest) -> int | None:
    raw = request.POST.get("version", "")
    return int(raw) if raw.isascii() and raw.isdigit() else None


def _undo(request: HttpRequest, chouette: Chouette) -> str:
    undo = services.chouette_game_undo(
        chouette=chouette, recorded_by=member(request.user), version=_version(request)
    )
    assert undo.undoes is not None
    return _("Game %(number)s is undone.") % {"number": undo.undoes.number}


def _join(request: HttpRequest, chouette: Chouette) -> str:
    player = club_selectors.player_get(username=request.POST.get("player", ""))
    services.chouette_join(
        chouette=chouette, player=player, by=member(request.user), version=_version(request)
    )
    return _("%(player)s joins at the end of the line.") % {"player": player.display_name}


def _leave(request: HttpRequest, chouette: Chouette) -> str:
    player = club_selectors.player_get(username=request.POST.get("player", ""))
    settled = services.chouette_leave(
        chouette=chouette, player=player, by=member(request.user), version=_version(request)
    )
    return _("%(player)s leaves and settles %(amount)s.") % {
        "player": player.display_name,
        "amount": settled.amounts[player.username],
    }


def _close(request: HttpRequest, chouette: Chouette) -> str:
    services.chouette_close(chouette=chouette, by=member(request.user), version=_version(request))
    return _("The chouette is closed and settled in the ledger.")


ACTIONS: dict[str, Callable[[HttpRequest, Chouette], str]] = {
    "undo": _undo,
    "join": _join,
    "leave": _leave,
    "close": _close,
}

# The ``confirm`` field the confirmation page sends back; without it undo, leave and
# close only show what they would do.
CONFIRMED = "yes"


@dataclass(frozen=True)
class Settles:
    """One player's line of a settlement to confirm: positive, they are paid."""

    name: str
    amount: Decimal

    @property
    def magnitude(self) -> Decimal:
        return abs(self.amount)


class Confirmation(TypedDict):
    """What an action that posts money or cannot be taken back says before it is done:
    the question, what follows from it, the money it moves (display name, amount) and
    the fields the confirming form sends back."""

    chouette: Chouette
    question: str
    consequence: str
    amounts: list[Settles]
    button: str
    version: int
    player: str


def _display_names(chouette: Chouette) -> dict[str, str]:
    standing = selectors.chouette_standing(chouette=chouette)
    return {standing.names[pk]: shown for pk, shown in standing.display_names.items()}


def _confirm_undo(request: HttpRequest, chouette: Chouette) -> Confirmation | None:
    last = selectors.chouette_last_game(chouette=chouette)
    if last is None:
        return None  # nothing to take back: the service says so
    return {
        "chouette": chouette,
        "question": _("Undo game %(number)s?") % {"number": last.number},
        "consequence": _(
            "Its points come off the scores and the seats go back to where they were "
            "before it. An undo cannot itself be undone."
        ),
        "amounts": [],
        "button": _("Undo the last game"),
        "version": chouette.version,
        "player": "",
    }


def _confirm_leave(request: HttpRequest, chouette: Chouette) -> Confirmation | None:
    player = club_selectors.player_get(username=request.POST.get("player", ""))
    if player.pk not in chouette.seats or selectors.chouette_game_on(chouette=chouette):
        return None  # not seated, or not between games: the service says so
    display = _display_names(chouette)
    amounts = selectors.chouette_leaving_amounts(chouette=chouette, username=player.username)
    return {
        "chouette": chouette,
        "question": _("%(player)s leaves and settles?") % {"player": player.display_name},
        "consequence": _("This posts their settlement to the ledger now; it cannot be taken back."),
        "amounts": [Settles(display[name], amount) for name, amount in amounts.items()],
        "button": _("Leave and settle"),
        "version": chouette.version,
        "player": player.username,
    }


def _confirm_close(request: HttpRequest, chouette: Chouette) -> Confirmation | None:
    if selectors.chouette_game_on(chouette=chouette):
        return None  # not between games: the service says so
    display = _display_names(chouette)
    amounts = selectors.chouette_closing_amounts(chouette=chouette)
    return {
        "chouette": chouette,
        "question": _("Close chouette #%(id)s and settle?") % {"id": chouette.pk},
        "consequence": _(
            "This ends the session and posts the settlement to the ledger; it cannot be taken back."
        ),
        "amounts": [Settles(display[name], amount) for name, amount in amounts.items()],
        "button": _("Close and settle"),
        "version": chouette.version,
        "player": "",
    }


# The actions that post money or cannot be taken back: each asks first.
CONFIRMATIONS: dict[str, Callable[[HttpRequest, Chouette], Confirmation | None]] = {
    "undo": _confirm_undo,
    "leave": _confirm_leave,
    "close": _confirm_close,
}


@login_required
@require_POST
def chouette_act(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """The scorekeeper's buttons: undo the last game, join, leave, close. Undo, leave
    and close first answer a confirmation page (what they will post, at the version it
    was read), and are done only when it is sent back with ``confirm=yes``; cancelled,
    nothing is sent. Someone who may not act, a closed session, or a leave or close
    while an online game is on gets the refusal at once, with nothing to confirm."""
    shown = _chouette_or_404(pk)
    try:
        confirmation = _confirmation(request, shown, action)
        if confirmation is not None:
            return render(request, "chouette/confirm.html", confirmation)
        done = ACTIONS[action](request, shown)
    except ServiceError as error:
        messages.error(request, str(error.message))
    else:
        messages.success(request, done)
    return redirect("chouette-record", pk=shown.pk)


def _confirmation(request: HttpRequest, chouette: Chouette, action: str) -> Confirmation | None:
    """The confirmation ``action`` still needs, or None: go ahead."""
    asks = CONFIRMATIONS.get(action)
    if (
        asks is None
        or request.POST.get("confirm") == CONFIRMED
        or chouette.status != Chouette.Status.OPEN
        or not services.may_record(chouette=chouette, user=member(request.user))
    ):
        return None
    return asks(request, chouette)


# Each member's own board (online) ----------------------------------------------------------


def _steps_from(text: str) -> list[tuple[int, int]]:
    """The captain's or the box's unconfirmed steps, as the page sends them back:
    ``origin-die`` pairs joined by dots (``24-6.18-5``); anything else is no steps."""
    pairs = []
    for part in filter(None, text.split(".")):
        origin, _dash, die = part.partition("-")
        if not (origin.isascii() and origin.isdigit() and die.isascii() and die.isdigit()):
            return []
        pairs.append((int(origin), int(die)))
    return pairs[:4]


def _stepped(game: Game, steps: list[tuple[int, int]]) -> tuple[Game, list[tuple[int, int]]]:
    """The game with the steps clicked so far played and not confirmed (T3); steps that
    no longer fit (the turn moved on) are dropped, all of them."""
    stepped = game
    try:
        for origin, die in steps:
            stepped = stepped.move_step(origin, die)
    except BackgammonError:
        return game, []
    return stepped, steps


class Moving(TypedDict):
    """The mover's steps so far and every legal play (the play form)."""

    pending: list[str]
    legal_plays: list[str]


class MemberBoard(TypedDict):
    """What a member's own board and its fragment draw (templates/chouette/_play.html);
    the keys after ``state`` only once a game is on."""

    chouette: Chouette
    choices: selectors.MemberChoices
    game: selectors.OnlineGame | None
    scores: list[tuple[str, int, bool]]
    games_played: int
    board: str
    proposals: list[tuple[str, Proposal]]
    state: BoardState
    awaiting_names: NotRequired[list[str]]
    cubes: NotRequired[list[tuple[str, selectors.OnlineCube]]]
    captain_name: NotRequired[str | None]
    double_to: NotRequired[list[tuple[str, str]]]
    resign_from_name: NotRequired[str | None]
    moving: NotRequired[Moving]
    can_confirm: NotRequired[bool]
    seconds_left: NotRequired[float | None]
    fragment_url: NotRequired[str]  # the page's, not the fragment's


def _play_context(
    chouette: Chouette, me: Player, *, steps: str = "", turn_no: str = ""
) -> MemberBoard:
    """Everything a member's board shows, from their side: the board, the dice, every
    member's cube, the scores, their own choices and (the team only) the proposals. The
    players, their points and display names in one query (``selectors.chouette_standing``)."""
    standing = selectors.chouette_standing(chouette=chouette)
    names = standing.names
    display = {names[pk]: shown for pk, shown in standing.display_names.items()}
    choices = selectors.chouette_member_choices(chouette=chouette, player=me, names=names)
    game = selectors.chouette_online_game(chouette=chouette, names=names)
    box_username = names[chouette.seats[0]]
    box = display[box_username]
    topic = f"chouette:{chouette.pk}"
    context: MemberBoard = {
        "chouette": chouette,
        "choices": choices,
        "game": game,
        "scores": [
            (display[name], points, name == box_username)
            for name, points in standing.scores(chouette.seats).items()
        ],
        "games_played": standing.games,
        "board": "",
        "proposals": [],
        "state": match_selectors.board_state(
            version=chouette.version, topic=topic, game=None, turn_no=None, my_turn=False
        ),
    }
    if game is not None and chouette.table is not None and chouette.table.state is not None:
        played = Game.from_dict(chouette.table.state)
        pending: list[tuple[int, int]] = []
        if choices.move and turn_no == str(game["turn_no"]):
            played, pending = _stepped(played, _steps_from(steps))
        team = _("the team")
        sides = (box, team) if choices.side == BOX else (team, box)
        svg = board_svg(picture_for(played, choices.side), home=_home(me), names=sides)
        context["board"] = mark_safe(svg)  # board_svg escapes every name it draws
        context["awaiting_names"] = [
            _("you") if name == me.username else display[name] for name in game["awaiting"]
        ]
        context["cubes"] = [(display[name], cube) for name, cube in game["cubes"].items()]
        context["captain_name"] = _mover_name(game, display)
        context["double_to"] = [(name, display[name]) for name in choices.double_to]
        context["resign_from_name"] = display[choices.resign_from] if choices.resign_from else None
        context["moving"] = {
            "pending": [format_play([step]) for step in played.pending_steps],
            "legal_plays": game["legal_plays"],
        }
        context["can_confirm"] = choices.move and can_confirm(played)
        context["seconds_left"] = _seconds_left(game["deadline"])
        if choices.sees_proposals:
            context["proposals"] = [
                (display[p.player.username], p)
                for p in selectors.chouette_proposals(chouette=chouette, player=me)
            ]
        context["state"] = match_selectors.board_state(
            version=chouette.version,
            topic=topic,
            game=played,
            turn_no=game["turn_no"],
            my_turn=choices.move,
            pending=pending,
        )
    return context


def _home(me: Player) -> Home:
    """The side of the member's home board (their play settings, B4)."""
    settings = match_selectors.play_settings(player=me)
    return "left" if settings.home_board == PlaySettings.HomeBoard.LEFT else "right"


def _seconds_left(deadline: datetime | None) -> float | None:
    """What the turn's clock has left, on the services' clock (the page counts it down)."""
    return None if deadline is None else max((deadline - clock.now()).total_seconds(), 0.0)


def _online_or_404(pk: int) -> Chouette:
    shown = _chouette_or_404(pk)
    if shown.mode != Chouette.Mode.ONLINE:
        raise Http404(_("This chouette is recorded: its games are played on a real board."))
    return shown


def _not_a_player(request: HttpRequest) -> HttpResponse:
    """The 403 page the API's refusal is: only players sit at a chouette or watch it."""
    message = _("Only the club's players play chouettes.")
    return render(request, "chouette/forbidden.html", {"message": message}, status=403)


@login_required
@require_GET
def chouette_play(request: HttpRequest, pk: int) -> HttpResponse:
    """A member's own board at an online chouette: the game from their side and their
    own decisions as buttons; any other player watches it read-only. It acts through the
    API and follows the live channel (``chouette:<id>``) with the board page's script."""
    shown = _online_or_404(pk)
    me = getattr(request.user, "player", None)
    if me is None:
        return _not_a_player(request)
    context = _play_context(shown, me)
    context["fragment_url"] = reverse("chouette-play-board", kwargs={"pk": shown.pk})
    return render(request, "chouette/play.html", context)


@never_cache
@login_required
@require_GET
def chouette_play_board(request: HttpRequest, pk: int) -> HttpResponse:
    """The board fragment the page swaps in when the session moves, with the steps the
    mover has clicked and not yet confirmed (``?turn_no=&steps=``)."""
    shown = _online_or_404(pk)
    me = getattr(request.user, "player", None)
    if me is None:
        return _not_a_player(request)
    context = _play_context(
        shown,
        me,
        steps=request.GET.get("steps", ""),
        turn_no=request.GET.get("turn_no", ""),
    )
    return render(request, "chouette/_play.html", context)
