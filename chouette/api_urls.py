"""The chouettes' API paths, included under /api/ by the project's URLconf."""

from django.urls import path

from chouette import api
from matches.api import table_urls
from web.api_base import Operations

# The views on one session, by the last part of their path.
SESSION_VIEWS = {
    "games/undo": api.GameUndoView,
    "join": api.JoinView,
    "leave": api.LeaveView,
    "close": api.CloseView,
    "dice": api.DiceView,
}

urlpatterns = [
    path(
        "chouettes/",
        Operations(api.ChouetteListView, api.ChouetteCreateView),
        name="api-chouettes",
    ),
    path("chouettes/<id:pk>/", api.ChouetteDetailView.as_view(), name="api-chouette"),
    path(
        "chouettes/<id:pk>/games/",
        Operations(api.GameListView, api.GameRecordView),
        name="api-chouette-games",
    ),
    *table_urls(path_prefix="chouettes", name_prefix="api-chouette", views=SESSION_VIEWS),
]
