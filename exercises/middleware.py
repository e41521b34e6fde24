"""Refuse oversized API bodies before anything reads them (413 in the project's error convention)."""
import json

from django.conf import settings
from django.http import HttpResponse

from .graders.result import structured_error


class ApiBodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/"):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > settings.API_MAX_BODY_BYTES:
                body = structured_error(
                    f"The request body is {length} bytes; the limit is {settings.API_MAX_BODY_BYTES}. Nothing was "
                    "stored. Submissions themselves may be at most 64 KiB.", limit=settings.API_MAX_BODY_BYTES)
                return HttpResponse(json.dumps(body), status=413, content_type="application/json")
        return self.get_response(request)
