"""The club's URLs: its pages, and its API paths (``api_patterns``, under ``/api/``) with
the live channel's first (each follower sends its request again after every answer)."""

from django.urls import URLPattern, URLResolver, path

from club import api, views
from web.api_base import Operations

api_patterns: list[URLPattern | URLResolver] = [
    path("live/", api.LiveView.as_view(), name="api-live"),
    path("live/stream/", api.LiveStreamView.as_view(), name="api-live-stream"),
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
]

urlpatterns: list[URLPattern | URLResolver] = [
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
]
