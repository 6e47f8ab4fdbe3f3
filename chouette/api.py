"""The chouettes' API (shared/API.md, Chouettes): open a session, read it, record and
list its games, undo the last one, join, leave, close, and its dice.

One view class per operation, thin: read the input, call a service or a selector, answer
with an output serializer (docs/api.md). Reading is for any member; writing is for the
session's scorekeeper, its players and staff (the services say so).
"""

from datetime import datetime
from typing import Any, TypedDict

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backgammon.chouette import BoardResult, MemberEntry, Outcome, SeatsDict, Winner
from backgammon.dice import ALGORITHM
from chouette import selectors, services
from chouette.models import Chouette, ChouetteGame
from club import selectors as club_selectors
from club.api_money import MoneyField, MoneyInputField
from club.auth import member
from matches.api import RESIGNATION_VALUES, created, input_values, text_list
from web.api_base import (
    InputSerializer,
    UsernameField,
    UsernameFilter,
)
from web.errors import Conflict, Forbidden, NotFound

# A cube value (API.md's ``stake`` of a member): 1, 2, 4, ... up to this.
MAX_CUBE = 1024
CUBE_VALUES = [2**power for power in range(MAX_CUBE.bit_length())]
VERSION_HELP = gettext_lazy(
    "The session's version the client last saw (optional): if the session has changed "
    "since, nothing is done and the answer is a 409 stale_version, so a repeated request "
    "is never applied twice."
)


def _choices(kind: Any) -> list[tuple[str, str]]:
    return [(choice.value, choice.value) for choice in kind]


@extend_schema_field({"type": "integer", "enum": CUBE_VALUES})
class CubeValueField(serializers.IntegerField):
    """A cube value: a power of two from 1 to ``MAX_CUBE``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_CUBE, **kwargs)

    def to_internal_value(self, data: Any) -> int:
        value: int = super().to_internal_value(data)
        if value not in CUBE_VALUES:
            raise serializers.ValidationError(
                gettext_lazy("A cube value is 1, 2, 4, 8... up to %(most)s.") % {"most": MAX_CUBE}
            )
        return value


@extend_schema_field({"type": "integer", "enum": list(services.CUBE_MAX_VALUES)})
class CubeMaxField(serializers.IntegerField):
    """A maximum cube: a cube face from 2 up (H11)."""

    def to_internal_value(self, data: Any) -> int:
        value: int = super().to_internal_value(data)
        if value not in services.CUBE_MAX_VALUES:
            raise serializers.ValidationError(
                gettext_lazy("A maximum cube is 2, 4, 8... up to %(most)s.")
                % {"most": services.CUBE_MAX_VALUES[-1]}
            )
        return value


class ChouetteVersionInput(InputSerializer):
    version = serializers.IntegerField(min_value=0, required=False, help_text=VERSION_HELP)


# Reading a chouette ------------------------------------------------------------------


class ChouetteOptionsBody(TypedDict):
    """A session's options as its card shows them (``ChouetteOptionsOutput``)."""

    cube: str
    jacoby: bool
    beavers: bool
    box_keeps: str
    partner_from: int | None
    turn_time: int | None
    no_answer: str
    consulting: str
    same_action: bool
    automatic_doubles: int
    cube_max: int | None


class OnlineGameBody(selectors.OnlineGameFields):
    """The online game in the card: its deadline as the API writes a time."""

    deadline: str | None


class ChouetteCard(SeatsDict):
    """``GET /api/chouettes/{id}/``'s body (``ChouetteOutput``): the seats and the rest."""

    id: int
    status: str
    mode: str
    stake: str
    options: ChouetteOptionsBody
    players: list[str]
    scores: dict[str, int]
    games: int
    version: int
    topic: str
    recorder: str | None
    dice_commitment: str
    created_at: str | None
    closed_at: str | None
    game: OnlineGameBody | None


