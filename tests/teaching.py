"""Helpers for the instructor tests: valid authored content, and a small world of two cohorts with two
instructors, a learner in each, staff, and graded work to look at."""
import json
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import Group, User
from django.utils import timezone

from accounts.roles import INSTRUCTORS_GROUP
from authoring import files
from authoring.models import AuthoredItem
from authoring.services import authored_create, authored_publish
from cohorts.models import Assignment, Cohort, Membership
from exercises.models import ApiToken, Exercise, Regrade, Submission
from exercises.services import api_token_create, regrade_start, submission_create
from lessons.models import ExamAttempt, Lesson
from lessons.services import Learner


def payload(category: str, retryable: bool, description: str, wait: int | None = None) -> dict:
    """A CallToolResult in the convention (metadata in structuredContent, mirrored as JSON text)."""
    structured = {"errorCategory": category, "isRetryable": retryable, "description": description}
    if wait is not None:
        structured["retryAfterSeconds"] = wait
    return {"content": [{"type": "text", "text": json.dumps(structured)}], "isError": True,
            "structuredContent": structured}


GOOD_TIMEOUT = payload("transient", True, "The stock service did not answer for SKU-1; try again in 30 seconds.", 30)
NOT_RETRYABLE = payload("transient", False, "The stock service did not answer for SKU-1.")
AS_SUCCESS = {"content": [{"type": "text", "text": "Stock unknown"}], "isError": False}


def scenario_source(*, content_id: str = "stock-timeout", retryable: bool = True, good=None, bad=None,
                    title: str = "The stock service timed out") -> str:
    data = {
        "id": content_id, "slug": content_id, "title": title, "kind": "payload", "order": 50,
        "category": "transient", "summary": "Report a stock lookup that timed out.",
        "situation": "The **stock service** did not answer `check_stock(\"SKU-1\")` within 5 seconds.",
        "starter": "{}\n",
        "rubric": {"expect": "error", "category": "transient", "retryable": retryable, "customer_message": "none"},
        "hints": {"missing-retry-after": "Say when to try again."},
        "examples": {"good": good if good is not None else [GOOD_TIMEOUT],
                     "bad": bad if bad is not None else [AS_SUCCESS]},
    }
    return files.dump_yaml(data)


def make_instructor(username: str, **extra) -> User:
    user = User.objects.create_user(username, password="pw-" + username, **extra)
    # get_or_create: a transactional test's flush empties the group the migration made
    user.groups.add(Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0])
    return user


@dataclass
class World:
    learner_a: User
    learner_b: User
    instructor_x: User
    instructor_y: User
    staff: User
    cohort_x: Cohort
    cohort_y: Cohort
    assignment_x: Assignment
    exercise: Exercise  # a payload scenario instructor X authored and published
    item_x: AuthoredItem
    submission_a: Submission
    submission_b: Submission
    exam_a: ExamAttempt
    token_a: ApiToken
    regrade_x: Regrade
    lesson: Lesson
    tokens: dict[str, str]


def build_world() -> World:
    """Needs the immediate task backend (submissions are graded as they are made) and one active lesson."""
    learner_a = User.objects.create_user("learner-a", password="pw-a")
    learner_b = User.objects.create_user("learner-b", password="pw-b")
    instructor_x, instructor_y = make_instructor("instructor-x"), make_instructor("instructor-y")
    staff = User.objects.create_user("staff", password="pw-staff", is_staff=True)
    cohort_x, cohort_y = Cohort.objects.create(name="Cohort X"), Cohort.objects.create(name="Cohort Y")
    cohort_x.instructors.add(instructor_x)
    cohort_y.instructors.add(instructor_y)
    Membership.objects.create(cohort=cohort_x, user=learner_a)
    Membership.objects.create(cohort=cohort_y, user=learner_b)
    item = authored_create(author=instructor_x, kind=files.SCENARIO, source=scenario_source())
    authored_publish(item=item, user=instructor_x)
    exercise = Exercise.objects.get(content_id="stock-timeout")
    due = timezone.now() + timedelta(days=7)
    assignment_x = Assignment.objects.create(cohort=cohort_x, kind=Assignment.EXERCISE, exercise=exercise, due_at=due)
    Assignment.objects.create(cohort=cohort_y, kind=Assignment.EXAM, due_at=due)
    submission_a, _ = submission_create(learner=Learner(learner_a, "key-a"), exercise=exercise,
                                        text=json.dumps(NOT_RETRYABLE))
    submission_b, _ = submission_create(learner=Learner(learner_b, "key-b"), exercise=exercise,
                                        text=json.dumps(GOOD_TIMEOUT))
    submission_a.refresh_from_db()  # graded as it was made
    submission_b.refresh_from_db()
    now = timezone.now()
    exam_a = ExamAttempt.objects.create(user=learner_a, deadline=now, time_limit_minutes=5, question_ids=[],
                                        submitted_at=now, score=0.0)
    tokens = {name: api_token_create(user=user)[1] for name, user in
              (("a", learner_a), ("b", learner_b), ("x", instructor_x), ("y", instructor_y), ("staff", staff))}
    regrade = regrade_start(exercise=exercise, user=instructor_x)
    return World(learner_a, learner_b, instructor_x, instructor_y, staff, cohort_x, cohort_y, assignment_x, exercise,
                 item, submission_a, submission_b, exam_a, ApiToken.objects.filter(user=learner_a).first(), regrade,
                 Lesson.objects.filter(is_active=True).first(), tokens)
