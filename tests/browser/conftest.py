"""Playwright driving Debian's Chromium against a live Django server. Never `playwright install`."""
import os
import shutil
from pathlib import Path

import pytest

from exercises.content_files import load_exercises
from exercises.services import exercise_sync
from lessons.services import SyncReport, content_sync

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make test`, which installs Debian's chromium package.")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"],
    }


@pytest.fixture
def live_content(transactional_db, live_server):
    assert content_sync().ok
    return live_server


@pytest.fixture
def site_with_grading(site_server, settings):
    """The site with its exercises, grading each submission as it arrives (a queue worker thread cannot share the
    in-memory test database with the site)."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    exercise_sync(bundle=load_exercises(settings.EXERCISE_CONTENT_DIR), report=SyncReport())
    return site_server


@pytest.fixture
def shoot(page):
    """Save a full-page screenshot as a test artifact: test-artifacts/screenshots/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def save(name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save
