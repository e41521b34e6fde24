"""Authoring in the browser: drafts, checks against the example payloads, publish, history, preview, files."""
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from authoring import files
from authoring.models import AuthoredItem
from authoring.services import (
    AuthoringRefused, authored_create, authored_export, authored_import, authored_problems, authored_publish,
    authored_save_draft,
)
from exercises.content_files import load_exercises
from exercises.models import Exercise
from lessons.content_files import load_content
from lessons.models import Lesson, Question
from tests.teaching import AS_SUCCESS, GOOD_TIMEOUT, NOT_RETRYABLE, make_instructor, scenario_source

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor(db):
    return make_instructor("teacher")


@pytest.fixture
def client(instructor):
    client = Client()
    client.force_login(instructor)
    return client


def problems_of(kind, source, item=None) -> list[str]:
    return [f"{p.field}: {p.message}" for p in authored_problems(kind=kind, source=source, item=item)]


def test_a_good_example_that_fails_the_rubric_blocks_publishing_and_says_which_check(instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source(good=[NOT_RETRYABLE]))
    with pytest.raises(AuthoringRefused) as refused:
        authored_publish(item=item, user=instructor)
    messages = [str(p) for p in refused.value.problems]
    assert any("examples.good[0]" in m and "meant to be good but fails" in m and "isRetryable" in m for m in messages)
    assert not Exercise.objects.filter(content_id="stock-timeout").exists()


def test_a_bad_example_the_rubric_gives_full_marks_blocks_publishing(instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source(bad=[GOOD_TIMEOUT]))
    with pytest.raises(AuthoringRefused) as refused:
        authored_publish(item=item, user=instructor)
    assert any("examples.bad[0]" in str(p) and "passes every check" in str(p) for p in refused.value.problems)


def test_a_scenario_needs_good_and_bad_examples(instructor):
    problems = problems_of(files.SCENARIO, scenario_source(good=[], bad=[]))
    assert any(p.startswith("examples.good: give at least one good") for p in problems)
    assert any(p.startswith("examples.bad: give at least one bad") for p in problems)


def test_publishing_writes_the_live_exercise_and_numbers_versions(instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source())
    first = authored_publish(item=item, user=instructor)
    exercise = Exercise.objects.get(content_id="stock-timeout")
    assert (first.number, exercise.kind, exercise.rubric["retryable"]) == (1, "payload", True)
    assert exercise.source_path == "browser:scenario/stock-timeout" and "<strong>stock service</strong>" in exercise.situation_html
    with pytest.raises(AuthoringRefused, match="no changes since version 1"):
        authored_publish(item=item, user=instructor)
    authored_save_draft(item=item, source=scenario_source(title="The stock service is slow"))
    assert authored_publish(item=item, user=instructor).number == 2
    exercise.refresh_from_db()
    assert exercise.title == "The stock service is slow"


def test_an_id_from_the_content_files_cannot_be_taken(instructor, synced_content):
    lesson = Lesson.objects.first()
    source = files.lesson_text({"id": lesson.content_id, "slug": "another-slug", "title": "T", "summary": "S",
                                "topic": "categories", "order": 1}, "Body")
    assert any(p.startswith(f"id: {lesson.content_id!r} is already used by lessons/content/") for p in
               problems_of(files.LESSON, source))


def test_syncing_the_files_leaves_published_browser_items_alone(instructor, synced_content):
    from lessons.services import content_sync

    item = authored_create(author=instructor, kind=files.LESSON, source=files.lesson_text(
        {"id": "browser-lesson", "slug": "browser-lesson", "title": "Written in the browser", "summary": "S",
         "topic": "categories", "order": 99}, "Some *text*."))
    authored_publish(item=item, user=instructor)
    report = content_sync()
    assert report.ok and not any("browser-lesson" in r for r in report.removed)
    assert Lesson.objects.get(content_id="browser-lesson").is_active


