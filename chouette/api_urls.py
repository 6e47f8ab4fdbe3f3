"""The chouettes' API paths, included under /api/ by the project's URLconf."""

from django.urls import path

from chouette import api
from web.api_base import Operations

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
    path(
        "chouettes/<id:pk>/games/undo/",
        api.GameUndoView.as_view(),
        name="api-chouette-games-undo",
    ),
    path("chouettes/<id:pk>/join/", api.JoinView.as_view(), name="api-chouette-join"),
    path("chouettes/<id:pk>/leave/", api.LeaveView.as_view(), name="api-chouette-leave"),
    path("chouettes/<id:pk>/close/", api.CloseView.as_view(), name="api-chouette-close"),
    path("chouettes/<id:pk>/dice/", api.DiceView.as_view(), name="api-chouette-dice"),
]
