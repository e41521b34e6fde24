"""A newcomer's first visit, in a real browser: home, a lesson, a question, its explanation, a short exam, the report."""
import re

import pytest
from playwright.sync_api import Page, expect

from lessons.models import Question

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORTS = {"laptop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("screen", ["laptop", "phone"])
def test_newcomer_learns_answers_and_sits_an_exam(live_content, page: Page, shoot, screen):
    page.set_viewport_size(VIEWPORTS[screen])
    base = live_content.url

    page.goto(base + "/")
    expect(page.get_by_role("heading", name="When a tool fails, what does the agent do next?")).to_be_visible()
    shoot(f"{screen}-01-home")

    page.get_by_role("link", name="Start with lesson 1").click()
    expect(page).to_have_url(re.compile(r"/lessons/four-error-categories/$"))
    expect(page.locator(".compare").first).to_be_visible()
    shoot(f"{screen}-02-lesson")

    # Answer the first practice question wrongly, through htmx (no page load), and read why.
    card = page.locator(".question-card").first
    question = Question.objects.get(content_id=card.get_attribute("id").removeprefix("q-"))
    wrong = next(c for c in question.choices.all() if not c.is_correct)
    card.locator(f'input[value="{wrong.key}"]').check()
    url_before = page.url
    card.get_by_role("button", name="Check answer").click()
    card = page.locator(f"#q-{question.content_id}")
    expect(card.get_by_role("status")).to_contain_text("Not quite.")
    expect(card.locator(".why")).to_have_count(question.choices.count())
    expect(card.locator(".is-correct")).to_be_visible()
    assert page.url == url_before
    card.scroll_into_view_if_needed()
    shoot(f"{screen}-03-explanation")

    # A short practice exam: five questions, answer two of them, submit.
    page.get_by_role("link", name="Practice exam").click()
    page.get_by_label("Number of questions").fill("5")
    page.get_by_label("Time limit (minutes)").fill("5")
    page.get_by_role("button", name="Start the exam").click()
    expect(page.locator(".question-card")).to_have_count(5)
    expect(page.locator(".why")).to_have_count(0)
    expect(page.locator("#exam-timer")).to_have_text(re.compile(r"^[45]:\d\d$"))
    for index in range(2):
        page.locator(".question-card").nth(index).locator("input[type=radio]").first.check()
    expect(page.locator("#save-status")).to_contain_text("2 of 5 answers saved")
    shoot(f"{screen}-04-exam")
    page.get_by_role("button", name="Submit the exam").click()

    expect(page.get_by_role("heading", name="Your practice exam report")).to_be_visible()
    expect(page.locator("#exam-score")).to_have_text(re.compile(r"^[0-2]/5$"))
    expect(page.get_by_role("heading", name="By error category")).to_be_visible()
    expect(page.locator(".question-card")).to_have_count(5)
    expect(page.get_by_text("Not answered")).to_have_count(3)
    shoot(f"{screen}-05-report")

    page.get_by_role("link", name="Progress").click()
    expect(page.get_by_role("heading", name="Mastery by error category")).to_be_visible()
    shoot(f"{screen}-06-dashboard")


def test_question_works_without_javascript(live_content, browser, shoot):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    question = Question.objects.get(content_id="cat-rate-limit")
    page.goto(live_content.url + question.get_absolute_url())
    right = next(c for c in question.choices.all() if c.is_correct)
    page.locator(f'input[value="{right.key}"]').check()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("status")).to_contain_text("Right.")
    expect(page).to_have_url(re.compile(r"\?answer=\d+"))
    context.close()
