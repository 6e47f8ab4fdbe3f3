"""The matches app's pages, included at the site root by ``config.urls`` (after it registers
the ``id`` and ``username`` converters); its API paths are ``matches.api_urls``."""

from django.urls import path

from matches import views

urlpatterns = [
    path("play/dice/", views.dice, name="play-dice"),
    path("play/settings/", views.play_settings, name="play-settings"),
    path("play/<id:pk>/", views.play_match, name="play-match"),
    path("play/<id:pk>/table/", views.play_table, name="play-table"),
    path("play/<id:pk>/accept/", views.play_answer, {"answer": "accept"}, name="play-accept"),
    path("play/<id:pk>/decline/", views.play_answer, {"answer": "decline"}, name="play-decline"),
]
