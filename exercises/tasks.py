"""Background tasks: thin wrappers that load a row and call the service (the queue is django-tasks-db)."""
from django_tasks import task

from .services import regrade_run, submission_grade


@task()
def grade_submission_task(submission_id: int) -> str:
    return submission_grade(submission_id=submission_id).state


@task()
def regrade_task(regrade_id: int) -> str:
    return regrade_run(regrade_id=regrade_id).state
