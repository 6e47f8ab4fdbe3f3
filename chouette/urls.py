"""The chouettes' pages (the API's paths are in ``chouette.api_urls``)."""

from django.urls import path

from chouette import views

urlpatterns = [
    path("chouettes/", views.chouettes, name="chouettes"),
]
