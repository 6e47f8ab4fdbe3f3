"""The analysis' pages, included at the site root by ``config.urls``."""

from django.urls import path

from analysis import views

urlpatterns = [
    path("play/<id:pk>/review/", views.match_review, name="match-review"),
    path("play/import/", views.match_import, name="match-import"),
    path("play/imported/<id:pk>/review/", views.imported_review, name="imported-review"),
    path("chouettes/<id:pk>/review/", views.chouette_review, name="chouette-review"),
    path("analysis/<id:pk>/progress/", views.analysis_progress, name="analysis-progress"),
]
