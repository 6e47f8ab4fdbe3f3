"""Chouettes in the admin: read-only sessions, memberships and games (the games are
append-only: an undo is a reversing game, recorded from the scorekeeper's form or the
API); staff close sessions with an action, which settles them through the service."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from chouette import services
from chouette.models import Chouette, ChouetteGame, GamePoints, Membership
from club.admin import ReadOnly, act_on_each
from club.auth import member


class MembershipInline(ReadOnly, admin.TabularInline[Membership, Chouette]):
    model = Membership
    fields = readonly_fields = ("player", "joined_at", "left_at", "settlement")
    extra = 0
    can_delete = False


class GameInline(ReadOnly, admin.TabularInline[ChouetteGame, Chouette]):
    model = ChouetteGame
    fields = readonly_fields = ("number", "record", "undoes", "recorded_by", "recorded_at")
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Chouette)
class ChouetteAdmin(ReadOnly, admin.ModelAdmin[Chouette]):
    list_display = ["id", "status", "mode", "stake", "cube", "recorded_by", "recorded_at"]
    list_filter = ["status", "mode", "cube"]
    inlines = [MembershipInline, GameInline]
    fields = readonly_fields = (
        "status",
        "mode",
        "stake",
        "cube",
        "jacoby",
        "beavers",
        "same_action",
        "automatic_doubles",
        "cube_max",
        "box_keeps",
        "partner_from",
        "turn_time",
        "no_answer",
        "consulting",
        "seats",
        "version",
        "dice_commitment",
        "client_seed",
        "throws",
        "recorded_by",
        "recorded_at",
        "closed_at",
        "settlement",
    )
    actions = ["close_selected"]

    @admin.action(description=_("Close the selected chouettes and settle them"))
    def close_selected(self, request: HttpRequest, queryset: QuerySet[Chouette]) -> None:
        act_on_each(
            self,
            request,
            queryset.order_by("id"),
            lambda chouette: services.chouette_close(chouette=chouette, by=member(request.user)),
            lambda done: (
                ngettext("%(count)d chouette closed.", "%(count)d chouettes closed.", done)
                % {"count": done}
            ),
        )


class PointsInline(ReadOnly, admin.TabularInline[GamePoints, ChouetteGame]):
    model = GamePoints
    fields = readonly_fields = ("player", "points")
    extra = 0
    can_delete = False


@admin.register(ChouetteGame)
class ChouetteGameAdmin(ReadOnly, admin.ModelAdmin[ChouetteGame]):
    list_display = ["chouette", "number", "undoes", "recorded_by", "recorded_at"]
    list_filter = ["chouette__status"]
    inlines = [PointsInline]
    fields = readonly_fields = (
        "chouette",
        "number",
        "record",
        "seats_before",
        "seats_after",
        "undoes",
        "recorded_by",
        "recorded_at",
        "source_type",
        "source_id",
    )
