"""Reads for graded work. Ownership is checked here: another learner's submission is a 404."""
from dataclasses import dataclass

from django.db.models import Count, Max, Q
from django.http import Http404
from django.shortcuts import get_object_or_404

from lessons.services import Learner

from .models import ApiToken, Exercise, LiveCall, Submission, TrainingInstance


def exercise_list() -> list[Exercise]:
    return list(Exercise.objects.filter(is_active=True))


def exercise_get(*, slug: str) -> Exercise:
    return get_object_or_404(Exercise, slug=slug, is_active=True)


def exercise_get_or_none(*, slug: str) -> Exercise | None:
    return Exercise.objects.filter(slug=slug, is_active=True).first()


@dataclass(frozen=True)
class ExerciseProgress:
    attempts: int
    best_score: float | None
    passed: bool


def exercise_progress(*, learner: Learner) -> dict[int, ExerciseProgress]:
    """Attempts and best score per exercise id (infrastructure errors cost no attempt)."""
    rows = (Submission.objects.filter(**learner.owner_filter(), counts_as_attempt=True)
            .values("exercise_id")
            .annotate(attempts=Count("id"), best=Max("score", filter=Q(state=Submission.GRADED))))
    return {r["exercise_id"]: ExerciseProgress(r["attempts"], r["best"], r["best"] == 1.0) for r in rows}


def submission_history(*, learner: Learner, exercise: Exercise, limit: int = 20) -> list[Submission]:
    return list(Submission.objects.filter(**learner.owner_filter(), exercise=exercise)
                .defer("text", "result")[:limit])


def submission_get_for_learner(*, learner: Learner, pk: int) -> Submission:
    submission = Submission.objects.select_related("exercise").filter(pk=pk, **learner.owner_filter()).first()
    if submission is None:
        raise Http404("No such submission.")
    return submission


def submission_get_for_viewer(*, learner: Learner, user, pk: int) -> Submission:
    """A submission for its owner, for staff, and for an instructor of a cohort its submitter belongs to."""
    submissions = Submission.objects.select_related("exercise", "user")
    submission = submissions.filter(pk=pk, **learner.owner_filter()).first()
    if submission is None and user.is_authenticated and user.is_active:
        if not user.is_staff:
            submissions = submissions.filter(user__cohort_memberships__cohort__instructors=user)
        submission = submissions.filter(pk=pk).first()
    if submission is None:
        raise Http404("No such submission.")
    return submission


def submission_get_for_user(*, user, pk: int) -> Submission | None:
    return Submission.objects.select_related("exercise").filter(pk=pk, user=user).first()


def api_tokens_for(*, user) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user=user, revoked_at=None))


def training_instance_by_salt(*, salt: str) -> TrainingInstance | None:
    return TrainingInstance.objects.filter(salt=salt).select_related("user").first()


def live_calls(*, instance: TrainingInstance, limit: int = 50) -> list[LiveCall]:
    return list(instance.calls.all()[:limit])
