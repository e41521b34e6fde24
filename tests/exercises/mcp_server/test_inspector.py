"""A real client nobody here wrote: the official MCP Inspector CLI (npm @modelcontextprotocol/inspector,
installed by `make test` into tools/inspector) lists and calls the tools over stdio and Streamable HTTP."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from exercises.models import LiveCall
from exercises.services import instance_token

ROOT = Path(__file__).resolve().parents[3]
INSPECTOR = ROOT / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
pytestmark = pytest.mark.slow


def inspector(*args: str) -> subprocess.CompletedProcess:
    assert INSPECTOR.exists(), "The MCP Inspector is not installed: run `make test` (it runs npm ci in tools/inspector)."
    return subprocess.run([str(INSPECTOR), "--cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


STDIO = [sys.executable, "manage.py", "mcp_server"]


def test_inspector_lists_the_tools_over_stdio():
    run = inspector(*STDIO, "--method", "tools/list")
    assert run.returncode == 0, run.stderr
    names = {tool["name"] for tool in json.loads(run.stdout)["tools"]}
    assert names == {"lookup_order", "lookup_customer", "process_refund", "get_financial_records", "search_orders"}


def test_inspector_calls_a_failing_tool_over_stdio():
    run = inspector(*STDIO, "--method", "tools/call", "--tool-name", "process_refund",
                    "--tool-arg", "order_id=ORD-10002", "amount=750")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["isError"] is True and result["structuredContent"]["errorCategory"] == "business"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_inspector_sees_a_protocol_error_for_an_unknown_tool():
    run = inspector(*STDIO, "--method", "tools/call", "--tool-name", "no_such_tool")
    assert run.returncode == 1 and "-32602" in (run.stdout + run.stderr)


def test_inspector_over_http_reaches_the_learners_own_instance(site_server, two_learners):
    alice, bob = two_learners
    url = f"{site_server}/mcp/{instance_token(alice)}/"
    listed = inspector(url, "--transport", "http", "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["tools"]) == 5
    called = inspector(url, "--transport", "http", "--method", "tools/call", "--tool-name", "lookup_order",
                       "--tool-arg", "order_id=ORD-10001", "failure_mode=timeout")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["structuredContent"]["retryAfterSeconds"] == 5
    assert list(LiveCall.objects.filter(instance=alice).values_list("tool", "category")) == [("lookup_order", "transient")]
    assert not LiveCall.objects.filter(instance=bob).exists()
