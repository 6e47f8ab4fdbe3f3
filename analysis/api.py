"""The analysis API: ask for a finished match's analysis, read it (shared/API.md)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis import selectors, services
from analysis.models import KINDS, MARKS, MatchAnalysis
from club.auth import member
from web.errors import Conflict, Forbidden, NotFound


class PlayerFiguresOutput(serializers.Serializer[selectors.PlayerFigures]):
    username = serializers.CharField()
    pr = serializers.FloatField(allow_null=True, help_text="500 x equity lost / decisions")
    checker_pr = serializers.FloatField(allow_null=True)
    cube_pr = serializers.FloatField(allow_null=True)
    decisions = serializers.IntegerField(help_text="Counted decisions (docs/analysis.md).")
    checker_decisions = serializers.IntegerField()
    cube_decisions = serializers.IntegerField()
    blunders = serializers.IntegerField()


class AnalysedDecisionOutput(serializers.Serializer[selectors.AnalysedDecision]):
    move_number = serializers.IntegerField(help_text="The game's roll, the opening roll 1.")
    player = serializers.CharField()
    kind = serializers.ChoiceField(choices=KINDS)
    played = serializers.CharField()
    best = serializers.CharField()
    equity_loss = serializers.FloatField()
    mark = serializers.ChoiceField(choices=MARKS[1:], allow_null=True)
    played_equity = serializers.FloatField()
    best_equity = serializers.FloatField()
    counted = serializers.BooleanField()


class AnalysedGameOutput(serializers.Serializer[selectors.AnalysedGame]):
    number = serializers.IntegerField()
    decisions = AnalysedDecisionOutput(many=True)


class AnalysisOutput(serializers.Serializer[selectors.AnalysisDetail]):
    status = serializers.ChoiceField(choices=MatchAnalysis.Status.choices)
    progress = serializers.FloatField(min_value=0.0, max_value=1.0)
    engine = serializers.CharField(
        allow_blank=True, help_text="The engine and its version; empty until done."
    )
    plies = serializers.IntegerField(help_text="GNU Backgammon's numbering: 0, the network.")
    error = serializers.CharField(
        allow_blank=True, help_text="Why the analysis failed; empty otherwise."
    )
    players = PlayerFiguresOutput(many=True)
    games = AnalysedGameOutput(many=True)


class MatchAnalysisView(APIView):
    """A match's analysis: its progress while it runs, then each player's figures and
    every decision judged."""

    raises = (NotFound,)

    @extend_schema(responses={200: AnalysisOutput})
    def get(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_for_match(match_id=pk)
        return Response(AnalysisOutput(selectors.analysis_detail(analysis)).data)


class MatchAnalysisRequestView(APIView):
    """Ask for a finished match's analysis (a player of the match or staff); a match is
    analysed once, so asking again answers the analysis as it stands."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=None, responses={202: AnalysisOutput})
    def post(self, request: Request, pk: int) -> Response:
        services.analysis_request(match_id=pk, user=member(request.user))
        analysis = selectors.analysis_for_match(match_id=pk)
        return Response(
            AnalysisOutput(selectors.analysis_detail(analysis)).data,
            status=status.HTTP_202_ACCEPTED,
        )
