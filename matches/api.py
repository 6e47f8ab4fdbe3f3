"""The matches API (shared/API.md "Matches"): create, accept, decline, read a match, each
game action with the ``turn_no`` the client saw, the ``.mat`` export and the dice record;
plus what the pages need: partial moves and undo (T3), the lists, play settings.

One view class per operation, thin: read the input, call a ``matches.services`` function,
answer the match as ``MatchOutput`` says (``selectors.match_detail``). The conventions are
docs/api.md's.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from django_stubs_ext import StrOrPromise
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from club import selectors as club_selectors
from club import services as club_services
from club.api_money import MoneyField, MoneyInputField
from club.auth import member
from club.models import MatchResult, Player, RobotStrength
from matches import clocks, selectors, services
from matches.errors import IllegalPlay, NotYourTurn, StaleTurn
from matches.models import Match, PlaySettings, Table
from web import live
from web.api_base import (
    BooleanFilter,
    InputSerializer,
    UsernameField,
    UsernameFilter,
)
from web.errors import Conflict, Forbidden, Invalid, NotFound

# Inputs -------------------------------------------------------------------------------

CLOCK_SCHEMA = {
    "oneOf": [
        {"type": "string", "enum": list(clocks.PRESETS)},
        {
            "type": "object",
            "properties": {
                "delay": {"type": "integer", "minimum": 0, "maximum": clocks.MAX_SECONDS},
                "reserve": {"type": "integer", "minimum": 0, "maximum": clocks.MAX_SECONDS},
            },
            "required": ["delay", "reserve"],
            "additionalProperties": False,
        },
    ],
    "description": clocks.API_DESCRIPTION,
}


@extend_schema_field(CLOCK_SCHEMA)
class ClockField(serializers.Field[Any, Any, Any, Any]):
    """A clock preset's name or ``{"delay", "reserve"}``, checked by ``clocks.clock_spec``."""

    def to_internal_value(self, data: Any) -> Any:
        try:
            clocks.clock_spec(data)
        except ValueError:
            raise serializers.ValidationError(str(clocks.API_INVALID)) from None
        return data

    def to_representation(self, value: Any) -> Any:
        return value


def seed_field() -> serializers.CharField:
    return serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        max_length=services.SEED_LENGTH,
        help_text=gettext_lazy(
            "Your part of the dice's client seed (optional): the client seed is the SHA-256 "
            "of both players' parts, so neither side alone chooses the dice."
        ),
    )


class MatchOptionsInput(InputSerializer):
    jacoby = serializers.BooleanField(
        required=False, help_text=gettext_lazy("The Jacoby rule (C6, money sessions only).")
    )
    beavers = serializers.BooleanField(
        required=False, help_text=gettext_lazy("Beavers (C5, money sessions only).")
    )
    automatic_doubles = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=6,
        help_text=gettext_lazy("The most automatic doubles a game may have (O2, money only)."),
    )
    backgammon_value = serializers.IntegerField(
        required=False,
        min_value=2,
        max_value=3,
        help_text=gettext_lazy("What a backgammon counts (S3)."),
    )
    variant = serializers.ChoiceField(choices=list(services.VARIANTS), required=False)


class MatchCreateInput(InputSerializer):
    opponent = UsernameField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy("Who is invited; left out or null: an open challenge."),
    )
    length = serializers.IntegerField(
        min_value=0,
        max_value=club_services.MAX_MATCH_LENGTH,
        help_text=gettext_lazy("Points to win, 1 to 64; 0 for a money session."),
    )
    rated = serializers.BooleanField(
        required=False,
        help_text=gettext_lazy(
            "Default: true for a match, false for a money session (which is never rated) "
            "and against a practice robot (never rated either: GET /api/robots/). A rated "
            "match of the tavli games moves the tavli rating, any other the FIBS rating."
        ),
    )
    clock = ClockField(required=False, default="none")
    stake = MoneyInputField(
        most=services.MAX_STAKE,
        required=False,
        help_text=gettext_lazy("A money session's stake per point (required there)."),
    )
    options = MatchOptionsInput(required=False)
    tavli = serializers.ChoiceField(
        choices=list(services.TAVLI_ORDERS),
        required=False,
        help_text=gettext_lazy(
            'A tavli match (TM1): "greek" (portes, plakoto, fevga) or "bulgarian" (portes, '
            "gul bara, plakoto) in turn, no cube; give no variant with it."
        ),
    )
    on_timeout = serializers.ChoiceField(
        choices=Table.OnTimeout.values,
        required=False,
        default="forfeit",
        help_text=gettext_lazy(
            'What happens when a clock runs out: "forfeit" (the side out of time loses) or, '
            'in an unrated match, "autoplay" (the server plays for it).'
        ),
    )
    seed = seed_field()


