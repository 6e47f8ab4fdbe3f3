"""Chouette pages."""

from django.shortcuts import render


def chouettes(request):
    return render(request, "chouette/chouettes.html")