def test_a_question_must_belong_to_a_published_lesson(instructor):
    source = files.dump_yaml({"id": "q-orphan", "lesson": "no-such-lesson", "category": "transient",
                              "kind": "classification", "prompt": "Which?", "choices": [
                                  {"text": "A", "why": "because", "correct": True}, {"text": "B", "why": "not"}]})
    assert "lesson: no published lesson has the id 'no-such-lesson'" in problems_of(files.QUESTION, source)


def test_the_id_is_fixed_once_published(instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source())
    authored_publish(item=item, user=instructor)
    with pytest.raises(AuthoringRefused, match="cannot change after publishing"):
        authored_save_draft(item=item, source=scenario_source(content_id="renamed"))


def _scenario_post(**changes) -> dict:
    data = {"content_id": "stock-timeout", "slug": "stock-timeout", "title": "Stock timeout", "summary": "Report it.",
            "order": "50", "situation": "The **stock** service timed out.", "expect": "error",
            "category": "transient", "retryable": "true", "customer_message": "none",
            "good_1": json.dumps(GOOD_TIMEOUT), "bad_1": json.dumps(AS_SUCCESS)}
    return {**data, **changes}


def test_the_browser_form_saves_a_draft_and_publishes_it(client):
    response = client.post(reverse("authoring:item-create", kwargs={"kind": "scenario"}), _scenario_post())
    item = AuthoredItem.objects.get()
    assert response.status_code == 302 and response["Location"] == item.get_absolute_url()
    assert not Exercise.objects.exists()  # a draft is not live
    response = client.post(item.get_absolute_url(), {**_scenario_post(), "publish": "1"}, follow=True)
    assert "Published version 1" in response.content.decode()
    assert Exercise.objects.get(content_id="stock-timeout").rubric["category"] == "transient"


def test_the_form_keeps_what_was_typed_when_an_example_is_not_json(client):
    response = client.post(reverse("authoring:item-create", kwargs={"kind": "scenario"}),
                           _scenario_post(bad_1='{"isError": tru'))
    page = response.content.decode()
    assert response.status_code == 422
    assert "is not valid JSON" in page and "line 1" in page
    assert "{&quot;isError&quot;: tru" in page and "The **stock** service timed out." in page
    assert not AuthoredItem.objects.exists()


def test_publishing_a_draft_with_problems_lists_them_by_field(client, instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source(bad=[GOOD_TIMEOUT]))
    response = client.post(reverse("authoring:item-publish", kwargs={"pk": item.pk}))
    page = response.content.decode()
    assert response.status_code == 422
    assert "Not published" in page and "examples.bad[0]" in page and "passes every check" in page