class GameRecorded(SeatsDict):
    """A game just written (``ChouetteGameRecordedOutput``)."""

    number: int
    undoes: int | None
    points: dict[str, int]
    version: int


class ChouetteOptionsOutput(serializers.Serializer[ChouetteOptionsBody]):
    cube = serializers.CharField()
    jacoby = serializers.BooleanField()
    beavers = serializers.BooleanField()
    box_keeps = serializers.CharField()
    partner_from = serializers.IntegerField(allow_null=True)
    turn_time = serializers.IntegerField(allow_null=True)
    no_answer = serializers.CharField()
    consulting = serializers.CharField()
    same_action = serializers.BooleanField(
        help_text=gettext_lazy("H9, multiple cubes: same value, same action.")
    )
    automatic_doubles = serializers.IntegerField(
        help_text=gettext_lazy("The most automatic doubles a game may have (0: off, H11).")
    )
    cube_max = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("The maximum cube (null: none, H11).")
    )


class OnlineCubeOutput(serializers.Serializer[selectors.OnlineCube]):
    value = serializers.IntegerField()
    owner = serializers.CharField(
        allow_null=True, help_text=gettext_lazy('null (centred), "box", or the member.')
    )
    state = serializers.ChoiceField(choices=["live", "offered", "passed"])
    offered_at = serializers.IntegerField(
        allow_null=True,
        help_text=gettext_lazy("The turn_no an answer to the offer on this cube carries."),
    )


class OnlineResignationOutput(serializers.Serializer[selectors.OnlineResignation]):
    value = serializers.ChoiceField(
        choices=RESIGNATION_VALUES, help_text=gettext_lazy("What it offers a cube (S4).")
    )
    offered_by = serializers.ChoiceField(
        choices=["box", "team"],
        help_text=gettext_lazy(
            "box: to every member still in, each answering for their own contract; team: "
            "the captain's, for the team, the box answering each contract."
        ),
    )
    contracts = text_list(
        gettext_lazy(
            "The members whose contracts still wait on an answer, in line order (the box "
            "answers the team's the first of them next)."
        )
    )
    offered_at = serializers.IntegerField(
        help_text=gettext_lazy("The turn_no an answer to it carries.")
    )


class OnlineGameOutput(serializers.Serializer[OnlineGameBody]):
    """The online game (``selectors.chouette_online_game``)."""

    number = serializers.IntegerField()
    turn_no = serializers.IntegerField(
        help_text=gettext_lazy("Send it back with the next action (a stale one is a 409).")
    )
    phase = serializers.ChoiceField(
        choices=["roll", "move", "take_or_pass", "resign_offered", "over"]
    )
    awaiting = text_list(
        gettext_lazy(
            "Who must act now: the box or the captain to roll or move, each member who "
            "still owes an answer to a double (the box for the team's doubles)."
        )
    )
    captain = serializers.CharField(
        allow_null=True, help_text=gettext_lazy("Who moves for the team now (H7).")
    )
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    position_id = serializers.CharField(
        help_text=gettext_lazy("GNU Backgammon's, from the view of the side on roll.")
    )
    legal_plays = serializers.ListField(child=serializers.CharField())
    cubes = serializers.DictField(child=OnlineCubeOutput())
    resignation = OnlineResignationOutput(
        allow_null=True, help_text=gettext_lazy("The resignation on offer, while one is.")
    )
    deadline = serializers.DateTimeField(allow_null=True)


