"""The analysis' pages, included at the site root by ``config.urls``."""

from django.urls import path

from analysis import views

urlpatterns = [
    path("play/<id:pk>/review/", views.match_review, name="match-review"),
]
