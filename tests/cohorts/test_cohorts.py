"""Cohorts from both sides: joining by link or code, assignments, the gradebook and its CSV, where learners go
wrong, and regrading after a rubric changes."""
import csv
import io
import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from authoring.services import authored_publish, authored_save_draft
from cohorts.models import Assignment, Membership
from exercises.models import GradingRecord, Regrade, Submission
from exercises.services import regrade_start, submission_create
from lessons.models import Answer, Question
from lessons.services import Learner
from tests.teaching import AS_SUCCESS, GOOD_TIMEOUT, payload, scenario_source

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_new_learner_follows_the_invite_link_through_sign_up_and_joins(teaching_world):
    w = teaching_world
    client = Client()
    join_url = reverse("cohorts:join", kwargs={"code": w.cohort_x.invite_code})
    page = client.get(join_url).content.decode()
    assert "Join “Cohort X”" in page and f"?next={join_url}" in page.replace("%2F", "/")
    response = client.post(reverse("accounts:signup") + f"?next={join_url}", {
        "username": "newcomer", "password1": "a-long-pass-phrase-42", "password2": "a-long-pass-phrase-42",
        "next": join_url})
    assert response.status_code == 302 and response["Location"] == join_url
    response = client.post(join_url, follow=True)
    assert "You joined “Cohort X”" in response.content.decode()
    assert Membership.objects.filter(cohort=w.cohort_x, user__username="newcomer").exists()
    assert "The stock service timed out" in response.content.decode()  # the assignment, on My cohorts


def test_signup_ignores_a_next_address_on_another_site(db):
    response = Client().post(reverse("accounts:signup"), {
        "username": "someone", "password1": "a-long-pass-phrase-42", "password2": "a-long-pass-phrase-42",
        "next": "https://evil.example/"})
    assert response["Location"] == reverse("lessons:dashboard")


def test_a_code_is_typed_in_any_case_and_a_wrong_one_is_explained(teaching_world):
    client = signed_in(teaching_world.learner_b)
    response = client.post(reverse("cohorts:join-by-code"), {"code": teaching_world.cohort_x.invite_code.lower()})
    assert response["Location"] == reverse("cohorts:join", kwargs={"code": teaching_world.cohort_x.invite_code})
    response = client.post(reverse("cohorts:join-by-code"), {"code": "NOPE1234"})
    assert response.status_code == 404 and "No cohort has this code" in response.content.decode()


def test_a_new_code_retires_the_old_link_but_keeps_the_members(teaching_world):
    w = teaching_world
    old = w.cohort_x.invite_code
    signed_in(w.instructor_x).post(reverse("cohorts:invite-rotate", kwargs={"pk": w.cohort_x.pk}))
    response = signed_in(w.learner_b).post(reverse("cohorts:join", kwargs={"code": old}))
    assert response.status_code == 404 and "not valid any more" in response.content.decode()
    assert w.cohort_x.memberships.filter(user=w.learner_a).exists()


def test_an_instructor_cannot_join_their_own_cohort_as_a_learner(teaching_world):
    w = teaching_world
    response = signed_in(w.instructor_x).post(reverse("cohorts:join", kwargs={"code": w.cohort_x.invite_code}),
                                              follow=True)
    assert "You teach this cohort" in response.content.decode()
    assert not Membership.objects.filter(user=w.instructor_x).exists()


