"""The content validator names the file and the field of every problem, and sync upserts by stable id."""
import pytest

from lessons.content_files import load_content
from lessons.models import Lesson, Question
from lessons.services import content_sync
from tests.conftest import LESSON, QUESTION, write


def problems_for(root):
    return [(p.path.split("content/")[-1], p.field, p.message) for p in load_content(root).problems]


def test_valid_folder_has_no_problems(content_root):
    bundle = load_content(content_root)
    assert bundle.problems == []
    assert [l.slug for l in bundle.lessons] == ["sample-lesson"]
    assert bundle.questions[0].choices[0].is_correct


def test_the_products_own_content_is_valid_and_large_enough(settings):
    bundle = load_content(settings.CONTENT_DIR)
    assert bundle.problems == []
    assert len(bundle.lessons) >= 12
    assert len(bundle.questions) >= 100
    # Every option of every question explains itself.
    assert all(c.explanation_html.strip() for q in bundle.questions for c in q.choices)


def test_missing_required_field_names_file_and_field(content_root):
    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("    prompt: The database timed out. Which category?\n", ""))
    assert ("questions/sample/q1.yaml", "prompt", "is required") in problems_for(content_root)


def test_invalid_yaml_reports_the_line(content_root):
    write(content_root / "questions" / "sample" / "q1.yaml", "id: [unclosed\n")
    [(path, field, message)] = problems_for(content_root)
    assert (path, field) == ("questions/sample/q1.yaml", "(yaml)")
    assert "line" in message


def test_lesson_without_front_matter_is_rejected(content_root):
    write(content_root / "lessons" / "01-sample.md", "# Just a heading\n")
    problems = problems_for(content_root)
    assert ("lessons/01-sample.md", "(front matter)") in [(p, f) for p, f, _ in problems]


def test_unknown_topic_and_category_are_named(content_root):
    write(content_root / "lessons" / "01-sample.md", LESSON.replace("topic: categories", "topic: gardening"))
    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("category: transient", "category: fatal"))
    fields = {(p, f) for p, f, _ in problems_for(content_root)}
    assert ("lessons/01-sample.md", "topic") in fields
    assert ("questions/sample/q1.yaml", "category") in fields


def test_two_correct_choices_is_an_error(content_root):
    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("why: No rule", "correct: true\n        why: No rule"))
    assert any(f == "choices" and "exactly one" in m for _, f, m in problems_for(content_root))


def test_choice_without_explanation_names_the_choice(content_root):
    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("        why: No rule was broken.\n", ""))
    assert ("questions/sample/q1.yaml", "choices[1].why", "is required") in problems_for(content_root)


def test_question_pointing_at_unknown_lesson(content_root):
    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("lesson: lesson-sample", "lesson: lesson-gone"))
    assert any(f == "lesson" and "lesson-gone" in m for _, f, m in problems_for(content_root))


def test_duplicate_ids_across_files(content_root):
    write(content_root / "questions" / "sample" / "q2.yaml", QUESTION)
    assert any(p == "questions/sample/q2.yaml" and f == "id" and "already used" in m for p, f, m in problems_for(content_root))


def test_bad_id_format(content_root):
    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("id: sample-question", "id: Sample Question!"))
    assert any(f == "id" for _, f, _ in problems_for(content_root))


@pytest.mark.django_db
def test_sync_writes_nothing_when_any_file_is_invalid(content_root):
    write(content_root / "questions" / "sample" / "q2.yaml", "id: broken\n")
    report = content_sync(root=content_root)
    assert not report.ok
    assert Lesson.objects.count() == 0 and Question.objects.count() == 0


@pytest.mark.django_db
def test_sync_reports_added_then_unchanged(content_root):
    first = content_sync(root=content_root)
    assert first.added == ["lesson lesson-sample", "question sample-question"]
    second = content_sync(root=content_root)
    assert (second.added, second.changed, second.unchanged) == ([], [], 2)


@pytest.mark.django_db
def test_renaming_file_and_slug_keeps_the_same_rows(content_root):
    content_sync(root=content_root)
    lesson_pk = Lesson.objects.get().pk
    question_pk = Question.objects.get().pk
    (content_root / "lessons" / "01-sample.md").unlink()
    write(content_root / "lessons" / "07-renamed.md", LESSON.replace("slug: sample-lesson", "slug: renamed-lesson"))
    (content_root / "questions" / "sample" / "q1.yaml").rename(content_root / "questions" / "sample" / "renamed.yaml")
    report = content_sync(root=content_root)
    assert report.changed == ["lesson lesson-sample", "question sample-question"]
    assert Lesson.objects.get().pk == lesson_pk and Lesson.objects.get().slug == "renamed-lesson"
    assert Question.objects.get().pk == question_pk


@pytest.mark.django_db
def test_removed_question_is_retired_not_deleted(content_root):
    content_sync(root=content_root)
    (content_root / "questions" / "sample" / "q1.yaml").unlink()
    report = content_sync(root=content_root)
    assert report.removed == ["question sample-question"]
    assert Question.objects.get().is_active is False


@pytest.mark.django_db
def test_sync_renders_markdown_once_into_sanitized_html(content_root):
    write(content_root / "lessons" / "01-sample.md", LESSON.replace("Body with **bold** text.", "Hi <script>alert(1)</script> **bold**"))
    content_sync(root=content_root)
    html = Lesson.objects.get().body_html
    assert "<strong>bold</strong>" in html and "<script" not in html


@pytest.mark.django_db
def test_sync_content_command_fails_with_file_and_field(content_root, capsys):
    from django.core.management import CommandError, call_command

    write(content_root / "questions" / "sample" / "q1.yaml", QUESTION.replace("kind: classification", "kind: riddle"))
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("sync_content", "--path", str(content_root))
    assert "questions/sample/q1.yaml: kind: 'riddle' is not one of" in capsys.readouterr().err
