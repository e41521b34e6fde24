"""Shared fixtures: the real content synced into the test database, small content folders to break, and the
site served by uvicorn (ASGI, with the live MCP endpoint)."""
import textwrap
import threading
import time
from pathlib import Path

import pytest
import uvicorn

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


@pytest.fixture
def site_server(transactional_db):
    """The site's ASGI app (Django + /mcp/) served by uvicorn in a thread, against the test database."""
    from trainer.asgi import build_application

    config = uvicorn.Config(build_application(), host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def immediate_tasks(settings):
    """Grade (and regrade) as soon as the work is queued, in this thread."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def teaching_world(synced_content, immediate_tasks):
    from tests.teaching import build_world

    return build_world()
