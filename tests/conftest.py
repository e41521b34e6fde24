"""Shared fixtures: the real content synced into the test database, and small content folders to break."""
import textwrap
from pathlib import Path

import pytest

from lessons.services import content_sync


@pytest.fixture
def synced_content(db):
    """The product's own lessons and questions, loaded the way `make run` loads them."""
    report = content_sync()
    assert report.ok, report.problems
    return report


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


LESSON = """
    ---
    id: lesson-sample
    slug: sample-lesson
    title: A sample lesson
    summary: Used by the tests.
    topic: categories
    order: 1
    ---
    Body with **bold** text.
"""

QUESTION = """
    id: sample-question
    lesson: lesson-sample
    category: transient
    kind: classification
    prompt: The database timed out. Which category?
    choices:
      - text: Transient
        correct: true
        why: Time fixes it.
      - text: Business
        why: No rule was broken.
"""


@pytest.fixture
def content_root(tmp_path) -> Path:
    """A minimal valid content folder laid out like lessons/content/ (one lesson, one question)."""
    root = tmp_path / "lessons" / "content"
    write(root / "lessons" / "01-sample.md", LESSON)
    write(root / "questions" / "sample" / "q1.yaml", QUESTION)
    return root