class AcceptInput(InputSerializer):
    seed = seed_field()


class TurnInput(InputSerializer):
    turn_no = serializers.IntegerField(
        min_value=0, help_text=gettext_lazy("The turn number the client last saw.")
    )

    @classmethod
    def read(cls, request: Request) -> tuple[int, dict[str, Any]]:
        """A request's ``turn_no`` and its other fields, validated (a 400 otherwise)."""
        data = cls(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        return values.pop("turn_no"), values


class MoveInput(TurnInput):
    play = serializers.CharField(
        allow_blank=True,
        max_length=100,
        help_text=gettext_lazy(
            'The whole play in standard notation ("24/18 13/11", "bar/20", "6/off"); an '
            "empty string when no move is possible."
        ),
    )


class MoveStepInput(TurnInput):
    origin = serializers.IntegerField(
        min_value=1,
        max_value=25,
        help_text=gettext_lazy("The point the checker leaves, from your side; 25: the bar."),
    )
    die = serializers.IntegerField(min_value=1, max_value=6, help_text=gettext_lazy("The die."))


class NameDoubleInput(TurnInput):
    die = serializers.IntegerField(
        min_value=1, max_value=6, help_text=gettext_lazy("The double to play four times (AD4).")
    )


# What a resignation offers (S4), in API.md's words: the matches' and the chouettes'.
RESIGNATION_VALUES = ["single", "gammon", "backgammon"]


class ResignInput(TurnInput):
    value = serializers.ChoiceField(choices=RESIGNATION_VALUES)


class PlaySettingsInput(InputSerializer):
    auto_roll = serializers.BooleanField(required=False)
    auto_play_forced = serializers.BooleanField(required=False)
    auto_bear_off = serializers.BooleanField(required=False)
    home_board = serializers.ChoiceField(choices=PlaySettings.HomeBoard.choices, required=False)
    switch_sides = serializers.BooleanField(required=False)


# Outputs ------------------------------------------------------------------------------


def text_list(help_text: StrOrPromise) -> serializers.ListField:
    """An answer's list of strings (names, plays, steps), documented: the matches' and
    the chouettes'."""
    return serializers.ListField(child=serializers.CharField(), help_text=help_text)


class CubeOutput(serializers.Serializer[selectors.CubeBody]):
    value = serializers.IntegerField()
    owner = serializers.CharField(allow_null=True)


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "mine": {"type": "array", "items": {"type": "integer"}, "minItems": 25, "maxItems": 25},
            "opponent": {
                "type": "array",
                "items": {"type": "integer"},
                "minItems": 25,
                "maxItems": 25,
            },
            "pins": {"type": "array", "items": {"type": "array"}},
            "bar": {"type": "object"},
            "waiting": {"type": "object"},
            "roll": {"type": "integer"},
        },
        "required": ["mine", "opponent", "pins"],
    }
)
class TavliBoardField(serializers.DictField):
    """A tavli board as ``TavliRules.board_to_json`` writes it."""


