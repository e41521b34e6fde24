"""The training server over real transports: stdio (`manage.py mcp_server`) and Streamable HTTP at /mcp/ in the
site's own ASGI app, in both protocol eras; two learners kept apart; refusals without a token; rate limits."""
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import pytest
import uvicorn
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.support import run_async
from exercises.models import LiveCall
from exercises.services import instance_token, training_instance_for, training_instance_set_mode

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


def _stdio_params():
    return StdioServerParameters(command=sys.executable, args=[str(ROOT / "manage.py"), "mcp_server"],
                                 env={"PYTHONUNBUFFERED": "1"}, cwd=str(ROOT))


@pytest.mark.parametrize("mode,era", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_stdio_server_answers_every_kind_of_result(mode, era):
    async def run():
        async with Client(_stdio_params(), mode=mode, read_timeout_seconds=30) as client:
            assert client.protocol_version == era
            ok = await client.call_tool("lookup_order", {"order_id": "ORD-10001"})
            limited = await client.call_tool("lookup_order", {"order_id": "ORD-10001", "failure_mode": "rate_limit"})
            partial = await client.call_tool("search_orders", {"query": "CUST", "failure_mode": "partial"})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("no_such_tool", {})
            return ok, limited, partial, unknown.value

    ok, limited, partial, unknown = run_async(run)
    assert ok.structured_content["order"]["orderId"] == "ORD-10001"
    assert limited.is_error and limited.structured_content["retryAfterSeconds"] == 30
    assert partial.structured_content["partial"] is True
    assert unknown.code == -32602


def test_stdio_malformed_arguments_are_a_protocol_error():
    """Raw JSON-RPC: `arguments` that is not an object breaks the CallToolRequest schema."""
    process = subprocess.Popen([sys.executable, "manage.py", "mcp_server"], cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "lookup_order", "arguments": "oops"}},
    ]
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        answers = {}
        while 2 not in answers:
            line = process.stdout.readline()
            assert line, "the server closed stdout"
            reply = json.loads(line)
            answers[reply.get("id")] = reply
    finally:
        process.kill()
        process.wait()
    assert answers[2]["error"]["code"] == -32602


@pytest.mark.parametrize("mode,era", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_two_learners_have_their_own_modes_and_traces(site_server, two_learners, mode, era):
    alice, bob = two_learners
    training_instance_set_mode(instance=alice, tool="lookup_order", mode="permission")

    async def run():
        async with Client(f"{site_server}/mcp/{instance_token(alice)}/", mode=mode) as client:
            assert client.protocol_version == era
            alice_result = await client.call_tool("lookup_order", {"order_id": "ORD-10001"})
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {instance_token(bob)}"}) as http:
            async with Client(streamable_http_client(f"{site_server}/mcp/", http_client=http), mode=mode) as client:
                bob_result = await client.call_tool("lookup_order", {"order_id": "ORD-10001"})
                with pytest.raises(MCPError):
                    await client.call_tool("no_such_tool", {})
        return alice_result, bob_result

    alice_result, bob_result = run_async(run)
    assert alice_result.structured_content["errorCategory"] == "permission"
    assert bob_result.structured_content["found"] is True
    alice_calls = list(LiveCall.objects.filter(instance=alice).values_list("tool", "category", "protocol_version"))
    bob_calls = list(LiveCall.objects.filter(instance=bob).order_by("id").values_list("tool", "category"))
    assert alice_calls == [("lookup_order", "permission", era)]
    assert bob_calls == [("lookup_order", "ok"), ("no_such_tool", "protocol")]


def test_requests_without_a_valid_token_are_refused_clearly(site_server, two_learners):
    alice, _ = two_learners
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}
    with httpx2.Client() as http:
        missing = http.post(f"{site_server}/mcp/", json=body, headers=headers)
        forged = http.post(f"{site_server}/mcp/{instance_token(alice)[:-2]}xx/", json=body, headers=headers)
        injected = http.post(f"{site_server}/mcp/", json=body,
                             headers={**headers, "X-Trainer-Instance": str(alice.pk)})
    for response in (missing, forged, injected):
        assert response.status_code == 401
        data = response.json()["error"]["data"]
        assert data["errorCategory"] == "permission" and data["isRetryable"] is False
        assert "Playground" in data["description"]
    assert not LiveCall.objects.exists()


def test_each_learner_is_rate_limited_on_their_own(site_server, two_learners, settings):
    settings.MCP_RATE_LIMIT_PER_MINUTE = 3
    alice, bob = two_learners
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx2.Client() as http:
        statuses = [http.post(f"{site_server}/mcp/{instance_token(alice)}/", json=body, headers=headers)
                    for _ in range(4)]
        bob_status = http.post(f"{site_server}/mcp/{instance_token(bob)}/", json=body, headers=headers).status_code
    assert [r.status_code for r in statuses[:3]] == [200, 200, 200]
    limited = statuses[3]
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    assert limited.json()["error"]["data"]["retryAfterSeconds"] == int(limited.headers["Retry-After"])
    assert bob_status == 200
