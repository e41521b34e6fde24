"""Teaching content (lessons, questions, choices) and each learner's progress (answers, exams).

Content rows are written only by `sync_content` from the files under `lessons/content/`; they are
keyed by the stable `content_id` declared in each file, so renaming a file or a slug keeps history.
Progress belongs to a user, or before sign-up to an anonymous `learner_key` kept in the session.
"""
from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from .taxonomy import CATEGORIES, QUESTION_KINDS, TOPICS


class Lesson(models.Model):
    content_id = models.CharField(max_length=80, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    title = models.CharField(max_length=200)
    summary = models.CharField(max_length=400)
    topic = models.CharField(max_length=40, choices=TOPICS.items())
    order = models.PositiveIntegerField(default=0)
    body_html = models.TextField()
    source_path = models.CharField(max_length=300)
    content_hash = models.CharField(max_length=64)
    # A file that disappears retires its item instead of deleting it, so answers and exam reports keep it.
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["order", "title"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("lessons:lesson-detail", kwargs={"slug": self.slug})

    @property
    def topic_label(self) -> str:
        return TOPICS.get(self.topic, self.topic)


class Question(models.Model):
    content_id = models.CharField(max_length=80, unique=True)
    lesson = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="questions")
    category = models.CharField(max_length=20, choices=CATEGORIES.items())
    kind = models.CharField(max_length=20, choices=QUESTION_KINDS.items())
    prompt_html = models.TextField()
    order = models.PositiveIntegerField(default=0)
    source_path = models.CharField(max_length=300)
    content_hash = models.CharField(max_length=64)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["lesson__order", "order", "content_id"]

    def __str__(self) -> str:
        return self.content_id

    def get_absolute_url(self) -> str:
        return reverse("lessons:question-detail", kwargs={"content_id": self.content_id})

    @property
    def topic(self) -> str:
        return self.lesson.topic

    @property
    def category_label(self) -> str:
        return CATEGORIES.get(self.category, self.category)

    @property
    def kind_label(self) -> str:
        return QUESTION_KINDS.get(self.kind, self.kind)


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    key = models.CharField(max_length=1)  # "a", "b", ... in file order
    text_html = models.TextField()
    is_correct = models.BooleanField(default=False)
    explanation_html = models.TextField()

    class Meta:
        ordering = ["key"]
        constraints = [models.UniqueConstraint(fields=["question", "key"], name="unique_choice_key")]

    def __str__(self) -> str:
        return f"{self.question.content_id}:{self.key}"


class LearnerOwned(models.Model):
    """A row that belongs to a signed-in user or to an anonymous learner's session key."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE)
    learner_key = models.CharField(max_length=64, blank=True, db_index=True)

    class Meta:
        abstract = True


class Answer(LearnerOwned):
    """One answer to a practice question (not an exam): the history behind mastery."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    choice = models.ForeignKey(Choice, on_delete=models.CASCADE)
    is_correct = models.BooleanField()
    answered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-answered_at", "-id"]


class ExamAttempt(LearnerOwned):
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    timed_out = models.BooleanField(default=False)
    time_limit_minutes = models.PositiveIntegerField()
    question_ids = models.JSONField()  # Question primary keys, in the order they were drawn
    score = models.FloatField(null=True, blank=True)  # fraction correct, once submitted
    correct_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at"]

    def get_absolute_url(self) -> str:
        return reverse("lessons:exam-attempt", kwargs={"pk": self.pk})

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    @property
    def question_count(self) -> int:
        return len(self.question_ids)


class ExamAnswer(models.Model):
    attempt = models.ForeignKey(ExamAttempt, on_delete=models.CASCADE, related_name="answers")
    question = models.ForeignKey(Question, on_delete=models.CASCADE)
    choice = models.ForeignKey(Choice, on_delete=models.CASCADE)
    saved_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["attempt", "question"], name="one_answer_per_exam_question")]
