"""The matches app's paths, pages and API (``/api/matches/...``), included at the site root
by ``club.urls`` (after it registers the ``id`` and ``username`` converters)."""

from django.urls import path

from club.api_base import Operations
from matches import api, views

urlpatterns = [
    path("play/dice/", views.dice, name="play-dice"),
    path("api/matches/", Operations(api.MatchListView, api.MatchCreateView), name="api-matches"),
    path("api/matches/<id:pk>/", api.MatchDetailView.as_view(), name="api-match"),
    path("api/matches/<id:pk>/accept/", api.MatchAcceptView.as_view(), name="api-match-accept"),
    path("api/matches/<id:pk>/decline/", api.MatchDeclineView.as_view(), name="api-match-decline"),
    *(
        path(
            f"api/matches/<id:pk>/{view.action}/",
            view.as_view(),
            name=f"api-match-{view.action}",
        )
        for view in api.ACTION_VIEWS
    ),
    path("api/matches/<id:pk>/abandon/", api.MatchAbandonView.as_view(), name="api-match-abandon"),
    path("api/matches/<id:pk>/export.mat", api.MatchExportView.as_view(), name="api-match-export"),
    path("api/matches/<id:pk>/dice/", api.MatchDiceView.as_view(), name="api-match-dice"),
    path(
        "api/play-settings/",
        Operations(api.PlaySettingsView, api.PlaySettingsUpdateView),
        name="api-play-settings",
    ),
]
