"""Reads for cohorts. An instructor sees only the cohorts they teach (staff see all); anything else is a 404."""
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count
from django.http import Http404
from django.urls import reverse

from exercises.models import Submission
from lessons.models import ExamAttempt

from .models import Assignment, Cohort, Membership


def cohorts_taught_by(*, user) -> list[Cohort]:
    cohorts = Cohort.objects.all() if user.is_staff else Cohort.objects.filter(instructors=user)
    return list(cohorts.annotate(member_count=Count("memberships", distinct=True)).prefetch_related("instructors"))


def cohort_get_for_instructor(*, user, pk: int) -> Cohort:
    cohorts = Cohort.objects.all() if user.is_staff else Cohort.objects.filter(instructors=user)
    cohort = cohorts.filter(pk=pk).prefetch_related("instructors").first()
    if cohort is None:
        raise Http404("No such cohort among the ones you teach.")
    return cohort


def cohort_by_invite_code(*, code: str) -> Cohort | None:
    return Cohort.objects.filter(invite_code=code.strip().upper()).prefetch_related("instructors").first()


def cohort_member_get(*, cohort: Cohort, user_id: int):
    membership = Membership.objects.filter(cohort=cohort, user_id=user_id).select_related("user").first()
    if membership is None:
        raise Http404("No such learner in this cohort.")
    return membership.user


def cohort_members(*, cohort: Cohort) -> list:
    return [m.user for m in cohort.memberships.select_related("user")]


def exam_attempt_for_instructor(*, cohort: Cohort, pk: int) -> ExamAttempt:
    attempt = ExamAttempt.objects.filter(pk=pk, user__cohort_memberships__cohort=cohort,
                                         submitted_at__isnull=False).first()
    if attempt is None:
        raise Http404("No such submitted exam attempt in this cohort.")
    return attempt


@dataclass
class LearnerAssignment:
    """One learner's standing on one assignment (what the gradebook cell and the CSV row show)."""

    assignment: Assignment
    best_score: float | None = None
    attempts: int = 0
    last_at: datetime | None = None
    last_url: str = ""
    first_at: datetime | None = None

    @property
    def late(self) -> bool:
        """Due date passed with no attempt before it."""
        return self.assignment.is_past_due and (self.first_at is None or self.first_at > self.assignment.due_at)


@dataclass
class GradebookRow:
    learner: object
    cells: list[LearnerAssignment] = field(default_factory=list)


def gradebook(*, cohort: Cohort, learners: list | None = None, own: bool = False) -> list[GradebookRow]:
    """For each member (or just `learners`) and assignment: best score, attempts (infrastructure errors cost
    none), and the last submission; `own` links exams to the learner's own report instead of the instructor's."""
    assignments = list(cohort.assignments.select_related("exercise"))
    members = cohort_members(cohort=cohort) if learners is None else learners
    exercise_ids = [a.exercise_id for a in assignments if a.exercise_id]
    standing: dict[tuple[int, int | None], LearnerAssignment] = {}
    submissions = (Submission.objects.filter(user__in=members, exercise_id__in=exercise_ids, counts_as_attempt=True)
                   .order_by("created_at", "pk").only("pk", "user_id", "exercise_id", "created_at", "score", "state"))
    attempts = (ExamAttempt.objects.filter(user__in=members, submitted_at__isnull=False)
                .order_by("submitted_at", "pk").only("pk", "user_id", "submitted_at", "score"))
    rows = []
    for learner in members:
        row = GradebookRow(learner)
        for assignment in assignments:
            cell = LearnerAssignment(assignment)
            standing[(learner.pk, assignment.exercise_id)] = cell
            row.cells.append(cell)
        rows.append(row)
    for s in submissions:
        _count(standing.get((s.user_id, s.exercise_id)), s.created_at, s.score if s.state == Submission.GRADED else None,
               s.get_absolute_url())
    for a in attempts:
        _count(standing.get((a.user_id, None)), a.submitted_at, a.score, a.get_absolute_url() if own else
               reverse("cohorts:exam-report", kwargs={"pk": cohort.pk, "attempt_pk": a.pk}))
    return rows


def _count(cell: LearnerAssignment | None, at: datetime, score: float | None, url: str) -> None:
    if cell is None:
        return
    cell.attempts += 1
    cell.first_at = cell.first_at or at
    cell.last_at, cell.last_url = at, url
    if score is not None and (cell.best_score is None or score > cell.best_score):
        cell.best_score = score


def learner_work(*, learner) -> tuple[list[Submission], list[ExamAttempt]]:
    """Everything a member submitted (any exercise), newest first, for their instructor."""
    submissions = list(Submission.objects.filter(user=learner).select_related("exercise").defer("text", "result"))
    exams = list(ExamAttempt.objects.filter(user=learner, submitted_at__isnull=False))
    return submissions, exams


def cohorts_joined_by(*, user) -> list[Cohort]:
    """The cohorts a learner is a member of (their assignments come with the gradebook row)."""
    return [m.cohort for m in Membership.objects.filter(user=user).select_related("cohort")]

