"""The club's API: auth tokens, players, results and ratings, the ledger.

One view class per operation, thin: read the input (an ``InputSerializer``, a filter set or
a path parameter), call a service or a selector, answer with an output serializer. The
shared pieces and the pattern are in ``web.api_base`` and docs/api.md.
"""

import itertools
import json
from datetime import datetime
from decimal import Decimal
from typing import Any, TypedDict

from django.contrib.auth import authenticate
from django.db.models import Q, QuerySet
from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, permissions, renderers, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.fields import SkipField
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils import encoders
from rest_framework.views import APIView

from club import money, selectors, services
from club.api_money import MoneyField, MoneyInputField
from club.auth import member
from club.memos import MemoKind
from club.models import MatchResult, Player, RatingChange, RatingKind
from club.parties import CLUB, Party, party_name
from club.settle_up import Transfer
from web import live
from web.api_base import (
    InputSerializer,
    UsernameField,
    UsernameFilter,
    choice_filter,
)
from web.documents import JSONDocument
from web.errors import Conflict, Forbidden, Invalid, NotFound
from web.params import at_param

# Auth ---------------------------------------------------------------------------------


class TokenInput(InputSerializer):
    username = UsernameField()
    password = serializers.CharField(style={"input_type": "password"})


class TokenOutput(serializers.Serializer[dict[str, str]]):
    token = serializers.CharField()


