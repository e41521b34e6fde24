"""Runs inside the sandbox: loads a learner's agent loop and runs its `handle` once per grading scenario.

The training MCP server, the virtual clock and the trace all live outside, in the grader. This program only
relays: MCP messages travel over an inherited socket (one JSON line each), and every wait the learner's code
makes (`asyncio.sleep`, `anyio.sleep`, `time.sleep`) becomes a request to the grader's clock, which answers at
once with the new virtual time. Nothing here is trusted: whatever this process sends is taken as the learner's
own action (a call, a wait, an outcome), and the grader records only what its own server saw.

Messages, one JSON object per line on the mux socket:
  grader -> here: {"t": "load", "source"} · {"t": "run", "scenario", "request"} · {"t": "mcp", "scenario", "m"}
  here -> grader: {"t": "ready"} · {"t": "loaded"} · {"t": "load_error", ...} · {"t": "mcp", "scenario", "m"}
                  {"t": "outcome", "scenario", "outcome" | "unserializable", "output"} · {"t": "crash", ...}
The clock socket is a plain request/answer line protocol: {"sleep": seconds} -> {"now": virtual_seconds}.
"""
import asyncio
import contextlib
import contextvars
import inspect
import json
import math
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves this program's folder off the path

import anyio
import anyio._backends._asyncio as anyio_asyncio
import mcp  # noqa: F401  (imported before any learner code, so the pool's sandboxes start warm)
from mcp import Client, MCPError  # noqa: F401
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter
from submission_loader import BoundedOutput, JsonLines, learner_traceback, load_submission, public_names

MUX_FD, CLOCK_FD = (int(fd) for fd in os.environ["SANDBOX_FDS"].split(","))
MAX_WAIT = 1e9
# The scenario a task belongs to (tasks the learner starts inherit it), so a stray task's wait or call from a
# finished scenario cannot move the next scenario's clock.
SCENARIO = contextvars.ContextVar("scenario", default="")


# --- The virtual clock: every wait is a question to the grader -----------------------------------------

class ClockLink:
    def __init__(self, fd: int):
        self.link = JsonLines(fd, "the grader's clock")
        self.now = 0.0

    def wait(self, seconds: float) -> None:
        self.link.send({"sleep": min(seconds, MAX_WAIT), "scenario": SCENARIO.get()})
        self.now = float(self.link.receive()["now"])


CLOCK = ClockLink(CLOCK_FD)
_real_asyncio_sleep = asyncio.sleep


def _checked_delay(delay) -> float:
    if isinstance(delay, bool) or not isinstance(delay, (int, float)):
        raise TypeError(f"a wait must be a number of seconds, not {type(delay).__name__}")
    if math.isnan(delay):
        raise ValueError("a wait cannot be NaN")
    return float(delay)


async def virtual_async_sleep(delay, result=None):
    delay = _checked_delay(delay)
    if delay > 0:
        CLOCK.wait(delay)
    await _real_asyncio_sleep(0)
    return result


def virtual_time_sleep(seconds) -> None:
    seconds = _checked_delay(seconds)
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    if seconds > 0:
        CLOCK.wait(seconds)


asyncio.sleep = asyncio.tasks.sleep = virtual_async_sleep
anyio_asyncio.sleep = virtual_async_sleep
time.sleep = virtual_time_sleep


# --- The link to the grader ---------------------------------------------------------------------------

class Mux:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.inbound: dict[str, object] = {}
        self.handle = None

    async def send(self, message: dict) -> None:
        self.writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        await self.writer.drain()

    async def serve(self) -> None:
        async with anyio.create_task_group() as tasks:
            while line := await self.reader.readline():
                message = json.loads(line)
                kind = message.get("t")
                if kind == "mcp":
                    stream = self.inbound.get(message["scenario"])
                    if stream is not None:
                        await stream.send(SessionMessage(jsonrpc_message_adapter.validate_python(message["m"])))
                elif kind == "load":
                    await self.send(self.load(message["source"]))
                elif kind == "run":
                    tasks.start_soon(self.run, message["scenario"], message["request"])
            tasks.cancel_scope.cancel()

    def load(self, source: str) -> dict:
        module, output, problem = load_submission(source)
        if problem:
            return problem
        handle = getattr(module, "handle", None)
        if handle is None:
            return {"t": "load_error", "kind": "missing", "output": output, "names": public_names(module)}
        if not callable(handle):
            return {"t": "load_error", "kind": "not_callable", "type": type(handle).__name__}
        if not inspect.iscoroutinefunction(handle):
            return {"t": "load_error", "kind": "not_async", "type": type(handle).__name__}
        try:
            parameters = len(inspect.signature(handle).parameters)
        except (TypeError, ValueError):
            parameters = 2
        self.handle = handle
        return {"t": "loaded", "parameters": parameters, "output": output}

    @contextlib.asynccontextmanager
    async def transport(self, scenario: str):
        """An MCP client transport whose other end is the grader's training server, for one scenario."""
        async with create_client_server_memory_streams() as (client_streams, bridge_streams):
            bridge_read, bridge_write = bridge_streams
            self.inbound[scenario] = bridge_write

            async def forward_to_grader():
                async for item in bridge_read:
                    if isinstance(item, SessionMessage):
                        wire = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                        await self.send({"t": "mcp", "scenario": scenario, "m": wire})

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(forward_to_grader)
                try:
                    yield client_streams
                finally:
                    self.inbound.pop(scenario, None)
                    tasks.cancel_scope.cancel()

    async def run(self, scenario: str, request: dict) -> None:
        SCENARIO.set(scenario)
        output = BoundedOutput()
        report: dict = {"t": "outcome", "scenario": scenario}
        try:
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                async with Client(self.transport(scenario)) as session:
                    outcome = await self.handle(session, request)
            try:
                json.dumps(outcome, allow_nan=False)
                report["outcome"] = outcome
            except (TypeError, ValueError) as error:
                report["unserializable"] = f"{type(outcome).__name__}: {error}"[:300]
        except BaseException as error:  # noqa: BLE001 (the learner's crash is reported, not raised)
            while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                error = error.exceptions[0]
            report = {"t": "crash", "scenario": scenario, "type": type(error).__name__,
                      "message": str(error)[:500], "traceback": learner_traceback(error),
                      "protocol_error": isinstance(error, MCPError)}
        report["output"] = output.text()
        await self.send(report)


async def main() -> None:
    sock = socket.socket(fileno=MUX_FD)
    reader, writer = await asyncio.open_connection(sock=sock, limit=2 ** 20)
    mux = Mux(reader, writer)
    await mux.send({"t": "ready"})
    await mux.serve()


if __name__ == "__main__":
    asyncio.run(main())
