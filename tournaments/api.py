"""The tournaments' API: ``GET /api/tournaments/`` and ``GET /api/tournaments/{id}/``.

Read only: tournaments are run from the admin. Thin views over ``tournaments.selectors``
(the pattern of docs/api.md).
"""

from collections.abc import Mapping
from typing import Any, cast

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import APISettings
from rest_framework.views import APIView

from tournaments import selectors
from tournaments.models import FormatChoice, Pairing, Round, Tournament
from web.api_base import choice_filter


class TournamentOutput(serializers.Serializer[Tournament]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=FormatChoice.choices)
    status = serializers.ChoiceField(choices=Tournament.Status.choices)


class PairingOutput(serializers.Serializer[Pairing]):
    players = serializers.SerializerMethodField(
        help_text=gettext_lazy("The two players' usernames; one for a bye.")
    )
    match = serializers.IntegerField(
        source="match_id",
        allow_null=True,
        help_text=gettext_lazy("The online match's id; null for a match on a real board."),
    )
    winner = serializers.SerializerMethodField()
    pairing = serializers.CharField(
        source="key", help_text=gettext_lazy("<bracket>-<bracket round>-<position>.")
    )
    bracket = serializers.CharField()

    def get_players(self, pairing: Pairing) -> list[str]:
        return [entry.player.username for entry in pairing.entries]

    def get_winner(self, pairing: Pairing) -> str | None:
        return None if pairing.winner is None else pairing.winner.player.username


class RoundOutput(serializers.Serializer[Round]):
    number = serializers.IntegerField()
    length = serializers.IntegerField()
    pairings = PairingOutput(many=True, source="pairings.all")


class StandingOutput(serializers.Serializer[Any]):
    place = serializers.CharField(
        allow_null=True,
        help_text=gettext_lazy(
            'A place, "3-4" when shared; null in an elimination still being played.'
        ),
    )
    player = serializers.CharField(source="entry.player.username")
    score = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    buchholz = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Swiss and round robin; null in an elimination.")
    )


class TournamentDetailOutput(TournamentOutput):
    rounds = RoundOutput(many=True, source="rounds.all")
    standings = serializers.SerializerMethodField()

    @extend_schema_field(StandingOutput(many=True))
    def get_standings(self, tournament: Tournament) -> list[Mapping[str, object]]:
        lines = selectors.tournament_standings(tournament=tournament)
        return list(StandingOutput(lines, many=True).data)


class TournamentFilter(filters.FilterSet):
    status = choice_filter(
        choices=Tournament.Status.choices, label=gettext_lazy("Only tournaments in this status.")
    )
    format = choice_filter(
        choices=FormatChoice.choices, label=gettext_lazy("Only tournaments of this format.")
    )


class FormatIsAFilter(DefaultContentNegotiation):
    """``?format=`` filters the list by the tournament's format (shared/API.md); it does
    not choose DRF's renderer here (the answer is JSON, as everywhere)."""

    settings = cast(Any, APISettings(user_settings=cast(Any, {"URL_FORMAT_OVERRIDE": None})))


class TournamentListView(generics.ListAPIView[Tournament]):
    """Tournaments, newest first (any member)."""

    serializer_class = TournamentOutput
    content_negotiation_class = FormatIsAFilter
    filterset_class = TournamentFilter

    def get_queryset(self) -> QuerySet[Tournament]:
        return selectors.tournament_list()


class TournamentDetailView(APIView):
    """A tournament with its rounds, their pairings and the standings."""

    @extend_schema(responses={200: TournamentDetailOutput})
    def get(self, request: Request, pk: int) -> Response:
        return Response(TournamentDetailOutput(selectors.tournament_get(pk=pk)).data)
