"""Every learner-facing page, requested as a whole page and, where htmx uses it, as a fragment."""
import re

import pytest
from django.urls import reverse

from lessons.models import Answer, Lesson, Question

pytestmark = pytest.mark.usefixtures("synced_content")
HX = {"HTTP_HX_REQUEST": "true"}


def correct_key(question: Question) -> str:
    return next(c.key for c in question.choices.all() if c.is_correct)


def wrong_key(question: Question) -> str:
    return next(c.key for c in question.choices.all() if not c.is_correct)


def test_home_links_to_the_first_lesson_and_counts_content(client):
    response = client.get("/")
    assert response.status_code == 200
    first = Lesson.objects.order_by("order").first()
    assert f'href="/lessons/{first.slug}/"' in response.text
    assert f"<strong>{Question.objects.count()}</strong> practice questions" in response.text


def test_lesson_index_links_every_lesson_by_slug(client):
    response = client.get("/lessons/")
    assert response.status_code == 200
    for slug in Lesson.objects.values_list("slug", flat=True):
        assert f'href="/lessons/{slug}/"' in response.text


@pytest.mark.parametrize("hx", [False, True])
def test_every_lesson_page_renders_with_side_by_side_json_and_practice(client, hx):
    for lesson in Lesson.objects.all():
        response = client.get(f"/lessons/{lesson.slug}/", **(HX if hx else {}))
        assert response.status_code == 200, lesson.slug
        assert 'class="compare"' in response.text, f"{lesson.slug} shows no good/bad comparison"
        assert 'class="highlight"' in response.text, f"{lesson.slug} has no highlighted code"
        assert response.text.count('class="question-card"') == lesson.questions.count() > 0


def test_unknown_lesson_is_a_friendly_404(client):
    response = client.get("/lessons/no-such-lesson/")
    assert response.status_code == 404
    assert "Nothing here" in response.text


def test_question_bank_page_and_filtered_fragment(client):
    page = client.get("/questions/")
    assert page.status_code == 200 and "<html" in page.text
    assert page.text.count("<tr>") == Question.objects.count() + 1
    fragment = client.get("/questions/?category=permission", **HX)
    assert fragment.status_code == 200
    assert "<html" not in fragment.text and 'id="question-table"' in fragment.text
    assert fragment.text.count("<tr>") == Question.objects.filter(category="permission").count() + 1


def test_question_page_and_fresh_card_fragment(client):
    question = Question.objects.first()
    page = client.get(question.get_absolute_url())
    assert page.status_code == 200 and "<html" in page.text and "Check answer" in page.text
    fragment = client.get(question.get_absolute_url(), **HX)
    assert "<html" not in fragment.text and 'class="question-card"' in fragment.text


def test_answering_with_htmx_returns_feedback_with_every_explanation(client):
    question = Question.objects.get(content_id="empty-retry-three-times")
    response = client.post(reverse("lessons:question-answer", args=[question.content_id]),
                           {"choice": wrong_key(question)}, **HX)
    assert response.status_code == 200 and "<html" not in response.text
    assert "Not quite." in response.text
    assert response.text.count('class="why"') == question.choices.count()
    assert "Your answer" in response.text and "Correct answer" in response.text
    assert Answer.objects.get().is_correct is False


def test_answering_without_javascript_redirects_to_the_feedback(client):
    question = Question.objects.get(content_id="cat-refund-limit")
    response = client.post(reverse("lessons:question-answer", args=[question.content_id]),
                           {"choice": correct_key(question)})
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert "Right." in page.text and "<html" in page.text


def test_answering_without_a_choice_says_what_to_do(client):
    question = Question.objects.first()
    url = reverse("lessons:question-answer", args=[question.content_id])
    fragment = client.post(url, {}, **HX)
    assert "Pick one of the options" in fragment.text
    page = client.post(url, {"choice": "z"}, follow=True)
    assert "not one of this question" in page.text
    assert Answer.objects.count() == 0


def test_a_learner_cannot_open_another_learners_answer(client, django_user_model):
    question = Question.objects.first()
    client.post(reverse("lessons:question-answer", args=[question.content_id]), {"choice": "a"})
    answer = Answer.objects.get()
    from django.test import Client
    stranger = Client()
    assert stranger.get(f"{question.get_absolute_url()}?answer={answer.pk}").status_code == 404


def test_dashboard_shows_mastery_per_category_and_topic(client):
    question = Question.objects.get(content_id="cat-finance-scope")
    client.post(reverse("lessons:question-answer", args=[question.content_id]), {"choice": correct_key(question)})
    response = client.get("/dashboard/")
    assert response.status_code == 200
    total_permission = Question.objects.filter(category="permission").count()
    assert re.search(rf'aria-label="Permission: 1 of {total_permission} right"', response.text)
    assert "Mastery by topic" in response.text
    assert "Sign up" in response.text  # anonymous learners are told how to keep their progress


def test_signup_carries_anonymous_progress_over(client, django_user_model):
    question = Question.objects.get(content_id="cat-db-timeout")
    client.post(reverse("lessons:question-answer", args=[question.content_id]), {"choice": correct_key(question)})
    response = client.post("/accounts/signup/", {"username": "ada", "password1": "a-long-pass-phrase-9",
                                                 "password2": "a-long-pass-phrase-9"})
    assert response.status_code == 302
    user = django_user_model.objects.get(username="ada")
    assert Answer.objects.get().user == user
    assert 'aria-label="Transient: 1 of' in client.get("/dashboard/").text


def test_login_carries_anonymous_progress_over_and_logout_ends_it(client, django_user_model):
    user = django_user_model.objects.create_user("grace", password="another-long-pass-7")
    question = Question.objects.first()
    client.post(reverse("lessons:question-answer", args=[question.content_id]), {"choice": "a"})
    response = client.post("/accounts/login/", {"username": "grace", "password": "another-long-pass-7"})
    assert response.status_code == 302
    assert Answer.objects.get().user == user
    client.post("/accounts/logout/")
    assert "<strong>0</strong> tried" in client.get("/dashboard/").text


def test_signup_with_bad_input_explains_and_keeps_the_form(client):
    response = client.post("/accounts/signup/", {"username": "x", "password1": "a", "password2": "b"})
    assert response.status_code == 400
    assert "didn" in response.text or "match" in response.text


def test_login_page_and_wrong_password(client, django_user_model):
    assert client.get("/accounts/login/").status_code == 200
    django_user_model.objects.create_user("lin", password="right-pass-phrase-1")
    response = client.post("/accounts/login/", {"username": "lin", "password": "wrong"})
    assert response.status_code == 200 and "correct username and password" in response.text


@pytest.mark.parametrize("path", ["/", "/lessons/", "/lessons/four-error-categories/", "/questions/",
                                  "/questions/cat-db-timeout/", "/dashboard/", "/exam/",
                                  "/accounts/login/", "/accounts/signup/"])
@pytest.mark.parametrize("hx", [False, True], ids=["page", "htmx"])
def test_every_get_page_answers_with_and_without_htmx(client, path, hx):
    response = client.get(path, **(HX if hx else {}))
    assert response.status_code == 200
    assert "Traceback" not in response.text
    if not hx or path not in ("/questions/", "/questions/cat-db-timeout/"):
        assert "<html" in response.text  # pages without a fragment branch stay whole pages


def test_posting_to_a_get_only_page_is_refused(client):
    assert client.post("/lessons/").status_code == 405
