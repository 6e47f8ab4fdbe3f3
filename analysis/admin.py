from django.contrib import admin

from analysis.models import ImportedMatch, MatchAnalysis


@admin.register(MatchAnalysis)
class MatchAnalysisAdmin(admin.ModelAdmin[MatchAnalysis]):
    list_display = ["match", "imported", "status", "progress", "plies", "engine", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [
        "match",
        "imported",
        "status",
        "progress",
        "engine",
        "plies",
        "attempts",
        "error",
    ]


@admin.register(ImportedMatch)
class ImportedMatchAdmin(admin.ModelAdmin[ImportedMatch]):
    list_display = ["name_1", "name_2", "length", "games", "uploaded_by", "uploaded_at"]
    readonly_fields = [
        "uploaded_by",
        "text",
        "length",
        "name_1",
        "name_2",
        "player_1",
        "player_2",
        "games",
        "played_on",
    ]
