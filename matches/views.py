"""Match pages: the lobby, the board, the play settings, the dice check.

The lobby and the settings post Django forms to these views, which call the services;
the board page is drawn here (the SVG of ``matches.board`` and the match's state) and
its script acts through the JSON API with the session, re-fetching the board fragment
(``play_table``) when the live channel says the table moved (docs/play.md).
"""

from typing import Any, NotRequired, TypedDict

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from backgammon.dice import ALGORITHM
from backgammon.game import Game, Phase
from club import selectors as club_selectors
from club.auth import member
from club.models import MatchResult, Player, RobotStrength
from matches import board, clocks, selectors, services
from matches import live as match_live
from matches.models import Match, PlaySettings
from web.errors import ServiceError
from web.pages import live_template

CLOCK_CHOICES = [(name, capfirst(label)) for name, label in clocks.PRESET_LABELS.items()]
# Each game by its name in the players' languages (issue 11: Πόρτες, права, ...).
GAME_NAMES = {
    "standard": pgettext_lazy("the game", "Backgammon"),
    "nackgammon": gettext_lazy("Nackgammon"),
    "hypergammon": gettext_lazy("Hypergammon"),
    "portes": gettext_lazy("Portes"),
    "plakoto": gettext_lazy("Plakoto"),
    "fevga": gettext_lazy("Fevga"),
    "gulbara": gettext_lazy("Gul bara"),
    "acey-deucey": gettext_lazy("Acey-deucey"),
}
assert list(GAME_NAMES) == list(services.VARIANTS)
TAVLI_NAMES = {
    "greek": gettext_lazy("Tavli, Greek: portes, plakoto, fevga in turn"),
    "bulgarian": gettext_lazy("Tavli, Bulgarian: portes, gul bara, plakoto in turn"),
}
assert list(TAVLI_NAMES) == list(services.TAVLI_ORDERS)
TAVLI_PREFIX = "tavli:"
# How a match's last game ended (``Result``'s values), for a finished match's summary.
LAST_GAME_ENDINGS = {
    "single": gettext_lazy("a single game"),
    "gammon": gettext_lazy("a gammon"),
    "backgammon": gettext_lazy("a backgammon"),
    "passed": gettext_lazy("a double passed"),
    "resigned": gettext_lazy("a resignation"),
    "mother": gettext_lazy("a mother (the starting checker pinned)"),
    "draw": gettext_lazy("a draw"),
    "checkers": gettext_lazy("the checkers not borne off"),
}
GAME_CHOICES = [
    *GAME_NAMES.items(),
    *((TAVLI_PREFIX + order, name) for order, name in TAVLI_NAMES.items()),
]


class MatchForm(forms.Form):
    """The lobby's new match: an invitation to one player, or an open challenge."""

    opponent = forms.CharField(
        label=gettext_lazy("Opponent"),
        required=False,
        max_length=150,
        help_text=gettext_lazy(
            "A username; leave it empty for an open challenge any member may accept."
        ),
    )
    robot = forms.ChoiceField(
        label=gettext_lazy("Or a practice robot"),
        required=False,
        choices=[("", gettext_lazy("no robot")), *RobotStrength.choices],
        help_text=gettext_lazy(
            "It accepts at once and plays unrated, standard backgammon only; a money "
            "session against it moves no money."
        ),
    )
    length = forms.IntegerField(
        label=gettext_lazy("Points"),
        min_value=0,
        max_value=64,
        initial=5,
        help_text=gettext_lazy("0 for a money session."),
    )
    game = forms.ChoiceField(
        label=pgettext_lazy("the kind of game", "Game"),
        choices=GAME_CHOICES,
        required=False,
        initial="standard",
    )
    rated = forms.BooleanField(
        label=gettext_lazy("Rated"),
        required=False,
        initial=True,
        help_text=gettext_lazy(
            "A rated tavli match moves the tavli rating; any other, the FIBS rating."
            " A money session (0 points) is never rated, ticked or not."
        ),
    )
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), choices=CLOCK_CHOICES, initial="none")
    stake = forms.DecimalField(
        label=gettext_lazy("Stake per point"),
        required=False,
        min_value=0,
        max_digits=8,
        decimal_places=2,
        help_text=gettext_lazy("Money sessions only."),
    )

    def clean(self) -> dict[str, Any]:
        """A money session and a match against a robot are never rated (the service
        refuses a rated one): 'Rated', ticked by default, is set aside for them rather
        than refused."""
        data = super().clean() or {}
        if data.get("robot") and data.get("opponent"):
            raise forms.ValidationError(_("Invite a member or a robot, not both."))
        if data.get("length") == 0 or data.get("robot"):
            data["rated"] = False
        return data


