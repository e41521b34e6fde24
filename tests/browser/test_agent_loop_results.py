"""In a real browser: a learner submits an agent loop, watches grading progress scenario by scenario (a real
queue worker grades it in the real sandbox), then reads each scenario's timeline and what to change."""
import re
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django_tasks_db.management.commands.db_worker import Worker
from playwright.sync_api import Page, expect

from exercises.content_files import load_exercises
from exercises.services import exercise_sync
from lessons.services import SyncReport
from tests.exercises.agent_loops import MISTAKES

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.sandbox]

# Ignores retryAfterSeconds, and is busy for a moment in every scenario so progress can be seen.
SLOW_IMPATIENT_LOOP = MISTAKES["ignores-retry-after"][0].replace(
    '    tool, arguments = request["tool"], dict(request["arguments"])',
    '    import time\n'
    '    started = time.monotonic()\n'
    '    while time.monotonic() - started < 0.4:\n'
    '        pass\n'
    '    tool, arguments = request["tool"], dict(request["arguments"])')


@pytest.fixture
def site_with_worker(site_server):
    """The site plus a django-tasks-db worker loop on a thread (the real queue, against the test database)."""
    exercise_sync(bundle=load_exercises(settings.EXERCISE_CONTENT_DIR), report=SyncReport())
    worker = Worker(queue_names=["default"], interval=0.05, batch=False, backend_name="default",
                    startup_delay=False, max_tasks=None, worker_id="browser-test", excluded_queue_names=[])
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    yield site_server
    worker.running = False
    thread.join(30)


def test_learner_watches_progress_then_reads_each_scenarios_timeline(site_with_worker, page: Page, shoot):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(site_with_worker + "/exercises/agent-loop/")
    expect(page.locator(".CodeMirror")).to_be_visible()
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", SLOW_IMPATIENT_LOOP)
    page.get_by_role("button", name="Submit for grading").click()
    panel = page.locator("#result-panel")
    expect(panel).to_contain_text(re.compile(r"Scenario \d+ of 10"), timeout=20000)  # progress while it runs
    expect(panel.locator(".verdict")).to_contain_text("Not yet: 3 scenarios to fix", timeout=60000)
    expect(panel.locator("svg.timeline")).to_have_count(10)
    recovers = panel.locator("#scenario-transient-recovers")
    expect(recovers.locator(".tl-call")).to_have_count(3)
    expect(recovers.locator(".tl-wait-short")).to_have_count(2)  # both waits drawn as too short
    expect(recovers).to_contain_text("ignores-retry-after")
    expect(recovers).to_contain_text("What to change")
    expect(panel.locator("#scenario-partial-results .tl-partial")).to_have_count(1)
    expect(panel.locator("#scenario-unknown-tool .tl-protocol")).to_have_count(1)
    shoot("laptop-12-agent-loop-timelines")
    docs = Path(settings.BASE_DIR) / "docs" / "screenshots" / "agent-loop-timeline.png"
    page.locator("#scenario-transient-persists").screenshot(path=str(docs))
