"""The club's pages: home, the health check, players, results and the books."""

from django.urls import URLPattern, URLResolver, path

from club import views

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
