"""The agent-loop grader, end to end: each learner loop runs in the real sandbox against the real training
server, and the verdict per scenario is what the grading contract says it must be."""
import json

import pytest

from exercises.graders import grade
from exercises.graders.agent_loop import RUNNER
from exercises.sandbox import sandbox_pool
from tests.exercises.graders.scenario_results import failing, scenario
from tests.exercises.agent_loops import ALL_SCENARIOS, MISTAKES, REFERENCE

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def warm_sandboxes():
    sandbox_pool(RUNNER).warm()
    yield
    sandbox_pool(RUNNER).close()


def grade_loop(source: str) -> dict:
    return grade(slug="agent-loop", kind="agent-loop", rubric={}, text=source)


def test_reference_solution_passes_all_ten_scenarios():
    result = grade_loop(REFERENCE)
    assert result["status"] == "pass", [c["message"] for c in result["checks"] if c["status"] == "fail"]
    assert result["score"] == 1.0
    assert [s["id"] for s in result["scenarios"]] == list(ALL_SCENARIOS)
    assert all(s["status"] == "pass" and s["score"] == 1.0 for s in result["scenarios"])


def test_waits_run_on_the_virtual_clock_and_are_recorded_by_the_server():
    result = grade_loop(REFERENCE)
    recovers = scenario(result, "transient-recovers")
    assert [(e["tool"], e["at"], e["category"]) for e in recovers["trace"]] == [
        ("lookup_order", 0.0, "transient"), ("lookup_order", 2.0, "transient"), ("lookup_order", 6.0, "ok")]
    assert [e["at"] for e in scenario(result, "rate-limited")["trace"]] == [0.0, 30.0]
    assert [e["at"] for e in scenario(result, "transient-persists")["trace"]] == [0.0, 1.0, 3.0, 7.0]
    assert scenario(result, "transient-persists")["outcome"]["action"] == "report_failure"


def test_same_submission_gets_the_same_result_every_time():
    assert json.dumps(grade_loop(REFERENCE), sort_keys=True) == json.dumps(grade_loop(REFERENCE), sort_keys=True)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_classic_mistake_fails_exactly_its_scenarios_and_names_it(mistake):
    source, expected_failures, misconception = MISTAKES[mistake]
    result = grade_loop(source)
    assert result["status"] == "fail", result["error"]
    assert failing(result) == expected_failures
    for scenario_id in expected_failures:
        tags = {c["misconception"] for c in scenario(result, scenario_id)["checks"] if c["status"] == "fail"}
        assert misconception in tags, (scenario_id, tags)


def test_a_runaway_loop_is_cut_off_by_the_call_budget_and_told_so():
    source = REFERENCE.replace("MAX_CALLS = 4", "MAX_CALLS = 10 ** 6").replace(
        "max(info.get(\"retryAfterSeconds\", 1), wait * 2)", "info[\"retryAfterSeconds\"]")
    persists = scenario(grade_loop(source), "transient-persists")
    assert persists["stopped"] == "calls"
    assert len(persists["trace"]) == 11
    finished = persists["checks"][0]
    assert finished["status"] == "fail" and "stopped it" in finished["message"]


def test_a_loop_that_waits_for_hours_is_cut_off_by_the_virtual_time_budget():
    source = REFERENCE.replace("await asyncio.sleep(wait)", "await asyncio.sleep(3600)")
    persists = scenario(grade_loop(source), "transient-persists")
    assert persists["stopped"] == "virtual_time"
    assert persists["virtualSeconds"] == 600.0
    assert "600 seconds" in persists["checks"][0]["message"]


def test_crash_on_protocol_error_shows_the_learners_own_traceback():
    source, _, _ = MISTAKES["crashes-on-protocol-error"]
    unknown = scenario(grade_loop(source), "unknown-tool")
    message = unknown["checks"][0]["message"]
    assert "catch MCPError" in message and 'File "submission.py"' in message
    assert "site-packages" not in message  # only the learner's frames


def test_printed_output_is_shown_per_scenario_and_does_not_break_the_protocol():
    source = REFERENCE.replace('    tool, arguments = request["tool"], dict(request["arguments"])',
                               '    print("handling", request["tool"], "x" * 20000)\n'
                               '    import os; os.write(1, b"raw bytes on fd 1\\n" * 5000)\n'
                               '    tool, arguments = request["tool"], dict(request["arguments"])')
    result = grade_loop(source)
    assert result["status"] == "pass"
    output = scenario(result, "transient-recovers")["output"]
    assert output.startswith("handling lookup_order xxx") and "output truncated" in output
    assert len(output) < 9000


@pytest.mark.parametrize("source, expected", [
    ("def handle(session, request):\n    return {}\n", "async def handle(session, request):"),
    ("async def handle(session, request)\n    return {}\n", "Syntax error on line 1"),
    ("async def answer(session, request):\n    return {}\n", "does not define handle"),
    ("handle = 42\n", "handle is a int"),
    ("import nonexistent_module\n", "ModuleNotFoundError"),
    ("raise SystemExit(3)\n", "SystemExit"),
    ("", "The file is empty"),
])
def test_a_file_that_cannot_be_graded_says_what_to_change(source, expected):
    result = grade_loop(source)
    assert result["status"] == "error" and result["scenarios"] == []
    assert result["error"]["errorCategory"] == "validation" and result["error"]["isRetryable"] is False
    assert expected in result["error"]["description"]


def test_writing_into_the_graders_connection_fails_that_scenario_only():
    source = REFERENCE.replace('    tool, arguments = request["tool"], dict(request["arguments"])',
                               '    import os\n'
                               '    if request["tool"] == "lookup_customer":\n'
                               '        fd = int(os.environ["SANDBOX_FDS"].split(",")[0])\n'
                               '        os.write(fd, b"{not json\\n")\n'
                               '        await asyncio.sleep(1)\n'
                               '    tool, arguments = request["tool"], dict(request["arguments"])')
    result = grade_loop(source)
    assert failing(result) == {"customer-not-found"}
    assert scenario(result, "customer-not-found")["stopped"] == "broken_link"
    assert scenario(result, "partial-results")["status"] == "pass"  # ran on in a fresh sandbox


def test_forged_waits_cannot_move_the_clock_backwards_or_forge_times():
    source = REFERENCE.replace('    tool, arguments = request["tool"], dict(request["arguments"])',
                               '    import os, socket, json\n'
                               '    clock = socket.socket(fileno=int(os.environ["SANDBOX_FDS"].split(",")[1]))\n'
                               '    clock.sendall(json.dumps({"sleep": -500}).encode() + b"\\n")\n'
                               '    clock.recv(100)\n'
                               '    clock.detach()\n'
                               '    tool, arguments = request["tool"], dict(request["arguments"])')
    result = grade_loop(source)
    assert scenario(result, "transient-recovers")["trace"][0]["at"] == 0.0
    assert scenario(result, "rate-limited")["checks"][1]["status"] == "pass"
    assert result["status"] == "pass"


def test_warm_sandboxes_survive_the_thread_that_started_them():
    """A web request grades on a short-lived thread; the sandboxes it pre-starts must outlive it."""
    import threading

    statuses = []
    for _ in range(3):
        thread = threading.Thread(target=lambda: statuses.append(grade_loop(REFERENCE)["status"]))
        thread.start()
        thread.join()
    assert statuses == ["pass"] * 3
