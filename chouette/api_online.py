"""The online chouette's API (shared/API.md "Chouettes", online mode): the game's actions
under ``/api/chouettes/{id}/`` (``roll``, ``move``, ``double`` with ``"to"``, each
member's own ``take``, ``pass``, ``beaver``, each with ``{"turn_no"}``), starting the
next game, and consulting (H2): the team's proposals.

One view class per operation, thin: read the input, call a ``chouette.online`` service
or a selector, answer the chouette with its game (``ChouettePlayOutput``). The
conventions are docs/api.md's.
"""

from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_stubs_ext import StrOrPromise
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from chouette import online, selectors
from chouette.models import Chouette, Proposal
from club.api_base import UsernameField
from club.auth import member
from club.errors import Conflict, Forbidden, NotFound
from club.models import Player
from matches import api as matches_api
from matches.api import GAME_ERRORS, MoveInput, TurnInput

# Inputs -------------------------------------------------------------------------------


class DoubleInput(TurnInput):
    to = serializers.ListField(
        child=UsernameField(),
        required=False,
        min_length=1,
        max_length=16,
        help_text=gettext_lazy(
            "The box's double, multiple cubes: the team members it doubles (left out: every "
            "member still in the game whose cube it may double)."
        ),
    )


class AnswerInput(TurnInput):
    turn_no = serializers.IntegerField(
        min_value=0,
        help_text=gettext_lazy(
            "The turn number of the double being answered (the cube's offered_at)."
        ),
    )


class ProposalInput(TurnInput):
    kind = serializers.ChoiceField(choices=Proposal.Kind.choices)
    play = serializers.CharField(
        allow_blank=True,
        max_length=40,
        required=False,
        default="",
        help_text=gettext_lazy("For a play: the whole play in standard notation."),
    )


# Outputs ------------------------------------------------------------------------------


class CubeOutput(serializers.Serializer[dict[str, Any]]):
    value = serializers.IntegerField()
    owner = serializers.CharField(
        allow_null=True, help_text=gettext_lazy('null (centred), "box", or the member.')
    )
    state = serializers.ChoiceField(choices=["live", "offered", "passed"])
    offered_at = serializers.IntegerField(
        allow_null=True,
        help_text=gettext_lazy("The turn_no an answer to the offer on this cube carries."),
    )


