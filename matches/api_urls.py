"""The matches app's API paths (``/api/matches/...``, ``/api/play-settings/``), included
under /api/ by the project's URLconf."""

from django.urls import path
from rest_framework.views import APIView

from matches import api
from web.api_base import Operations

# The views on one match (its board's actions among them), by the last part of their path.
MATCH_VIEWS: dict[str, type[APIView]] = {
    "accept": api.MatchAcceptView,
    "decline": api.MatchDeclineView,
    **api.ACTION_VIEWS,
    "abandon": api.MatchAbandonView,
    "dice": api.MatchDiceView,
}

urlpatterns = [
    path("matches/", Operations(api.MatchListView, api.MatchCreateView), name="api-matches"),
    path("matches/<id:pk>/", api.MatchDetailView.as_view(), name="api-match"),
    *api.table_urls(path_prefix="matches", name_prefix="api-match", views=MATCH_VIEWS),
    path("matches/<id:pk>/export.mat", api.MatchExportView.as_view(), name="api-match-export"),
    path(
        "matches/<id:pk>/export.txt",
        api.MatchTavliRecordView.as_view(),
        name="api-match-tavli-record",
    ),
    path("robots/", api.RobotListView.as_view(), name="api-robots"),
    path(
        "play-settings/",
        Operations(api.PlaySettingsView, api.PlaySettingsUpdateView),
        name="api-play-settings",
    ),
]