class ChouetteOutput(serializers.Serializer[ChouetteCard]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Chouette.Status.choices)
    mode = serializers.ChoiceField(choices=Chouette.Mode.choices)
    stake = MoneyField()
    options = ChouetteOptionsOutput()
    box = serializers.CharField()
    captain = serializers.CharField()
    line = text_list(gettext_lazy("The team: the captain first, then the crew in order."))
    partner = serializers.CharField(allow_null=True)
    players = text_list(gettext_lazy("Everyone seated: the box first, then in line order."))
    scores = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("Each seated player's points over the session."),
    )
    games = serializers.IntegerField(help_text=gettext_lazy("The games recorded and not undone."))
    version = serializers.IntegerField(help_text=VERSION_HELP)
    topic = serializers.CharField(
        help_text=gettext_lazy("The live channel's topic: GET /api/live/?topic=...&since=version.")
    )
    recorder = serializers.CharField(
        allow_null=True, help_text=gettext_lazy("The scorekeeper: who opened the session.")
    )
    dice_commitment = serializers.CharField(
        help_text=gettext_lazy("The commitment of the dice that rolled the order (empty: entered).")
    )
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    game = OnlineGameOutput(
        allow_null=True,
        help_text=gettext_lazy("Online: the game on the table (null: recorded, or none yet)."),
    )

    def to_representation(self, instance: ChouetteCard) -> dict[str, Any]:
        """``chouette_card``'s body as it is: it is built in the fields' own JSON types,
        so running it through every field again (a tenth of an action's time) would
        change nothing; the fields document it in the schema, and a test holds the two
        equal (tests/chouette/test_api_speed.py)."""
        return dict(instance)


# The values of chouette_card that need a field's own form: a time, an amount.
_TIME = serializers.DateTimeField()
_MONEY = MoneyField()


def _time(value: datetime | None) -> str | None:
    """A time as ``DateTimeField`` answers it (ISO 8601, UTC as ``Z``), or None."""
    return None if value is None else _TIME.to_representation(value)


def chouette_card(chouette: Chouette) -> ChouetteCard:
    """``GET /api/chouettes/{id}/``: the session, its seats and its scores, in
    ``ChouetteOutput``'s JSON types. Read from the standing an online action left on the
    row, else in one query (two without ``games_played``: ``selectors.chouette_card_rows``)."""
    standing = chouette.standing or selectors.chouette_standing(chouette=chouette)
    names = standing.names
    seating = selectors.chouette_seating(chouette=chouette, names=names)
    recorder = chouette.recorded_by
    game = selectors.chouette_online_game(chouette=chouette, names=names)
    return {
        "id": chouette.pk,
        "status": str(chouette.status),
        "mode": str(chouette.mode),
        "stake": _MONEY.to_representation(chouette.stake),
        "options": {
            "cube": str(chouette.cube),
            "jacoby": chouette.jacoby,
            "beavers": chouette.beavers,
            "box_keeps": str(chouette.box_keeps),
            "partner_from": chouette.partner_from,
            "turn_time": chouette.turn_time,
            "no_answer": str(chouette.no_answer),
            "consulting": str(chouette.consulting),
            "same_action": chouette.same_action,
            "automatic_doubles": chouette.automatic_doubles,
            "cube_max": chouette.cube_max,
        },
        **seating.to_dict(),
        "players": list(seating.players),
        "scores": standing.scores(chouette.seats),
        "games": standing.games,
        "version": chouette.version,
        "topic": f"chouette:{chouette.pk}",
        "recorder": recorder.get_username() if recorder is not None else None,
        "dice_commitment": chouette.dice_commitment,
        "created_at": _time(chouette.recorded_at),
        "closed_at": _time(chouette.closed_at),
        "game": None if game is None else {**game, "deadline": _time(game["deadline"])},
    }


class ChouetteDetailView(APIView):
    """A chouette: its status, seats (box, captain, line, partner), scores and games."""

    @extend_schema(responses={200: ChouetteOutput})
    def get(self, request: Request, pk: int) -> Response:
        return Response(ChouetteOutput(chouette_card(selectors.chouette_card_get(pk=pk))).data)