class TokenCreateView(APIView):
    """Exchange a username and password for an API token (a wrong pair is a 400; too
    many wrong ones for the account from one address lock it there: a 429)."""

    authentication_classes = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        request=TokenInput,
        responses={200: TokenOutput},
        examples=[
            OpenApiExample(
                "Alice logs in",
                value={"username": "alice", "password": "correct-horse-battery"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        # Django's own request: axes marks it when this account and address are locked,
        # and its middleware answers 429 (web/guard.py) whatever this view says.
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise Invalid(_("Wrong username or password."))
        token, _created = Token.objects.get_or_create(user=user)
        return Response(TokenOutput({"token": token.key}).data)


# Players ------------------------------------------------------------------------------


class PlayerInput(InputSerializer):
    username = UsernameField()
    password = serializers.CharField(min_length=4, max_length=128)
    display_name = serializers.CharField(max_length=80, required=False, default="")


class PlayerCard(TypedDict):
    username: str
    display_name: str
    rating: float
    experience: int
    tavli_rating: float
    tavli_experience: int
    balance: Decimal | None


class PlayerOutput(serializers.Serializer[PlayerCard]):
    username = serializers.CharField()
    display_name = serializers.CharField()
    rating = serializers.FloatField()
    experience = serializers.IntegerField()
    tavli_rating = serializers.FloatField(
        help_text=gettext_lazy("The tavli rating: the FIBS formula over rated tavli matches.")
    )
    tavli_experience = serializers.IntegerField(
        help_text=gettext_lazy("The sum of the lengths of the rated tavli matches finished.")
    )
    balance = MoneyField(
        allow_null=True,
        help_text=gettext_lazy(
            "The ledger balance (positive: the club owes the player), shown to the player "
            "themself and to staff; null for anyone else."
        ),
    )


def player_card(player: Player, request: Request) -> PlayerCard:
    """``GET /api/players/{username}/``: the balance only for the player and staff."""
    return {
        "username": player.username,
        "display_name": player.display_name,
        "rating": player.rating,
        "experience": player.experience,
        "tavli_rating": player.tavli_rating,
        "tavli_experience": player.tavli_experience,
        "balance": selectors.player_balance_shown(player=player, viewer=request.user),
    }


class PlayerCreateView(APIView):
    """Staff create players (a username already taken, in any case, is a 409)."""

    permission_classes = [permissions.IsAdminUser]
    raises = (Conflict,)

    @extend_schema(
        request=PlayerInput,
        responses={201: PlayerOutput},
        examples=[
            OpenApiExample(
                "A new member",
                value={"username": "gina", "password": "s3cret-pw", "display_name": "Gina"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = PlayerInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_create(**data.validated_data)
        return Response(
            PlayerOutput(player_card(player, request)).data, status=status.HTTP_201_CREATED
        )


class PlayerDetailView(APIView):
    """A player's card: rating, experience and (for them and staff) balance."""

    @extend_schema(responses={200: PlayerOutput})
    def get(self, request: Request, username: str) -> Response:
        player = selectors.player_get(username=username)
        return Response(PlayerOutput(player_card(player, request)).data)


# The ledger ---------------------------------------------------------------------------

AT_PARAMETER = OpenApiParameter(
    "at",
    OpenApiTypes.DATE,
    description=gettext_lazy(
        "A date (YYYY-MM-DD): the books as they stood at the end of that day."
    ),
)


class LedgerEntryOutput(serializers.Serializer[selectors.StatementEntry]):
    at = serializers.DateTimeField()
    amount = MoneyField()
    memo = serializers.CharField(
        help_text=gettext_lazy(
            "The memo as recorded: in English when the server wrote it, else as written."
        )
    )
    memo_kind = serializers.ChoiceField(
        choices=MemoKind.choices,
        help_text=gettext_lazy(
            'What the memo says, in any language ("entry_fee"...); "text": written by hand.'
        ),
    )
    memo_params = serializers.DictField(
        help_text=gettext_lazy(
            'The memo\'s parameters ({"name": "Friday knockout"}); empty for "text".'
        )
    )
    memo_translated = serializers.CharField(
        help_text=gettext_lazy(
            "The memo in the reader's language (Accept-Language, or the language chosen "
            "on the site)."
        )
    )
    transaction = serializers.IntegerField()
    kind = serializers.CharField()
    running_balance = MoneyField(source="balance")


class PlayerLedger(TypedDict):
    balance: Decimal
    entries: list[selectors.StatementEntry]


class PlayerLedgerOutput(serializers.Serializer[PlayerLedger]):
    balance = MoneyField()
    entries = LedgerEntryOutput(many=True)


class PlayerLedgerView(APIView):
    """A player's ledger, oldest entry first (the player themself or staff)."""

    raises = (Forbidden,)

    @extend_schema(parameters=[AT_PARAMETER], responses={200: PlayerLedgerOutput})
    def get(self, request: Request, username: str) -> Response:
        player = selectors.player_get(username=username)
        if not selectors.ledger_visible(player=player, viewer=request.user):
            raise Forbidden(
                _("Only %(username)s and the club's staff see this ledger.")
                % {"username": player.username}
            )
        on = at_param(request.query_params.get("at"))
        body: PlayerLedger = {
            "balance": selectors.player_balance(player=player, on=on),
            "entries": selectors.player_statement(player=player, on=on),
        }
        return Response(PlayerLedgerOutput(body).data)


class PaymentInput(InputSerializer):
    payer = UsernameField(
        # Translators: "club" is a value of the API: keep it untranslated, in quotes.
        help_text=gettext_lazy('A username, or "club" for the club\'s cash.')
    )
    payee = UsernameField(help_text=gettext_lazy('A username, or "club" for the club\'s cash.'))
    amount = MoneyInputField(most=money.MAX_PAYMENT)
    memo = serializers.CharField(
        max_length=services.MEMO_LENGTH,
        required=False,
        default="",
        help_text=gettext_lazy('What the payment is for (default: "Payment from ... to ...").'),
    )


class PaymentBody(TypedDict):
    transaction: int
    at: datetime
    payer: str
    payee: str
    amount: Decimal
    memo: str


class PaymentOutput(serializers.Serializer[PaymentBody]):
    transaction = serializers.IntegerField()
    at = serializers.DateTimeField()
    payer = serializers.CharField()
    payee = serializers.CharField()
    amount = MoneyField()
    memo = serializers.CharField()


class PaymentCreateView(APIView):
    """Staff record cash changing hands: the payer's balance rises by the amount, the
    payee's falls by it. ``"club"`` names the club's cash account."""

    permission_classes = [permissions.IsAdminUser]
    raises = (NotFound,)  # a payer or payee nobody is called

    @extend_schema(
        request=PaymentInput,
        responses={201: PaymentOutput},
        examples=[
            OpenApiExample(
                "Alice pays the club",
                value={"payer": "alice", "payee": CLUB, "amount": "12.50", "memo": "Cash"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = PaymentInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        payer = selectors.party_get(name=values["payer"])
        payee = selectors.party_get(name=values["payee"])
        posted = services.payment_record(
            payer=payer,
            payee=payee,
            amount=values["amount"],
            memo=values["memo"],
            recorded_by=member(request.user),
        )
        body: PaymentBody = {
            "transaction": posted.pk,
            "at": posted.at,
            "payer": party_name(payer),
            "payee": party_name(payee),
            "amount": values["amount"],
            "memo": posted.memo,
        }
        return Response(PaymentOutput(body).data, status=status.HTTP_201_CREATED)


class TrialBalanceRow(TypedDict):
    account: int
    kind: str
    name: str
    username: str | None
    balance: Decimal


class TrialBalanceBody(TypedDict):
    accounts: list[TrialBalanceRow]
    total: Decimal


class TrialBalanceRowOutput(serializers.Serializer[TrialBalanceRow]):
    account = serializers.IntegerField()
    kind = serializers.CharField()
    name = serializers.CharField()
    username = serializers.CharField(allow_null=True)
    balance = MoneyField()


class TrialBalanceOutput(serializers.Serializer[TrialBalanceBody]):
    accounts = TrialBalanceRowOutput(many=True)
    total = MoneyField()


class TrialBalanceView(APIView):
    """Every account of the books with its balance; the total is always zero (staff)."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(parameters=[AT_PARAMETER], responses={200: TrialBalanceOutput})
    def get(self, request: Request) -> Response:
        books = selectors.trial_balance(on=at_param(request.query_params.get("at")))
        rows: list[TrialBalanceRow] = [
            {
                "account": account.pk,
                "kind": account.kind,
                "name": str(account),
                "username": account.player.username if account.player else None,
                "balance": balance,
            }
            for account, balance in books.rows
        ]
        body: TrialBalanceBody = {"accounts": rows, "total": books.total}
        return Response(TrialBalanceOutput(body).data)


class SettleUpPaymentOutput(serializers.Serializer[Transfer[Party]]):
    payer = serializers.SerializerMethodField()
    payee = serializers.SerializerMethodField()
    amount = MoneyField()

    def get_payer(self, transfer: Transfer[Party]) -> str:
        return party_name(transfer.payer)

    def get_payee(self, transfer: Transfer[Party]) -> str:
        return party_name(transfer.payee)


class SettleUpView(generics.ListAPIView[Any]):
    """The fewest payments that would bring every balance to zero (staff)."""

    permission_classes = [permissions.IsAdminUser]
    serializer_class = SettleUpPaymentOutput
    filter_backends = []  # computed payments: nothing to filter

    def get_queryset(self) -> list[Transfer[Party]]:  # type: ignore[override]  # a list pages too
        return selectors.settle_up_payments()


# Results and ratings ------------------------------------------------------------------


class ResultInput(InputSerializer):
    winner = UsernameField()
    loser = UsernameField()
    length = serializers.IntegerField(
        min_value=1,
        max_value=services.MAX_MATCH_LENGTH,
        help_text=gettext_lazy("The match length in points, 1 to 64."),
    )
    rated = serializers.BooleanField(default=True)
    rating_kind = serializers.ChoiceField(
        choices=RatingKind.choices,
        default=RatingKind.BACKGAMMON,
        help_text=gettext_lazy(
            'Which rating the result moves: "backgammon" (FIBS) or "tavli" (a tavli match).'
        ),
    )
    ended_by = serializers.ChoiceField(
        choices=MatchResult.EndedBy.choices,
        default=MatchResult.EndedBy.PLAYED,
        help_text=gettext_lazy("A match lost on time or abandoned counts as a loss for the loser."),
    )
    played_at = serializers.DateTimeField(
        required=False,
        help_text=gettext_lazy(
            "When the match was played (default: now): from 1900 on, no more than 5 "
            "minutes ahead of the server's clock."
        ),
    )


class ResultOutput(serializers.Serializer[MatchResult]):
    id = serializers.IntegerField()
    winner = serializers.CharField(source="winner.username")
    loser = serializers.CharField(source="loser.username")
    length = serializers.IntegerField()
    rated = serializers.BooleanField()
    rating_kind = serializers.CharField()
    ended_by = serializers.CharField()
    played_at = serializers.DateTimeField()
    rating_changes = serializers.SerializerMethodField()

    def get_rating_changes(self, result: MatchResult) -> dict[str, float]:
        return selectors.result_rating_changes(result=result)


class ResultFilter(filters.FilterSet):
    player = UsernameFilter(
        method="played_by", label=gettext_lazy("Only the results this player played.")
    )

    def played_by(
        self, results: QuerySet[MatchResult], name: str, username: str
    ) -> QuerySet[MatchResult]:
        return results.filter(
            Q(winner__user__username=username) | Q(loser__user__username=username)
        )


class ResultListView(generics.ListAPIView[MatchResult]):
    """Match results, newest first (any member)."""

    serializer_class = ResultOutput
    filterset_class = ResultFilter

    def get_queryset(self) -> QuerySet[MatchResult]:
        return selectors.result_list().prefetch_related("rating_changes__player__user")


class ResultCreateView(APIView):
    """Staff record a match played on a real board; rated results update both players'
    ratings and experience at once."""

    permission_classes = [permissions.IsAdminUser]
    raises = (NotFound,)  # a winner or loser nobody is called

    @extend_schema(
        request=ResultInput,
        responses={201: ResultOutput},
        examples=[
            OpenApiExample(
                "Alice beat Bob, 5 points",
                value={"winner": "alice", "loser": "bob", "length": 5, "rated": True},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = ResultInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        result = services.match_result_record(
            winner=selectors.player_get(username=values["winner"]),
            loser=selectors.player_get(username=values["loser"]),
            length=values["length"],
            rated=values["rated"],
            rating_kind=values["rating_kind"],
            ended_by=values["ended_by"],
            played_at=values.get("played_at"),
            recorded_by=member(request.user),
        )
        return Response(ResultOutput(result).data, status=status.HTTP_201_CREATED)


class ResultDetailView(APIView):
    """One match result with its rating changes."""

    @extend_schema(responses={200: ResultOutput})
    def get(self, request: Request, pk: int) -> Response:
        return Response(ResultOutput(selectors.result_get(pk=pk)).data)


class RatingHistoryEntryOutput(serializers.Serializer[Any]):
    at = serializers.DateTimeField(source="result.played_at")
    rating = serializers.FloatField(source="rating_after")
    change = serializers.FloatField()
    result = serializers.IntegerField(source="result_id")


class RatingsBody(TypedDict):
    rating: float
    experience: int
    history: QuerySet[RatingChange]
    tavli_rating: float
    tavli_experience: int
    tavli_history: QuerySet[RatingChange]


class RatingsOutput(serializers.Serializer[RatingsBody]):
    rating = serializers.FloatField()
    experience = serializers.IntegerField()
    history = RatingHistoryEntryOutput(
        many=True, help_text=gettext_lazy("The FIBS (backgammon) rating's changes.")
    )
    tavli_rating = serializers.FloatField()
    tavli_experience = serializers.IntegerField()
    tavli_history = RatingHistoryEntryOutput(
        many=True, help_text=gettext_lazy("The tavli rating's changes.")
    )


class PlayerRatingsView(APIView):
    """A player's two ratings (FIBS for backgammon, and tavli), their experience and
    every change of each, oldest first."""

    @extend_schema(responses={200: RatingsOutput})
    def get(self, request: Request, username: str) -> Response:
        player = selectors.player_get(username=username)
        body: RatingsBody = {
            "rating": player.rating,
            "experience": player.experience,
            "history": selectors.rating_history(player=player),
            "tavli_rating": player.tavli_rating,
            "tavli_experience": player.tavli_experience,
            "tavli_history": selectors.rating_history(player=player, kind=RatingKind.TAVLI),
        }
        return Response(RatingsOutput(body).data)


class LeaderboardEntryOutput(serializers.Serializer[Player]):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    rating = serializers.FloatField()
    experience = serializers.IntegerField()
    tavli_rating = serializers.FloatField()
    tavli_experience = serializers.IntegerField()


class LeaderboardFilter(filters.FilterSet):
    rating_kind = choice_filter(
        choices=RatingKind.choices,
        label=gettext_lazy('Ranked by this rating: "backgammon" (FIBS, the default) or "tavli".'),
    )

    def filter_queryset(self, queryset: QuerySet[Player]) -> QuerySet[Player]:
        """The whole club ranked by the rating asked for (every player is listed)."""
        kind = self.form.cleaned_data.get("rating_kind") or RatingKind.BACKGAMMON
        return selectors.leaderboard(kind=kind)


class LeaderboardView(generics.ListAPIView[Player]):
    """Every player but the practice robots, best rating first: FIBS's, or the tavli
    rating's with ``?rating_kind=tavli``."""

    serializer_class = LeaderboardEntryOutput
    filterset_class = LeaderboardFilter

    def get_queryset(self) -> QuerySet[Player]:
        return selectors.leaderboard()


# The live channel ---------------------------------------------------------------------


class LiveStreamQuery(serializers.Serializer[None]):  # a query: no instance
    topic = serializers.CharField(
        max_length=100,
        help_text=gettext_lazy('What to watch: a match\'s "topic", like "table:12".'),
    )
    since = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text=gettext_lazy(
            "The version the client has: the answer waits until the topic moves past it. "
            "Left out: the current version at once."
        ),
    )


class LiveQuery(LiveStreamQuery):
    wait = serializers.FloatField(
        min_value=0,
        max_value=live.MAX_WAIT,
        default=live.MAX_WAIT,
        help_text=gettext_lazy("The most seconds to wait for a newer version."),
    )


class LiveBody(TypedDict):
    topic: str
    version: int
    state: JSONDocument | None


class LiveOutput(serializers.Serializer[LiveBody]):
    topic = serializers.CharField()
    version = serializers.IntegerField(
        help_text=gettext_lazy("The topic's version now: past since if it moved, else since.")
    )
    state = serializers.DictField(
        allow_null=True,
        help_text=gettext_lazy(
            "The topic's state at this version when it moved past since (or since was left "
            "out): for a table, the match exactly as the match's own GET answers it; for a "
            "chouette, the session exactly as its own GET answers it; so no fetch is "
            "needed. Null when the wait ended with no move, and for topics without a state "
            "(tournaments: fetch them again)."
        ),
    )


# Both serializers are the schema's (``extend_schema``); a request goes without them: DRF
# deep-copies every declared field into each new serializer (each field built again),
# which was a tenth of a live request's CPU. The query's fields are bound once, here, and
# a field's validation keeps no state of its own, so threads share them.
_LIVE_QUERY_FIELDS = tuple(LiveQuery().fields.items())
_LIVE_STREAM_QUERY_FIELDS = tuple(LiveStreamQuery().fields.items())


def _live_query(
    params: Any, fields: tuple[tuple[str, Any], ...] = _LIVE_QUERY_FIELDS
) -> dict[str, Any]:
    """``params`` validated as ``LiveQuery(data=params).is_valid(raise_exception=True)``
    does (or ``LiveStreamQuery``, given its ``fields``), the same values and the same
    errors (tests/club/test_live.py holds them equal)."""
    values: dict[str, Any] = {}
    errors: dict[str, serializers.ValidationError] = {}
    for name, field in fields:
        try:
            values[name] = field.run_validation(field.get_value(params))
        except serializers.ValidationError as exc:
            errors[name] = exc
        except SkipField:
            pass
    if errors:
        raise serializers.ValidationError({name: exc.detail for name, exc in errors.items()})
    return values


class MemberOrPublicTopic(permissions.BasePermission):
    """Members follow any topic they may watch; a visitor who is not logged in only a
    public one (a public page's: ``live.topic_register(public=True)``), else a 401 as
    for any other endpoint."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.user.is_authenticated:
            return True
        return live.topic_public(str(request.query_params.get("topic", "")))


class LiveView(APIView):
    """Wait until a topic (a match's table...) moves past the version the client has
    (long polling: docs/live.md), and answer with the new state where the topic has one.
    A client that was away gets the current version and state at once."""

    permission_classes = [MemberOrPublicTopic]
    raises = (NotFound, Forbidden)

    @extend_schema(parameters=[LiveQuery], responses={200: LiveOutput})
    def get(self, request: Request) -> Response:
        query = _live_query(request.query_params)
        topic = query["topic"]
        answer = live.live_wait(
            topic=topic, since=query.get("since"), wait=query["wait"], user=request.user
        )
        return Response(_live_body(topic, answer))


def _live_body(topic: str, answer: live.Answer) -> LiveBody:
    """``LiveOutput``'s fields as it gives them (the state: a body with str keys, copied):
    a held request's answer and a stream's event alike."""
    state = None if answer.state is None else dict(answer.state)
    return {"topic": topic, "version": answer.version, "state": state}


LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    {"type": "integer", "minimum": 0},
    OpenApiParameter.HEADER,
    description=gettext_lazy(
        "The id of the last event received (a browser's EventSource sends it when it "
        "opens the stream again): the version the client has, as since."
    ),
)


def _last_event_id(request: Request) -> int | None:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 1000:  # as IntegerField's
        raise serializers.ValidationError(
            {"Last-Event-ID": [_("The last event's id is a version: a whole number from 0.")]}
        )
    return int(raw)


RECONNECT_MS = 2000  # how long an EventSource waits before opening the stream again


def _event(topic: str, answer: live.Answer | None) -> bytes:
    """One server-sent event: the answer as ``LiveView`` gives it, with its version as
    the event's id; a comment for None (it only keeps the connection open)."""
    if answer is None:
        return b": still here\n\n"
    body = json.dumps(
        _live_body(topic, answer),
        cls=encoders.JSONEncoder,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return f"id: {answer.version}\ndata: {body}\n\n".encode()


class LiveStreamView(APIView):
    """Follow a topic on one connection (server-sent events, docs/live.md): each time it
    moves past the client's version, an event carrying what ``GET /api/live/`` answers
    (the version as the event's id, the state where the topic has one); a comment every
    15 s of silence; the stream ends after 5 minutes, and the client opens the next one
    (an EventSource does so by itself, sending the last id back)."""

    permission_classes = [MemberOrPublicTopic]
    raises = (NotFound, Forbidden)

    @extend_schema(
        parameters=[LiveStreamQuery, LAST_EVENT_ID],
        responses={(200, "text/event-stream"): OpenApiTypes.STR},
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        query = _live_query(request.query_params, _LIVE_STREAM_QUERY_FIELDS)
        topic, since, seen = query["topic"], query.get("since"), _last_event_id(request)
        if seen is not None:
            since = seen if since is None else max(since, seen)
        answers = live.live_stream(topic=topic, since=since, user=request.user)
        retry = f"retry: {RECONNECT_MS}\n\n".encode()
        events = itertools.chain([retry], (_event(topic, answer) for answer in answers))
        response = StreamingHttpResponse(events, content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy in front passes each event at once
        return response

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[renderers.BaseRenderer, str]:
        """Errors in JSON, whatever the client accepts (an EventSource accepts only
        ``text/event-stream``); the stream is written here, not rendered."""
        return renderers.JSONRenderer(), "application/json"
