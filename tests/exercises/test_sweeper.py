"""The sweeper recovers gradings whose worker was lost, and gives up cleanly (no attempt counted) after
GRADING_MAX_RUNS lost runs."""
from datetime import timedelta

from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from exercises.models import Submission
from exercises.services import submission_create, submission_grade, submissions_sweep_stale
from lessons.services import Learner


def lost_grading(exercises, *, runs: int) -> Submission:
    """A submission whose worker claimed its job and then vanished, long ago."""
    submission, _ = submission_create(learner=Learner(user=None, learner_key="s" * 32),
                                      exercise=exercises["customer-not-found"], text='{"isError": false}')
    long_ago = timezone.now() - timedelta(hours=1)
    DBTaskResult.objects.filter(pk=submission.task_id).update(status="RUNNING", started_at=long_ago)
    Submission.objects.filter(pk=submission.pk).update(state=Submission.RUNNING, started_at=long_ago,
                                                       grading_runs=runs)
    return submission


def test_a_lost_grading_is_queued_again_with_a_new_job(exercises):
    submission = lost_grading(exercises, runs=1)
    report = submissions_sweep_stale()
    assert report.requeued == [submission.pk] and report.jobs_failed == 1
    submission.refresh_from_db()
    assert submission.state == Submission.QUEUED
    assert DBTaskResult.objects.get(pk=submission.task_id).status == "READY"
    graded = submission_grade(submission_id=submission.pk)
    assert graded.state == Submission.GRADED and graded.grading_runs == 2


def test_a_recent_grading_is_left_alone(exercises):
    submission, _ = submission_create(learner=Learner(user=None, learner_key="s" * 32),
                                      exercise=exercises["customer-not-found"], text="{}")
    Submission.objects.filter(pk=submission.pk).update(state=Submission.RUNNING, started_at=timezone.now())
    assert submissions_sweep_stale().requeued == []


def test_after_three_lost_runs_the_learner_gets_an_infrastructure_error_and_keeps_the_attempt(exercises):
    submission = lost_grading(exercises, runs=3)
    assert submissions_sweep_stale().given_up == [submission.pk]
    submission.refresh_from_db()
    assert submission.state == Submission.GRADED and submission.counts_as_attempt is False
    assert submission.result["error"]["errorCategory"] == "transient"
    assert "interrupted 3 times" in submission.result["error"]["description"]



def queued_long_ago(exercises, job_status: str) -> Submission:
    submission, _ = submission_create(learner=Learner(user=None, learner_key="s" * 32),
                                      exercise=exercises["customer-not-found"], text="{}")
    Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - timedelta(hours=1))
    DBTaskResult.objects.filter(pk=submission.task_id).update(status=job_status)
    return submission


def test_a_long_queued_submission_whose_job_still_waits_is_left_alone(exercises):
    queued_long_ago(exercises, "READY")
    assert submissions_sweep_stale().requeued == []


def test_a_queued_submission_whose_job_failed_is_queued_again(exercises):
    submission = queued_long_ago(exercises, "FAILED")
    assert submissions_sweep_stale().requeued == [submission.pk]
    submission.refresh_from_db()
    assert DBTaskResult.objects.get(pk=submission.task_id).status == "READY"