class GameOutput(serializers.Serializer[selectors.GameBody]):
    number = serializers.IntegerField()
    turn = serializers.CharField(
        allow_null=True,
        help_text=gettext_lazy(
            "Who must act now: in take_or_pass the doubled player, in resign_offered the "
            "player offered the resignation; null once the game is over."
        ),
    )
    turn_no = serializers.IntegerField(
        help_text=gettext_lazy("Send it back with the next action (a stale one is a 409).")
    )
    phase = serializers.ChoiceField(
        choices=["roll", "move", "take_or_pass", "resign_offered", "over"]
    )
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    cube = CubeOutput()
    variant = serializers.ChoiceField(
        choices=list(services.VARIANTS), help_text=gettext_lazy("The game being played.")
    )
    position_id = serializers.CharField(
        allow_null=True,
        help_text=gettext_lazy(
            "GNU Backgammon's, from the view of the side on turn; null in the tavli games."
        ),
    )
    match_id = serializers.CharField(
        allow_null=True,
        help_text=gettext_lazy(
            "GNU Backgammon's, from the view of the side on turn; null in the tavli games."
        ),
    )
    board = TavliBoardField(
        required=False,
        help_text=gettext_lazy(
            "The tavli games only: the board in the command line's JSON form (API.md), "
            "from the view of the side on turn."
        ),
    )
    legal_plays = text_list(
        gettext_lazy("Every distinct legal play (empty when the dice cannot be played).")
    )
    pending = text_list(gettext_lazy("The steps played this turn and not yet confirmed (T3)."))
    remaining_dice = serializers.ListField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("The dice of this roll the pending steps have not used."),
    )
    awaiting_double = serializers.BooleanField(
        help_text=gettext_lazy("Acey-deucey: the double after a 1-2 must be named (AD4).")
    )
    can_double = serializers.BooleanField(
        help_text=gettext_lazy("The player on turn may double now (C1, C2, P2).")
    )
    resignation = serializers.ChoiceField(
        choices=RESIGNATION_VALUES,
        allow_null=True,
        help_text=gettext_lazy("The resignation on offer, while one is (S4)."),
    )