def _viewer(request: HttpRequest) -> Player:
    return member(request.user).player


@login_required
@require_http_methods(["GET", "POST"])
def play(request: HttpRequest) -> HttpResponseBase:
    """The lobby: a new match, the invitations and open challenges to answer, the
    player's own matches and every match being played now (to watch). Its lists follow
    the member's ``lobby`` topic (matches/live.py): static/club/live_region.js fetches
    them again (``?live=region``) when it moves, and takes the page to the board when
    an invitation it shows waiting is accepted."""
    me = _viewer(request)
    form = MatchForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            match = _create(me, form)
        except ServiceError as error:
            form.add_error(None, str(error.message))
        else:
            if match.status == Match.Status.PLAYING:  # a robot accepted at once
                return redirect("play-match", match.pk)
            if match.opponent is None:
                messages.success(request, _("Your open challenge is in the lobby."))
            else:
                messages.success(
                    request,
                    _("%(name)s is invited to your match.") % {"name": match.opponent.username},
                )
            return redirect("play")
    # Read before the lists: a change between the two is fetched again, never missed.
    version = selectors.lobby_versions([me.pk])[me.pk]
    mine = list(selectors.match_list(player=me).exclude(status=Match.Status.DECLINED)[:30])
    challenges = list(selectors.open_challenges().exclude(creator=me)[:50])
    live = list(selectors.live_matches()[:50])
    for match in [*mine, *challenges, *live]:
        match.clock_label = _clock_label(match.clock)  # type: ignore[attr-defined]
    context = {
        "form": form,
        "invitations": [m for m in mine if m.status == Match.Status.INVITED and m.opponent == me],
        "sent": [m for m in mine if m.status == Match.Status.INVITED and m.creator == me],
        "challenges": challenges,
        "playing": [m for m in mine if m.status == Match.Status.PLAYING],
        "finished": [m for m in mine if m.status == Match.Status.FINISHED][:10],
        "live": live,
        "topic": match_live.lobby_topic(me),
        "version": version,
    }
    template = live_template(request, page="matches/play.html", region="matches/_lobby.html")
    return render(request, template, context)


def _clock_label(clock: Any) -> str:
    """A match's clock in the lobby's words: the preset's name, or the custom times."""
    if isinstance(clock, dict):
        return _("%(delay)d s a move, %(reserve)d s in reserve") % {
            "delay": clock.get("delay", 0),
            "reserve": clock.get("reserve", 0),
        }
    return str(clocks.PRESET_NAMES.get(clock, clock))


def _create(me: Player, form: MatchForm) -> Match:
    data = form.cleaned_data
    if data["robot"]:
        opponent: Player | None = club_selectors.robot_get(strength=data["robot"])
    elif data["opponent"]:
        opponent = club_selectors.player_get(username=data["opponent"])
    else:
        opponent = None
    game: str = data["game"] or "standard"
    tavli = game.removeprefix(TAVLI_PREFIX) if game.startswith(TAVLI_PREFIX) else None
    options = services.MatchOptions(
        length=data["length"],
        rated=data["rated"],
        clock=data["clock"],
        stake=data["stake"],
        game_options=None if tavli or game == "standard" else {"variant": game},
        tavli=tavli,
    )
    return services.match_create(creator=me, opponent=opponent, options=options)


def game_name(detail: selectors.MatchDetail) -> str:
    """The game being played, by its name in the viewer's language (a tavli match: its
    order, and the game in play)."""
    game = detail["game"]
    variant = game["variant"] if game else detail["options"].get("variant", "standard")
    name = str(GAME_NAMES[variant])
    if detail["tavli"] is None:
        return name
    return _("%(order)s · now %(game)s") % {"order": TAVLI_NAMES[detail["tavli"]], "game": name}


def _match_or_404(pk: int) -> Match:
    match = selectors.match_list().filter(pk=pk).first()
    if match is None:
        raise Http404(_("There is no match %(id)s.") % {"id": pk})
    return match


