"""The analysis API: ask for a finished match's analysis, read it (shared/API.md);
upload a match played elsewhere (a ``.mat`` file) to have it analysed."""

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis import selectors, services
from analysis.models import KINDS, MARKS, MatchAnalysis
from club.auth import member
from web.api_base import InputSerializer, UsernameField
from web.api_errors import BodyTooLarge
from web.api_parsers import MultiPartParser
from web.errors import Conflict, Forbidden, Invalid, NotFound


class PlayerFiguresOutput(serializers.Serializer[selectors.FiguresBody]):
    username = serializers.CharField()
    pr = serializers.FloatField(allow_null=True, help_text="500 x equity lost / decisions")
    checker_pr = serializers.FloatField(allow_null=True)
    cube_pr = serializers.FloatField(allow_null=True)
    decisions = serializers.IntegerField(help_text="Counted decisions (docs/analysis.md).")
    checker_decisions = serializers.IntegerField()
    cube_decisions = serializers.IntegerField()
    blunders = serializers.IntegerField()


class AnalysedDecisionOutput(serializers.Serializer[selectors.DecisionBody]):
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
    cube_of = serializers.CharField(
        allow_null=True,
        help_text="A chouette's cube decision: the member whose cube it is on; null otherwise.",
    )


class AnalysedGameOutput(serializers.Serializer[selectors.GameBody]):
    number = serializers.IntegerField()
    decisions = AnalysedDecisionOutput(many=True)


class AnalysisOutput(serializers.Serializer[selectors.AnalysisBody]):
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


class ChouetteAnalysedGameOutput(AnalysedGameOutput):
    status = serializers.ChoiceField(choices=MatchAnalysis.Status.choices)


class ChouetteAnalysisOutput(AnalysisOutput):
    games = ChouetteAnalysedGameOutput(many=True)  # each with its status


class MatchAnalysisView(APIView):
    """A match's analysis: its progress while it runs, then each player's figures and
    every decision judged."""

    raises = (NotFound,)

    @extend_schema(responses={200: AnalysisOutput})
    def get(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_for_match(match_id=pk)
        return Response(AnalysisOutput(selectors.analysis_detail(analysis)).data)


def _accepted(analysis: MatchAnalysis) -> Response:
    """202: the analysis asked for, as it stands (queued again, or done already)."""
    return Response(
        AnalysisOutput(selectors.analysis_detail(analysis)).data, status=status.HTTP_202_ACCEPTED
    )


class MatchAnalysisRequestView(APIView):
    """Ask for a finished match's analysis (a player of the match or staff); a match is
    analysed once, so asking again answers the analysis as it stands."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=None, responses={202: AnalysisOutput})
    def post(self, request: Request, pk: int) -> Response:
        services.analysis_request(match_id=pk, user=member(request.user))
        return _accepted(selectors.analysis_for_match(match_id=pk))


class MatchImportInput(InputSerializer):
    file = serializers.FileField(
        help_text=gettext_lazy(
            "The match as a .mat file (GNU Backgammon's or eXtreme Gammon's export), "
            "UTF-8 or Latin-1."
        )
    )
    player_1 = UsernameField(
        required=False,
        help_text=gettext_lazy(
            "The member who played as the file's first player (default: the member whose "
            "username the name is, else a guest)."
        ),
    )
    player_2 = UsernameField(
        required=False,
        help_text=gettext_lazy("The member who played as the file's second player."),
    )


class ImportedPlayerOutput(serializers.Serializer[selectors.ImportedPlayerBody]):
    name = serializers.CharField(help_text="The name in the file.")
    username = serializers.CharField(allow_null=True, help_text="The member; null: a guest.")


class ImportedMatchOutput(serializers.Serializer[selectors.ImportedBody]):
    id = serializers.IntegerField()
    length = serializers.IntegerField(help_text="Points (0: a money session).")
    games = serializers.IntegerField()
    played_on = serializers.DateField(allow_null=True)
    players = ImportedPlayerOutput(many=True)
    analysis = AnalysisOutput()


def _mat_text(upload: Any) -> str:
    """The uploaded file's text, within the size limit (``services.mat_text``)."""
    limit = settings.ANALYSIS_IMPORT_MAX_BYTES
    if upload.size > limit:
        raise BodyTooLarge(_("A .mat file is at most %(limit)d bytes.") % {"limit": limit})
    return services.mat_text(upload.read())


class MatchImportView(APIView):
    """Upload a match played elsewhere (a ``.mat`` file) to have it analysed like a
    finished match: a player of it (or staff) uploads it; it moves no rating."""

    parser_classes = [MultiPartParser]
    raises = (Invalid, Forbidden)

    @extend_schema(request=MatchImportInput, responses={201: ImportedMatchOutput})
    def post(self, request: Request) -> Response:
        given = MatchImportInput(data=request.data)
        given.is_valid(raise_exception=True)
        imported = services.imported_match_create(
            user=member(request.user),
            text=_mat_text(given.validated_data["file"]),
            player_1=given.validated_data.get("player_1"),
            player_2=given.validated_data.get("player_2"),
        )
        return Response(
            ImportedMatchOutput(selectors.imported_detail(imported)).data,
            status=status.HTTP_201_CREATED,
        )


class ImportedAnalysisView(APIView):
    """An imported match's analysis, in the same shape as a match's."""

    raises = (NotFound,)

    @extend_schema(responses={200: AnalysisOutput})
    def get(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_for_import(import_id=pk)
        return Response(AnalysisOutput(selectors.analysis_detail(analysis)).data)


class ImportedAnalysisRequestView(APIView):
    """Ask again for an imported match's analysis (the member who uploaded it, or staff):
    queued when it failed or was made at fewer plies, as a match's."""

    raises = (NotFound, Forbidden)

    @extend_schema(request=None, responses={202: AnalysisOutput})
    def post(self, request: Request, pk: int) -> Response:
        services.imported_analysis_request(import_id=pk, user=member(request.user))
        return _accepted(selectors.analysis_for_import(import_id=pk))


class ChouetteAnalysisView(APIView):
    """An online chouette's analysis, game by game: each game's decisions, and each
    player's figures over the session (every member's own cube PR among them)."""

    raises = (NotFound,)

    @extend_schema(responses={200: ChouetteAnalysisOutput})
    def get(self, request: Request, pk: int) -> Response:
        analyses = selectors.chouette_analyses(chouette_id=pk)
        return Response(ChouetteAnalysisOutput(selectors.chouette_analysis_detail(analyses)).data)


class ChouetteAnalysisRequestView(APIView):
    """Ask again for an online chouette's analysis (a player of it or staff): the games
    whose analysis failed or was made at fewer plies are queued again."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=None, responses={202: ChouetteAnalysisOutput})
    def post(self, request: Request, pk: int) -> Response:
        services.chouette_analysis_request(chouette_id=pk, user=member(request.user))
        analyses = selectors.chouette_analyses(chouette_id=pk)
        return Response(
            ChouetteAnalysisOutput(selectors.chouette_analysis_detail(analyses)).data,
            status=status.HTTP_202_ACCEPTED,
        )
