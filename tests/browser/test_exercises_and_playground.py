"""In a real browser, on the real ASGI site: a learner grades a payload in the editor, then connects an MCP
client to their own training server and watches the calls arrive on the Playground."""
import json
import re

import pytest
from mcp import Client
from playwright.sync_api import Page, expect

from tests.support import run_async
from exercises.content_files import load_exercises
from exercises.services import exercise_sync
from lessons.services import SyncReport, content_sync

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HALF_RIGHT = {"content": [{"type": "text", "text": "The order database timed out"}], "isError": True,
              "structuredContent": {"errorCategory": "transient", "isRetryable": True,
                                    "description": "Timeout on db-orders-01.internal:5432"}}


@pytest.fixture
def site(site_server, settings):
    from django.conf import settings as django_settings

    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    assert content_sync().ok
    exercise_sync(bundle=load_exercises(django_settings.EXERCISE_CONTENT_DIR), report=SyncReport())
    return site_server


def _log_in(page: Page, base: str, django_user_model):
    django_user_model.objects.create_user("maya", password="a-long-password-1")
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill("maya")
    page.get_by_label("Password").fill("a-long-password-1")
    page.get_by_role("button", name=re.compile("Log in", re.I)).click()


def test_learner_grades_a_payload_in_the_editor(site, page: Page, shoot):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(site + "/exercises/")
    page.get_by_role("link", name="The order database timed out").click()
    expect(page.locator(".CodeMirror")).to_be_visible()  # the vendored editor replaced the textarea
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)",
                  json.dumps(HALF_RIGHT, indent=2))
    page.get_by_role("button", name="Submit for grading").click()
    panel = page.locator("#result-panel")
    expect(panel.locator(".verdict")).to_contain_text("Not yet", timeout=10000)
    expect(panel).to_contain_text("leaks-internals")
    expect(panel).to_contain_text("missing-retry-after")
    expect(page).to_have_url(re.compile(r"/exercises/order-db-timeout/$"))  # htmx: no page load
    shoot("laptop-10-exercise-feedback")


def test_learner_watches_their_calls_arrive_on_the_playground(site, page: Page, shoot, django_user_model):
    page.set_viewport_size({"width": 1366, "height": 900})
    _log_in(page, site, django_user_model)
    page.goto(site + "/playground/")
    url = page.locator("#mcp-url").inner_text().strip()
    assert re.fullmatch(re.escape(site) + r"/mcp/mcp_[0-9a-f]+_[0-9a-f]+/", url)
    page.select_option("#mode-get_financial_records", "permission")
    expect(page.locator("#mode-get_financial_records")).to_have_value("permission")

    async def call_tools():
        async with Client(url) as client:
            await client.call_tool("get_financial_records", {"customer_id": "CUST-00042"})
            await client.call_tool("lookup_order", {"order_id": "ORD-10001", "failure_mode": "rate_limit"})
            await client.call_tool("search_orders", {"query": "CUST", "failure_mode": "partial"})

    run_async(call_tools)
    calls = page.locator("#live-calls .call")
    expect(calls).to_have_count(3, timeout=5000)  # arrives by polling, without reloading
    expect(calls.nth(0)).to_have_class(re.compile("call-partial"))
    expect(calls.nth(1)).to_have_class(re.compile("call-transient"))
    expect(calls.nth(2)).to_have_class(re.compile("call-permission"))
    shoot("laptop-11-playground")
