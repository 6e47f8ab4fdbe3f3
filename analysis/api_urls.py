"""The analysis API's paths, included under /api/ by the project's URLconf."""

from django.urls import path

from analysis import api
from web.api_base import Operations

urlpatterns = [
    path(
        "matches/<id:pk>/analysis/",
        Operations(api.MatchAnalysisView, api.MatchAnalysisRequestView),
        name="api-match-analysis",
    ),
    path(
        "chouettes/<id:pk>/analysis/",
        Operations(api.ChouetteAnalysisView, api.ChouetteAnalysisRequestView),
        name="api-chouette-analysis",
    ),
    path("matches/import/", api.MatchImportView.as_view(), name="api-match-import"),
    path(
        "matches/import/<id:pk>/analysis/",
        Operations(api.ImportedAnalysisView, api.ImportedAnalysisRequestView),
        name="api-imported-analysis",
    ),
]
