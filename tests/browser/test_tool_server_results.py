"""In a real browser: a learner downloads training_db, submits an MCP server that leaks the database's message,
graded in the real sandbox by a real MCP client, then reads the scoreboard and what their server answered."""
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from tests.exercises.tool_servers import MISTAKES

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.sandbox]

LEAKY_SERVER = MISTAKES["leaks the database's message"][0]


def test_learner_reads_the_scoreboard_and_what_their_server_answered(site_with_grading, page: Page, shoot):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(site_with_grading + "/exercises/customer-lookup-tool/")
    with page.expect_download() as download:
        page.get_by_role("link", name="download training_db.py").click()
    assert "def get_customer(" in Path(download.value.path()).read_text()
    expect(page.locator(".CodeMirror")).to_be_visible()
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", LEAKY_SERVER)
    page.get_by_role("button", name="Submit for grading").click()
    panel = page.locator("#result-panel")
    expect(panel.locator(".verdict")).to_contain_text("Not yet: 1 probe to fix", timeout=60000)
    board = panel.locator("table.scoreboard")
    expect(board.locator("tbody tr")).to_have_count(18)
    timeout_row = board.locator("tr", has=page.get_by_role("link", name="The database times out"))
    expect(timeout_row.locator(".era-fail")).to_have_count(2)
    timeout = panel.locator("#scenario-timeout")
    expect(timeout).to_contain_text("leaks-internals")
    expect(timeout).to_contain_text("crm-db-03.internal")  # quoted back from what the server answered
    expect(timeout).to_contain_text("What to change")
    expect(timeout.locator(".wire-entry")).to_have_count(2)
    expect(panel.locator("#scenario-found details")).not_to_have_attribute("open", "")
    shoot("laptop-13-tool-server-scoreboard")
    docs = Path(settings.BASE_DIR) / "docs" / "screenshots"
    board.screenshot(path=str(docs / "tool-server-scoreboard.png"))
    timeout.screenshot(path=str(docs / "tool-server-probe.png"))