class ChouetteSummaryOutput(serializers.Serializer[Chouette]):
    id = serializers.IntegerField()
    status = serializers.CharField()
    mode = serializers.CharField()
    stake = MoneyField()
    players = serializers.SerializerMethodField()
    games = serializers.IntegerField(source="games_played")
    created_at = serializers.DateTimeField(source="recorded_at")
    closed_at = serializers.DateTimeField(allow_null=True)

    def get_players(self, chouette: Chouette) -> list[str]:
        """Everyone seated now (at the close, for a closed session), box first."""
        names = {m.player_id: m.player.username for m in chouette.memberships.all()}
        return [names[pk] for pk in chouette.seats]


class ChouetteFilter(filters.FilterSet):
    status = filters.ChoiceFilter(
        choices=Chouette.Status.choices, label=gettext_lazy("Only the open or the closed ones.")
    )
    player = UsernameFilter(
        method="sat_at", label=gettext_lazy("Only the chouettes this player sat at.")
    )

    def sat_at(self, chouettes: QuerySet[Chouette], name: str, username: str) -> QuerySet[Chouette]:
        return chouettes.filter(memberships__player__user__username=username).distinct()


class ChouetteListView(generics.ListAPIView[Chouette]):
    """Chouettes, newest first (any member)."""

    serializer_class = ChouetteSummaryOutput
    filterset_class = ChouetteFilter

    def get_queryset(self) -> QuerySet[Chouette]:
        return selectors.chouette_list()


# Opening a chouette -------------------------------------------------------------------


class ChouetteOptionsInput(InputSerializer):
    cube = serializers.ChoiceField(
        choices=Chouette.Cube.choices,
        default=Chouette.Cube.SINGLE,
        help_text=gettext_lazy("One team cube (H4) or one cube per member (H8)."),
    )
    jacoby = serializers.BooleanField(default=True)
    beavers = serializers.BooleanField(default=False)
    box_keeps = serializers.ChoiceField(
        choices=Chouette.BoxKeeps.choices,
        default=Chouette.BoxKeeps.BEATS_CAPTAIN,
        help_text=gettext_lazy("What lets the box keep the box after a game (H3)."),
    )
    partner_from = serializers.IntegerField(
        min_value=4,
        max_value=services.MAX_PLAYERS,
        allow_null=True,
        default=7,
        help_text=gettext_lazy("From how many players the box takes a partner (H12); null never."),
    )
    turn_time = serializers.IntegerField(
        min_value=services.MIN_TURN_TIME,
        max_value=services.MAX_TURN_TIME,
        allow_null=True,
        required=False,
        help_text=gettext_lazy(
            "Online: the seconds to roll, move or answer a double (null or left out: no clock)."
        ),
    )
    no_answer = serializers.ChoiceField(
        choices=Chouette.NoAnswer.choices,
        required=False,
        help_text=gettext_lazy("Online: what a member who does not answer a double in time does."),
    )
    consulting = serializers.ChoiceField(
        choices=Chouette.Consulting.choices,
        required=False,
        help_text=gettext_lazy(
            'Online (H2): "full", "cube" (no cube, no talk) or "none" (no consulting).'
        ),
    )
    same_action = serializers.BooleanField(
        required=False,
        help_text=gettext_lazy(
            "Online, multiple cubes (H9): when the team doubles together, the box takes at "
            "least half of the cubes or passes them all, and equal cubes get the same answer."
        ),
    )
    automatic_doubles = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=services.MAX_AUTOMATIC_DOUBLES,
        help_text=gettext_lazy(
            "Online (H11, O2): the most tied opening rolls that double every cube (0, the "
            "default: off; 1 is the convention)."
        ),
    )
    cube_max = CubeMaxField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy("Online (H11, C1): the highest cube face (null or left out: none)."),
    )


