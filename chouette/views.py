"""Chouette pages."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def chouettes(request: HttpRequest) -> HttpResponse:
    return render(request, "chouette/chouettes.html")
