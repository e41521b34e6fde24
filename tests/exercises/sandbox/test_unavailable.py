"""Without a usable sandbox the grader refuses to run learners' code, says why in the error convention, and
the learner loses no attempt. Only the explicit development setting runs code bare, loudly."""
import logging
import os
import stat

import pytest

from exercises.graders import grade
from exercises.graders.agent_loop import RUNNER
from exercises.sandbox import command, sandbox_pool
from exercises.services import submission_create, submission_grade
from lessons.services import Learner
from tests.exercises.agent_loops import REFERENCE

pytestmark = [pytest.mark.sandbox]


@pytest.fixture(autouse=True)
def fresh_sandbox_status():
    sandbox_pool(RUNNER).close()
    command._status = None
    yield
    command._status = None


def grade_reference() -> dict:
    return grade(slug="agent-loop", kind="agent-loop", rubric={}, text=REFERENCE)


def test_missing_bubblewrap_is_an_infrastructure_error_naming_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # prlimit, setpriv and bwrap all gone
    result = grade_reference()
    assert result["status"] == "error"
    error = result["error"]
    assert error["errorCategory"] == "transient" and error["isRetryable"] is True and error["retryAfterSeconds"] > 0
    assert "not installed" in error["description"] and "costs no attempt" in error["description"]


def test_unusable_bubblewrap_reports_its_own_words_and_a_hint(monkeypatch, tmp_path):
    for tool, script in (("bwrap", "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1"),
                         ("prlimit", 'shift 6; exec "$@"'), ("setpriv", 'shift 5; exec "$@"')):
        fake = tmp_path / tool
        fake.write_text(f"#!/bin/sh\n{script}\n")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    error = grade_reference()["error"]
    assert "setting up uid map" in error["description"] and "AppArmor" in error["description"]


def test_an_infrastructure_error_costs_the_learner_no_attempt(monkeypatch, tmp_path, exercises):
    monkeypatch.setenv("PATH", str(tmp_path))
    submission, _ = submission_create(learner=Learner(user=None, learner_key="k" * 32),
                                      exercise=exercises["agent-loop"], text=REFERENCE)
    graded = submission_grade(submission_id=submission.pk)
    assert graded.status == "error" and graded.counts_as_attempt is False
    assert graded.text == REFERENCE  # the submission is kept


def test_the_development_setting_runs_code_unsandboxed_with_a_loud_warning(settings, caplog):
    settings.SANDBOX_ALLOW_UNSANDBOXED = True
    with caplog.at_level(logging.WARNING, logger="exercises.sandbox.process"):
        result = grade_reference()
    assert result["status"] == "pass"
    assert any("WITHOUT a sandbox" in record.getMessage() for record in caplog.records)
    assert os.environ.get("SANDBOX_ALLOW_UNSANDBOXED") is None  # a setting, never inherited by accident
