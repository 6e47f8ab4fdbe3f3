"""The project's URLs: pages, the admin, the API and its schema."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from chouette import views as chouette_views
from club import api, views
from club.api_errors import api_not_found
from matches import views as matches_views

api_patterns = [
    path("auth/token/", api.TokenView.as_view(), name="api-token"),
    path("players/", api.PlayerListView.as_view(), name="api-players"),
    path("players/<str:username>/", api.PlayerDetailView.as_view(), name="api-player"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("players/", views.players, name="players"),
    path("ledger/", views.ledger, name="ledger"),
    path("play/", matches_views.play, name="play"),
    path("tournaments/", matches_views.tournaments, name="tournaments"),
    path("chouettes/", chouette_views.chouettes, name="chouettes"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
    re_path(r"^api/(?P<path>.*)$", api_not_found),
]
