"""Read-only admin pages for matches, tables and the action log: nothing there can
change a game or its log (the services do), and the server seed is never shown."""

from typing import Any

from django.contrib import admin

from club.admin import ReadOnly
from matches.models import Action, Match, PlaySettings, Seat, Table


@admin.register(Match)
class MatchAdmin(ReadOnly, admin.ModelAdmin[Match]):
    list_display = ("id", "creator", "opponent", "length", "rated", "status", "winner", "ended_by")
    list_filter = ("status", "rated", "ended_by")
    search_fields = ("creator__user__username", "opponent__user__username")
    exclude = ("server_seed",)


class SeatInline(ReadOnly, admin.TabularInline[Seat, Any]):
    model = Seat
    extra = 0


@admin.register(Table)
class TableAdmin(ReadOnly, admin.ModelAdmin[Table]):
    list_display = ("id", "status", "game_number", "turn_no", "phase", "deadline", "version")
    list_filter = ("status", "phase")
    inlines = [SeatInline]


@admin.register(Action)
class ActionAdmin(ReadOnly, admin.ModelAdmin[Action]):
    list_display = ("table", "game_number", "seq", "turn_no", "kind", "actor", "by_server", "at")
    list_filter = ("kind", "by_server")


@admin.register(PlaySettings)
class PlaySettingsAdmin(admin.ModelAdmin[PlaySettings]):
    list_display = (
        "player", "auto_roll", "auto_play_forced", "auto_bear_off", "home_board", "switch_sides"
    )  # fmt: skip
