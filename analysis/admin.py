from django.contrib import admin

from analysis.models import MatchAnalysis


@admin.register(MatchAnalysis)
class MatchAnalysisAdmin(admin.ModelAdmin[MatchAnalysis]):
    list_display = ["match", "status", "progress", "plies", "engine", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["match", "status", "progress", "engine", "plies", "attempts", "error"]
