"""The customer-lookup-tool grader, end to end: each learner server runs in the real sandbox as a stdio MCP server
and a real MCP client probes it in both protocol eras; the verdict per probe is what the contract says."""
import json

import pytest

from exercises.graders import grade
from exercises.graders.tool_server import RUNNER
from exercises.sandbox import sandbox_pool
from tests.exercises.graders.scenario_results import failing, scenario
from tests.exercises.tool_servers import ALL_SCENARIOS, GOOD, MISTAKES, REFERENCE, low_level, variant

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def warm_sandboxes():
    sandbox_pool(RUNNER).warm()
    yield
    sandbox_pool(RUNNER).close()


def grade_server(source: str) -> dict:
    return grade(slug="customer-lookup-tool", kind="tool-server", rubric={}, text=source)


def check(result: dict, scenario_id: str, check_id: str) -> dict:
    return next(c for c in scenario(result, scenario_id)["checks"] if c["id"] == check_id)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_servers_pass_every_probe_in_both_eras(name):
    result = grade_server(GOOD[name])
    assert result["status"] == "pass", [c["message"] for c in result["checks"] if c["status"] == "fail"]
    assert result["score"] == 1.0
    assert [s["id"] for s in result["scenarios"]] == list(ALL_SCENARIOS)
    found = scenario(result, "found")
    assert [entry["era"] for entry in found["trace"]] == ["2026-07-28", "2025-11-25"]
    for entry in found["trace"]:
        assert entry["response"]["result"]["structuredContent"]["customer"]["name"] == "Ada Lindqvist"
        assert entry["databaseQueries"] == [{"customer_id": "CUST-00042", "failure_mode": "none"}]
    # the 2026-07-28 answer carries the new envelope, the handshake-era answer does not
    assert found["trace"][0]["response"]["result"]["resultType"] == "complete"
    assert "resultType" not in found["trace"][1]["response"]["result"]


def test_the_record_of_database_queries_is_the_graders_own():
    result = grade_server(REFERENCE)
    for probe in ("malformed-id", "empty-id", "nul-byte-id", "oversized-id", "missing-argument", "wrong-type",
                  "unknown-tool"):
        assert all(entry["databaseQueries"] == [] for entry in scenario(result, probe)["trace"]), probe
    timeout = scenario(result, "timeout")["trace"][0]
    assert timeout["databaseQueries"] == [{"customer_id": "CUST-00042", "failure_mode": "timeout"}]
    oversized = scenario(result, "oversized-id")
    assert oversized["request"][0]["arguments"]["customer_id"].endswith("(100005 characters)")


def test_same_submission_gets_the_same_result_every_time():
    assert json.dumps(grade_server(REFERENCE), sort_keys=True) == json.dumps(grade_server(REFERENCE), sort_keys=True)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_bad_server_fails_the_check_that_names_its_mistake(mistake):
    source, expected_failures, misconception = MISTAKES[mistake]
    result = grade_server(source)
    assert result["status"] == "fail", result["error"]
    assert failing(result) == set(expected_failures)
    for scenario_id, check_id in expected_failures.items():
        failed = check(result, scenario_id, check_id)
        assert failed["status"] == "fail" and failed["misconception"] == misconception, (scenario_id, failed)


def test_leaked_database_details_are_quoted_back_to_the_learner():
    result = grade_server(MISTAKES["leaks the database's message"][0])
    message = check(result, "timeout", "no-internal-details")["message"]
    assert "crm-db-03.internal" in message and "port" in message


def test_a_low_level_server_whose_exceptions_escape_leaks_them_in_the_handshake_era_only():
    result = grade_server(MISTAKES["low-level: lets database exceptions escape"][0])
    timeout = scenario(result, "timeout")
    modern, legacy = (entry["response"]["error"] for entry in timeout["trace"])
    assert modern == {"code": -32603, "message": "Internal server error"}
    assert legacy["code"] == 0 and "crm-db-03.internal:5432" in legacy["message"]
    leak = check(result, "timeout", "no-internal-details")
    assert leak["status"] == "fail"
    assert "With a 2025-11-25 client" in leak["message"] and "2026-07-28" not in leak["message"]
    assert "code 0" in check(result, "timeout", "tool-result")["message"]


def test_a_server_that_returns_bare_dicts_fails_only_with_the_2026_client():
    source = low_level(("    return types.CallToolResult(content=[types.TextContent(type=\"text\", text=json.dumps(payload))],\n"
                        "                                structured_content=payload, is_error=is_error)",
                        "    return {\"content\": [{\"type\": \"text\", \"text\": json.dumps(payload)}], "
                        "\"structuredContent\": payload, \"isError\": is_error}"))
    result = grade_server(source)
    found = check(result, "found", "tool-result")
    assert found["status"] == "fail"
    assert found["message"].startswith("With a 2026-07-28 client") and "2025-11-25" not in found["message"]


