"""The matches app's API paths (``/api/matches/...``, ``/api/play-settings/``), included
under /api/ by the project's URLconf."""

from django.urls import path

from club.api_base import Operations
from matches import api

urlpatterns = [
    path("matches/", Operations(api.MatchListView, api.MatchCreateView), name="api-matches"),
    path("matches/<id:pk>/", api.MatchDetailView.as_view(), name="api-match"),
    path("matches/<id:pk>/accept/", api.MatchAcceptView.as_view(), name="api-match-accept"),
    path("matches/<id:pk>/decline/", api.MatchDeclineView.as_view(), name="api-match-decline"),
    *api.action_urls(path_prefix="matches", name_prefix="api-match", views=api.ACTION_VIEWS),
    path("matches/<id:pk>/abandon/", api.MatchAbandonView.as_view(), name="api-match-abandon"),
    path("matches/<id:pk>/export.mat", api.MatchExportView.as_view(), name="api-match-export"),
    path(
        "matches/<id:pk>/export.txt",
        api.MatchTavliRecordView.as_view(),
        name="api-match-tavli-record",
    ),
    path("matches/<id:pk>/dice/", api.MatchDiceView.as_view(), name="api-match-dice"),
    path(
        "play-settings/",
        Operations(api.PlaySettingsView, api.PlaySettingsUpdateView),
        name="api-play-settings",
    ),
]
