"""The club's API: auth tokens and players. Thin: validate, call a service, serialize."""

from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.views import APIView

from club import selectors, services
from club.errors import Invalid


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
        "rating": 1500.0,
        "experience": 0,
        "balance": "0.00",
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
