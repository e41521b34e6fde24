"""The training MCP server (a low-level `mcp.server.Server`) and the middleware that records its trace.

The low-level server gives full control of every answer: unknown tools are JSON-RPC `-32602` protocol
errors as the specification says (the high-level `MCPServer` would answer them with `isError`), and bad
arguments are validation results in the project's convention. Which instance a call belongs to is
decided by `resolve_state(ctx)`, so one server object serves every learner and every grading scenario.
"""
import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
from mcp import MCPError
from mcp.server import Server, ServerRequestContext
from mcp.types import INVALID_PARAMS, CallToolRequestParams, CallToolResult, ListToolsResult
from pydantic import ValidationError

from . import results
from .state import InstanceState, TraceEntry
from .tools import TOOLS, answer_call

logger = logging.getLogger(__name__)

SERVER_NAME = "recover-well-training"
SERVER_VERSION = "1.0.0"
INSTRUCTIONS = (
    "Training server for practising MCP error handling. Every tool can fail on purpose: pass failure_mode, or "
    "switch modes on your Playground page. Errors follow the convention: isError with errorCategory, "
    "isRetryable, retryAfterSeconds and description in structuredContent, mirrored as JSON text."
)

StateResolver = Callable[[ServerRequestContext], InstanceState]


def result_category(result: dict[str, Any]) -> str:
    """Classify a wire result the way the Playground colours it and the graders read it."""
    structured = result.get("structuredContent")
    structured = structured if isinstance(structured, dict) else {}
    if result.get("isError"):
        category = structured.get("errorCategory")
        return category if category in {"transient", "validation", "permission", "business"} else "transient"
    if structured.get("partial"):
        return "partial"
    if structured.get("found") is False or structured.get("resultCount") == 0:
        return "empty"
    return "ok"


class TraceRecorder:
    """Middleware: records every `tools/call` with what the server answered, before any client sees it."""

    def __init__(self, resolve_state: StateResolver):
        self.resolve_state = resolve_state

    async def __call__(self, ctx: ServerRequestContext, call_next):
        if ctx.method != "tools/call" or ctx.request_id is None:
            return await call_next(ctx)
        state = self.resolve_state(ctx)
        params = dict(ctx.params or {})
        name = params.get("name")
        entry = TraceEntry(seq=len(state.trace) + 1, tool=name if isinstance(name, str) else repr(name)[:100],
                           arguments=params.get("arguments"), at=state.clock(), outcome="ok", category="ok",
                           protocol_version=ctx.protocol_version or "")
        started = time.perf_counter()
        try:
            result = await call_next(ctx)
        except MCPError as error:
            entry.outcome, entry.category = "protocol_error", "protocol"
            entry.error = {"code": error.code, "message": error.message}
            raise
        except ValidationError:
            entry.outcome, entry.category = "protocol_error", "protocol"
            entry.error = {"code": INVALID_PARAMS, "message": "Invalid request parameters"}
            raise
        except anyio.get_cancelled_exc_class():
            entry.outcome, entry.category = "cancelled", "cancelled"
            raise
        except Exception as error:  # the handler catches its own failures; this is the SDK failing
            entry.outcome, entry.category, entry.error = "exception", "protocol", {"type": type(error).__name__}
            raise
        else:
            if isinstance(result, dict):
                entry.is_error = bool(result.get("isError"))
                entry.outcome = "tool_error" if entry.is_error else "ok"
                entry.category = result_category(result)
                entry.structured_content = result.get("structuredContent")
                texts = [c.get("text") for c in result.get("content") or [] if isinstance(c, dict)]
                entry.text = "\n".join(t for t in texts if t) or None
            return result
        finally:
            entry.duration_ms = round((time.perf_counter() - started) * 1000, 2)
            with anyio.CancelScope(shield=True):  # a cancelled call is recorded too
                await state.record(entry)


def build_server(resolve_state: StateResolver) -> Server:
    async def list_tools(ctx: ServerRequestContext, params) -> ListToolsResult:
        return ListToolsResult(tools=[tool.definition() for tool in TOOLS.values()])

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        tool = TOOLS.get(params.name)
        if tool is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}",
                           data={"availableTools": sorted(TOOLS)})
        arguments = params.arguments or {}
        state = resolve_state(ctx)
        if state.refresh_modes is not None:
            state.forced_modes = await state.refresh_modes()
        mode, retry_after = state.mode_for(tool, arguments)
        try:
            return answer_call(tool, arguments, mode, retry_after_seconds=retry_after)
        except Exception:
            logger.exception("training tool %s crashed", tool.name)
            return results.internal_failure(tool=tool.name)

    server = Server(SERVER_NAME, version=SERVER_VERSION, instructions=INSTRUCTIONS,
                    on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(TraceRecorder(resolve_state))
    return server


def single_instance_server(state: InstanceState | None = None) -> tuple[Server, InstanceState]:
    """A server bound to one instance (stdio, tests, one grading scenario)."""
    state = state or InstanceState()
    return build_server(lambda ctx: state), state
