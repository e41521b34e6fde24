"""The practice exam: random draw across topics, no feedback until submitted, a full report, time-outs."""
import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from lessons.models import ExamAttempt, Question
from lessons.services import Learner, exam_start

pytestmark = pytest.mark.usefixtures("synced_content")
HX = {"HTTP_HX_REQUEST": "true"}


def start(client, questions=10, minutes=15, **extra):
    return client.post(reverse("lessons:exam-start"), {"questions": questions, "minutes": minutes}, **extra)


def answer_fields(attempt: ExamAttempt, right: int) -> dict[str, str]:
    """Answer the first `right` questions correctly and the rest wrongly."""
    fields = {}
    for index, question in enumerate(Question.objects.filter(pk__in=attempt.question_ids)):
        choice = next(c for c in question.choices.all() if c.is_correct == (index < right))
        fields[f"q-{question.pk}"] = str(choice.pk)
    return fields


def test_exam_index_offers_the_configured_defaults(client, settings):
    response = client.get("/exam/")
    assert response.status_code == 200
    assert f'value="{settings.EXAM_DEFAULT_QUESTIONS}"' in response.text


def test_draw_spreads_questions_across_topics(db):
    attempt = exam_start(learner=Learner(None, "k"), question_count=13, minutes=10, rng=random.Random(7))
    topics = set(Question.objects.filter(pk__in=attempt.question_ids).values_list("lesson__topic", flat=True))
    assert len(attempt.question_ids) == len(set(attempt.question_ids)) == 13
    assert len(topics) == 13  # one per topic before any topic gets a second


def test_starting_redirects_and_with_htmx_client_redirects(client):
    response = start(client)
    assert response.status_code == 302
    attempt = ExamAttempt.objects.get()
    assert response["Location"] == attempt.get_absolute_url()
    response = start(client, **HX)
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/exam/")


def test_invalid_settings_are_explained(client):
    response = start(client, questions=500, minutes=0)
    assert response.status_code == 400
    assert "less than or equal to 60" in response.text and "greater than or equal to 1" in response.text
    assert ExamAttempt.objects.count() == 0


def test_taking_page_shows_questions_without_any_feedback(client):
    start(client, questions=8)
    attempt = ExamAttempt.objects.get()
    page = client.get(attempt.get_absolute_url())
    assert page.text.count('class="question-card"') == 8
    assert 'class="why"' not in page.text and "Correct answer" not in page.text
    assert 'data-deadline="' in page.text


def test_autosave_returns_the_status_fragment_and_keeps_answers(client):
    start(client, questions=6)
    attempt = ExamAttempt.objects.get()
    fields = dict(list(answer_fields(attempt, right=6).items())[:2])
    response = client.post(reverse("lessons:exam-save", args=[attempt.pk]), fields, **HX)
    assert response.status_code == 200 and "<html" not in response.text
    assert "2 of 6 answers saved" in response.text
    page = client.get(attempt.get_absolute_url())
    assert page.text.count(" checked") == 2  # reloading the page keeps what was chosen


def test_submitting_gives_a_report_with_breakdowns_and_lessons_to_revisit(client):
    start(client, questions=10)
    attempt = ExamAttempt.objects.get()
    response = client.post(reverse("lessons:exam-submit", args=[attempt.pk]), answer_fields(attempt, right=7))
    assert response.status_code == 302
    report = client.get(attempt.get_absolute_url())
    assert 'id="exam-score">7/10<' in report.text
    assert "By error category" in report.text and "By topic" in report.text
    assert report.text.count('class="why"') == sum(
        q.choices.count() for q in Question.objects.filter(pk__in=attempt.question_ids))
    assert "Lessons to revisit" in report.text
    attempt.refresh_from_db()
    assert attempt.score == pytest.approx(0.7) and not attempt.timed_out


def test_submitting_twice_does_not_change_the_score(client):
    start(client, questions=5)
    attempt = ExamAttempt.objects.get()
    url = reverse("lessons:exam-submit", args=[attempt.pk])
    client.post(url, answer_fields(attempt, right=5))
    client.post(url, answer_fields(attempt, right=0))
    attempt.refresh_from_db()
    assert attempt.correct_count == 5


def test_time_out_submits_what_was_answered(client):
    start(client, questions=5, minutes=1)
    attempt = ExamAttempt.objects.get()
    fields = answer_fields(attempt, right=5)
    client.post(reverse("lessons:exam-save", args=[attempt.pk]), dict(list(fields.items())[:3]), **HX)
    ExamAttempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    # Answers that arrive after the deadline are not counted...
    client.post(reverse("lessons:exam-submit", args=[attempt.pk]), fields)
    report = client.get(attempt.get_absolute_url())
    assert 'id="exam-score">3/5<' in report.text
    assert "Time ran out" in report.text


def test_an_abandoned_attempt_is_submitted_when_next_viewed(client):
    start(client, questions=5, minutes=1)
    attempt = ExamAttempt.objects.get()
    ExamAttempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(hours=1))
    page = client.get("/exam/")
    assert "in progress" in page.text
    report = client.get(attempt.get_absolute_url())
    assert 'id="exam-score">0/5<' in report.text
    assert ExamAttempt.objects.get().timed_out


def test_another_learner_cannot_see_or_submit_an_attempt(client):
    from django.test import Client

    start(client, questions=5)
    attempt = ExamAttempt.objects.get()
    stranger = Client()
    assert stranger.get(attempt.get_absolute_url()).status_code == 404
    assert stranger.post(reverse("lessons:exam-submit", args=[attempt.pk]), {}).status_code == 404
    assert ExamAttempt.objects.get().submitted_at is None


def test_past_attempts_are_listed(client):
    for _ in range(2):
        start(client, questions=5)
        attempt = ExamAttempt.objects.order_by("-pk").first()
        client.post(reverse("lessons:exam-submit", args=[attempt.pk]), answer_fields(attempt, right=2))
    page = client.get("/exam/")
    assert page.text.count(">Report<") == 2


def test_submitted_exam_answers_count_towards_mastery(client):
    start(client, questions=5)
    attempt = ExamAttempt.objects.get()
    client.post(reverse("lessons:exam-submit", args=[attempt.pk]), answer_fields(attempt, right=3))
    dashboard = client.get("/dashboard/")
    assert "<strong>3</strong> of" in dashboard.text and "<strong>5</strong> tried" in dashboard.text
