"""Friendly error pages: a learner never sees a traceback."""
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "403.html", {"reason": str(exception or "")}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "500.html", status=500)