def test_the_markdown_preview_is_rendered_and_sanitized(client):
    response = client.post(reverse("authoring:markdown-preview"),
                           {"field": "situation", "situation": "**Timed out** <script>alert(1)</script>"
                                                               "[x](javascript:alert(1))"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<strong>Timed out</strong>" in html
    assert "<script" not in html and "javascript:" not in html


def test_history_shows_what_changed_between_versions(client, instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source())
    authored_publish(item=item, user=instructor)
    authored_save_draft(item=item, source=scenario_source(title="The stock service is slow"))
    authored_publish(item=item, user=instructor)
    page = client.get(reverse("authoring:item-history", kwargs={"pk": item.pk})).content.decode()
    assert '<span class="diff-remove">-title: The stock service timed out</span>' in page
    assert '<span class="diff-add">+title: The stock service is slow</span>' in page


def test_the_learner_preview_shows_the_draft_without_publishing_it(client, instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source())
    page = client.get(reverse("authoring:item-preview", kwargs={"pk": item.pk})).content.decode()
    assert "The stock service timed out" in page and "Preview of your draft" in page
    assert "Submit for grading" in page and "inert" in page
    assert not Exercise.objects.filter(content_id="stock-timeout").exists()


def test_items_from_files_are_read_only_in_the_browser(client, synced_content):
    lesson = Lesson.objects.first()
    page = client.get(reverse("authoring:file-item", kwargs={"kind": "lesson", "content_id": lesson.content_id}))
    text = page.content.decode()
    assert "Read-only" in text and lesson.source_path in text
    assert "/teach/content/new/" not in text.split('id="main"')[1] and "Save draft" not in text
    response = client.post(reverse("authoring:content-import"), {"files": [_upload(lesson.source_path)]})
    assert response.status_code == 422 and "read-only in the browser; edit that file instead" in response.content.decode()
    assert not AuthoredItem.objects.exists()


def _upload(path: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(Path(path).name, (Path(__file__).resolve().parents[2] / path).read_bytes())


def test_export_then_import_round_trips_every_item(instructor, synced_content, tmp_path):
    lesson = authored_create(author=instructor, kind=files.LESSON, source=files.lesson_text(
        {"id": "rt-lesson", "slug": "rt-lesson", "title": "Round trip", "summary": "Exported and back.",
         "topic": "retries", "order": 90}, "## Héllo\n\nBack-off with *jitter* — ünïcode kept."))
    authored_publish(item=lesson, user=instructor)
    question = authored_create(author=instructor, kind=files.QUESTION, source=files.dump_yaml({
        "id": "rt-question", "lesson": "rt-lesson", "category": "transient", "kind": "classification", "order": 1,
        "prompt": "A timeout:\n\n- retry?\n- give up?", "choices": [
            {"text": "Retry after a wait", "why": "Time fixes it.", "correct": True},
            {"text": "Give up", "why": "Too early."}]}))
    scenario = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source())
    for item in (question, scenario):
        authored_publish(item=item, user=instructor)
    live_before = {row.content_id: row.content_hash for model in (Lesson, Question, Exercise)
                   for row in model.objects.filter(source_path__startswith="browser:")}
    archive = authored_export(items=[lesson, question, scenario])

    # The files are content files: sync_content's own loaders read them without a single problem.
    with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
        zipped.extractall(tmp_path)
        names = sorted(zipped.namelist())
    assert names == ["exercises/content/exercises/stock-timeout.yaml", "lessons/content/lessons/rt-lesson.md",
                     "lessons/content/questions/authored/rt-question.yaml"]
    content = load_content(tmp_path / "lessons" / "content")
    exercises = load_exercises(tmp_path / "exercises" / "content")
    assert not content.problems and not exercises.problems
    assert {q.content_id for q in content.questions} == {"rt-question"}
    assert {e.content_hash for e in exercises.exercises} == {live_before["stock-timeout"]}

    # And back in: the same text, item for item.
    sources = {i.content_id: i.source for i in AuthoredItem.objects.all()}
    AuthoredItem.objects.all().delete()
    report = authored_import(author=instructor, uploads=[("authored-content.zip", archive)], may_edit=lambda i: True)
    assert not report.problems and len(report.created) == 3
    assert {i.content_id: i.source for i in AuthoredItem.objects.all()} == sources
    assert _members(authored_export(items=list(AuthoredItem.objects.all()))) == _members(archive)


def _members(archive: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
        return {name: zipped.read(name) for name in zipped.namelist()}


def test_import_is_all_or_nothing_and_names_each_bad_file(instructor):
    good = ("ok.yaml", scenario_source().encode())
    unknown = ("notes.txt", b"hello")
    no_id = ("q.yaml", b"lesson: x\nchoices: []\n")
    report = authored_import(author=instructor, uploads=[good, unknown, no_id], may_edit=lambda i: True)
    assert [(p.path, p.field) for p in report.problems] == [("notes.txt", "(file)"), ("q.yaml", "id")]
    assert not AuthoredItem.objects.exists()


def test_another_instructor_cannot_open_or_overwrite_my_item(instructor):
    item = authored_create(author=instructor, kind=files.SCENARIO, source=scenario_source())
    other = make_instructor("other")
    client = Client()
    client.force_login(other)
    assert client.get(item.get_absolute_url()).status_code == 404
    report = authored_import(author=other, uploads=[("x.yaml", scenario_source(title="Hijacked").encode())],
                             may_edit=lambda i: i.author_id == other.pk)
    assert report.problems and "another author's item" in report.problems[0].message
    item.refresh_from_db()
    assert "Hijacked" not in item.source