class ChouetteInput(InputSerializer):
    players = serializers.ListField(
        child=UsernameField(),
        min_length=3,
        max_length=services.MAX_PLAYERS,
        help_text=gettext_lazy("Three or more different players."),
    )
    stake = MoneyInputField(most=services.MAX_STAKE)
    mode = serializers.ChoiceField(
        choices=Chouette.Mode.choices,
        default=Chouette.Mode.RECORDED,
        help_text=gettext_lazy(
            "recorded: games played on a real board, entered by a scorekeeper; online: "
            "played on the server (POST .../start/ begins each game)."
        ),
    )
    order = serializers.ListField(
        child=UsernameField(),
        min_length=3,
        max_length=services.MAX_PLAYERS,
        required=False,
        help_text=gettext_lazy(
            "The order already rolled at the table, box first: exactly the players. "
            "Left out, the server rolls one die each with the session's verifiable dice (H1)."
        ),
    )
    options = ChouetteOptionsInput(required=False)


class ChouetteCreateView(APIView):
    """Open a chouette; whoever opens it is its scorekeeper (any member)."""

    raises = (NotFound,)  # a player nobody is called

    @extend_schema(
        request=ChouetteInput,
        responses={201: ChouetteOutput},
        examples=[
            OpenApiExample(
                "Four players at 5.00 a point",
                value={
                    "players": ["alice", "bob", "dave", "erin"],
                    "stake": "5.00",
                    "mode": "recorded",
                    "options": {"cube": "multiple", "jacoby": True},
                },
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        values = input_values(ChouetteInput, request)
        order = values.get("order")
        players = [club_selectors.player_get(username=name) for name in values["players"]]
        seated = None if order is None else [club_selectors.player_get(username=n) for n in order]
        options = services.ChouetteOptions(
            stake=values["stake"], mode=values["mode"], **values.get("options", {})
        )
        chouette = services.chouette_create(
            players=players, order=seated, recorded_by=member(request.user), options=options
        )
        return created(ChouetteOutput(chouette_card(chouette)).data)


# Games ---------------------------------------------------------------------------------


class ChouetteMemberInput(InputSerializer):
    player = UsernameField()
    stake = CubeValueField(
        help_text=gettext_lazy(
            "The cube value played to the end (played), or the value before the refused "
            "double (passed, box_passed)."
        )
    )
    outcome = serializers.ChoiceField(choices=_choices(Outcome))
    cube_turned = serializers.BooleanField(
        required=False,
        help_text=gettext_lazy(
            "Whether the member's cube was ever turned (Jacoby); default stake > 1."
        ),
    )
    winner = serializers.ChoiceField(
        choices=_choices(Winner),
        required=False,
        help_text=gettext_lazy(
            "With result, for a member whose own game ended apart from the board's (a "
            "resignation accepted)."
        ),
    )
    result = serializers.ChoiceField(choices=_choices(BoardResult), required=False)


class ChouetteGameInput(ChouetteVersionInput):
    winner = serializers.ChoiceField(choices=_choices(Winner))
    result = serializers.ChoiceField(choices=_choices(BoardResult))
    members = ChouetteMemberInput(
        many=True, help_text=gettext_lazy("One entry per team member, nobody else.")
    )


class ChouetteMemberOutput(serializers.Serializer[MemberEntry]):
    player = serializers.CharField()
    stake = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=_choices(Outcome))
    cube_turned = serializers.BooleanField()
    winner = serializers.ChoiceField(choices=_choices(Winner), required=False)
    result = serializers.ChoiceField(choices=_choices(BoardResult), required=False)


class ChouetteSeatsOutput(serializers.Serializer[SeatsDict]):
    box = serializers.CharField()
    captain = serializers.CharField()
    line = serializers.ListField(child=serializers.CharField())
    partner = serializers.CharField(allow_null=True)


class ChouetteGameOutput(serializers.Serializer[ChouetteGame]):
    number = serializers.IntegerField()
    winner = serializers.ChoiceField(choices=_choices(Winner), source="record.winner")
    result = serializers.ChoiceField(choices=_choices(BoardResult), source="record.result")
    members = ChouetteMemberOutput(many=True, source="record.members")
    points = serializers.SerializerMethodField()
    seats = serializers.SerializerMethodField(
        help_text=gettext_lazy("Where everyone sat for the game (for an undo: before it).")
    )
    undoes = serializers.IntegerField(
        source="undoes.number",
        allow_null=True,
        help_text=gettext_lazy("For an undo: the number of the game it takes back."),
    )
    undone_by = serializers.SerializerMethodField(
        help_text=gettext_lazy("For a game taken back: the number of the undo.")
    )
    recorded_at = serializers.DateTimeField()

    def get_points(self, game: ChouetteGame) -> dict[str, int]:
        names = self.context["names"]
        return {names[row.player_id]: row.points for row in game.points.all()}

    @extend_schema_field(ChouetteSeatsOutput)
    def get_seats(self, game: ChouetteGame) -> SeatsDict:
        seats: SeatsDict = self.context["seating_of"](game.seats_before)
        return seats

    def get_undone_by(self, game: ChouetteGame) -> int | None:
        undo = getattr(game, "undone_by", None)
        return undo.number if undo is not None else None


def _seating_of(chouette: Chouette, names: dict[int, str]) -> Any:
    options = selectors.chouette_options(chouette=chouette)

    def seating_of(seats: list[int]) -> SeatsDict:
        return selectors.seating_from(seats=seats, names=names, options=options).to_dict()

    return seating_of


class GameListView(generics.ListAPIView[ChouetteGame]):
    """Every game of a chouette, oldest first, in the form a recorded game is posted,
    with its number and points; an undo is listed as a game of its own (``undoes``),
    its points negated."""

    serializer_class = ChouetteGameOutput
    filter_backends = []

    def get_queryset(self) -> QuerySet[ChouetteGame]:
        self.chouette = selectors.chouette_get(pk=self.kwargs["pk"])
        return selectors.chouette_game_list(chouette=self.chouette)

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if hasattr(self, "chouette"):
            context["names"] = selectors.chouette_names(chouette=self.chouette)
            context["seating_of"] = _seating_of(self.chouette, context["names"])
        return context


class ChouetteGameRecordedOutput(ChouetteSeatsOutput):
    number = serializers.IntegerField()
    undoes = serializers.IntegerField(allow_null=True)
    points = serializers.DictField(child=serializers.IntegerField())
    version = serializers.IntegerField()


def _recorded(game: ChouetteGame, chouette: Chouette) -> GameRecorded:
    """A game just written: its points, and the seats and version after it."""
    return {
        "number": game.number,
        "undoes": game.undoes.number if game.undoes is not None else None,
        "points": {row.player.username: row.points for row in game.points.all()},
        **selectors.chouette_seating(chouette=chouette).to_dict(),
        "version": chouette.version,
    }


class GameRecordView(APIView):
    """Record a game played on a real board (recorded mode): the points of every seated
    player and the seats after it (the scorekeeper, a player of the session, or staff)."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=ChouetteGameInput, responses={201: ChouetteGameRecordedOutput})
    def post(self, request: Request, pk: int) -> Response:
        data = ChouetteGameInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        version = values.pop("version", None)
        chouette = selectors.chouette_get(pk=pk)
        game = services.chouette_game_record(
            chouette=chouette, record=values, recorded_by=member(request.user), version=version
        )
        chouette.refresh_from_db()
        return Response(ChouetteGameRecordedOutput(_recorded(game, chouette)).data, status=201)


class ChouetteUndoInput(ChouetteVersionInput):
    number = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text=gettext_lazy("The game meant (optional): refused unless it is the last one."),
    )


class GameUndoView(APIView):
    """Take back the last game in effect with a reversing game: its points negated, the
    seats as before it (refused once anyone joined or left after it)."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=ChouetteUndoInput, responses={200: ChouetteGameRecordedOutput})
    def post(self, request: Request, pk: int) -> Response:
        data = ChouetteUndoInput(data=request.data)
        data.is_valid(raise_exception=True)
        chouette = selectors.chouette_get(pk=pk)
        undo = services.chouette_game_undo(
            chouette=chouette, recorded_by=member(request.user), **data.validated_data
        )
        chouette.refresh_from_db()
        return Response(ChouetteGameRecordedOutput(_recorded(undo, chouette)).data)


# Joining, leaving, closing -------------------------------------------------------------


class ChouettePlayerInput(ChouetteVersionInput):
    player = UsernameField()


class ChouetteSettlementOutput(serializers.Serializer[services.Settlement]):
    settlement = serializers.DictField(
        child=MoneyField(),
        source="amounts",
        help_text=gettext_lazy("Each player's amount, positive when received."),
    )
    transaction = serializers.IntegerField(
        source="transaction.pk",
        allow_null=True,
        help_text=gettext_lazy("The ledger transaction (null when nothing moved)."),
    )


def _player_action(request: Request, pk: int, service: Any) -> Any:
    """Read ``{"player", "version"}`` and call a join or leave service with them."""
    data = ChouettePlayerInput(data=request.data)
    data.is_valid(raise_exception=True)
    return service(
        chouette=selectors.chouette_get(pk=pk),
        player=club_selectors.player_get(username=data.validated_data["player"]),
        by=member(request.user),
        version=data.validated_data.get("version"),
    )


class JoinView(APIView):
    """A player joins between games, at the end of the line (H13)."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=ChouettePlayerInput, responses={200: ChouetteOutput})
    def post(self, request: Request, pk: int) -> Response:
        chouette = _player_action(request, pk, services.chouette_join)
        return Response(ChouetteOutput(chouette_card(chouette)).data)


class LeaveView(APIView):
    """A player leaves between games and settles at once, in the ledger (H13)."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=ChouettePlayerInput, responses={200: ChouetteSettlementOutput})
    def post(self, request: Request, pk: int) -> Response:
        settled = _player_action(request, pk, services.chouette_leave)
        return Response(ChouetteSettlementOutput(settled).data)


class CloseView(APIView):
    """End the session: every player's points times the stake, posted to the ledger as
    one balanced transaction (H14)."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=ChouetteVersionInput, responses={200: ChouetteSettlementOutput})
    def post(self, request: Request, pk: int) -> Response:
        data = ChouetteVersionInput(data=request.data)
        data.is_valid(raise_exception=True)
        settled = services.chouette_close(
            chouette=selectors.chouette_get(pk=pk),
            by=member(request.user),
            version=data.validated_data.get("version"),
        )
        return Response(ChouetteSettlementOutput(settled).data)


# Dice ------------------------------------------------------------------------------------


class ChouetteDiceOutput(serializers.Serializer[Chouette]):
    algorithm = serializers.SerializerMethodField()
    commitment = serializers.CharField(source="dice_commitment")
    client_seed = serializers.CharField()
    throws = serializers.ListField(
        child=serializers.ListField(child=serializers.ListField()),
        help_text=gettext_lazy('Every throw for the order: [["alice", 5], ["bob", 3]], ...'),
    )
    server_seed = serializers.SerializerMethodField(
        help_text=gettext_lazy("Revealed once the session is closed (hex).")
    )

    def get_algorithm(self, chouette: Chouette) -> str:
        return ALGORITHM

    def get_server_seed(self, chouette: Chouette) -> str | None:
        if chouette.status != Chouette.Status.CLOSED or chouette.server_seed is None:
            return None
        return bytes(chouette.server_seed).hex()


class DiceView(APIView):
    """The verifiable dice that rolled the order (H1): the commitment before, the seed
    after the close, so anyone can recompute every throw (empty when the order was
    entered)."""

    @extend_schema(responses={200: ChouetteDiceOutput})
    def get(self, request: Request, pk: int) -> Response:
        return Response(ChouetteDiceOutput(selectors.chouette_get(pk=pk)).data)
