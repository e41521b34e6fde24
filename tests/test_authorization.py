"""Who may open what: every URL of the site, for anonymous visitors, two learners, an instructor of each of two
cohorts, and staff. Learner A is in cohort X (taught by instructor X), learner B in cohort Y.

A URL missing from MATRIX fails `test_every_url_is_in_the_matrix`, so a new page cannot ship unchecked.
"""
from dataclasses import dataclass
from typing import Callable

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse

ROLES = ("anonymous", "learner_a", "learner_b", "instructor_y", "staff", "instructor_x")


def expect(anonymous, learner_a, learner_b, instructor_x, instructor_y, staff) -> dict[str, int]:
    return {"anonymous": anonymous, "learner_a": learner_a, "learner_b": learner_b, "instructor_x": instructor_x,
            "instructor_y": instructor_y, "staff": staff}


PUBLIC = expect(200, 200, 200, 200, 200, 200)
SIGNED_IN = expect(302, 200, 200, 200, 200, 200)
TEACHERS = expect(302, 403, 403, 200, 200, 200)
COHORT_X = expect(302, 403, 403, 200, 404, 200)  # instructor Y teaches another cohort: it does not exist for them
OWNER_A = expect(404, 200, 404, 404, 404, 404)


def teachers(ok: int) -> dict[str, int]:
    return expect(302, 403, 403, ok, ok, ok)


def cohort_x(ok: int) -> dict[str, int]:
    return expect(302, 403, 403, ok, 404, ok)


@dataclass
class Row:
    expected: dict[str, int]
    kwargs: Callable = lambda w: {}
    method: str = "get"
    data: Callable = lambda w: {}
    api: bool = False


MATRIX: dict[str, Row] = {
    "home": Row(PUBLIC),
    "lessons:lesson-list": Row(PUBLIC),
    "lessons:lesson-detail": Row(PUBLIC, lambda w: {"slug": w.lesson.slug}),
    "lessons:question-list": Row(PUBLIC),
    "lessons:question-detail": Row(PUBLIC, lambda w: {"content_id": w.lesson.questions.first().content_id}),
    "lessons:question-answer": Row(expect(302, 302, 302, 302, 302, 302),  # no choice: back to the question
                                   lambda w: {"content_id": w.lesson.questions.first().content_id}, "post"),
    "lessons:dashboard": Row(PUBLIC),
    "lessons:exam-index": Row(PUBLIC),
    "lessons:exam-start": Row(expect(400, 400, 400, 400, 400, 400), method="post"),  # no settings posted
    "lessons:exam-attempt": Row(OWNER_A, lambda w: {"pk": w.exam_a.pk}),
    "lessons:exam-save": Row(expect(404, 302, 404, 404, 404, 404), lambda w: {"pk": w.exam_a.pk}, "post"),
    "lessons:exam-submit": Row(expect(404, 302, 404, 404, 404, 404), lambda w: {"pk": w.exam_a.pk}, "post"),
    "exercises:exercise-list": Row(PUBLIC),
    "exercises:exercise-detail": Row(PUBLIC, lambda w: {"slug": w.exercise.slug}),
    # Only tool-server exercises offer training_db; a payload scenario has none, for anyone.
    "exercises:exercise-training-db": Row(expect(404, 404, 404, 404, 404, 404), lambda w: {"slug": w.exercise.slug}),
    "exercises:submission-create": Row(expect(302, 302, 302, 302, 302, 302), lambda w: {"slug": w.exercise.slug},
                                       "post", lambda w: {"text": "{}"}),
    "exercises:submission-detail": Row(expect(404, 200, 404, 200, 404, 200), lambda w: {"pk": w.submission_a.pk}),
    "exercises:playground": Row(SIGNED_IN),
    "exercises:playground-calls": Row(SIGNED_IN),
    "exercises:playground-mode": Row(expect(302, 302, 302, 302, 302, 302), method="post"),
    "exercises:playground-clear": Row(expect(302, 302, 302, 302, 302, 302), method="post"),
    "exercises:playground-rotate": Row(expect(302, 302, 302, 302, 302, 302), method="post"),
    "exercises:api-tokens": Row(SIGNED_IN),
    "exercises:api-token-revoke": Row(expect(302, 302, 302, 302, 302, 302), lambda w: {"pk": w.token_a.pk}, "post"),
    "api:openapi-json": Row(PUBLIC, api=True),
    "api:api-root": Row(expect(404, 404, 404, 404, 404, 404), api=True),  # interactive docs are switched off
    "api:exercise_index": Row(expect(401, 200, 200, 200, 200, 200), api=True),
    "api:submission_create": Row(expect(401, 400, 400, 400, 400, 400), method="post", api=True),  # empty body
    # The API shows a submission to its owner only; instructors read their learners' work in the browser.
    "api:submission_detail": Row(expect(401, 200, 404, 404, 404, 404), lambda w: {"submission_id": w.submission_a.pk},
                                 api=True),
    "cohorts:cohort-list": Row(TEACHERS),
    "cohorts:cohort-detail": Row(COHORT_X, lambda w: {"pk": w.cohort_x.pk}),
    "cohorts:invite-rotate": Row(cohort_x(302), lambda w: {"pk": w.cohort_x.pk}, "post"),
    "cohorts:assignment-create": Row(cohort_x(422), lambda w: {"pk": w.cohort_x.pk}, "post"),
    "cohorts:assignment-delete": Row(cohort_x(302), lambda w: {"pk": w.cohort_x.pk,
                                                              "assignment_pk": w.assignment_x.pk}, "post"),
    "cohorts:gradebook": Row(COHORT_X, lambda w: {"pk": w.cohort_x.pk}),
    "cohorts:gradebook-csv": Row(COHORT_X, lambda w: {"pk": w.cohort_x.pk}),
    "cohorts:learner": Row(COHORT_X, lambda w: {"pk": w.cohort_x.pk, "user_id": w.learner_a.pk}),
    "cohorts:exam-report": Row(COHORT_X, lambda w: {"pk": w.cohort_x.pk, "attempt_pk": w.exam_a.pk}),
    "cohorts:join-by-code": Row(PUBLIC),
    "cohorts:join": Row(PUBLIC, lambda w: {"code": w.cohort_x.invite_code}),
    "cohorts:my-cohorts": Row(SIGNED_IN),
    "authoring:teach-home": Row(TEACHERS),
    "authoring:content-list": Row(TEACHERS),
    "authoring:item-create": Row(TEACHERS, lambda w: {"kind": "scenario"}),
    "authoring:item-edit": Row(COHORT_X, lambda w: {"pk": w.item_x.pk}),
    # Nothing changed since version 1, so publishing is refused (422), but only the author and staff get that far.
    "authoring:item-publish": Row(cohort_x(422), lambda w: {"pk": w.item_x.pk}, "post"),
    "authoring:item-history": Row(COHORT_X, lambda w: {"pk": w.item_x.pk}),
    "authoring:item-preview": Row(COHORT_X, lambda w: {"pk": w.item_x.pk}),
    "authoring:file-item": Row(TEACHERS, lambda w: {"kind": "lesson", "content_id": w.lesson.content_id}),
    "authoring:content-export": Row(TEACHERS),
    "authoring:content-import": Row(teachers(302), method="post"),
    "authoring:markdown-preview": Row(TEACHERS, method="post", data=lambda w: {"field": "body", "body": "*hi*"}),
    "authoring:regrade-start": Row(cohort_x(302), lambda w: {"slug": w.exercise.slug}, "post"),
    "authoring:regrade-detail": Row(COHORT_X, lambda w: {"pk": w.regrade_x.pk}),
    "accounts:signup": Row(expect(200, 302, 302, 302, 302, 302)),
    "accounts:login": Row(expect(200, 302, 302, 302, 302, 302)),
    "accounts:logout": Row(expect(302, 302, 302, 302, 302, 302), method="post"),
    # The rest of the admin is the admin site's own (staff only, checked by Django on every admin view).
    "admin:index": Row(expect(302, 302, 302, 302, 302, 200)),
}


