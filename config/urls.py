"""The project's URLs: every app's pages and API paths, the admin and the API's schema."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView

from club import urls as club_urls
from matches import views as matches_views
from tournaments import api as tournaments_api
from tournaments import views as tournament_pages
from web import api_docs
from web.api_errors import api_not_found

# The API's most frequent requests first: the live channel's (each follower sends it
# again after every answer; the club's API paths begin with them), then the matches' (a
# move...). No two paths here overlap, so their order only saves time.
api_patterns: list[URLPattern | URLResolver] = [
    path("", include(club_urls.api_patterns)),
    path("", include("matches.api_urls")),
    path("", include("analysis.api_urls")),
    path("tournaments/", tournaments_api.TournamentListView.as_view(), name="api-tournaments"),
    path(
        "tournaments/<id:pk>/",
        tournaments_api.TournamentDetailView.as_view(),
        name="api-tournament",
    ),
    path("", include("chouette.api_urls")),
    path("", include("chouette.api_online_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI with no inline script or style (docs/operations.md, "Headers").
    path("docs/", api_docs.api_docs, name="api-docs"),
]

# Under /api/, what escaped a middleware answers JSON (web.api_errors).
handler500 = "web.api_errors.server_error"

# The API first: its requests (the live channel's above all) are resolved without trying
# every page's path; no page's path starts with api/, so no URL changes its meaning.
urlpatterns = [
    path("api/", include(api_patterns)),
    path("", include(club_urls.urlpatterns)),
    path("play/", matches_views.play, name="play"),
    path("tournaments/", tournament_pages.tournaments, name="tournaments"),
    path("tournaments/<id:pk>/", tournament_pages.tournament, name="tournament"),
    path("tournaments/<id:pk>/enter/", tournament_pages.tournament_enter, name="tournament-enter"),
    path("", include("chouette.urls")),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("", include("matches.urls")),
    path("", include("analysis.urls")),
    # Whatever else starts with api/ (a newline in the path included).
    re_path(r"^api/", api_not_found),
]
