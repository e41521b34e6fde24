"""Writes for graded work: syncing exercise files, submissions and their grading, API tokens, and the
learners' live training-server instances."""
import hashlib
import hmac
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, models, transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from lessons.services import (
    Learner, SyncReport, content_row_write, file_rows, sync_browser_clashes, sync_needs_write, sync_park_renamed_slugs, sync_record,
    sync_retire_missing,
)

from .content_files import ExerciseBundle
from .graders import grade
from .graders.parsing import MAX_SUBMISSION_BYTES
from .graders.result import infrastructure_error, structured_error
from .models import (
    ApiToken, Exercise, GradingRecord, LiveCall, Regrade, Submission, TrainingInstance, token_digest,
)

logger = logging.getLogger(__name__)


# --- Exercise files ---------------------------------------------------------------------------

EXERCISE_FIELDS = ("slug", "title", "summary", "kind", "category", "order", "situation_html", "starter", "rubric",
                   "hints", "source_path", "content_hash")


def exercise_write(*, row: Exercise | None, item) -> Exercise:
    """Save an exercise row from its parsed file (an ExerciseFile), new or existing, and make it live."""
    return content_row_write(model=Exercise, row=row, item=item, fields=EXERCISE_FIELDS)


def exercise_sync(*, bundle: ExerciseBundle, report: SyncReport) -> None:
    """Upsert exercises by stable id (the bundle has been checked); missing files retire their exercise.
    Exercises authored in the browser are left alone, and a file may not take their id or slug."""
    existing = file_rows(Exercise)
    sync_park_renamed_slugs(Exercise, items=bundle.exercises, existing=existing)
    seen = set()
    for item in bundle.exercises:
        seen.add(item.content_id)
        row = existing.get(item.content_id)
        changed = sync_needs_write(row, item)  # the slug is in the file, so a rename changes its hash
        sync_record(report, f"exercise {item.content_id}", row is None, changed)
        if changed:
            exercise_write(row=row, item=item)
    sync_retire_missing(existing, seen, "exercise", report)


def exercise_browser_clashes(*, bundle: ExerciseBundle) -> list:
    return sync_browser_clashes(Exercise, bundle.exercises, ("content_id", "slug"))


# --- Submissions ------------------------------------------------------------------------------

class SubmissionRejected(Exception):
    """The submission cannot be stored; `error` is in the project's convention, `http_status` for the API."""

    def __init__(self, error: dict[str, Any], http_status: int):
        super().__init__(error["description"])
        self.error, self.http_status = error, http_status


def submission_text_problem(text: Any) -> SubmissionRejected | None:
    if not isinstance(text, str):
        return SubmissionRejected(structured_error(
            "The submission must be text (a JSON string holding your payload or code).", field="submission"), 422)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SUBMISSION_BYTES:
        return SubmissionRejected(structured_error(
            f"The submission is {size} bytes; the limit is {MAX_SUBMISSION_BYTES}. Nothing was stored.",
            field="submission", limit=MAX_SUBMISSION_BYTES, received=size), 413)
    if "\x00" in text:
        return SubmissionRejected(structured_error(
            "The submission contains a NUL character (\\u0000), which cannot be stored. Remove it and submit again.",
            field="submission"), 422)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return SubmissionRejected(structured_error(
            "The submission contains an unpaired UTF-16 surrogate (such as \\ud800), which is not valid Unicode "
            "text. Remove it and submit again.", field="submission"), 422)
    return None


def submission_fingerprint(*, exercise_slug: str, text: str) -> str:
    return hashlib.sha256(f"{exercise_slug}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def submission_create(*, learner: Learner, exercise: Exercise, text: str, source: str = "web",
                      idempotency_key: str = "") -> tuple[Submission, bool]:
    """Store the submission and enqueue its grading in one transaction; returns (submission, created).

    With an idempotency key, a repeat of the same request returns the first submission; the same key with a
    different body is refused, so a retried request never grades twice and never grades the wrong thing.
    """
    if (problem := submission_text_problem(text)) is not None:
        raise problem
    fingerprint = submission_fingerprint(exercise_slug=exercise.slug, text=text)
    if idempotency_key:
        if (earlier := _idempotent_match(learner, idempotency_key, fingerprint)) is not None:
            return earlier, False
    from .tasks import grade_submission_task  # the task module imports this one

    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                user=learner.user, learner_key=learner.learner_key, exercise=exercise,
                exercise_version=exercise.version, text=text, source=source, idempotency_key=idempotency_key,
                request_fingerprint=fingerprint,
            )
            submission.task_id = str(grade_submission_task.enqueue(submission.pk).id)
            submission.save(update_fields=["task_id"])
    except IntegrityError:
        if idempotency_key and (earlier := _idempotent_match(learner, idempotency_key, fingerprint)) is not None:
            return earlier, False  # a concurrent request with the same key won the race
        raise
    return submission, True


