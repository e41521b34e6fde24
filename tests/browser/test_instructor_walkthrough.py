"""In a real browser, end to end: an instructor authors a payload scenario (live preview, checks, publish),
opens a cohort and assigns it; a learner joins through the invite link, signs up and solves it; the
instructor sees the result in the gradebook, opens the submission and downloads the CSV."""
import csv
import io
import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS
from tests.teaching import AS_SUCCESS, GOOD_TIMEOUT, make_instructor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOT_RETRYABLE_CLAIM = {**GOOD_TIMEOUT, "structuredContent": {**GOOD_TIMEOUT["structuredContent"], "isRetryable": False}}


def _log_in(page: Page, base: str, username: str, password: str) -> None:
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name=re.compile("Log in", re.I)).click()


def _author_scenario(page: Page, base: str, shoot) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Teach").click()
    page.get_by_role("link", name="New payload scenario").click()
    page.locator("#id_content_id").fill("warehouse-timeout")
    page.locator("#id_slug").fill("warehouse-timeout")
    page.locator("#id_title").fill("The warehouse service timed out")
    page.locator("#id_summary").fill("Report a stock check that timed out, so the agent waits and retries.")
    page.locator("#id_situation").fill("`check_stock(\"SKU-1\")` asks the **warehouse service**, which did not answer.")
    expect(page.locator("#preview-situation strong")).to_have_text("warehouse service")  # live preview over htmx
    page.locator("#id_category").select_option("transient")
    page.locator("#id_retryable").select_option("true")
    page.locator("#id_customer_message").select_option("none")
    page.locator("#id_good_1").fill(json.dumps(NOT_RETRYABLE_CLAIM, indent=2))  # a mistake the checks catch
    page.locator("#id_bad_1").fill(json.dumps(AS_SUCCESS))
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator(".messages")).to_contain_text("Draft saved")
    page.get_by_role("button", name="Save and publish").click()
    problems = page.locator("#problems")
    expect(problems).to_contain_text("examples.good[0]")
    expect(problems).to_contain_text("meant to be good but fails")
    shoot("instructor-10-publish-refused")
    page.locator("#id_good_1").fill(json.dumps(GOOD_TIMEOUT, indent=2))
    page.get_by_role("button", name="Save and publish").click()
    expect(page.locator(".messages")).to_contain_text("Published version 1")
    shoot("instructor-20-published")


def _open_cohort(page: Page) -> str:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Teach").click()
    page.get_by_role("link", name="Create a cohort").click()
    page.get_by_label("Cohort name").fill("Support bots, spring")
    page.get_by_role("button", name="Create cohort").click()
    page.locator("#id_target").select_option(label="The warehouse service timed out")
    page.locator("#id_due_at").fill("2031-03-01T17:00")
    page.get_by_role("button", name="Assign").click()
    expect(page.locator("#assignments")).to_contain_text("The warehouse service timed out")
    return page.locator("#invite-url").inner_text()


def _learner_solves(page: Page, invite_url: str) -> None:
    page.goto(invite_url)
    page.get_by_role("link", name="Sign up to join").click()
    page.locator("#id_username").fill("noor")
    page.locator("#id_password1").fill("a-long-pass-phrase-42")
    page.locator("#id_password2").fill("a-long-pass-phrase-42")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("button", name="Join as noor").click()
    expect(page.locator(".messages")).to_contain_text("You joined “Support bots, spring”")
    page.get_by_role("link", name="The warehouse service timed out").click()
    expect(page.locator(".CodeMirror")).to_be_visible()
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)",
                  json.dumps(GOOD_TIMEOUT, indent=2))
    page.get_by_role("button", name="Submit for grading").click()
    expect(page.locator("#result-panel .score-big")).to_have_text("100%", timeout=15000)


def test_an_instructor_runs_a_course_end_to_end_in_the_browser(site_with_grading, page: Page, browser, shoot):
    base = site_with_grading
    make_instructor("ines", email="ines@example.org")
    page.set_viewport_size({"width": 1366, "height": 900})
    _log_in(page, base, "ines", "pw-ines")
    _author_scenario(page, base, shoot)
    invite_url = _open_cohort(page)
    assert invite_url.startswith(base + "/join/")

    learner = browser.new_page(viewport={"width": 1280, "height": 900})
    _learner_solves(learner, invite_url)
    learner.screenshot(path=str(ARTIFACTS / "learner-30-solved-authored-scenario.png"), full_page=True)
    learner.close()

    page.get_by_role("link", name="Open the gradebook").click()
    gradebook = page.locator("table.gradebook")
    expect(gradebook).to_contain_text("noor")
    expect(gradebook.locator(".grade-cell")).to_contain_text("100%")
    expect(gradebook.locator(".grade-cell")).to_contain_text("1 attempt")
    shoot("instructor-40-gradebook")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download CSV").click()
    rows = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
    assert [(r["learner"], r["assignment"], r["best_score_percent"], r["attempts"]) for r in rows] == [
        ("noor", "The warehouse service timed out", "100.0", "1")]
    gradebook.locator(".grade-cell a").click()
    expect(page.locator(".notice")).to_contain_text("Submitted by noor")
    expect(page.locator("#result-panel .score-big")).to_have_text("100%")
    shoot("instructor-50-learners-submission")
