"""`python manage.py grade EXERCISE_SLUG PATH [--json]`: grade a file, no server needed.

Exit status: 0 pass, 1 fail, 2 the submission could not be graded, 3 the grader could not run.
"""
import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand
from django.db.utils import DatabaseError

from exercises.graders.parsing import MAX_SUBMISSION_BYTES
from exercises.graders.result import infrastructure_error, submission_error
from exercises.selectors import exercise_get_or_none, exercise_list
from exercises.services import exercise_grade_text

EXIT = {"pass": 0, "fail": 1, "error": 2}


class Command(BaseCommand):
    help = "Grade a submission file against an exercise and print the result (exit 0 pass, 1 fail, 2 not gradable, 3 grader failed)."

    def add_arguments(self, parser):
        parser.add_argument("exercise", help="Exercise slug, e.g. order-db-timeout.")
        parser.add_argument("path", help="File holding the submission; '-' reads standard input.")
        parser.add_argument("--json", action="store_true", help="Print the result object as JSON.")

    def handle(self, *args, exercise: str, path: str, json: bool = False, **options):
        result, code = self._grade(exercise, path)
        self.stdout.write(_as_json(result) if json else _summary(result))
        sys.exit(code)

    def _grade(self, slug: str, path: str) -> tuple[dict, int]:
        try:
            exercise = exercise_get_or_none(slug=slug)
            known = [e.slug for e in exercise_list()] if exercise is None else []
        except DatabaseError:
            return infrastructure_error(slug, "The database is not ready. Run `python manage.py migrate` and "
                                              "`python manage.py sync_content` (or `make test`), then try again.",
                                        retry_after_seconds=1), 3
        if exercise is None:
            # Not the submission's fault, so exit 3; but not transient either: the slug must change.
            return submission_error(slug, f"No exercise has the slug {slug!r}. Known exercises: "
                                          f"{', '.join(known) or 'none (run sync_content)'}.", field="exercise"), 3
        try:
            raw = sys.stdin.buffer.read(MAX_SUBMISSION_BYTES + 1) if path == "-" else _read(Path(path))
        except OSError as error:
            return submission_error(slug, f"Cannot read {path}: {error.strerror or error}.", field="path"), 2
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            return submission_error(slug, f"{path} is not UTF-8 text (byte {error.start} is invalid). Save it as "
                                          "UTF-8 and try again.", field="path"), 2
        result = exercise_grade_text(exercise=exercise, text=text)
        if result["status"] == "error" and result["error"].get("errorCategory") == "transient":
            return result, 3
        return result, EXIT[result["status"]]


def _read(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(MAX_SUBMISSION_BYTES + 1)  # the grader reports anything larger as too large


def _as_json(result: dict) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False)


def _summary(result: dict) -> str:
    lines = [f"{result['exercise']}: {result['status'].upper()}  score {result['score']:.0%}"]
    if result["error"]:
        error = result["error"]
        lines.append(f"  {error['errorCategory']} (retryable: {str(error['isRetryable']).lower()}): {error['description']}")
    for check in result["checks"]:
        mark = "PASS" if check["status"] == "pass" else "FAIL"
        tag = f" [{check['misconception']}]" if check["misconception"] else ""
        lines.append(f"  {mark} {check['name']} ({check['points']:g}/{check['max_points']:g}){tag}")
        if check["status"] == "fail":
            lines.append(f"       {check['message']}")
    return "\n".join(lines)