def _idempotent_match(learner: Learner, key: str, fingerprint: str) -> Submission | None:
    earlier = Submission.objects.filter(**learner.owner_filter(), idempotency_key=key).first()
    if earlier is None:
        return None
    if earlier.request_fingerprint != fingerprint:
        raise SubmissionRejected(structured_error(
            "This Idempotency-Key was already used for a different submission. Use a new key for new content; "
            "reuse a key only to retry the identical request.", field="Idempotency-Key"), 422)
    return earlier


def exercise_grade_text(*, exercise: Exercise, text: str, on_progress=None) -> dict[str, Any]:
    """Grade text against an exercise; a grader fault becomes an infrastructure error, never an exception."""
    try:
        return grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=text,
                     on_progress=on_progress)
    except Exception:
        logger.exception("grader crashed on exercise %s", exercise.slug)
        return infrastructure_error(exercise.slug, "The grader failed on our side. Your submission is kept and "
                                                   "costs no attempt; it can be graded again shortly.")


PROGRESS_WRITE_INTERVAL_SECONDS = 0.2


def submission_grade(*, submission_id: int) -> Submission:
    """Grade a stored submission once. Running it again for a graded submission changes nothing.

    Each grading run is numbered; only the run that is still current may write the final result, so a worker
    presumed lost (and replaced by the sweeper) that comes back late cannot overwrite it or grade twice.
    """
    with transaction.atomic():
        submission = Submission.objects.select_for_update().select_related("exercise").get(pk=submission_id)
        if submission.state == Submission.GRADED:
            return submission
        submission.state, submission.started_at = Submission.RUNNING, timezone.now()
        submission.grading_runs += 1
        submission.progress = {}
        submission.save(update_fields=["state", "started_at", "grading_runs", "progress"])
    this_run = Submission.objects.filter(pk=submission.pk, state=Submission.RUNNING,
                                         grading_runs=submission.grading_runs)
    result = exercise_grade_text(exercise=submission.exercise, text=submission.text,
                                 on_progress=_progress_writer(this_run))
    infrastructure = result["status"] == "error" and result["error"].get("errorCategory") == "transient"
    updated = this_run.update(
        state=Submission.GRADED, graded_at=timezone.now(), result=result, status=result["status"],
        score=result["score"], counts_as_attempt=not infrastructure, progress={},
    )
    if not updated:
        logger.info("submission %s was finalised by another grading run", submission.pk)
    submission.refresh_from_db()
    return submission


def _progress_writer(this_run):
    """A progress callback for the grader, throttled. The grader calls it from its own event loop, where Django's
    ORM may not run, so each write happens on a short-lived thread with its own connection."""
    last_write = 0.0

    def write(progress: dict[str, Any]) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write < PROGRESS_WRITE_INTERVAL_SECONDS:
            return
        last_write = now

        def update() -> None:
            try:
                this_run.update(progress=progress)
            except DatabaseError as error:  # progress is a courtesy: a busy database must not stop grading
                logger.warning("could not record grading progress: %s", error)
            finally:
                connection.close()
        writer = threading.Thread(target=update, daemon=True)
        writer.start()
        writer.join(timeout=5)
    return write


@dataclass
class SweepReport:
    jobs_failed: int = 0
    requeued: list[int] = field(default_factory=list)
    given_up: list[int] = field(default_factory=list)


