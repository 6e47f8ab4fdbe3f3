"""The project's URLs: pages, the admin, the API and its schema."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from club import api, views
from club.api_base import Operations
from club.api_errors import api_not_found
from club.names import IdConverter, UsernameConverter
from matches import views as matches_views
from tournaments import api as tournaments_api
from tournaments import views as tournaments_views

# Every app's paths name rows by <id:...> and players by <username:...>.
register_converter(IdConverter, "id")
register_converter(UsernameConverter, "username")

# The API's most frequent requests first: the live channel's (each follower sends it
# again after every answer), then the matches' (a move...). No two paths here overlap.
api_patterns: list[URLPattern | URLResolver] = [
    path("live/", api.LiveView.as_view(), name="api-live"),
    path("live/stream/", api.LiveStreamView.as_view(), name="api-live-stream"),
    path("", include("matches.api_urls")),
    path("", include("analysis.api_urls")),
    path("auth/token/", api.TokenCreateView.as_view(), name="api-token"),
    path("players/", api.PlayerCreateView.as_view(), name="api-players"),
    path("players/<username:username>/", api.PlayerDetailView.as_view(), name="api-player"),
    path(
        "players/<username:username>/ledger/",
        api.PlayerLedgerView.as_view(),
        name="api-player-ledger",
    ),
    path(
        "players/<username:username>/ratings/",
        api.PlayerRatingsView.as_view(),
        name="api-player-ratings",
    ),
    path("results/", Operations(api.ResultListView, api.ResultCreateView), name="api-results"),
    path("results/<id:pk>/", api.ResultDetailView.as_view(), name="api-result"),
    path("leaderboard/", api.LeaderboardView.as_view(), name="api-leaderboard"),
    path("ledger/payments/", api.PaymentCreateView.as_view(), name="api-ledger-payments"),
    path("ledger/trial-balance/", api.TrialBalanceView.as_view(), name="api-ledger-trial-balance"),
    path("ledger/settle-up/", api.SettleUpView.as_view(), name="api-ledger-settle-up"),
    path("tournaments/", tournaments_api.TournamentListView.as_view(), name="api-tournaments"),
    path(
        "tournaments/<id:pk>/",
        tournaments_api.TournamentDetailView.as_view(),
        name="api-tournament",
    ),
    path("", include("chouette.api_urls")),
    path("", include("chouette.api_online_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

# The API first: its requests (the live channel's above all) are resolved without trying
# every page's path; no page's path starts with api/, so no URL changes its meaning.
urlpatterns = [
    path("api/", include(api_patterns)),
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("players/", views.players, name="players"),
    path("players/<username:username>/", views.player, name="player"),
    path("players/<username:username>/statement/", views.statement, name="player-statement"),
    path(
        "players/<username:username>/statement.csv",
        views.statement_csv,
        name="player-statement-csv",
    ),
    path("results/", views.results, name="results"),
    path("ledger/", views.ledger, name="ledger"),
    path("ledger/trial-balance/", views.trial_balance, name="ledger-trial-balance"),
    path("ledger/settle-up/", views.settle_up, name="ledger-settle-up"),
    path("play/", matches_views.play, name="play"),
    path("tournaments/", tournaments_views.tournaments, name="tournaments"),
    path("tournaments/<id:pk>/", tournaments_views.tournament, name="tournament"),
    path(
        "tournaments/<id:pk>/enter/",
        tournaments_views.tournament_enter,
        name="tournament-enter",
    ),
    path("", include("chouette.urls")),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("", include("matches.urls")),
    # Whatever else starts with api/ (a newline in the path included).
    re_path(r"^api/", api_not_found),
]
