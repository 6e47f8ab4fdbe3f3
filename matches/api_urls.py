"""The matches app's API paths (``/api/matches/...``, ``/api/play-settings/``), included
under /api/ by the project's URLconf."""

from django.urls import path

from club.api_base import Operations
from matches import api

urlpatterns = [
    path("matches/", Operations(api.MatchListView, api.MatchCreateView), name="api-matches"),
    path("matches/<id:pk>/", api.MatchDetailView.as_view(), name="api-match"),
    *api.table_urls(
        path_prefix="matches",
        name_prefix="api-match",
        views={
            "accept": api.MatchAcceptView,
            "decline": api.MatchDeclineView,
            **api.ACTION_VIEWS,
            "abandon": api.MatchAbandonView,
            "dice": api.MatchDiceView,
        },
    ),
    path("matches/<id:pk>/export.mat", api.MatchExportView.as_view(), name="api-match-export"),
    path(
        "matches/<id:pk>/export.txt",
        api.MatchTavliRecordView.as_view(),
        name="api-match-tavli-record",
    ),
    path(
        "play-settings/",
        Operations(api.PlaySettingsView, api.PlaySettingsUpdateView),
        name="api-play-settings",
    ),
]