@login_required
@require_POST
def play_answer(request: HttpRequest, pk: int, answer: str) -> HttpResponseBase:
    """Accept or decline an invitation, accept an open challenge, withdraw one's own."""
    match = _match_or_404(pk)
    try:
        if answer == "accept":
            match = services.match_accept(match=match, player=_viewer(request))
            return redirect("play-match", pk=match.pk)
        services.match_decline(match=match, player=_viewer(request))
    except ServiceError as error:
        messages.error(request, str(error.message))
    return redirect("play")


def _home(settings: PlaySettings, game_number: int) -> board.Home:
    """The side of the viewer's home board (B4), switched every other game if asked."""
    home: board.Home = "left" if settings.home_board == PlaySettings.HomeBoard.LEFT else "right"
    if settings.switch_sides and game_number % 2 == 0:
        home = "right" if home == "left" else "left"
    return home


class Seat(TypedDict):
    """One player at the board: the name the site shows, the colour of their checkers
    (their game side's), their score and clock, whether they are on turn."""

    username: str
    name: str
    side: int
    score: int
    left: float | str | None  # the clock's seconds left (None: no clock)
    on_turn: bool
    swatch: SafeString


class TablePage(TypedDict):
    """What the board page and its fragment draw (templates/matches/_table.html)."""

    match: Match
    detail: selectors.MatchDetail
    game: selectors.GameBody | None
    board: SafeString
    side: int | None
    watching: bool
    my_turn: bool
    opponent: str | None
    names: list[str]  # the display names, the first player first
    seats: list[Seat]
    turn_name: str  # the display name of the side on turn ("" when nobody is)
    offer: str  # the double waiting for an answer, in words ("" when none waits)
    summary: selectors.MatchSummary | None  # a finished match's
    how_it_ended: str
    can_confirm: bool
    can_double: bool
    beavers: bool
    game_name: str
    tavli: bool
    doubles: range
    state: selectors.BoardState
    api: str
    fragment_url: NotRequired[str]  # the page's, not the fragment's


def _offer(game: Game | None, names: list[str]) -> str:
    """The double waiting for an answer, the value the cube goes to on a take (a beaver
    already doubled it once: C5)."""
    if game is None or game.phase is not Phase.TAKE_OR_PASS or game.cube.pending is None:
        return ""
    words = {"name": names[game.cube.pending], "value": game.cube.value * 2}
    if game.cube.beavered:
        return _("%(name)s beavers to %(value)d.") % words
    return _("%(name)s doubles to %(value)d.") % words


def _how_it_ended(summary: selectors.MatchSummary) -> str:
    """How a finished match ended, in words: by time, a resignation, leaving, or played
    out (then how its last game ended)."""
    loser, ended_by = summary["loser"], summary["ended_by"]
    if loser is None:  # a money session stopped level: played, nobody lost
        ended_by = MatchResult.EndedBy.PLAYED
    if ended_by == MatchResult.EndedBy.TIMEOUT:
        return _("%(name)s lost on time.") % {"name": loser}
    if ended_by == MatchResult.EndedBy.RESIGNED:
        return _("%(name)s resigned.") % {"name": loser}
    if ended_by == MatchResult.EndedBy.ABANDONED:
        return _("%(name)s left the match.") % {"name": loser}
    last = LAST_GAME_ENDINGS.get(summary["last_game"] or "")
    if last is None:
        return _("Played to the end.")
    return _("Played to the end; the last game: %(how)s.") % {"how": last}


