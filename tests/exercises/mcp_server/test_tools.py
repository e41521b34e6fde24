"""Every tool's every failure mode, in both protocol eras, through the in-memory client (real JSON-RPC in
legacy mode), plus the protocol errors the specification asks for and the scenario scripts."""
import pytest
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS

from tests.support import run_async
from exercises.mcp_server.server import single_instance_server
from exercises.mcp_server.state import InstanceState
from exercises.mcp_server.tools import TOOLS

ERAS = {"auto": "2026-07-28", "legacy": "2025-11-25"}
BASE_ARGS = {
    "lookup_order": {"order_id": "ORD-10001"},
    "lookup_customer": {"customer_id": "CUST-00042"},
    "process_refund": {"order_id": "ORD-10001", "amount": 20},
    "get_financial_records": {"customer_id": "CUST-00042"},
    "search_orders": {"query": "CUST-00042"},
}
EXPECTED = {  # failure mode -> (isError, category in the trace, retryable)
    "none": (False, "ok", None), "timeout": (True, "transient", True), "rate_limit": (True, "transient", True),
    "unavailable": (True, "transient", True), "validation": (True, "validation", False),
    "permission": (True, "permission", False), "empty": (False, "empty", None), "partial": (False, "partial", None),
    "refund_limit": (True, "business", False), "return_window": (True, "business", False),
}
CASES = [(tool, mode) for tool in TOOLS.values() for mode in tool.failure_modes]


async def _call_all(client_mode: str, state: InstanceState | None = None):
    server, state = single_instance_server(state)
    results = []
    async with Client(server, mode=client_mode) as client:
        assert client.protocol_version == ERAS[client_mode]
        for tool, mode in CASES:
            results.append(await client.call_tool(tool.name, {**BASE_ARGS[tool.name], "failure_mode": mode}))
    return results, state


@pytest.mark.parametrize("client_mode", ERAS)
def test_every_failure_mode_follows_the_convention(client_mode):
    results, state = run_async(_call_all, client_mode)
    assert len(results) == len(CASES) == len(state.trace)
    for (tool, mode), result, entry in zip(CASES, results, state.trace):
        is_error, category, retryable = EXPECTED[mode]
        label = f"{tool.name}/{mode}"
        assert result.is_error is is_error, label
        assert entry.category == category and entry.tool == tool.name, label
        assert entry.protocol_version == ERAS[client_mode]
        structured = result.structured_content
        # The text block mirrors structuredContent exactly.
        import json
        assert json.loads(result.content[0].text) == structured, label
        if is_error:
            assert structured["errorCategory"] == category and structured["isRetryable"] is retryable, label
            assert ("retryAfterSeconds" in structured) is retryable, label
            assert len(structured["description"]) > 30, label
        if mode == "validation":
            assert structured["field"] == tool.main_field
        if mode == "rate_limit":
            assert structured["retryAfterSeconds"] == 30
        if mode == "partial":
            assert structured["partial"] is True and structured["failedSources"] and structured["results"]
        if mode == "empty":
            assert structured["found"] is False and structured["resultCount"] == 0


@pytest.mark.parametrize("client_mode", ERAS)
def test_unknown_tool_is_a_protocol_error_not_a_tool_result(client_mode):
    async def run():
        server, state = single_instance_server()
        async with Client(server, mode=client_mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("delete_everything", {})
        return raised.value, state

    error, state = run_async(run)
    assert error.code == INVALID_PARAMS and "Unknown tool: delete_everything" in error.message
    assert state.trace[0].outcome == "protocol_error" and state.trace[0].error["code"] == INVALID_PARAMS


@pytest.mark.parametrize("client_mode", ERAS)
def test_natural_validation_suggests_only_a_certain_fix(client_mode):
    async def run():
        server, _ = single_instance_server()
        async with Client(server, mode=client_mode) as client:
            fixable = await client.call_tool("lookup_order", {"order_id": "order-10001"})
            unfixable = await client.call_tool("lookup_order", {"order_id": "???"})
            wrong_type = await client.call_tool("lookup_order", {"order_id": 10001})
            extra = await client.call_tool("lookup_order", {"order_id": "ORD-10001", "orderId": "x"})
        return fixable, unfixable, wrong_type, extra

    fixable, unfixable, wrong_type, extra = run_async(run)
    assert fixable.structured_content["suggestedArguments"] == {"order_id": "ORD-10001"}
    assert "suggestedArguments" not in unfixable.structured_content
    assert unfixable.structured_content["received"] == "???"
    assert wrong_type.is_error and wrong_type.structured_content["received"] == 10001
    assert extra.structured_content["field"] == "orderId"


@pytest.mark.parametrize("client_mode", ERAS)
def test_business_rules_and_empty_results_from_the_data(client_mode):
    async def run():
        server, _ = single_instance_server()
        async with Client(server, mode=client_mode) as client:
            return [await client.call_tool(name, args) for name, args in [
                ("process_refund", {"order_id": "ORD-10002", "amount": 750}),
                ("process_refund", {"order_id": "ORD-10003", "amount": 10}),
                ("process_refund", {"order_id": "ORD-10001", "amount": 10}),
                ("lookup_customer", {"email": "john@example.com"}),
                ("search_orders", {"query": "helmet"}),
            ]]

    over, window, ok, nobody, found = run_async(run)
    assert over.structured_content["policy"] == "automatic-refund-limit" and "500" in over.structured_content[
        "customerFriendlyMessage"]
    assert window.structured_content["policy"] == "return-window"
    assert ok.structured_content["refunded"] is True
    assert nobody.is_error is False and nobody.structured_content["found"] is False
    assert found.structured_content["results"][0]["orderId"] == "ORD-10002"


def test_script_overrides_the_callers_failure_mode_and_repeats_its_last_step():
    state = InstanceState(script={"lookup_order": [{"mode": "timeout", "retryAfterSeconds": 2}, {"mode": "none"}]})

    async def run():
        server, _ = single_instance_server(state)
        async with Client(server) as client:
            return [await client.call_tool("lookup_order", {"order_id": "ORD-10001", "failure_mode": "none"})
                    for _ in range(3)]

    first, second, third = run_async(run)
    assert first.structured_content["retryAfterSeconds"] == 2
    assert not second.is_error and not third.is_error
    assert [e.category for e in state.trace] == ["transient", "ok", "ok"]


def test_forced_mode_applies_when_the_call_does_not_choose():
    state = InstanceState(forced_modes={"get_financial_records": "permission"})

    async def run():
        server, _ = single_instance_server(state)
        async with Client(server) as client:
            return (await client.call_tool("get_financial_records", {"customer_id": "CUST-00042"}),
                    await client.call_tool("get_financial_records", {"customer_id": "CUST-00042",
                                                                     "failure_mode": "none"}))

    forced, chosen = run_async(run)
    assert forced.structured_content["errorCategory"] == "permission"
    assert chosen.structured_content["found"] is True


def test_tools_advertise_their_failure_modes():
    async def run():
        server, _ = single_instance_server()
        async with Client(server) as client:
            return await client.list_tools()

    listed = {tool.name: tool for tool in run_async(run).tools}
    assert set(listed) == set(TOOLS)
    assert "partial" in listed["search_orders"].input_schema["properties"]["failure_mode"]["enum"]
    assert listed["process_refund"].input_schema["required"] == ["order_id", "amount"]
