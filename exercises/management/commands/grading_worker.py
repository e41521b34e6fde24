"""`python manage.py grading_worker`: the grading worker. It is django-tasks-db's `db_worker` plus two things
the queue lacks: warm sandboxes ready before the first submission arrives, and a sweeper that recovers gradings
whose worker was lost (django-tasks-db leaves such a job RUNNING for ever).

Run one per core on any number of machines against the same PostgreSQL; every option of db_worker applies.
"""
import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from exercises.graders import sandbox_pools
from exercises.sandbox import sandbox_status
from exercises.services import submissions_sweep_stale

logger = logging.getLogger("exercises.grading_worker")


def _sweep_forever(stop: threading.Event) -> None:
    while True:
        try:
            close_old_connections()
            submissions_sweep_stale()
        except Exception:  # the sweeper must outlive a database hiccup
            logger.exception("grading sweep failed; trying again in %ss", settings.GRADING_SWEEP_INTERVAL_SECONDS)
        finally:
            connection.close()
        if stop.wait(settings.GRADING_SWEEP_INTERVAL_SECONDS):
            return


class Command(DbWorkerCommand):
    help = "Run the grading worker: warm sandboxes, a sweeper for lost gradings, and the django-tasks-db worker loop."

    def handle(self, *args, **options):
        self.configure_logging(options["verbosity"])
        if problem := sandbox_status():
            logger.error("Sandbox unavailable: %s Code submissions will be answered with an infrastructure error "
                         "(no attempt counted) until this is fixed.", problem)
        else:
            for pool in sandbox_pools():
                pool.warm()
        stop = threading.Event()
        sweeper = threading.Thread(target=_sweep_forever, args=(stop,), name="grading-sweeper", daemon=True)
        sweeper.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
            for pool in sandbox_pools():
                pool.close()
