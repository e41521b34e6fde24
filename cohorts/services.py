"""Writes for cohorts: creating them, joining by invite code, assignments."""
from datetime import datetime

from django.db import IntegrityError, transaction

from exercises.models import Exercise

from .models import Assignment, Cohort, Membership, new_invite_code


class CohortRefused(Exception):
    """The request cannot be carried out; the message says why and what to do instead."""


def cohort_create(*, instructor, name: str) -> Cohort:
    with transaction.atomic():
        cohort = Cohort.objects.create(name=name.strip())
        cohort.instructors.add(instructor)
    return cohort


def cohort_rotate_invite(*, cohort: Cohort) -> Cohort:
    """A new invite code and link; the old ones stop working (members already in stay in)."""
    cohort.invite_code = new_invite_code()
    cohort.save(update_fields=["invite_code"])
    return cohort


def cohort_join(*, cohort: Cohort, user) -> tuple[Membership, bool]:
    """Join a cohort; joining twice is harmless and returns the first membership."""
    if cohort.instructors.filter(pk=user.pk).exists():
        raise CohortRefused("You teach this cohort, so you cannot join it as a learner.")
    return Membership.objects.get_or_create(cohort=cohort, user=user)


def assignment_create(*, cohort: Cohort, kind: str, exercise: Exercise | None, due_at: datetime) -> Assignment:
    try:
        with transaction.atomic():
            return Assignment.objects.create(cohort=cohort, kind=kind, exercise=exercise if kind == Assignment.EXERCISE
                                             else None, due_at=due_at)
    except IntegrityError:
        what = f"“{exercise.title}”" if kind == Assignment.EXERCISE else "The practice exam"
        raise CohortRefused(f"{what} is already assigned to this cohort; change its due date by removing it and "
                            "assigning it again.") from None


def assignment_delete(*, cohort: Cohort, assignment_id: int) -> bool:
    return bool(Assignment.objects.filter(cohort=cohort, pk=assignment_id).delete()[0])
