"""In a real browser: a learner submits an agent loop, graded in the real sandbox, then reads each scenario's
timeline and what to change. (Progress while grading runs is shown by the result panel's polling; the view and
API tests cover it, since a queue worker thread cannot share the in-memory test database with the site.)"""
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from tests.exercises.agent_loops import MISTAKES

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.sandbox]

IMPATIENT_LOOP = MISTAKES["ignores-retry-after"][0]


def test_learner_reads_each_scenarios_timeline_and_what_to_change(site_with_grading, page: Page, shoot):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(site_with_grading + "/exercises/agent-loop/")
    expect(page.locator(".CodeMirror")).to_be_visible()
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", IMPATIENT_LOOP)
    page.get_by_role("button", name="Submit for grading").click()
    panel = page.locator("#result-panel")
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
