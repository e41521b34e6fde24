"""The real queue: a submission stored and queued in one transaction is graded by a real db_worker."""
import json

import pytest
from django.core.management import call_command

from exercises.models import Submission
from exercises.services import submission_create, submission_grade
from lessons.services import Learner

from .graders.payload_table import TABLE

pytestmark = pytest.mark.slow


def test_db_worker_grades_a_queued_submission_exactly_once(transactional_db, exercises):
    learner = Learner(user=None, learner_key="k" * 32)
    submission, _ = submission_create(learner=learner, exercise=exercises["customer-not-found"],
                                      text=json.dumps(TABLE["customer-not-found"][0][1]))
    assert submission.state == "queued"
    call_command("db_worker", "--batch", "--queue-name", "default", "--interval", "0")
    submission.refresh_from_db()
    assert submission.state == "graded" and submission.status == "pass" and submission.grading_runs == 1
    # Grading again (a duplicate job, a sweeper) changes nothing.
    submission_grade(submission_id=submission.pk)
    submission.refresh_from_db()
    assert submission.grading_runs == 1 and submission.result["score"] == 1


def test_a_rolled_back_submission_leaves_no_job(transactional_db, exercises):
    from django.db import transaction
    from django_tasks_db.models import DBTaskResult

    with pytest.raises(RuntimeError), transaction.atomic():
        submission_create(learner=Learner(user=None, learner_key="k" * 32), exercise=exercises["order-db-timeout"],
                          text="{}")
        raise RuntimeError("the request failed after storing")
    assert not Submission.objects.exists() and not DBTaskResult.objects.exists()
