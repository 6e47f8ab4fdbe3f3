"""The online chouette's API paths (``chouette.api_online``), included under /api/ by the
project's URLconf next to the chouettes' other paths."""

from django.urls import path

from chouette import api_online
from matches.api import table_urls
from web.api_base import Operations

urlpatterns = [
    *table_urls(
        path_prefix="chouettes",
        name_prefix="api-chouette",
        views={**api_online.ACTION_VIEWS, "start": api_online.ChouetteStartView},
    ),
    path(
        "chouettes/<id:pk>/proposals/",
        Operations(api_online.ProposalListView, api_online.ProposalCreateView),
        name="api-chouette-proposals",
    ),
]
