"""The matches app's paths, pages and API (``/api/matches/...``), included at the site root
by ``club.urls`` (after it registers the ``id`` and ``username`` converters)."""

from django.urls import path

from matches import views

urlpatterns = [
    path("play/dice/", views.dice, name="play-dice"),
]