def test_assignments_need_a_future_date_and_are_not_doubled(teaching_world):
    w = teaching_world
    client = signed_in(w.instructor_x)
    url = reverse("cohorts:assignment-create", kwargs={"pk": w.cohort_x.pk})
    past = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(url, {"target": "exam", "due_at": past}, HTTP_HX_REQUEST="true")
    assert "Choose a due date in the future" in response.content.decode()
    future = (timezone.now() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(url, {"target": str(w.exercise.pk), "due_at": future}, HTTP_HX_REQUEST="true")
    assert "is already assigned to this cohort" in response.content.decode()
    response = client.post(url, {"target": "exam", "due_at": future}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Practice exam" in response.content.decode()
    assert w.cohort_x.assignments.count() == 2


def test_the_gradebook_shows_best_score_attempts_and_the_last_submission(teaching_world):
    w = teaching_world
    learner = Learner(w.learner_a, "key-a")
    better, _ = submission_create(learner=learner, exercise=w.exercise, text=json.dumps(GOOD_TIMEOUT))
    last, _ = submission_create(learner=learner, exercise=w.exercise, text=json.dumps(AS_SUCCESS))
    page = signed_in(w.instructor_x).get(reverse("cohorts:gradebook", kwargs={"pk": w.cohort_x.pk})).content.decode()
    assert "learner-a" in page and "learner-b" not in page
    assert "<strong>100%</strong>" in page and "3 attempts" in page
    assert f'href="{last.get_absolute_url()}"' in page


def test_the_csv_has_a_row_per_learner_and_assignment(teaching_world):
    w = teaching_world
    User.objects.filter(pk=w.learner_a.pk).update(username="=cmd")  # a formula-looking name stays text
    response = signed_in(w.instructor_x).get(reverse("cohorts:gradebook-csv", kwargs={"pk": w.cohort_x.pk}))
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 1
    row = rows[0]
    assert row["learner"] == "'=cmd" and row["assignment"] == "The stock service timed out"
    assert row["attempts"] == "1" and float(row["best_score_percent"]) < 100 and row["late"] == "no"
    assert row["last_submission_url"].endswith(w.submission_a.get_absolute_url())


def test_a_learner_with_nothing_before_the_due_date_is_late(teaching_world):
    w = teaching_world
    Assignment.objects.filter(pk=w.assignment_x.pk).update(due_at=timezone.now() - timedelta(minutes=1))
    Submission.objects.filter(pk=w.submission_a.pk).update(created_at=timezone.now())
    response = signed_in(w.instructor_x).get(reverse("cohorts:gradebook-csv", kwargs={"pk": w.cohort_x.pk}))
    assert list(csv.DictReader(io.StringIO(response.content.decode())))[0]["late"] == "yes"


def test_the_heatmap_counts_learners_per_misconception_and_category(teaching_world):
    w = teaching_world
    failed = [c["misconception"] for c in w.submission_a.result["checks"] if c["status"] == "fail"]
    assert failed  # learner A said a timeout is not retryable
    page = signed_in(w.instructor_x).get(reverse("cohorts:gradebook", kwargs={"pk": w.cohort_x.pk})).content.decode()
    heatmap = page.split('class="table heatmap"')[1].split("</table>")[0]
    row = heatmap.split(f"<code>{failed[0]}</code>")[1].split("</tr>")[0]
    cells = [c.split(">", 1)[1].split("<")[0] for c in row.split('<td class="heat"')[1:]]
    assert cells[0] == "1" and cells[1:] == ["", "", "", "", ""]  # one learner, in the Transient column


def test_the_most_missed_questions_come_from_the_cohorts_answers(teaching_world):
    w = teaching_world
    question = Question.objects.filter(is_active=True).first()
    wrong = question.choices.filter(is_correct=False).first()
    Answer.objects.create(user=w.learner_a, question=question, choice=wrong, is_correct=False)
    Answer.objects.create(user=w.learner_b, question=question, choice=wrong, is_correct=False)  # other cohort
    page = signed_in(w.instructor_x).get(reverse("cohorts:gradebook", kwargs={"pk": w.cohort_x.pk})).content.decode()
    assert question.content_id in page and "1 wrong of 1 answers" in page


def test_an_instructor_opens_a_learners_submission_with_its_feedback(teaching_world):
    w = teaching_world
    page = signed_in(w.instructor_x).get(w.submission_a.get_absolute_url()).content.decode()
    assert "Submitted by <strong>learner-a</strong>" in page and "What they submitted" in page
    assert "isRetryable" in page


def test_a_regrade_after_the_rubric_changes_moves_scores_and_keeps_history(teaching_world):
    w = teaching_world
    before_a, before_b = w.submission_a.score, w.submission_b.score
    assert before_a < 1 and before_b == 1
    escalate = payload("transient", False, "The stock service did not answer for SKU-1; escalate to a person.")
    authored_save_draft(item=w.item_x, source=scenario_source(retryable=False, good=[escalate], bad=[GOOD_TIMEOUT]))
    authored_publish(item=w.item_x, user=w.instructor_x)
    w.submission_a.refresh_from_db()
    assert w.submission_a.score == before_a  # a rubric change alone moves no score
    client = signed_in(w.instructor_x)
    edit = client.get(w.item_x.get_absolute_url()).content.decode()
    assert "Regrade 2 submissions" in edit
    response = client.post(reverse("authoring:regrade-start", kwargs={"slug": w.exercise.slug}))
    regrade = Regrade.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert (regrade.state, regrade.done, regrade.total, regrade.changed) == ("done", 2, 2, 2)
    w.submission_a.refresh_from_db()
    w.submission_b.refresh_from_db()
    assert w.submission_a.score > before_a and w.submission_b.score < 1  # A said "not retryable": now right
    assert w.submission_a.exercise_version == w.exercise.__class__.objects.get(pk=w.exercise.pk).version
    record = GradingRecord.objects.get(submission=w.submission_a)
    assert record.score == before_a and record.regrade == regrade
    page = client.get(regrade.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert page.status_code == 286 and "2 scores changed" in page.content.decode()  # htmx stops polling
    learner_page = signed_in(w.learner_a).get(w.submission_a.get_absolute_url()).content.decode()
    assert "Grading history" in learner_page and f"regrade #{regrade.pk}" in learner_page


def test_a_second_regrade_request_while_one_runs_joins_it(teaching_world):
    w = teaching_world
    running = Regrade.objects.create(exercise=w.exercise, to_version=w.exercise.version, state=Regrade.RUNNING)
    assert regrade_start(exercise=w.exercise, user=w.instructor_x) == running
