"""`python manage.py sync_content`: validate the content files and upsert them by stable id.

Lessons and questions (lessons/content/) and exercises (exercises/content/) are checked together; if any
file has a problem, nothing is written.
"""
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from exercises.content_files import load_exercises
from exercises.services import exercise_browser_clashes, exercise_sync
from lessons.services import content_sync


class Command(BaseCommand):
    help = "Validate lessons, questions and exercises and load them into the database."

    def add_arguments(self, parser):
        parser.add_argument("--path", type=Path, help="Lesson content folder to read (default: settings.CONTENT_DIR).")
        parser.add_argument("--exercises-path", type=Path,
                            help="Exercise content folder to read (default: settings.EXERCISE_CONTENT_DIR).")
        parser.add_argument("--check", action="store_true", help="Validate and report, write nothing.")
        parser.add_argument("--list", dest="list_items", action="store_true", help="Name every item added, changed and removed.")

    def handle(self, *args, path=None, exercises_path=None, check=False, list_items=False, **options):
        exercises = load_exercises(exercises_path or settings.EXERCISE_CONTENT_DIR)
        with transaction.atomic():
            report = content_sync(root=path, dry_run=check)
            report.problems = report.problems + exercises.problems + exercise_browser_clashes(bundle=exercises)
            if report.ok:
                exercise_sync(bundle=exercises, report=report)
            if check or not report.ok:
                transaction.set_rollback(True)
        if not report.ok:
            for problem in report.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(
                f"{len(report.problems)} problem(s) in the content files; nothing was changed. "
                "Fix each file and field named above, then run sync_content again."
            )
        for verb, items in (("added", report.added), ("changed", report.changed), ("removed", report.removed)):
            if list_items or len(items) <= 10:
                for item in items:
                    self.stdout.write(f"  {verb}: {item}")
        prefix = "Checked (nothing written)" if check else "Synced content"
        self.stdout.write(self.style.SUCCESS(
            f"{prefix}: {len(report.added)} added, {len(report.changed)} changed, "
            f"{len(report.removed)} removed, {report.unchanged} unchanged."
        ))
