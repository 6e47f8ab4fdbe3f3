"""The chouettes' pages (the API's paths are in ``chouette.api_urls``)."""

from django.urls import path

from chouette import views

urlpatterns = [
    path("chouettes/", views.chouettes, name="chouettes"),
    path("chouettes/<id:pk>/", views.chouette, name="chouette"),
    path("chouettes/<id:pk>/play/", views.chouette_play, name="chouette-play"),
    path("chouettes/<id:pk>/play/board/", views.chouette_play_board, name="chouette-play-board"),
    path("chouettes/<id:pk>/record/", views.chouette_record, name="chouette-record"),
    *(
        path(
            f"chouettes/<id:pk>/{action}/",
            views.chouette_act,
            {"action": action},
            name=f"chouette-{action}",
        )
        for action in views.ACTIONS
    ),
]