def test_a_crash_is_reported_where_it_happened_and_the_rest_still_run():
    result = grade_server(MISTAKES["exits on an empty id"][0])
    answered = check(result, "empty-id", "answered")
    assert "exited with code 3" in answered["message"]
    assert "empty-id" in check(result, "still-answering", "kept-running")["message"]
    assert scenario(result, "emoji-id")["status"] == "pass"  # probed on a fresh copy after the crash


def test_a_hang_is_cut_off_after_five_seconds_per_call():
    result = grade_server(MISTAKES["hangs on emoji"][0])
    message = check(result, "emoji-id", "answered")["message"]
    assert "No answer within 5 seconds" in message
    assert scenario(result, "right-to-left-id")["status"] == "pass"


def test_stdout_pollution_is_quoted_and_named():
    result = grade_server(MISTAKES["prints to stdout"][0])
    message = check(result, "stdout", "stdout-clean")["message"]
    assert "\u201ccustomers server ready\u201d" in message and "stderr" in message


def test_binary_junk_on_stdout_and_a_broken_database_link_do_not_stop_the_grader():
    junk = variant(("server = MCPServer(\"customers\", version=\"1.0.0\")",
                    "import os, sys\nsys.stdout.buffer.write(bytes(range(256)) * 40 + b'\\n{\"jsonrpc\": 5}\\n')\n"
                    "sys.stdout.flush()\nos.write(int(os.environ['SANDBOX_FDS'].split(',')[1]), b'not json\\n')\n"
                    "server = MCPServer(\"customers\", version=\"1.0.0\")"))
    result = grade_server(junk)
    assert result["status"] == "fail" and result["error"] is None
    assert check(result, "stdout", "stdout-clean")["status"] == "fail"
    assert scenario(result, "malformed-id")["status"] == "pass"  # validation needs no database
    assert check(result, "found", "answered")["status"] == "pass"  # it answers, though the database is gone


@pytest.mark.parametrize("source, expected", [
    ("import training_db\nanswer = 42\n", "does not define `server`"),
    ("server = 'customers'\n", "`server` is a str, not an MCP server"),
    ("from mcp.server import MCPServer\nserver = MCPServer('customers'\n", "Syntax error on line 2"),
    ("raise RuntimeError('config missing')\n", "RuntimeError: config missing"),
    ("from mcp.server import MCPServer\nserver = MCPServer('customers')\n", "does not offer a tool named customer_lookup"),
    (REFERENCE.replace('if __name__ == "__main__":\n    server.run()', "server.run()"), "if __name__ == \"__main__\":"),
    ("", "The file is empty"),
    ("from contextlib import asynccontextmanager\nfrom mcp.server import MCPServer\n\n@asynccontextmanager\n"
     "async def lifespan(server):\n    raise RuntimeError('cannot reach config service')\n    yield\n\n"
     "server = MCPServer('customers', lifespan=lifespan)\n",
     "did not answer the MCP client's first request (server/discover): it exited with code 1. Its last error:\n"
     "  File \"submission.py\", line 6, in lifespan"),
])
def test_a_file_that_cannot_be_graded_says_what_to_change(source, expected):
    result = grade_server(source)
    assert result["status"] == "error"
    assert result["error"]["errorCategory"] == "validation" and result["error"]["isRetryable"] is False
    assert expected in result["error"]["description"]



def test_a_hostile_server_cannot_stop_the_grader_or_bloat_the_result():
    hostile = variant(
        ("import re\n", "import os\nimport re\n"),
        ("    if not CUSTOMER_ID.fullmatch(customer_id):",
         "    if customer_id == \"CUST-42\":  # write garbage straight onto the wire, then answer a monster\n"
         "        for fd in map(int, os.listdir('/proc/self/fd')):\n"
         "            if fd > 2 and os.path.islink(f'/proc/self/fd/{fd}') and 'pipe' in os.readlink(f'/proc/self/fd/{fd}'):\n"
         "                try:\n"
         "                    os.write(fd, b'garbage on the wire\\n')\n"
         "                except OSError:\n"
         "                    pass\n"
         "        return _result({f'k{i}': [list(range(100))] * 3 for i in range(2000)}, is_error=False)\n"
         "    if not CUSTOMER_ID.fullmatch(customer_id):"))
    result = grade_server(hostile)
    assert result["status"] == "fail" and result["error"] is None
    assert {"malformed-id", "stdout"} <= failing(result)
    assert "garbage on the wire" in check(result, "stdout", "stdout-clean")["message"]
    assert len(json.dumps(result)) < 400_000
    assert scenario(result, "emoji-id")["status"] == "pass"


def test_an_answer_too_long_to_read_is_dropped_and_named():
    flood = variant(("    if not CUSTOMER_ID.fullmatch(customer_id):",
                     "    if customer_id == \"CUST-42\":\n        return _result({\"x\": \"y\" * 2_000_000}, is_error=True)\n"
                     "    if not CUSTOMER_ID.fullmatch(customer_id):"))
    result = grade_server(flood)
    answered = check(result, "malformed-id", "answered")
    assert "longer than 512 KiB" in answered["message"] and answered["misconception"] == "oversized-answer"
    assert scenario(result, "empty-id")["status"] == "pass"  # the next probes run on a fresh copy
