"""The JSON API (spec section 4): submit work, poll for its result. Errors use the project's convention.

Served at /api/v1/ by django-ninja, which also writes the OpenAPI description at /api/v1/openapi.json.
"""
import logging
from datetime import timedelta
from typing import Literal

from django.conf import settings
from django.db.utils import OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from ninja import Field, NinjaAPI, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer

from lessons.services import Learner

from . import selectors, services
from .graders.result import structured_error
from .models import Submission

logger = logging.getLogger(__name__)


class BearerToken(HttpBearer):
    openapi_description = "A token from your account's API tokens page, or from `python manage.py api_token USERNAME`."

    def authenticate(self, request: HttpRequest, token: str):
        return services.api_token_authenticate(raw=token)


api = NinjaAPI(title="Recover Well grading API", version="1.0.0", urls_namespace="api",
               description="Submit error payloads and agent code for grading; poll for the result object.",
               auth=BearerToken(), docs_url=None)


# --- Schemas ----------------------------------------------------------------------------------

class ErrorOut(Schema):
    errorCategory: Literal["transient", "validation", "permission", "business"]
    isRetryable: bool
    retryAfterSeconds: int | None = None
    description: str
    field: str | None = None
    problems: list[str] | None = None


class SubmissionIn(Schema):
    exercise: str = Field(..., min_length=1, max_length=120, description="The exercise slug, e.g. order-db-timeout.")
    submission: str = Field(..., description="The submitted text: a CallToolResult as JSON, or Python code.")


class SubmissionAccepted(Schema):
    id: int
    status: Literal["queued", "running", "graded"]
    url: str


class CheckOut(Schema):
    id: str
    name: str
    status: Literal["pass", "fail"]
    points: float
    max_points: float
    message: str
    misconception: str | None


class ResultOut(Schema):
    exercise: str
    status: Literal["pass", "fail", "error"]
    score: float = Field(..., ge=0, le=1)
    checks: list[CheckOut]
    scenarios: list[dict]
    error: dict | None


class SubmissionOut(Schema):
    id: int
    exercise: str
    exercise_version: str
    status: Literal["queued", "running", "graded"]
    created_at: str
    graded_at: str | None
    url: str
    progress: dict | None = Field(None, description="While running, for code exercises: scenarios done and total.")
    result: ResultOut | None


class ExerciseOut(Schema):
    slug: str
    title: str
    kind: str
    summary: str


ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut, 429: ErrorOut, 503: ErrorOut}


# --- Errors in the project's convention ----------------------------------------------------------

def error_response(request: HttpRequest, status: int, description: str, *, category: str = "validation",
                   retry_after_seconds: int | None = None, **details) -> HttpResponse:
    body = structured_error(description, category=category, retry_after_seconds=retry_after_seconds, **details)
    response = api.create_response(request, body, status=status)
    if retry_after_seconds is not None:
        response["Retry-After"] = str(retry_after_seconds)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, exc):
    return error_response(request, 401, "Missing or invalid API token. Send 'Authorization: Bearer <token>'; create a "
                          "token on your account's API tokens page or with `python manage.py api_token USERNAME`.",
                          category="permission")


@api.exception_handler(ValidationError)
def _invalid(request, exc: ValidationError):
    problems = []
    for error in exc.errors:
        loc = [str(part) for part in error.get("loc", []) if part not in ("body", "payload")]
        problems.append(f"{'.'.join(loc) or 'body'}: {error.get('msg', 'is invalid')}")
    return error_response(request, 422, "The request body is not valid: " + "; ".join(problems[:5]) +
                          ". Send JSON like {\"exercise\": \"order-db-timeout\", \"submission\": \"...\"}.",
                          problems=problems)


@api.exception_handler(Http404)
def _not_found(request, exc):
    return error_response(request, 404, str(exc) or "Not found.")


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    if exc.status_code == 400:
        return error_response(request, 400, "The request body is not valid JSON. Send a JSON object with "
                              "'exercise' and 'submission'.")
    return error_response(request, exc.status_code, exc.message or "Request refused.")


@api.exception_handler(OperationalError)
def _database_busy(request, exc):
    logger.warning("API request failed on the database: %s", exc)
    return error_response(request, 503, "The grading service is busy and could not take the request. Nothing was "
                          "stored; retry the identical request after the given time.", category="transient",
                          retry_after_seconds=5)