def submissions_sweep_stale(*, now=None) -> SweepReport:
    """Recover gradings whose worker was lost (killed mid-grade, machine gone).

    django-tasks-db leaves such a job RUNNING for ever; it is marked failed here. Its submission is queued
    again with a new job, or, after GRADING_MAX_RUNS lost runs, finalised with an infrastructure error that
    costs no attempt. Every change is conditional on the state it saw, so any number of workers may sweep.
    """
    from .tasks import grade_submission_task

    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.GRADING_STALE_AFTER_SECONDS)
    report = SweepReport()
    report.jobs_failed = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, started_at__lt=cutoff).update(
        status=TaskResultStatus.FAILED, finished_at=now, exception_class_path="exercises.services.WorkerLost",
        traceback=f"The worker running this job stopped answering; swept at {now.isoformat()}.")
    stale = Submission.objects.filter(state=Submission.RUNNING, started_at__lt=cutoff).select_related("exercise")
    live_jobs = DBTaskResult.objects.filter(status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING])
    orphaned = (Submission.objects.filter(state=Submission.QUEUED, created_at__lt=cutoff)
                .exclude(task_id__in=[str(pk) for pk in live_jobs.values_list("id", flat=True)]))
    for submission in [*stale, *orphaned]:
        same = Submission.objects.filter(pk=submission.pk, state=submission.state,
                                         grading_runs=submission.grading_runs)
        if submission.grading_runs >= settings.GRADING_MAX_RUNS:
            result = infrastructure_error(submission.exercise.slug, (
                f"Grading was interrupted {submission.grading_runs} times on our side (a grading worker stopped). "
                "Your submission is kept and costs no attempt; submit it again in a minute."), retry_after_seconds=60)
            if same.update(state=Submission.GRADED, graded_at=now, result=result, status="error", score=0.0,
                           counts_as_attempt=False, progress={}):
                report.given_up.append(submission.pk)
            continue
        with transaction.atomic():
            if same.update(state=Submission.QUEUED, progress={}):
                job = grade_submission_task.enqueue(submission.pk)
                Submission.objects.filter(pk=submission.pk).update(task_id=str(job.id))
                report.requeued.append(submission.pk)
    if report.jobs_failed or report.requeued or report.given_up:
        logger.warning("grading sweep: %s lost job(s) failed, submissions requeued %s, given up %s",
                       report.jobs_failed, report.requeued, report.given_up)
    return report


# --- Regrades -----------------------------------------------------------------------------------

def regrade_candidates(*, exercise: Exercise):
    """Graded submissions whose result was reached against an earlier version of the exercise."""
    return Submission.objects.filter(exercise=exercise, state=Submission.GRADED).exclude(
        exercise_version=exercise.version)


def regrade_start(*, exercise: Exercise, user) -> Regrade:
    """Queue a regrade of every submission graded against an earlier version; one runs at a time per exercise."""
    from .tasks import regrade_task

    with transaction.atomic():
        running = exercise.regrades.exclude(state=Regrade.DONE).first()
        if running is not None:
            return running
        regrade = Regrade.objects.create(exercise=exercise, requested_by=user, to_version=exercise.version,
                                         total=regrade_candidates(exercise=exercise).count())
        regrade.task_id = str(regrade_task.enqueue(regrade.pk).id)
        regrade.save(update_fields=["task_id"])
    return regrade


def regrade_run(*, regrade_id: int) -> Regrade:
    """Grade each candidate again with the current rubric. The earlier result is kept as a GradingRecord and
    the new one replaces it in the same transaction; progress is counted after each submission."""
    regrade = Regrade.objects.select_related("exercise").get(pk=regrade_id)
    if regrade.state == Regrade.DONE:
        return regrade
    exercise = regrade.exercise
    Regrade.objects.filter(pk=regrade.pk).update(state=Regrade.RUNNING)
    for submission_id in list(regrade_candidates(exercise=exercise).values_list("pk", flat=True)):
        submission = Submission.objects.get(pk=submission_id)
        result = exercise_grade_text(exercise=exercise, text=submission.text)
        if result["status"] == "error" and result["error"].get("errorCategory") == "transient":
            logger.warning("regrade %s: grader unavailable for submission %s; kept its result", regrade.pk,
                           submission.pk)
            Regrade.objects.filter(pk=regrade.pk).update(done=models.F("done") + 1)
            continue
        with transaction.atomic():
            current = Submission.objects.select_for_update().get(pk=submission.pk)
            moved = False
            if current.exercise_version != regrade.to_version:
                GradingRecord.objects.create(
                    submission=current, regrade=regrade, exercise_version=current.exercise_version,
                    result=current.result, status=current.status, score=current.score, graded_at=current.graded_at)
                moved = current.score != result["score"]
                Submission.objects.filter(pk=current.pk).update(
                    result=result, status=result["status"], score=result["score"],
                    exercise_version=regrade.to_version, graded_at=timezone.now())
            Regrade.objects.filter(pk=regrade.pk).update(done=models.F("done") + 1,
                                                         changed=models.F("changed") + int(moved))
    Regrade.objects.filter(pk=regrade.pk).update(state=Regrade.DONE, finished_at=timezone.now())
    regrade.refresh_from_db()
    return regrade


