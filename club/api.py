"""The club's API: auth tokens, players, results and ratings, the ledger.

Thin: validate, call a service or a selector, serialize.
"""

from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.views import APIView

from club import selectors, services
from club.errors import Forbidden, Invalid
from club.models import CLUB, MatchResult


class TokenInput(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()


class TokenView(APIView):
    """Exchange a username and password for an API token."""

    authentication_classes = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(request=TokenInput, responses={200: TokenOutput})
    def post(self, request):
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, **data.validated_data)
        if user is None:
            raise Invalid(_("Wrong username or password."))
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class PlayerInput(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{1,150}$")
    password = serializers.CharField(min_length=4, trim_whitespace=False)
    display_name = serializers.CharField(max_length=80, required=False, allow_blank=True)


class PlayerOutput(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    rating = serializers.FloatField()
    experience = serializers.IntegerField()
    balance = serializers.DecimalField(max_digits=12, decimal_places=2)


def player_summary(player) -> dict:
    """The public card of a player (``GET /api/players/{username}/``)."""
    return {
        "username": player.username,
        "display_name": player.display_name,
        "rating": player.rating,
        "experience": player.experience,
        "balance": selectors.player_balance(player=player),
    }


class PlayerListView(APIView):
    """Staff create players."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=PlayerInput, responses={201: PlayerOutput})
    def post(self, request):
        data = PlayerInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_create(**data.validated_data)
        return Response(PlayerOutput(player_summary(player)).data, status=status.HTTP_201_CREATED)


class PlayerDetailView(APIView):
    @extend_schema(responses={200: PlayerOutput})
    def get(self, request, username):
        player = selectors.player_get(username=username)
        return Response(PlayerOutput(player_summary(player)).data)


# The ledger ---------------------------------------------------------------------------

MONEY = {"max_digits": 14, "decimal_places": 2}
AT_PARAMETER = OpenApiParameter(
    "at",
    OpenApiTypes.DATE,
    description=gettext_lazy(
        "A date (YYYY-MM-DD): the books as they stood at the end of that day."
    ),
)


def _date_param(request):
    """The optional ``?at=YYYY-MM-DD`` of a ledger request."""
    raw = request.query_params.get("at")
    if not raw:
        return None
    field = serializers.DateField()
    try:
        return field.to_internal_value(raw)
    except serializers.ValidationError:
        raise Invalid(_("at: %(value)s is not a date (YYYY-MM-DD).") % {"value": raw}) from None


def ledger_visible_check(user, player) -> None:
    """A player's ledger is for the player themself and the club's staff."""
    if not (user.is_staff or getattr(getattr(user, "player", None), "pk", None) == player.pk):
        raise Forbidden(
            _("Only %(username)s and the club's staff see this ledger.")
            % {"username": player.username}
        )


class LedgerEntryOutput(serializers.Serializer):
    at = serializers.DateTimeField()
    amount = serializers.DecimalField(**MONEY)
    memo = serializers.CharField()
    transaction = serializers.IntegerField()
    kind = serializers.CharField()
    running_balance = serializers.DecimalField(**MONEY, source="balance")


class PlayerLedgerOutput(serializers.Serializer):
    balance = serializers.DecimalField(**MONEY)
    entries = LedgerEntryOutput(many=True)


class PlayerLedgerView(APIView):
    """A player's ledger, oldest entry first (the player themself or staff)."""

    @extend_schema(parameters=[AT_PARAMETER], responses={200: PlayerLedgerOutput})
    def get(self, request, username):
        player = selectors.player_get(username=username)
        ledger_visible_check(request.user, player)
        on = _date_param(request)
        entries = selectors.player_statement(player=player, on=on)
        balance = selectors.player_balance(player=player, on=on)
        return Response(PlayerLedgerOutput({"balance": balance, "entries": entries}).data)


class PaymentInput(serializers.Serializer):
    payer = serializers.CharField(
        # Translators: "club" is a value of the API: keep it untranslated, in quotes.
        help_text=gettext_lazy('A username, or "club" for the club\'s cash.')
    )
    payee = serializers.CharField(
        help_text=gettext_lazy('A username, or "club" for the club\'s cash.')
    )
    amount = serializers.DecimalField(
        **MONEY, help_text=gettext_lazy('Positive, two places: "12.50".')
    )
    memo = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class PaymentOutput(serializers.Serializer):
    transaction = serializers.IntegerField(source="pk")
    at = serializers.DateTimeField()
    payer = serializers.CharField()
    payee = serializers.CharField()
    amount = serializers.DecimalField(**MONEY)
    memo = serializers.CharField()


class PaymentView(APIView):
    """Staff record cash changing hands: the payer's balance rises by the amount, the
    payee's falls by it. ``"club"`` names the club's cash account."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=PaymentInput, responses={201: PaymentOutput})
    def post(self, request):
        data = PaymentInput(data=request.data)
        data.is_valid(raise_exception=True)
        payer = selectors.party_get(name=data.validated_data["payer"])
        payee = selectors.party_get(name=data.validated_data["payee"])
        posted = services.payment_record(
            payer=payer,
            payee=payee,
            amount=data.validated_data["amount"],
            memo=data.validated_data["memo"],
            posted_by=request.user,
        )
        body = {
            "pk": posted.pk,
            "at": posted.at,
            "payer": data.validated_data["payer"],
            "payee": data.validated_data["payee"],
            "amount": posted.legs.get(amount__gt=0).amount,
            "memo": posted.memo,
        }
        return Response(PaymentOutput(body).data, status=status.HTTP_201_CREATED)


class TrialBalanceRowOutput(serializers.Serializer):
    account = serializers.IntegerField()
    kind = serializers.CharField()
    name = serializers.CharField()
    username = serializers.CharField(allow_null=True)
    balance = serializers.DecimalField(**MONEY)


class TrialBalanceOutput(serializers.Serializer):
    accounts = TrialBalanceRowOutput(many=True)
    total = serializers.DecimalField(**MONEY)


class TrialBalanceView(APIView):
    """Every account of the books with its balance; the total is always zero (staff)."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(parameters=[AT_PARAMETER], responses={200: TrialBalanceOutput})
    def get(self, request):
        books = selectors.trial_balance(on=_date_param(request))
        rows = [
            {
                "account": account.pk,
                "kind": account.kind,
                "name": str(account),
                "username": account.player.username if account.player_id else None,
                "balance": balance,
            }
            for account, balance in books.rows
        ]
        return Response(TrialBalanceOutput({"accounts": rows, "total": books.total}).data)


class SettleUpPaymentOutput(serializers.Serializer):
    payer = serializers.CharField()
    payee = serializers.CharField()
    amount = serializers.DecimalField(**MONEY)


class SettleUpView(APIView):
    """The fewest payments that would bring every balance to zero (staff)."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(responses={200: SettleUpPaymentOutput(many=True)})
    def get(self, request):
        def name(party):
            return CLUB if party == CLUB else party.username

        payments = [
            {"payer": name(t.payer), "payee": name(t.payee), "amount": t.amount}
            for t in selectors.settle_up_payments()
        ]
        return Response(SettleUpPaymentOutput(payments, many=True).data)


# Results and ratings ------------------------------------------------------------------


class ResultInput(serializers.Serializer):
    winner = serializers.CharField()
    loser = serializers.CharField()
    length = serializers.IntegerField(min_value=1, max_value=services.MAX_MATCH_LENGTH)
    rated = serializers.BooleanField(default=True)
    ended_by = serializers.ChoiceField(
        choices=MatchResult.EndedBy.choices,
        default=MatchResult.EndedBy.PLAYED,
        help_text=gettext_lazy("A match lost on time or abandoned counts as a loss for the loser."),
    )
    played_at = serializers.DateTimeField(required=False)


class ResultOutput(serializers.Serializer):
    id = serializers.IntegerField()
    winner = serializers.CharField()
    loser = serializers.CharField()
    length = serializers.IntegerField()
    rated = serializers.BooleanField()
    ended_by = serializers.CharField()
    played_at = serializers.DateTimeField()
    rating_changes = serializers.DictField(child=serializers.FloatField())


def result_summary(result) -> dict:
    return {
        "id": result.pk,
        "winner": result.winner.username,
        "loser": result.loser.username,
        "length": result.length,
        "rated": result.rated,
        "ended_by": result.ended_by,
        "played_at": result.played_at,
        "rating_changes": selectors.result_rating_changes(result=result),
    }


class ResultListView(APIView):
    """Match results: any member lists them (newest first), staff record them."""

    def get_permissions(self):
        if self.request.method == "POST":
            return [permissions.IsAdminUser()]
        return super().get_permissions()

    @extend_schema(
        parameters=[
            OpenApiParameter("player", str, description=gettext_lazy("Only this player's results."))
        ],
        responses={200: ResultOutput(many=True)},
    )
    def get(self, request):
        player = request.query_params.get("player")
        player = selectors.player_get(username=player) if player else None
        results = selectors.results_list(player=player).prefetch_related(
            "rating_changes__player__user"
        )[:200]
        return Response(ResultOutput([result_summary(r) for r in results], many=True).data)

    @extend_schema(request=ResultInput, responses={201: ResultOutput})
    def post(self, request):
        data = ResultInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        result = services.match_result_record(
            winner=selectors.player_get(username=values["winner"]),
            loser=selectors.player_get(username=values["loser"]),
            length=values["length"],
            rated=values["rated"],
            ended_by=values["ended_by"],
            played_at=values.get("played_at"),
            recorded_by=request.user,
        )
        return Response(ResultOutput(result_summary(result)).data, status=status.HTTP_201_CREATED)


class ResultDetailView(APIView):
    @extend_schema(responses={200: ResultOutput})
    def get(self, request, pk):
        result = selectors.result_get(pk=pk)
        return Response(ResultOutput(result_summary(result)).data)


class RatingHistoryEntryOutput(serializers.Serializer):
    at = serializers.DateTimeField(source="result.played_at")
    rating = serializers.FloatField(source="rating_after")
    change = serializers.FloatField()
    result = serializers.IntegerField(source="result_id")


class RatingsOutput(serializers.Serializer):
    rating = serializers.FloatField()
    experience = serializers.IntegerField()
    history = RatingHistoryEntryOutput(many=True)


class PlayerRatingsView(APIView):
    """A player's rating, experience and every rating change, oldest first."""

    @extend_schema(responses={200: RatingsOutput})
    def get(self, request, username):
        player = selectors.player_get(username=username)
        body = {
            "rating": player.rating,
            "experience": player.experience,
            "history": selectors.rating_history(player=player),
        }
        return Response(RatingsOutput(body).data)


class LeaderboardEntryOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    rating = serializers.FloatField()
    experience = serializers.IntegerField()


class LeaderboardView(APIView):
    """Every player, best rating first."""

    @extend_schema(responses={200: LeaderboardEntryOutput(many=True)})
    def get(self, request):
        rows = [
            {
                "rank": rank,
                "username": player.username,
                "display_name": player.display_name,
                "rating": player.rating,
                "experience": player.experience,
            }
            for rank, player in enumerate(selectors.leaderboard(), start=1)
        ]
        return Response(LeaderboardEntryOutput(rows, many=True).data)