@api.exception_handler(Exception)
def _unexpected(request, exc):
    logger.exception("API request failed")
    return error_response(request, 503, "The grading service failed on our side. Retry the identical request after "
                          "the given time; with an Idempotency-Key it will not be graded twice.",
                          category="transient", retry_after_seconds=30)


# --- Endpoints --------------------------------------------------------------------------------

def _submission_out(request: HttpRequest, submission: Submission) -> dict:
    return {
        "id": submission.pk, "exercise": submission.exercise.slug, "exercise_version": submission.exercise_version,
        "status": submission.state, "created_at": submission.created_at.isoformat(),
        "graded_at": submission.graded_at.isoformat() if submission.graded_at else None,
        "url": request.build_absolute_uri(f"/api/v1/submissions/{submission.pk}"),
        "progress": (submission.progress or None) if submission.state == Submission.RUNNING else None,
        "result": submission.result if submission.is_graded else None,
    }


def _rate_limit_wait(user) -> int | None:
    """Seconds until this user may submit again, or None when under the limit."""
    window_start = timezone.now() - timedelta(seconds=60)
    recent = list(Submission.objects.filter(user=user, created_at__gte=window_start)
                  .order_by("-created_at").values_list("created_at", flat=True)[:settings.API_SUBMISSIONS_PER_MINUTE])
    if len(recent) < settings.API_SUBMISSIONS_PER_MINUTE:
        return None
    oldest = recent[-1]
    return max(1, int((oldest + timedelta(seconds=60) - timezone.now()).total_seconds()) + 1)


@api.post("/submissions", response={202: SubmissionAccepted, **ERRORS}, summary="Submit work for grading")
def submission_create(request: HttpRequest, payload: SubmissionIn):
    """Stores the submission, queues its grading, and answers 202 with where to poll. Send an
    `Idempotency-Key` header to make retries safe: the same key and body return the same submission."""
    key = request.headers.get("Idempotency-Key", "")
    if len(key) > 200 or any(ord(c) < 32 for c in key):
        return error_response(request, 422, "Idempotency-Key must be at most 200 printable characters.",
                              field="Idempotency-Key")
    exercise = selectors.exercise_get_or_none(slug=payload.exercise)
    if exercise is None:
        known = ", ".join(e.slug for e in selectors.exercise_list())
        return error_response(request, 404, f"No exercise has the slug {payload.exercise!r}. Known exercises: {known}.",
                              field="exercise")
    learner = Learner(user=request.auth, learner_key="")
    if not (key and Submission.objects.filter(user=request.auth, idempotency_key=key).exists()):
        if (wait := _rate_limit_wait(request.auth)) is not None:
            return error_response(request, 429, f"Too many submissions: the limit is "
                                  f"{settings.API_SUBMISSIONS_PER_MINUTE} a minute. Retry after {wait} seconds.",
                                  category="transient", retry_after_seconds=wait)
    try:
        submission, _ = services.submission_create(learner=learner, exercise=exercise, text=payload.submission,
                                                   source="api", idempotency_key=key)
    except services.SubmissionRejected as rejected:
        response = api.create_response(request, rejected.error, status=rejected.http_status)
        return response
    return Status(202, {"id": submission.pk, "status": submission.state,
                 "url": request.build_absolute_uri(f"/api/v1/submissions/{submission.pk}")})


@api.get("/submissions/{submission_id}", response={200: SubmissionOut, **ERRORS}, summary="A submission and its result")
def submission_detail(request: HttpRequest, submission_id: int):
    """`status` is queued, running or graded; once graded, `result` holds the result object."""
    submission = selectors.submission_get_for_user(user=request.auth, pk=submission_id)
    if submission is None:
        return error_response(request, 404, f"You have no submission {submission_id}.")
    return Status(200, _submission_out(request, submission))


@api.get("/exercises", response={200: list[ExerciseOut], **ERRORS}, summary="Exercises that can be graded")
def exercise_index(request: HttpRequest):
    return Status(200, [{"slug": e.slug, "title": e.title, "kind": e.kind, "summary": e.summary}
                 for e in selectors.exercise_list()])
