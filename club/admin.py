"""The club in the admin: staff create and edit players here."""

from django.contrib import admin

from club.models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["display_name", "user", "joined_at"]
    search_fields = ["display_name", "user__username"]
    autocomplete_fields = ["user"]