class MatchOutput(serializers.Serializer[Match]):
    """A match as ``selectors.match_detail`` reads it (never the server seed)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    players = text_list(gettext_lazy("The first player first; an open challenge has one."))
    length = serializers.IntegerField(help_text=gettext_lazy("0: a money session."))
    rated = serializers.BooleanField()
    stake = MoneyField(allow_null=True)
    options = serializers.DictField()
    tavli = serializers.ChoiceField(
        choices=list(services.TAVLI_ORDERS),
        allow_null=True,
        help_text=gettext_lazy("A tavli match's order of games (TM1); null otherwise."),
    )
    score = serializers.DictField(child=serializers.IntegerField())
    pip_counts = serializers.DictField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text=gettext_lazy("Each player's pip count (null before the first game)."),
    )
    open = serializers.BooleanField(
        help_text=gettext_lazy("An open challenge still waiting for an opponent.")
    )
    winner = serializers.CharField(allow_null=True)
    ended_by = serializers.ChoiceField(choices=MatchResult.EndedBy.choices, allow_null=True)
    crawford = serializers.BooleanField(
        help_text=gettext_lazy("The current game is the Crawford game (P2).")
    )
    dice_commitment = serializers.CharField(
        help_text=gettext_lazy("The SHA-256 (hex) of the server seed, revealed after the match.")
    )
    game = GameOutput(allow_null=True)
    clock = serializers.DictField(
        help_text=gettext_lazy(
            'Each player\'s seconds left (null: no clock) and "deadline" (ISO time or null).'
        )
    )
    version = serializers.IntegerField(
        help_text=gettext_lazy("The table's live version: it grows with every change.")
    )
    topic = serializers.CharField(help_text=gettext_lazy("The live channel's topic."))

    def to_representation(self, instance: Match) -> dict[str, Any]:
        """``match_detail``'s body as it is: it is built in the fields' own JSON types, so
        running it through every field again (a tenth of an action's time) would change
        nothing; the fields document it in the schema, and a test holds the two equal
        (tests/matches/test_api_speed.py)."""
        return dict(selectors.match_detail(instance))


class DiceOutput(serializers.Serializer[selectors.MatchDice]):
    algorithm = serializers.CharField()
    commitment = serializers.CharField()
    client_seed = serializers.CharField()
    server_seed = serializers.CharField(
        required=False, help_text=gettext_lazy("Revealed once the match is over (hex).")
    )
    rolls = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        required=False,
        help_text=gettext_lazy(
            "Once the match is over: every roll in order, opening rolls and ties included."
        ),
    )


class PlaySettingsOutput(serializers.Serializer[PlaySettings]):
    auto_roll = serializers.BooleanField(
        help_text=gettext_lazy("Roll for me when the cube cannot be used (T4).")
    )
    auto_play_forced = serializers.BooleanField(
        help_text=gettext_lazy("Play my move when only one play is legal (T4).")
    )
    auto_bear_off = serializers.BooleanField(
        help_text=gettext_lazy(
            "When both sides are bearing off with no contact, play my move: the most "
            "checkers off, then the fewest pips left, then the most points covered (T4)."
        )
    )
    home_board = serializers.CharField(
        help_text=gettext_lazy('Where my home board is drawn: "right" or "left" (B4).')
    )
    switch_sides = serializers.BooleanField(
        help_text=gettext_lazy("Switch sides after every game (B4).")
    )


def _match_get(*, pk: int) -> Match:
    try:
        return selectors.match_queryset().get(pk=pk)
    except Match.DoesNotExist:
        raise NotFound(_("There is no match %(id)s.") % {"id": pk}) from None


def player_of(user: User, *, refusal: StrOrPromise) -> Player:
    """The club player a logged-in user is (an administrator may be none: ``Forbidden``
    with ``refusal``). Every table's views (a match's, a chouette's) ask it."""
    try:
        return user.player
    except Player.DoesNotExist:
        raise Forbidden(str(refusal)) from None


def input_values(input_class: type[InputSerializer], request: Request) -> dict[str, Any]:
    """A request's body read by ``input_class``, validated (a 400 otherwise): what every
    create view (a match's, a chouette's, a proposal's) starts from."""
    data = input_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def created(body: Any) -> Response:
    """The answer to a create: the new object's body, 201."""
    return Response(body, status=status.HTTP_201_CREATED)


# Who plays a match is a club player; anyone else is refused with this.
PLAYERS_ONLY = gettext_lazy("Only the club's players play matches.")


def _player(user: User) -> Player:
    return player_of(user, refusal=PLAYERS_ONLY)


def _named(pk: int) -> Match:
    """The match the path names, not read: the service locks and reads it (``NotFound``
    if there is none) and the answer is the match it leaves, so an action reads the
    match once."""
    return Match(pk=pk)


def _match(match: Match) -> Response:
    return Response(MatchOutput(match).data)


def _changed(match: Match) -> Response:
    """The answer to a change: the match as the service left it, handed to the live
    channel too, so no web process reads it again for the table's followers."""
    body = MatchOutput(match).data
    live.state_share(topic=body["topic"], version=body["version"], state=body)
    return Response(body)


# Creating, answering and listing matches ----------------------------------------------------


class MatchFilter(filters.FilterSet):
    player = UsernameFilter(
        method="played_by",
        label=gettext_lazy("Only the matches this player plays or was invited to."),
    )
    status = filters.ChoiceFilter(
        choices=Match.Status.choices,
        label=gettext_lazy('Only matches in this state ("playing": the matches being played now).'),
    )
    open = BooleanFilter(
        method="waiting_for_anyone",
        label=gettext_lazy("true: only the open challenges still waiting for an opponent."),
    )

    def played_by(self, matches: QuerySet[Match], name: str, username: str) -> QuerySet[Match]:
        return matches.filter(
            Q(creator__user__username=username) | Q(opponent__user__username=username)
        )

    def waiting_for_anyone(
        self, matches: QuerySet[Match], name: str, value: bool
    ) -> QuerySet[Match]:
        """Called with true or false: left empty, the filter is not called."""
        waiting = Q(opponent=None, status=Match.Status.INVITED)
        return matches.filter(waiting) if value else matches.exclude(waiting)


class MatchListView(generics.ListAPIView[Match]):
    """Matches, newest first (any member): ``?player=`` a player's own, ``?status=playing``
    the matches being played now, ``?open=true`` the open challenges."""

    serializer_class = MatchOutput
    filterset_class = MatchFilter

    def get_queryset(self) -> QuerySet[Match]:
        return selectors.match_list()


class MatchCreateView(APIView):
    """Invite a player to a match (or, with no opponent, open a challenge any member may
    accept); ``length`` 0 is a money session at ``stake`` per point. A practice robot
    (``GET /api/robots/``) accepts at once: the match starts, unrated, standard
    backgammon only, and a money session against it moves no money."""

    raises = (NotFound,)  # an opponent nobody is called

    @extend_schema(
        request=MatchCreateInput,
        responses={201: MatchOutput},
        examples=[
            OpenApiExample(
                "Bob is invited to a match to 5",
                value={
                    "opponent": "bob",
                    "length": 5,
                    "rated": True,
                    "clock": "standard",
                    "options": {"backgammon_value": 3, "variant": "standard"},
                },
                request_only=True,
            ),
            OpenApiExample(
                "A practice match to 3 against the expert robot (unrated, it accepts at once)",
                value={"opponent": "robot-expert", "length": 3, "clock": "blitz"},
                request_only=True,
            ),
            OpenApiExample(
                "An open challenge: a money session at 1.00 a point",
                value={"length": 0, "stake": "1.00", "options": {"jacoby": True}},
                request_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        values = input_values(MatchCreateInput, request)
        opponent = values.get("opponent")
        creator = _player(member(request.user))
        invited = None if opponent is None else club_selectors.player_get(username=opponent)
        practice = invited is not None and bool(invited.robot)
        options = services.MatchOptions(
            length=values["length"],
            rated=values.get("rated", values["length"] > 0 and not practice),
            clock=values["clock"],
            stake=values.get("stake"),
            game_options=values.get("options"),
            tavli=values.get("tavli"),
            on_timeout=values["on_timeout"],
            seed=values["seed"],
        )
        match = services.match_create(creator=creator, opponent=invited, options=options)
        return created(MatchOutput(match).data)


class MatchDetailView(APIView):
    """A match as it stands (any member may watch)."""

    raises = (NotFound,)

    @extend_schema(responses={200: MatchOutput})
    def get(self, request: Request, pk: int) -> Response:
        return _match(_match_get(pk=pk))


class MatchAcceptView(APIView):
    """The invited player accepts (any member but its creator, for an open challenge):
    the opening roll is made and the first game starts."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=AcceptInput, responses={200: MatchOutput})
    def post(self, request: Request, pk: int) -> Response:
        data = AcceptInput(data=request.data)
        data.is_valid(raise_exception=True)
        match = services.match_accept(
            match=_named(pk), player=_player(member(request.user)), seed=data.validated_data["seed"]
        )
        return _changed(match)


class MatchDeclineView(APIView):
    """The invited player declines, or the creator withdraws the invitation or challenge."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=None, responses={200: MatchOutput})
    def post(self, request: Request, pk: int) -> Response:
        match = services.match_decline(match=_named(pk), player=_player(member(request.user)))
        return _changed(match)


# Playing ------------------------------------------------------------------------------

GAME_ERRORS = (NotFound, Forbidden, NotYourTurn, Conflict, StaleTurn, IllegalPlay, Invalid)


class TableAct(Protocol):
    """An owner's action at its table (a match's, a chouette's): the service called with
    the request's player, the path's id and the input, and the answer made."""

    def __call__(
        self, *, pk: int, player: Player, action: str, turn_no: int, values: dict[str, Any]
    ) -> Response: ...


@dataclass(frozen=True)
class ActionSpec:
    """One action at a table's board: its path's last part, its schema's description, its
    input, and (``act``) a service of its own instead of the owner's."""

    action: str
    description: StrOrPromise
    input_class: type[TurnInput] = TurnInput
    act: TableAct | None = None


class TableActionView(APIView):
    """The base of each action at a table's board, of every owner: one subclass, one
    operation, each with its own input (``action_views``). The service checks who acts,
    the phase and the ``turn_no``."""

    action: str  # the path's last part: /api/<owner's path>/{id}/<action>/
    input_class: type[TurnInput] = TurnInput
    refusal: StrOrPromise  # the answer to a user who is no club player
    raises = GAME_ERRORS

    @staticmethod
    def act(
        *, pk: int, player: Player, action: str, turn_no: int, values: dict[str, Any]
    ) -> Response:
        raise NotImplementedError  # each view's own, set by action_views

    def post(self, request: Request, pk: int) -> Response:
        turn_no, values = self.input_class.read(request)
        player = player_of(member(request.user), refusal=self.refusal)
        return self.act(pk=pk, player=player, action=self.action, turn_no=turn_no, values=values)


def action_views(
    *,
    owner: str,
    act: TableAct,
    output: type[serializers.BaseSerializer[Any]],
    refusal: StrOrPromise,
    actions: Sequence[ActionSpec],
) -> dict[str, type[APIView]]:
    """The view class of each of ``actions`` at an ``owner``'s table (``Match``,
    ``Chouette``), by its action, each documented in the schema: read the input,
    ``act``, answer (their URL patterns: ``table_urls``)."""
    views: dict[str, type[APIView]] = {}
    for spec in actions:
        name = owner + spec.action.title().replace("_", "") + "View"
        attributes = {
            "action": spec.action,
            "input_class": spec.input_class,
            "refusal": refusal,
            "act": staticmethod(spec.act or act),
        }
        view = type(name, (TableActionView,), attributes)
        schema = extend_schema(
            request=spec.input_class, responses={200: output}, description=spec.description
        )
        views[spec.action] = extend_schema_view(post=schema)(view)
    return views


def table_urls(
    *, path_prefix: str, name_prefix: str, views: Mapping[str, type[APIView]]
) -> list[URLPattern]:
    """The URL patterns of the views on one of a table owner's objects (its actions
    among them: ``action_views``): ``<path_prefix>/{id}/<part>/``, each named
    ``<name_prefix>-<part>`` (``/`` in a part as ``-``)."""
    return [
        path(
            f"{path_prefix}/<id:pk>/{part}/",
            view.as_view(),
            name=f"{name_prefix}-{part.replace('/', '-')}",
        )
        for part, view in views.items()
    ]


def _match_act(
    *, pk: int, player: Player, action: str, turn_no: int, values: dict[str, Any]
) -> Response:
    """A player's action in a match (``match_act``)."""
    return _changed(
        services.match_act(
            match=_named(pk), player=player, turn_no=turn_no, act=services.Act(action), **values
        )
    )


def _match_continue(
    *, pk: int, player: Player, action: str, turn_no: int, values: dict[str, Any]
) -> Response:
    """``continue``: a money session's next game (``match_continue``)."""
    return _changed(services.match_continue(match=_named(pk), player=player, turn_no=turn_no))


def _match_stop(
    *, pk: int, player: Player, action: str, turn_no: int, values: dict[str, Any]
) -> Response:
    """``stop``: a money session ends (``match_stop``)."""
    return _changed(services.match_stop(match=_named(pk), player=player, turn_no=turn_no))


# Each action is its own operation, at /api/matches/{id}/<action>/.
ACTION_VIEWS = action_views(
    owner="Match",
    act=_match_act,
    output=MatchOutput,
    refusal=PLAYERS_ONLY,
    actions=(
        ActionSpec("roll", gettext_lazy("Roll the dice (the side on roll, before moving).")),
        ActionSpec(
            "move",
            gettext_lazy(
                "Play the whole turn in standard notation and confirm it; steps played one by "
                "one this turn are replaced."
            ),
            MoveInput,
        ),
        ActionSpec(
            "move_step",
            gettext_lazy(
                "Move one checker by one die, not yet final (T3): the board page's click. Only "
                "a step that can still be completed into a legal play is accepted."
            ),
            MoveStepInput,
        ),
        ActionSpec("undo", gettext_lazy("Take back the last step not yet confirmed (T3).")),
        ActionSpec(
            "confirm", gettext_lazy("Confirm the steps played this turn: the turn is final (T3).")
        ),
        ActionSpec(
            "name_double",
            gettext_lazy(
                "Acey-deucey, after playing a 1-2 in full: name the double to play (AD4), then "
                "roll again."
            ),
            NameDoubleInput,
        ),
        ActionSpec("double", gettext_lazy("Offer a double (C2: on your turn, before rolling).")),
        ActionSpec("take", gettext_lazy("Take the double: you own the cube (C4).")),
        ActionSpec(
            "pass", gettext_lazy("Pass the double: the game is lost at the cube's value (C4).")
        ),
        ActionSpec(
            "beaver", gettext_lazy("Take and redouble at once (C5, money sessions with beavers).")
        ),
        ActionSpec(
            "resign",
            gettext_lazy("Offer to resign a single, a gammon or a backgammon (S4)."),
            ResignInput,
        ),
        ActionSpec(
            "accept_resign", gettext_lazy("Accept the resignation offered: the game ends (S4).")
        ),
        ActionSpec(
            "reject_resign", gettext_lazy("Reject the resignation offered: play goes on (S4).")
        ),
        ActionSpec(
            "continue",
            gettext_lazy("A money session, between games: start the next game (its opening roll)."),
            act=_match_continue,
        ),
        ActionSpec(
            "stop",
            gettext_lazy(
                "A money session, between games: stop it; the net is posted to the ledger at "
                "the stake per point."
            ),
            act=_match_stop,
        ),
    ),
)


class MatchAbandonView(APIView):
    """Leave a match in play: you lose it (``ended_by`` ``abandoned``)."""

    raises = (NotFound, Forbidden, Conflict, Invalid)

    @extend_schema(request=None, responses={200: MatchOutput})
    def post(self, request: Request, pk: int) -> Response:
        match = services.match_abandon(match=_named(pk), player=_player(member(request.user)))
        return _changed(match)


# Reading a match's record --------------------------------------------------------------


class MatchExportView(APIView):
    """The match in GNU Backgammon's ``.mat`` format (eXtreme Gammon imports it too); a
    match of the tavli games cannot be written there (409)."""

    raises = (NotFound, Conflict)

    @extend_schema(
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description=gettext_lazy("The .mat file.")
            )
        }
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        match = _match_get(pk=pk)
        if selectors.match_is_tavli(match):
            raise Conflict(
                _(
                    "The .mat format holds backgammon only: a match of the tavli games has "
                    "its own record, at export.txt."
                )
            )
        response = HttpResponse(
            selectors.match_export_mat(match), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.mat"'
        return response


class MatchTavliRecordView(APIView):
    """A match of the tavli games as the project's own text record (docs/tavli.md): a
    header (players, length, order, the score after each game) and each game's moves,
    which replay through the rules core; a backgammon match has its .mat instead (409)."""

    raises = (NotFound, Conflict)

    @extend_schema(
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description=gettext_lazy("The tavli record, a .txt file.")
            )
        }
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        match = _match_get(pk=pk)
        if not selectors.match_is_tavli(match):
            raise Conflict(_("A backgammon match's record is its .mat file, at export.mat."))
        response = HttpResponse(
            selectors.match_export_tavli_record(match), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}-tavli.txt"'
        return response


class MatchDiceView(APIView):
    """The dice (algorithm ``hmac-sha256-v1``): the commitment from the start, the server
    seed and every roll once the match is over. /play/dice/ says how to check them."""

    raises = (NotFound,)

    @extend_schema(responses={200: DiceOutput})
    def get(self, request: Request, pk: int) -> Response:
        return Response(DiceOutput(selectors.match_dice(_match_get(pk=pk))).data)


# Practice robots -----------------------------------------------------------------------


class RobotOutput(serializers.Serializer[Player]):
    username = serializers.CharField(
        help_text=gettext_lazy("Invite it by this name (POST /api/matches/, opponent).")
    )
    display_name = serializers.CharField()
    strength = serializers.ChoiceField(choices=RobotStrength.choices, source="robot")
    description = serializers.SerializerMethodField()

    def get_description(self, robot: Player) -> str:
        return str(ROBOT_DESCRIPTIONS[robot.robot])


# Each strength in the players' words (the API's list of robots).
ROBOT_DESCRIPTIONS: dict[str, StrOrPromise] = {
    RobotStrength.BEGINNER: gettext_lazy("the engine's network with noise: makes mistakes"),
    RobotStrength.INTERMEDIATE: gettext_lazy("the engine's network alone (0-ply)"),
    RobotStrength.EXPERT: gettext_lazy("the engine one roll deeper (1-ply): the strongest"),
}


class RobotListView(generics.ListAPIView[Player]):
    """The club's practice robots, weakest first, one a strength: invite one to a match
    or a money session like any member; it accepts at once and plays unrated
    (docs/practice.md)."""

    serializer_class = RobotOutput
    filter_backends = []  # three robots: nothing to filter

    def get_queryset(self) -> QuerySet[Player]:
        return club_selectors.robot_list()


# Play settings -------------------------------------------------------------------------


class PlaySettingsView(APIView):
    """Your own settings at the board (T4, B4)."""

    raises = (Forbidden,)

    @extend_schema(responses={200: PlaySettingsOutput})
    def get(self, request: Request) -> Response:
        player = _player(member(request.user))
        return Response(PlaySettingsOutput(selectors.play_settings(player=player)).data)


class PlaySettingsUpdateView(APIView):
    """Change your settings at the board; the fields left out keep their value."""

    raises = (Forbidden,)

    @extend_schema(
        request=PlaySettingsInput,
        responses={200: PlaySettingsOutput},
        examples=[
            OpenApiExample(
                "Roll for me, home board on the left",
                value={"auto_roll": True, "home_board": "left"},
                request_only=True,
            )
        ],
    )
    def put(self, request: Request) -> Response:
        data = PlaySettingsInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = _player(member(request.user))
        row = services.play_settings_update(player=player, **data.validated_data)
        return Response(PlaySettingsOutput(row).data)