def _url_names(patterns, namespace: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _url_names(pattern.url_patterns, inner)
        else:
            yield f"{namespace}{pattern.name}"


def test_every_url_is_in_the_matrix():
    names = {n for n in _url_names(get_resolver().url_patterns) if not n.startswith("admin:") or n == "admin:index"}
    missing, stale = names - set(MATRIX), set(MATRIX) - names
    assert not missing, f"URLs with no row in the authorization matrix: {sorted(missing)}"
    assert not stale, f"Matrix rows for URLs that no longer exist: {sorted(stale)}"


def _client(world, role: str) -> Client:
    client = Client()
    user = getattr(world, role, None)
    if user is not None:
        client.force_login(user)
    return client


def _bearer(world, role: str) -> dict:
    short = {"learner_a": "a", "learner_b": "b", "instructor_x": "x", "instructor_y": "y", "staff": "staff"}
    return {"HTTP_AUTHORIZATION": f"Bearer {world.tokens[short[role]]}"} if role in short else {}


@pytest.mark.django_db
def test_every_url_answers_each_role_as_the_matrix_says(teaching_world):
    wrong = []
    for name, row in MATRIX.items():
        with transaction.atomic():  # each URL starts from the same world, whatever an earlier POST changed
            url = reverse(name, kwargs=row.kwargs(teaching_world))
            for role in ROLES:
                client = Client() if row.api else _client(teaching_world, role)
                extra = _bearer(teaching_world, role) if row.api else {}
                response = getattr(client, row.method)(url, row.data(teaching_world), **extra)
                if response.status_code != row.expected[role]:
                    wrong.append(f"{row.method.upper()} {url} as {role}: {response.status_code}, "
                                 f"expected {row.expected[role]}")
            transaction.set_rollback(True)
    assert not wrong, "\n".join(wrong)


@pytest.mark.django_db
def test_a_signed_in_learner_is_told_why_a_teaching_page_is_refused(teaching_world):
    response = _client(teaching_world, "learner_a").get(reverse("cohorts:cohort-list"))
    assert response.status_code == 403
    assert "This page is for instructors" in response.content.decode()


@pytest.mark.django_db
def test_an_instructor_does_not_see_another_cohorts_learners_anywhere(teaching_world):
    client = _client(teaching_world, "instructor_y")
    for url in (reverse("cohorts:cohort-list"), reverse("authoring:teach-home")):
        page = client.get(url).content.decode()
        assert "Cohort Y" in page and "Cohort X" not in page
    gradebook = client.get(reverse("cohorts:gradebook", kwargs={"pk": teaching_world.cohort_y.pk})).content.decode()
    assert "learner-b" in gradebook and "learner-a" not in gradebook