# --- API tokens -------------------------------------------------------------------------------

def api_token_create(*, user, name: str = "API token") -> tuple[ApiToken, str]:
    """A new token for `user`; the raw token is returned once and only its digest is kept."""
    raw = "rw_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name[:100] or "API token", prefix=raw[:10],
                                    digest=token_digest(raw))
    return token, raw


def api_token_revoke(*, user, token_id: int) -> bool:
    return bool(ApiToken.objects.filter(user=user, pk=token_id, revoked_at=None).update(revoked_at=timezone.now()))


def api_token_authenticate(*, raw: str):
    """The user a Bearer token belongs to, or None."""
    if not raw or len(raw) > 200:
        return None
    token = ApiToken.objects.select_related("user").filter(digest=token_digest(raw), revoked_at=None).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user


# --- Live training-server instances ------------------------------------------------------------

TOKEN_PREFIX = "mcp_"


def _instance_signature(salt: str) -> str:
    key = settings.SECRET_KEY.encode("utf-8")
    return hmac.new(key, f"training-instance:{salt}".encode(), hashlib.sha256).hexdigest()[:32]


def instance_token(instance: TrainingInstance) -> str:
    return f"{TOKEN_PREFIX}{instance.salt}_{_instance_signature(instance.salt)}"


def training_instance_for(*, user) -> TrainingInstance:
    instance, _ = TrainingInstance.objects.get_or_create(user=user, defaults={"salt": secrets.token_hex(8)})
    return instance


def training_instance_rotate_token(*, instance: TrainingInstance) -> TrainingInstance:
    instance.salt = secrets.token_hex(8)
    instance.save(update_fields=["salt"])
    return instance


def training_instance_set_mode(*, instance: TrainingInstance, tool: str, mode: str) -> None:
    from .mcp_server.tools import TOOLS

    if tool not in TOOLS or mode not in TOOLS[tool].failure_modes:
        raise ValueError(f"{mode!r} is not a failure mode of {tool!r}")
    modes = dict(instance.forced_modes)
    if mode == "none":
        modes.pop(tool, None)
    else:
        modes[tool] = mode
    instance.forced_modes = modes
    instance.save(update_fields=["forced_modes"])


@dataclass(frozen=True)
class ParsedInstanceToken:
    salt: str
    signature: str


def instance_token_parse(raw: str) -> ParsedInstanceToken | None:
    """Check a token's shape and signature without touching the database."""
    if not isinstance(raw, str) or not raw.startswith(TOKEN_PREFIX) or len(raw) > 100:
        return None
    salt, _, signature = raw[len(TOKEN_PREFIX):].partition("_")
    if not salt or not hmac.compare_digest(signature, _instance_signature(salt)):
        return None
    return ParsedInstanceToken(salt, signature)


def live_call_record(*, instance_id: int, entry: dict[str, Any]) -> LiveCall:
    return LiveCall.objects.create(
        instance_id=instance_id, tool=entry["tool"][:100], arguments=entry["arguments"], outcome=entry["outcome"],
        category=entry["category"], structured_content=entry["structuredContent"], text=(entry["text"] or "")[:20000],
        error=entry["error"], protocol_version=entry["protocolVersion"], duration_ms=entry["durationMs"],
    )


def live_calls_clear(*, instance: TrainingInstance) -> int:
    return instance.calls.all().delete()[0]
