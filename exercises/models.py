"""Graded work: exercises (from content files), submissions and their results, API tokens, and each
learner's live training-server instance with the calls it received."""
import hashlib

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from lessons.models import LearnerOwned
from lessons.taxonomy import CATEGORIES

EXERCISE_KINDS = {
    "payload": "Error payload",
    "payload-set": "Set of payloads",
    "agent-loop": "Agent loop (code)",
    "tool-server": "MCP tool server (code)",
}


class Exercise(models.Model):
    content_id = models.CharField(max_length=80, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    title = models.CharField(max_length=200)
    summary = models.CharField(max_length=400)
    kind = models.CharField(max_length=20, choices=EXERCISE_KINDS.items())
    category = models.CharField(max_length=20, choices=CATEGORIES.items(), blank=True)
    order = models.PositiveIntegerField(default=0)
    situation_html = models.TextField()
    starter = models.TextField(blank=True)
    rubric = models.JSONField()
    hints = models.JSONField(default=dict)  # misconception tag -> hint text
    source_path = models.CharField(max_length=300)
    content_hash = models.CharField(max_length=64)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["order", "title"]

    def __str__(self) -> str:
        return self.slug

    def get_absolute_url(self) -> str:
        return reverse("exercises:exercise-detail", kwargs={"slug": self.slug})

    @property
    def version(self) -> str:
        """Short id of the exercise's file contents: a submission records which version it was graded against."""
        return self.content_hash[:12]

    @property
    def editor_language(self) -> str:
        return "json" if self.kind.startswith("payload") else "python"


class Submission(LearnerOwned):
    QUEUED, RUNNING, GRADED = "queued", "running", "graded"
    STATES = {QUEUED: "Queued", RUNNING: "Grading", GRADED: "Graded"}
    SOURCES = {"web": "Web page", "api": "JSON API", "cli": "Command line"}

    exercise = models.ForeignKey(Exercise, on_delete=models.PROTECT, related_name="submissions")
    exercise_version = models.CharField(max_length=12)
    text = models.TextField()
    source = models.CharField(max_length=8, choices=SOURCES.items(), default="web")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    state = models.CharField(max_length=8, choices=STATES.items(), default=QUEUED, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    graded_at = models.DateTimeField(null=True, blank=True)
    grading_runs = models.PositiveIntegerField(default=0)
    # The queue job of the current grading run; the sweeper replaces it when a worker was lost mid-grade.
    task_id = models.CharField(max_length=64, blank=True)
    # While grading runs: {"done": 3, "total": 10, "scenario": "rate-limited"} (exercises that run code).
    progress = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=8, blank=True)  # pass | fail | error, once graded
    score = models.FloatField(null=True, blank=True)
    # An infrastructure error (the grader could not run) is not the learner's fault and costs no attempt.
    counts_as_attempt = models.BooleanField(default=True)
    idempotency_key = models.CharField(max_length=200, blank=True)
    request_fingerprint = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "idempotency_key"], condition=~Q(idempotency_key=""),
                                    name="one_submission_per_idempotency_key"),
        ]

    def __str__(self) -> str:
        return f"submission {self.pk} ({self.exercise.slug})"

    def get_absolute_url(self) -> str:
        return reverse("exercises:submission-detail", kwargs={"pk": self.pk})

    @property
    def is_graded(self) -> bool:
        return self.state == self.GRADED


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A Bearer token for the JSON API. Only its digest is stored; the token is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)  # shown in lists so a learner can tell tokens apart
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class TrainingInstance(models.Model):
    """A learner's own live training MCP server: its token, the failure modes they switched on, its calls.

    The token is derived (HMAC of a stored salt with the secret key), so it can be shown again on the
    Playground without being stored, and rotating the salt revokes it.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="training_instance")
    salt = models.CharField(max_length=32, unique=True)
    forced_modes = models.JSONField(default=dict)  # tool name -> failure mode
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"training instance of {self.user}"


class LiveCall(models.Model):
    """One tools/call a learner's client made to their live instance, as the server recorded it."""

    instance = models.ForeignKey(TrainingInstance, on_delete=models.CASCADE, related_name="calls")
    received_at = models.DateTimeField(default=timezone.now)
    tool = models.CharField(max_length=100)
    arguments = models.JSONField(null=True)
    outcome = models.CharField(max_length=20)
    category = models.CharField(max_length=20)
    structured_content = models.JSONField(null=True)
    text = models.TextField(blank=True)
    error = models.JSONField(null=True)
    protocol_version = models.CharField(max_length=20, blank=True)
    duration_ms = models.FloatField(default=0)

    class Meta:
        ordering = ["-id"]


class Regrade(models.Model):
    """Grading every submission of an exercise again after its rubric changed, in the background.

    Scores change only through a regrade; each submission's earlier result is kept as a GradingRecord."""

    QUEUED, RUNNING, DONE = "queued", "running", "done"
    STATES = {QUEUED: "Queued", RUNNING: "Regrading", DONE: "Done"}

    exercise = models.ForeignKey(Exercise, on_delete=models.CASCADE, related_name="regrades")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    to_version = models.CharField(max_length=12)
    state = models.CharField(max_length=8, choices=STATES.items(), default=QUEUED)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)  # submissions whose score moved
    task_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def get_absolute_url(self) -> str:
        return reverse("authoring:regrade-detail", kwargs={"pk": self.pk})

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


class GradingRecord(models.Model):
    """A result a submission had before a regrade replaced it."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="earlier_results")
    regrade = models.ForeignKey(Regrade, on_delete=models.CASCADE, related_name="records")
    exercise_version = models.CharField(max_length=12)
    result = models.JSONField(null=True)
    status = models.CharField(max_length=8, blank=True)
    score = models.FloatField(null=True)
    graded_at = models.DateTimeField(null=True)
    replaced_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-replaced_at", "-id"]
