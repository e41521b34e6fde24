"""Reads for lessons, questions, progress and exam reports. Ownership is checked here, not in templates."""
from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.http import Http404

from .models import Answer, Choice, ExamAnswer, ExamAttempt, Lesson, Question
from .services import Learner
from .taxonomy import CATEGORIES, TOPICS


def lesson_list() -> list[Lesson]:
    return list(Lesson.objects.filter(is_active=True))


def lesson_get(*, slug: str) -> Lesson:
    try:
        return Lesson.objects.get(slug=slug, is_active=True)
    except Lesson.DoesNotExist:
        raise Http404("No such lesson") from None


def _with_choices(queryset):
    return queryset.select_related("lesson").prefetch_related(Prefetch("choices", queryset=Choice.objects.order_by("key")))


def lesson_questions(*, lesson: Lesson) -> list[Question]:
    return list(_with_choices(lesson.questions.filter(is_active=True)))


def lesson_neighbours(*, lesson: Lesson) -> tuple[Lesson | None, Lesson | None]:
    lessons = lesson_list()
    index = next(i for i, l in enumerate(lessons) if l.pk == lesson.pk)
    return (lessons[index - 1] if index else None, lessons[index + 1] if index + 1 < len(lessons) else None)


def question_get(*, content_id: str) -> Question:
    try:
        return _with_choices(Question.objects.filter(is_active=True)).get(content_id=content_id)
    except Question.DoesNotExist:
        raise Http404("No such question") from None


def question_count() -> int:
    return Question.objects.filter(is_active=True).count()


def question_bank(*, topic: str = "", category: str = "") -> list[Question]:
    queryset = Question.objects.filter(is_active=True)
    if topic in TOPICS:
        queryset = queryset.filter(lesson__topic=topic)
    if category in CATEGORIES:
        queryset = queryset.filter(category=category)
    return list(queryset.select_related("lesson"))


def answer_get_for_learner(*, learner: Learner, answer_id: int) -> Answer:
    """An answer, only for the learner who gave it."""
    try:
        return Answer.objects.select_related("choice", "question").get(pk=answer_id, **learner.owner_filter())
    except (Answer.DoesNotExist, ValueError):
        raise Http404("No such answer") from None


@dataclass(frozen=True)
class LatestAnswer:
    is_correct: bool
    answered_at: object


def latest_answers(*, learner: Learner) -> dict[int, LatestAnswer]:
    """The learner's most recent answer to each question, from practice and from submitted exams alike."""
    events = list(Answer.objects.filter(**learner.owner_filter()).values_list("answered_at", "question_id", "is_correct"))
    events += ExamAnswer.objects.filter(
        attempt__in=ExamAttempt.objects.filter(submitted_at__isnull=False, **learner.owner_filter())
    ).values_list("saved_at", "question_id", "choice__is_correct")
    latest: dict[int, LatestAnswer] = {}
    for answered_at, question_id, is_correct in sorted(events, key=lambda e: e[0]):
        latest[question_id] = LatestAnswer(is_correct, answered_at)
    return latest


@dataclass
class MasteryRow:
    key: str
    label: str
    total: int = 0
    answered: int = 0
    correct: int = 0

    def count(self, *, answered: bool, correct: bool) -> None:
        self.total += 1
        self.answered += answered
        self.correct += correct

    @property
    def percent(self) -> int:
        return round(100 * self.correct / self.total) if self.total else 0


@dataclass
class Mastery:
    by_category: list[MasteryRow]
    by_topic: list[MasteryRow]
    answered: int
    correct: int
    total: int


def mastery_for(*, learner: Learner) -> Mastery:
    """Mastery = questions whose latest answer is right, out of every question in the group."""
    latest = latest_answers(learner=learner)
    categories = {k: MasteryRow(k, v) for k, v in CATEGORIES.items()}
    topics = {k: MasteryRow(k, v) for k, v in TOPICS.items()}
    for pk, category, topic in Question.objects.filter(is_active=True).values_list("pk", "category", "lesson__topic"):
        for row in (categories[category], topics[topic]):
            row.count(answered=pk in latest, correct=pk in latest and latest[pk].is_correct)
    return Mastery(
        by_category=[r for r in categories.values() if r.total],
        by_topic=[r for r in topics.values() if r.total],
        answered=len(latest),
        correct=sum(a.is_correct for a in latest.values()),
        total=sum(r.total for r in categories.values()),
    )


def exam_attempts_for(*, learner: Learner) -> list[ExamAttempt]:
    return list(ExamAttempt.objects.filter(**learner.owner_filter()))


def exam_attempt_get(*, learner: Learner, pk: int) -> ExamAttempt:
    """An exam attempt, only for the learner who sat it."""
    try:
        return ExamAttempt.objects.get(pk=pk, **learner.owner_filter())
    except ExamAttempt.DoesNotExist:
        raise Http404("No such exam attempt") from None


def exam_questions(*, attempt: ExamAttempt) -> list[Question]:
    """The attempt's questions in the order they were drawn (retired ones included: the report keeps them)."""
    by_pk = {q.pk: q for q in _with_choices(Question.objects.filter(pk__in=attempt.question_ids))}
    return [by_pk[pk] for pk in attempt.question_ids if pk in by_pk]


@dataclass
class ReportItem:
    question: Question
    chosen: Choice | None
    correct: Choice

    @property
    def is_correct(self) -> bool:
        return self.chosen is not None and self.chosen.pk == self.correct.pk


@dataclass
class ExamReport:
    attempt: ExamAttempt
    items: list[ReportItem]
    by_topic: list[MasteryRow] = field(default_factory=list)
    by_category: list[MasteryRow] = field(default_factory=list)
    revisit: list[Lesson] = field(default_factory=list)


def exam_report(*, attempt: ExamAttempt) -> ExamReport:
    chosen = {a.question_id: a.choice for a in attempt.answers.select_related("choice")}
    items = []
    for question in exam_questions(attempt=attempt):
        correct = next(c for c in question.choices.all() if c.is_correct)
        items.append(ReportItem(question, chosen.get(question.pk), correct))
    topics: dict[str, MasteryRow] = {}
    categories: dict[str, MasteryRow] = {}
    revisit: dict[int, Lesson] = {}
    for item in items:
        question = item.question
        for rows, key, label in ((topics, question.lesson.topic, question.lesson.topic_label),
                                 (categories, question.category, question.category_label)):
            rows.setdefault(key, MasteryRow(key, label)).count(answered=item.chosen is not None, correct=item.is_correct)
        if not item.is_correct and question.lesson.is_active:
            revisit.setdefault(question.lesson.pk, question.lesson)
    return ExamReport(
        attempt=attempt, items=items,
        by_topic=sorted(topics.values(), key=lambda r: (r.percent, r.label)),
        by_category=sorted(categories.values(), key=lambda r: (r.percent, r.label)),
        revisit=sorted(revisit.values(), key=lambda l: l.order),
    )