class GameOutput(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField()
    turn_no = serializers.IntegerField(
        help_text=gettext_lazy("Send it back with the next action (a stale one is a 409).")
    )
    phase = serializers.ChoiceField(
        choices=["roll", "move", "take_or_pass", "resign_offered", "over"]
    )
    awaiting = serializers.ListField(
        child=serializers.CharField(),
        help_text=gettext_lazy(
            "Who must act now: the box or the captain to roll or move, each member who "
            "still owes an answer to a double (the box for the team's doubles)."
        ),
    )
    captain = serializers.CharField(
        allow_null=True, help_text=gettext_lazy("Who moves for the team now (H7).")
    )
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    position_id = serializers.CharField(
        help_text=gettext_lazy("GNU Backgammon's, from the view of the side on roll.")
    )
    legal_plays = serializers.ListField(child=serializers.CharField())
    cubes = serializers.DictField(child=CubeOutput())
    deadline = serializers.DateTimeField(allow_null=True)


class ChouettePlayOutput(serializers.Serializer[Chouette]):
    """An online chouette as ``selectors.chouette_online_detail`` reads it."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Chouette.Status.choices)
    box = serializers.CharField()
    captain = serializers.CharField()
    line = serializers.ListField(child=serializers.CharField())
    partner = serializers.CharField(allow_null=True)
    scores = serializers.DictField(child=serializers.IntegerField())
    games = serializers.IntegerField()
    version = serializers.IntegerField()
    topic = serializers.CharField(help_text=gettext_lazy("The live channel's topic."))
    game = GameOutput(allow_null=True)

    def to_representation(self, instance: Chouette) -> dict[str, Any]:
        body = selectors.chouette_online_detail(chouette=instance)
        shown: dict[str, Any] = super().to_representation(body)  # type: ignore[arg-type]  # the fields read the body
        return shown


class ProposalOutput(serializers.Serializer[Proposal]):
    player = serializers.CharField(source="player.username")
    kind = serializers.ChoiceField(choices=Proposal.Kind.choices)
    play = serializers.CharField()
    turn_no = serializers.IntegerField()
    at = serializers.DateTimeField()


# Views --------------------------------------------------------------------------------


def _chouette(pk: int) -> Chouette:
    return selectors.chouette_get(pk=pk)


def _player(user: User) -> Player:
    try:
        return user.player
    except Player.DoesNotExist:
        raise Forbidden(_("Only the club's players play chouettes.")) from None


def _answer(chouette: Chouette) -> Response:
    return Response(ChouettePlayOutput(selectors.chouette_get(pk=chouette.pk)).data)


class ChouetteActionView(APIView):
    """The base of each action at an online chouette's board: one subclass, one
    operation, each with its own input. The service checks who acts, the phase and the
    ``turn_no``."""

    action: str  # the path's last part: /api/chouettes/{id}/<action>/
    input_class: type[TurnInput] = TurnInput
    raises = GAME_ERRORS

    def post(self, request: Request, pk: int) -> Response:
        turn_no, values = self.input_class.read(request)
        chouette = online.chouette_act(
            chouette=_chouette(pk),
            player=_player(member(request.user)),
            act=self.action,
            turn_no=turn_no,
            **values,
        )
        return _answer(chouette)


def action_view(
    action: str, description: StrOrPromise, input_class: type[TurnInput] = TurnInput
) -> type[ChouetteActionView]:
    """The view class of one action at the board, documented in the schema."""
    return matches_api.action_view(
        action, description, input_class, base=ChouetteActionView, output=ChouettePlayOutput
    )


ACTION_VIEWS: tuple[type[ChouetteActionView], ...] = (
    action_view(
        "roll",
        gettext_lazy(
            "Roll: the box, or the captain for the team (H2); the captain's roll sends the "
            "team's doubles to the box first, when some wait."
        ),
    ),
    action_view(
        "move",
        gettext_lazy("Play the whole turn: the box, or the captain for the team (H2)."),
        MoveInput,
    ),
    action_view(
        "double",
        gettext_lazy(
            "Double before the roll: the box, to all or (multiple cubes) to the members "
            "in to; a member on the team's turn, on their own cube (H8), or their part of "
            "the team's unanimous double (one cube, H4)."
        ),
        DoubleInput,
    ),
    action_view(
        "take",
        gettext_lazy(
            "Take the double on your own cube (a member), or the next team double in line "
            "(the box, H10); turn_no is the double's."
        ),
        AnswerInput,
    ),
    action_view(
        "pass",
        gettext_lazy(
            "Pass the double on your own cube: you pay your stake before it and are out "
            "of this game (H5); the box passes the next team double in line."
        ),
        AnswerInput,
    ),
    action_view(
        "beaver",
        gettext_lazy("Take and redouble at once (C5: beavers on, multiple cubes for members)."),
        AnswerInput,
    ),
)


class ChouetteStartView(APIView):
    """Start the next online game (the first one too): the seating as it stands, the
    opening roll from the session's dice. Anyone seated, between games."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=None, responses={200: ChouettePlayOutput})
    def post(self, request: Request, pk: int) -> Response:
        chouette = online.chouette_game_start(
            chouette=_chouette(pk), by=_player(member(request.user))
        )
        return _answer(chouette)


class ProposalListView(APIView):
    """Consulting (H2): the team's proposals for the turn in play, for the team only."""

    raises = (NotFound, Forbidden)

    @extend_schema(responses={200: ProposalOutput(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        proposals = selectors.chouette_proposals(
            chouette=_chouette(pk), player=_player(member(request.user))
        )
        return Response([ProposalOutput(proposal).data for proposal in proposals])


class ProposalCreateView(APIView):
    """A team member proposes a play or a cube action to the captain (H2); the team
    alone sees it and the captain's choice stands."""

    raises = GAME_ERRORS

    @extend_schema(request=ProposalInput, responses={201: ProposalOutput})
    def post(self, request: Request, pk: int) -> Response:
        data = ProposalInput(data=request.data)
        data.is_valid(raise_exception=True)
        proposal = online.chouette_propose(
            chouette=_chouette(pk), player=_player(member(request.user)), **data.validated_data
        )
        return Response(ProposalOutput(proposal).data, status=201)
