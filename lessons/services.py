"""Writes for teaching content and learner progress."""
import random
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .content_files import BROWSER_SOURCE, ContentProblem, load_content
from .models import Answer, Choice, ExamAnswer, ExamAttempt, Lesson, Question


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    problems: list[ContentProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def content_sync(*, root: Path | None = None, dry_run: bool = False) -> SyncReport:
    """Validate every content file, then upsert by stable id; nothing is written if any file is invalid."""
    bundle = load_content(root or settings.CONTENT_DIR)
    bundle.problems += sync_browser_clashes(Lesson, bundle.lessons, ("content_id", "slug"))
    bundle.problems += sync_browser_clashes(Question, bundle.questions, ("content_id",))
    report = SyncReport(problems=bundle.problems)
    if bundle.problems:
        return report
    with transaction.atomic():
        lessons_by_id = _sync_lessons(bundle.lessons, report)
        _sync_questions(bundle.questions, lessons_by_id, report)
        if dry_run:
            transaction.set_rollback(True)
    return report


def file_rows(model) -> dict:
    """The rows that came from content files, by stable id (browser-authored rows are not the files' to change)."""
    return {row.content_id: row for row in model.objects.exclude(source_path__startswith=BROWSER_SOURCE)}


def sync_browser_clashes(model, items, fields: tuple[str, ...]) -> list[ContentProblem]:
    """A file may not take an id or slug that an item authored in the browser already uses."""
    taken = {(name, value) for row in model.objects.filter(source_path__startswith=BROWSER_SOURCE).values(*fields)
             for name, value in row.items()}
    label = {"content_id": "id", "slug": "slug"}
    return [ContentProblem(item.source_path, label[name], f"{getattr(item, name)!r} is already used by an item "
                           "authored in the browser; export that item to files or choose another")
            for item in items for name in fields if (name, getattr(item, name)) in taken]


LESSON_FIELDS = ("slug", "title", "summary", "topic", "order", "body_html", "source_path", "content_hash")
QUESTION_FIELDS = ("category", "kind", "order", "prompt_html", "source_path", "content_hash")


def content_row_write(*, model, row, item, fields: tuple[str, ...]):
    """Save a content row (new or existing) from its parsed file, copying `fields`, and make it live."""
    row = row or model(content_id=item.content_id)
    for name in fields:
        setattr(row, name, getattr(item, name))
    row.is_active = True
    row.save()
    return row


def lesson_write(*, row: Lesson | None, item) -> Lesson:
    """Save a lesson row from its parsed file (a LessonFile)."""
    return content_row_write(model=Lesson, row=row, item=item, fields=LESSON_FIELDS)


def question_write(*, row: Question | None, item, lesson: Lesson) -> Question:
    """Save a question row and its choices from its parsed file (a QuestionFile), and make it live."""
    row = row or Question(content_id=item.content_id)
    row.lesson = lesson
    row = content_row_write(model=Question, row=row, item=item, fields=QUESTION_FIELDS)
    _sync_choices(row, item.choices)
    return row


def sync_record(report: SyncReport, label: str, created: bool, changed: bool) -> None:
    if created:
        report.added.append(label)
    elif changed:
        report.changed.append(label)
    else:
        report.unchanged += 1


def sync_needs_write(row, item) -> bool:
    """A row is rewritten when it is new, its file changed or moved, or it comes back after retirement."""
    return row is None or row.content_hash != item.content_hash or row.source_path != item.source_path or not row.is_active


def sync_park_renamed_slugs(model, *, items, existing: dict) -> None:
    """Park renamed slugs first, so two items can swap slugs in one sync without a unique clash."""
    for item in items:
        row = existing.get(item.content_id)
        if row is not None and row.slug != item.slug:
            model.objects.filter(pk=row.pk).update(slug=f"renamed-{row.pk}")


def sync_retire_missing(existing: dict, seen, kind: str, report: SyncReport) -> None:
    """Items whose file is gone are retired, not deleted, so answers and exam reports keep them."""
    for content_id, row in existing.items():
        if content_id not in seen and row.is_active:
            row.is_active = False
            row.save(update_fields=["is_active"])
            report.removed.append(f"{kind} {content_id}")


def _sync_lessons(lessons, report: SyncReport) -> dict[str, Lesson]:
    existing = file_rows(Lesson)
    sync_park_renamed_slugs(Lesson, items=lessons, existing=existing)
    result = {}
    for item in lessons:
        row = existing.get(item.content_id)
        changed = sync_needs_write(row, item)  # a slug lives in the front matter, so a rename changes the hash too
        sync_record(report, f"lesson {item.content_id}", row is None, changed)
        result[item.content_id] = lesson_write(row=row, item=item) if changed else row
    sync_retire_missing(existing, result, "lesson", report)
    return result


def _sync_questions(questions, lessons_by_id: dict[str, Lesson], report: SyncReport) -> None:
    existing = file_rows(Question)
    seen = set()
    for item in questions:
        seen.add(item.content_id)
        row = existing.get(item.content_id)
        changed = sync_needs_write(row, item)
        sync_record(report, f"question {item.content_id}", row is None, changed)
        if changed:
            question_write(row=row, item=item, lesson=lessons_by_id[item.lesson_id])
    sync_retire_missing(existing, seen, "question", report)


def _sync_choices(question: Question, choices) -> None:
    """Update choices in place by key, so answers recorded against a choice keep pointing at it."""
    current = {c.key: c for c in question.choices.all()}
    for data in choices:
        choice = current.pop(data.key, None) or Choice(question=question, key=data.key)
        choice.text_html, choice.is_correct, choice.explanation_html = data.text_html, data.is_correct, data.explanation_html
        choice.save()
    for leftover in current.values():
        # A choice dropped from the file: past answers to it go with it (rare; the file changed shape).
        leftover.delete()


# --- Learner progress -------------------------------------------------------------------------


@dataclass(frozen=True)
class Learner:
    """Who is learning: a signed-in user, or an anonymous learner known by a key in their session."""

    user: object | None
    learner_key: str

    def owner_filter(self) -> dict:
        return {"user": self.user} if self.user is not None else {"user": None, "learner_key": self.learner_key}


def answer_record(*, learner: Learner, question: Question, choice: Choice) -> Answer:
    return Answer.objects.create(
        user=learner.user, learner_key=learner.learner_key, question=question, choice=choice,
        is_correct=choice.is_correct,
    )


def progress_transfer(*, learner_key: str, user) -> int:
    """Give an anonymous learner's answers and exams to the account they just signed up or logged in with."""
    if not learner_key:
        return 0
    moved = Answer.objects.filter(user=None, learner_key=learner_key).update(user=user)
    moved += ExamAttempt.objects.filter(user=None, learner_key=learner_key).update(user=user)
    from exercises.models import Submission  # graded work follows the learner too

    moved += Submission.objects.filter(user=None, learner_key=learner_key).update(user=user)
    return moved


def exam_start(*, learner: Learner, question_count: int, minutes: int, rng: random.Random | None = None) -> ExamAttempt:
    """Draw `question_count` questions at random, spread across topics as evenly as the bank allows."""
    rng = rng or random.Random()
    by_topic: dict[str, list[int]] = {}
    for pk, topic in Question.objects.filter(is_active=True).values_list("pk", "lesson__topic"):
        by_topic.setdefault(topic, []).append(pk)
    pools = list(by_topic.values())
    for pool in pools:
        rng.shuffle(pool)
    rng.shuffle(pools)
    drawn: list[int] = []
    while len(drawn) < question_count and any(pools):
        for pool in pools:
            if pool and len(drawn) < question_count:
                drawn.append(pool.pop())
    rng.shuffle(drawn)
    now = timezone.now()
    return ExamAttempt.objects.create(
        user=learner.user, learner_key=learner.learner_key, started_at=now,
        deadline=now + timedelta(minutes=minutes), time_limit_minutes=minutes, question_ids=drawn,
    )


class ExamClosed(Exception):
    """The attempt was already submitted, or its time is up."""


def _accepting_answers(attempt: ExamAttempt, now) -> bool:
    return not attempt.is_submitted and now <= attempt.deadline + timedelta(seconds=settings.EXAM_GRACE_SECONDS)


def exam_answers_save(*, attempt: ExamAttempt, answers: dict[int, int]) -> int:
    """Save answers (question id -> choice id) as the learner goes, so a time-out still counts them.

    Choices that do not belong to one of the attempt's questions are ignored. Returns how many were saved.
    """
    if not _accepting_answers(attempt, timezone.now()):
        raise ExamClosed()
    return _store_answers(attempt, answers, now=timezone.now())


def _store_answers(attempt: ExamAttempt, answers: dict[int, int], *, now) -> int:
    valid = Choice.objects.filter(pk__in=answers.values(), question_id__in=attempt.question_ids)
    saved = 0
    for choice in valid:
        if answers.get(choice.question_id) == choice.pk:
            ExamAnswer.objects.update_or_create(
                attempt=attempt, question_id=choice.question_id, defaults={"choice": choice, "saved_at": now},
            )
            saved += 1
    return saved


def exam_submit(*, attempt: ExamAttempt, answers: dict[int, int]) -> ExamAttempt:
    """Record the posted answers (if still in time), then score the attempt. Idempotent once submitted."""
    with transaction.atomic():
        attempt = ExamAttempt.objects.select_for_update().get(pk=attempt.pk)
        if attempt.is_submitted:
            return attempt
        now = timezone.now()
        in_time = _accepting_answers(attempt, now)
        if in_time:
            _store_answers(attempt, answers, now=now)
        return _exam_finalize(attempt, now=now, timed_out=not in_time)


def exam_expire_if_due(*, attempt: ExamAttempt) -> ExamAttempt:
    """An attempt whose time ran out is submitted with what was saved, the first time anyone looks at it."""
    if attempt.is_submitted or _accepting_answers(attempt, timezone.now()):
        return attempt
    with transaction.atomic():
        attempt = ExamAttempt.objects.select_for_update().get(pk=attempt.pk)
        if attempt.is_submitted:
            return attempt
        return _exam_finalize(attempt, now=timezone.now(), timed_out=True)


def _exam_finalize(attempt: ExamAttempt, *, now, timed_out: bool) -> ExamAttempt:
    correct = attempt.answers.filter(choice__is_correct=True).count()
    attempt.correct_count = correct
    attempt.score = correct / attempt.question_count if attempt.question_count else 0.0
    attempt.submitted_at = now
    attempt.timed_out = timed_out
    attempt.save(update_fields=["correct_count", "score", "submitted_at", "timed_out"])
    return attempt