def _table_context(match: Match, me: Player) -> TablePage:
    """Everything the board fragment shows, from ``me``'s side (a watcher: the first
    player's), and the state its script reads."""
    detail = selectors.match_detail(match)
    names = detail["players"]
    shown = selectors.display_names(match)
    side = names.index(me.username) if me.username in names else None
    view = side or 0
    game = selectors.table_game(match.table)
    info = detail["game"]
    my_turn = side is not None and info is not None and info["turn"] == me.username
    turn = None if game is None or len(names) < 2 else game.turn
    svg = ""
    if game is not None and len(names) == 2:
        home = _home(selectors.play_settings(player=me), info["number"] if info else 1)
        last = selectors.last_play(match.table)
        picture = board.picture_for(game, view, last_play=last)
        svg = board.board_svg(picture, home=home, names=(shown[view], shown[1 - view]))
    state = selectors.board_state(
        version=detail["version"],
        topic=detail["topic"],
        game=game,
        turn_no=info["turn_no"] if info else None,
        my_turn=my_turn,
    )
    seats: list[Seat] = [
        {
            "username": username,
            "name": shown[index],
            "side": index,
            "score": detail["score"][username],
            "left": detail["clock"].get(username),
            "on_turn": turn == index,
            "swatch": mark_safe(board.checker_swatch(index)),  # no text in it
        }
        for index, username in enumerate(names)
    ]
    finished = match.status == Match.Status.FINISHED
    summary = selectors.match_summary(match) if finished else None
    return {
        "match": match,
        "detail": detail,
        "game": info,
        "board": mark_safe(svg),  # board_svg escapes every name it draws
        "side": side,
        "watching": side is None,
        "my_turn": my_turn,
        "opponent": None if side is None or len(names) < 2 else shown[1 - side],
        "names": shown,
        "seats": seats,
        "turn_name": "" if turn is None else shown[turn],
        "offer": _offer(game, shown) if len(names) == 2 else "",
        "summary": summary,
        "how_it_ended": "" if summary is None else _how_it_ended(summary),
        "can_confirm": my_turn and game is not None and board.can_confirm(game),
        # The server's own rule (C1, C2, P2; no cube in the tavli games, TV1).
        "can_double": my_turn and info is not None and info["can_double"],
        "beavers": bool(match.options.get("beavers")),
        "game_name": game_name(detail),
        "tavli": selectors.match_is_tavli(match),
        "doubles": range(1, 7),
        "state": state,
        "api": f"/api/matches/{match.pk}/",
    }


@login_required
def play_match(request: HttpRequest, pk: int) -> HttpResponse:
    """The board page: players play, any member watches (read-only)."""
    match = _match_or_404(pk)
    context = _table_context(match, _viewer(request))
    context["fragment_url"] = reverse("play-table", kwargs={"pk": match.pk})
    return render(request, "matches/match.html", context)


@never_cache
@login_required
def play_table(request: HttpRequest, pk: int) -> HttpResponse:
    """The board fragment the page swaps in when the table moves."""
    match = _match_or_404(pk)
    return render(request, "matches/_table.html", _table_context(match, _viewer(request)))


class PlaySettingsForm(forms.ModelForm[PlaySettings]):
    class Meta:
        model = PlaySettings
        fields = ["auto_roll", "auto_play_forced", "auto_bear_off", "home_board", "switch_sides"]


@login_required
@require_http_methods(["GET", "POST"])
def play_settings(request: HttpRequest) -> HttpResponseBase:
    """A player's settings at the board (T4, B4)."""
    me = _viewer(request)
    current = selectors.play_settings(player=me)
    form = PlaySettingsForm(request.POST if request.method == "POST" else None, instance=current)
    if request.method == "POST" and form.is_valid():
        services.play_settings_update(player=me, **form.cleaned_data)
        messages.success(request, _("Your play settings are saved."))
        return redirect("play-settings")
    return render(request, "matches/settings.html", {"form": form})


# The dice check shown on /play/dice/: plain Python, the standard library only, run as
# written by tests/matches/test_dice_page.py against a revealed record.
DICE_CHECK_CODE = """\
import hashlib, hmac, json

record = json.load(open("record.json"))
seed = bytes.fromhex(record["server_seed"])
assert hashlib.sha256(seed).hexdigest() == record["commitment"], "not the committed seed"

def dice(seed, client_seed):
    block = 0
    while True:
        message = f"{client_seed}:{block}".encode()
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < 252:
                yield byte % 6 + 1
        block += 1

stream = dice(seed, record["client_seed"])
for number, roll in enumerate(record["rolls"]):
    assert roll == [next(stream), next(stream)], f"roll {number} is not {roll}"
print(len(record["rolls"]), "rolls follow from the seeds")
"""


def dice(request: HttpRequest) -> HttpResponse:
    """How anyone checks the dice of a finished match (algorithm ``hmac-sha256-v1``)."""
    context = {
        "algorithm": ALGORITHM,
        "check_code": DICE_CHECK_CODE,
        "dice_path": "/api/matches/<id>/dice/",
    }
    return render(request, "matches/dice.html", context)
