"""The online chouette's API (shared/API.md "Chouettes", online mode): the game's actions
under ``/api/chouettes/{id}/`` (``roll``, ``move``, ``double`` with ``"to"``, each
member's own ``take``, ``pass``, ``beaver``, each with ``{"turn_no"}``), starting the
next game, and consulting (H2): the team's proposals.

One view class per operation, thin: read the input, call a ``chouette.online`` service
or a selector, answer the chouette with its game as ``GET /api/chouettes/{id}/`` does
(``chouette.api.ChouetteOutput``). The conventions are docs/api.md's.
"""

from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from chouette import online, selectors
from chouette.api import ChouetteOutput, chouette_card
from chouette.models import Chouette, Proposal
from club.auth import member
from club.models import Player
from matches.api import (
    GAME_ERRORS,
    ActionSpec,
    MoveInput,
    ResignInput,
    TurnInput,
    action_views,
    created,
    input_values,
    player_of,
)
from web import live
from web.api_base import UsernameField
from web.errors import Conflict, Forbidden, NotFound

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
            "The turn number of the offer being answered (the cube's or the resignation's "
            "offered_at)."
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


class ProposalOutput(serializers.Serializer[Proposal]):
    player = serializers.CharField(source="player.username")
    kind = serializers.ChoiceField(choices=Proposal.Kind.choices)
    play = serializers.CharField()
    turn_no = serializers.IntegerField()
    at = serializers.DateTimeField()


# Views --------------------------------------------------------------------------------


def _chouette(pk: int) -> Chouette:
    """The session of the path, unread: the service reads and locks it (or answers
    ``NotFound``), so an action reads it once."""
    return Chouette(pk=pk)


# Who plays a chouette is a club player; anyone else is refused with this.
PLAYERS_ONLY = gettext_lazy("Only the club's players play chouettes.")


def _player(user: User) -> Player:
    return player_of(user, refusal=PLAYERS_ONLY)


def _answer(chouette: Chouette) -> Response:
    """The session as the service left it (its table and standing on it): no read after
    the commit; handed to the live channel too, so no web process reads it again for the
    session's followers."""
    body = ChouetteOutput(chouette_card(chouette)).data
    live.state_share(topic=body["topic"], version=body["version"], state=body)
    return Response(body)


def _chouette_act(
    *, pk: int, player: Player, action: str, turn_no: int, values: dict[str, Any]
) -> Response:
    """A member's action in the session's online game (``chouette_act``)."""
    return _answer(
        online.chouette_act(
            chouette=_chouette(pk), player=player, act=action, turn_no=turn_no, **values
        )
    )


ACTION_VIEWS = action_views(
    owner="Chouette",
    act=_chouette_act,
    output=ChouetteOutput,
    refusal=PLAYERS_ONLY,
    actions=(
        ActionSpec(
            "roll",
            gettext_lazy(
                "Roll: the box, or the captain for the team (H2); the captain's roll sends the "
                "team's doubles to the box first, when some wait."
            ),
        ),
        ActionSpec(
            "move",
            gettext_lazy("Play the whole turn: the box, or the captain for the team (H2)."),
            MoveInput,
        ),
        ActionSpec(
            "double",
            gettext_lazy(
                "Double before the roll: the box, to all or (multiple cubes) to the members "
                "in to; a member on the team's turn, on their own cube (H8), or their part of "
                "the team's unanimous double (one cube, H4)."
            ),
            DoubleInput,
        ),
        ActionSpec(
            "take",
            gettext_lazy(
                "Take the double on your own cube (a member), or the next team double in line "
                "(the box, H10); turn_no is the double's."
            ),
            AnswerInput,
        ),
        ActionSpec(
            "pass",
            gettext_lazy(
                "Pass the double on your own cube: you pay your stake before it and are out "
                "of this game (H5); the box passes the next team double in line."
            ),
            AnswerInput,
        ),
        ActionSpec(
            "beaver",
            gettext_lazy("Take and redouble at once (C5: beavers on, multiple cubes for members)."),
            AnswerInput,
        ),
        ActionSpec(
            "resign",
            gettext_lazy(
                "Offer to resign a single, a gammon or a backgammon a cube (S4), on your side's "
                "turn: the box to every member still in the game, each answering for their own "
                "contract; the captain for the team (H2), the box answering each contract in "
                "line order."
            ),
            ResignInput,
        ),
        ActionSpec(
            "accept_resign",
            gettext_lazy(
                "Accept the resignation offered to you: a member for their own contract, the "
                "box for the team's next contract in line; that contract is settled (S4). "
                "turn_no is the offer's."
            ),
            AnswerInput,
        ),
        ActionSpec(
            "reject_resign",
            gettext_lazy(
                "Reject the resignation offered to you (a member: for your own contract; the "
                "box: for the team's next contract in line), which plays on (S4). turn_no is "
                "the offer's."
            ),
            AnswerInput,
        ),
    ),
)


class ChouetteStartView(APIView):
    """Start the next online game (the first one too): the seating as it stands, the
    opening roll from the session's dice. Anyone seated, between games."""

    raises = (NotFound, Forbidden, Conflict)

    @extend_schema(request=None, responses={200: ChouetteOutput})
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
            chouette=selectors.chouette_get(pk=pk), player=_player(member(request.user))
        )
        return Response([ProposalOutput(proposal).data for proposal in proposals])


class ProposalCreateView(APIView):
    """A team member proposes a play or a cube action to the captain (H2); the team
    alone sees it and the captain's choice stands."""

    raises = GAME_ERRORS

    @extend_schema(request=ProposalInput, responses={201: ProposalOutput})
    def post(self, request: Request, pk: int) -> Response:
        values = input_values(ProposalInput, request)
        proposal = online.chouette_propose(
            chouette=_chouette(pk), player=_player(member(request.user)), **values
        )
        return created(ProposalOutput(proposal).data)
