"""The matches app's paths, pages and API (``/api/matches/...``), included at the site root
by ``club.urls`` (after it registers the ``id`` and ``username`` converters)."""

from django.urls import path

from club.api_base import Operations
from matches import api, views

urlpatterns = [
    path("play/dice/", views.dice, name="play-dice"),
    path("play/settings/", views.play_settings, name="play-settings"),
    path("play/<id:pk>/", views.play_match, name="play-match"),
    path("play/<id:pk>/table/", views.play_table, name="play-table"),
    path("play/<id:pk>/accept/", views.play_answer, {"answer": "accept"}, name="play-accept"),
    path("play/<id:pk>/decline/", views.play_answer, {"answer": "decline"}, name="play-decline"),
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
    path(
        "api/matches/<id:pk>/export.txt",
        api.MatchTavliRecordView.as_view(),
        name="api-match-tavli-record",
    ),
    path("api/matches/<id:pk>/dice/", api.MatchDiceView.as_view(), name="api-match-dice"),
    path(
        "api/play-settings/",
        Operations(api.PlaySettingsView, api.PlaySettingsUpdateView),
        name="api-play-settings",
    ),
]
