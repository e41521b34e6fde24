"""Cohorts: a group of learners taught by one or more instructors, joined by invite code, with assignments
(exercises or the practice exam) due by a date."""
import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: codes are read aloud and typed


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(8))


class Cohort(models.Model):
    name = models.CharField(max_length=120)
    instructors = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teaching_cohorts")
    invite_code = models.CharField(max_length=8, unique=True, default=new_invite_code)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("cohorts:cohort-detail", kwargs={"pk": self.pk})


class Membership(models.Model):
    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="cohort_memberships")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["user__username"]
        constraints = [models.UniqueConstraint(fields=["cohort", "user"], name="one_membership_per_cohort")]


class Assignment(models.Model):
    EXERCISE, EXAM = "exercise", "exam"
    KINDS = {EXERCISE: "Exercise", EXAM: "Practice exam"}

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="assignments")
    kind = models.CharField(max_length=10, choices=KINDS.items())
    exercise = models.ForeignKey("exercises.Exercise", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="assignments")
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["due_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["cohort", "exercise"], condition=models.Q(kind="exercise"),
                                    name="one_assignment_per_exercise"),
            models.UniqueConstraint(fields=["cohort"], condition=models.Q(kind="exam"), name="one_exam_assignment"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def title(self) -> str:
        return self.exercise.title if self.exercise_id else "Practice exam"

    @property
    def learner_url(self) -> str:
        return self.exercise.get_absolute_url() if self.exercise_id else reverse("lessons:exam-index")

    @property
    def is_past_due(self) -> bool:
        return timezone.now() > self.due_at
