"""Mixed pairings in the admin: the director chooses, pairing by pairing, which are
played online and which on a real board (a player without a device, a table on the big
board), before they are played.

**Tournaments → Pairings** lists the pairings waiting for their result (filters: the
tournament, the round, decided or not); the actions *Play on a board* (the online match
is called off if nobody has acted in it yet; the director then enters the result on the
round's page) and *Play online* (a match is created and started now). Each goes through
``tournaments.services``; a refusal is an error message and changes nothing.
"""

from typing import Any

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tournaments import services
from tournaments.models import Pairing
from web.errors import ServiceError


class DecidedFilter(admin.SimpleListFilter):
    """Waiting pairings by default: those are the ones the director can still move."""

    title = gettext_lazy("result")
    parameter_name = "decided"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [
            ("no", gettext_lazy("waiting")),
            ("yes", gettext_lazy("decided")),
            ("all", gettext_lazy("all")),
        ]

    def choices(self, changelist: Any) -> Any:
        for choice in super().choices(changelist):
            if choice["query_string"] != changelist.get_query_string(remove=[self.parameter_name]):
                yield choice

    def value(self) -> str:
        return super().value() or "no"

    def queryset(self, request: HttpRequest, queryset: QuerySet[Pairing]) -> QuerySet[Pairing]:
        if self.value() == "no":
            return queryset.filter(winner__isnull=True, second__isnull=False)
        if self.value() == "yes":
            return queryset.filter(winner__isnull=False)
        return queryset


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin[Pairing]):
    list_display = ["__str__", "tournament_shown", "round_shown", "label_shown", "played", "winner"]
    list_filter = [DecidedFilter, "round__tournament", "round__number"]
    list_select_related = ["round__tournament", "first__player", "second__player", "match"]
    search_fields = ["first__player__username", "second__player__username", "key"]
    actions = ["play_on_board", "play_online"]
    fields = ["round", "label_shown", "first", "second", "winner", "source"]
    readonly_fields = ["label_shown"]
    ordering = ["-round__tournament_id", "round__number", "bracket", "position"]

    @admin.display(description=gettext_lazy("tournament"), ordering="round__tournament__name")
    def tournament_shown(self, obj: Pairing) -> str:
        return str(obj.round.tournament)

    @admin.display(description=gettext_lazy("round"), ordering="round__number")
    def round_shown(self, obj: Pairing) -> int:
        return obj.round.number

    @admin.display(description=gettext_lazy("pairing"), ordering="key")
    def label_shown(self, obj: Pairing) -> str:
        """ "Round 1, match 3", never the formats' key (``main-1-3``)."""
        return obj.label

    @admin.display(description=gettext_lazy("where it is played"))
    def played(self, obj: Pairing) -> str:
        if obj.bye:
            return _("bye")
        if obj.match_id is None:
            return _("on a board")
        return format_html(
            '<a href="{}">{}</a>',
            reverse("play-match", args=[obj.match_id]),
            _("online: match %(id)s") % {"id": obj.match_id},
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        """The list's actions change pairings; a pairing's own page only shows it (its
        result is entered on its round's page)."""
        return obj is None and super().has_change_permission(request)

    def _apply(self, request: HttpRequest, queryset: QuerySet[Pairing], service: Any) -> int:
        moved = 0
        for pairing in queryset.select_related("round__tournament"):
            try:
                service(pairing=pairing)
            except ServiceError as error:
                self.message_user(request, str(error.message), messages.ERROR)
            else:
                moved += 1
        return moved

    @admin.action(description=gettext_lazy("Play on a board"), permissions=["change"])
    def play_on_board(self, request: HttpRequest, queryset: QuerySet[Pairing]) -> None:
        moved = self._apply(request, queryset, services.pairing_play_on_board)
        if moved:
            self.message_user(
                request,
                ngettext(
                    "%(count)s pairing is played on a board: enter its result on its round's page.",
                    "%(count)s pairings are played on a board: enter their results on their "
                    "round's page.",
                    moved,
                )
                % {"count": moved},
                messages.SUCCESS,
            )

    @admin.action(description=gettext_lazy("Play online"), permissions=["change"])
    def play_online(self, request: HttpRequest, queryset: QuerySet[Pairing]) -> None:
        moved = self._apply(request, queryset, services.pairing_play_online)
        if moved:
            self.message_user(
                request,
                ngettext(
                    "%(count)s pairing is played online: its match has started.",
                    "%(count)s pairings are played online: their matches have started.",
                    moved,
                )
                % {"count": moved},
                messages.SUCCESS,
            )
