"""The grader's side of a learner's agent loop: one sandbox, a fresh training server per scenario, the virtual
clock, and the budgets that stop a runaway loop.

The training server runs here, in trusted code; the learner's process only relays MCP messages over its
socket. The trace is what this server's middleware recorded, and the clock moves only when the learner's code
asks to wait, so nothing the learner's process sends can forge a time or a call.
"""
import asyncio
import json
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

from ...mcp_server.server import single_instance_server
from ...mcp_server.state import InstanceState, TraceEntry
from ...sandbox import SandboxProcess

logger = logging.getLogger(__name__)

MAX_LINE_BYTES = 1024 * 1024
READY_TIMEOUT_SECONDS = 20  # a cold sandbox imports Python and mcp first
LOAD_TIMEOUT_SECONDS = 5


@dataclass
class Budget:
    max_calls: int = 10  # more calls than this and the loop is stopped
    max_virtual_seconds: float = 600.0  # more waiting than this (virtual) and the loop is stopped
    real_seconds: float = 3.0  # wall-clock time for one scenario: waits are virtual, so only busy code uses it


@dataclass
class ScenarioRun:
    """What happened in one scenario, as the grader saw it."""
    trace: list[TraceEntry] = field(default_factory=list)
    outcome: Any = None
    returned: bool = False  # handle returned a JSON-serialisable outcome
    crash: dict[str, Any] | None = None
    stop: str | None = None  # calls | virtual_time | real_time | process_ended | broken_link | skipped
    unserializable: str | None = None
    output: str = ""
    virtual_seconds: float = 0.0


class VirtualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class LoopStopped(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Scenario:
    """The scenario the sandbox is running now: where its MCP messages go and how it ends."""

    def __init__(self, scenario_id: str, to_server, clock: VirtualClock, budget: Budget):
        self.id, self.to_server, self.clock, self.budget = scenario_id, to_server, clock, budget
        self.done = anyio.Event()
        self.report: dict[str, Any] | None = None
        self.stop: str | None = None

    def finish(self, *, report: dict[str, Any] | None = None, stop: str | None = None) -> None:
        if not self.done.is_set():
            self.report, self.stop = report, stop
            self.done.set()


class LoopConnection:
    """A sandbox running `agent_loop_runner.py`, driven one scenario at a time."""

    def __init__(self, sandbox: SandboxProcess):
        self.sandbox = sandbox
        self.current: _Scenario | None = None
        self.loaded: asyncio.Future | None = None
        self.closed = anyio.Event()

    # --- lifecycle ---------------------------------------------------------------------------------

    async def start(self, tasks: anyio.abc.TaskGroup) -> None:
        """Wait for the sandbox's runtime to be ready (instant for a warm one from the pool)."""
        self.reader, self.writer = await asyncio.open_connection(sock=self.sandbox.mux, limit=MAX_LINE_BYTES)
        self.clock_reader, self.clock_writer = await asyncio.open_connection(sock=self.sandbox.clock, limit=4096)
        with anyio.fail_after(READY_TIMEOUT_SECONDS):
            first = await self.reader.readline()
        if json.loads(first or b"{}").get("t") != "ready":
            raise LoopStopped("process_ended")
        tasks.start_soon(self._read_messages)
        tasks.start_soon(self._serve_clock)

    async def load(self, source: str) -> dict[str, Any]:
        self.loaded = asyncio.get_running_loop().create_future()
        await self._send({"t": "load", "source": source})
        with anyio.move_on_after(LOAD_TIMEOUT_SECONDS):
            return await self.loaded
        return {"t": "load_error", "kind": "timeout"}

    def close(self) -> None:
        # Close the transports first: they unregister their descriptors from the event loop, which would
        # otherwise keep watching the numbers the next sandbox's sockets are given.
        for writer in (getattr(self, "writer", None), getattr(self, "clock_writer", None)):
            if writer is not None:
                writer.close()
        self.sandbox.kill()
        self.closed.set()

    # --- one scenario --------------------------------------------------------------------------------

    async def run_scenario(self, *, scenario_id: str, request: dict[str, Any], script: dict[str, list],
                           budget: Budget) -> ScenarioRun:
        clock = VirtualClock()
        state = InstanceState(label=f"grading:{scenario_id}", script=script, clock=clock)
        server, _ = single_instance_server(state)
        run = ScenarioRun()
        async with create_client_server_memory_streams() as ((from_server, to_server), (server_read, server_write)):
            current = _Scenario(scenario_id, to_server, clock, budget)

            async def count_calls(entry: TraceEntry) -> None:
                if len(state.trace) >= budget.max_calls + 1:
                    current.finish(stop="calls")

            state.on_record = count_calls
            self.current = current
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(server.run, server_read, server_write, server.create_initialization_options())
                tasks.start_soon(self._forward_from_server, from_server, scenario_id)
                await self._send({"t": "run", "scenario": scenario_id, "request": request})
                with anyio.move_on_after(budget.real_seconds):
                    await current.done.wait()
                if not current.done.is_set():
                    current.finish(stop="real_time")
                tasks.cancel_scope.cancel()
            self.current = None
        run.trace = state.trace[: budget.max_calls + 1]
        run.virtual_seconds = clock.now
        run.stop = current.stop
        report = current.report or {}
        run.output = str(report.get("output") or "")[:9000]
        if report.get("t") == "outcome":
            if "unserializable" in report:
                run.unserializable = str(report["unserializable"])[:300]
            else:
                run.outcome, run.returned = report.get("outcome"), True
        elif report.get("t") == "crash":
            run.crash = {key: report.get(key) for key in ("type", "message", "traceback", "protocol_error")}
        return run

    # --- plumbing ------------------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        try:
            self.writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            await self.writer.drain()
        except (ConnectionError, OSError):
            self._ended("process_ended")

    def _ended(self, reason: str) -> None:
        if self.current is not None:
            self.current.finish(stop=reason)
        if self.loaded is not None and not self.loaded.done():
            self.loaded.set_result({"t": "load_error", "kind": "process_ended"})
        self.closed.set()

    async def _forward_from_server(self, from_server, scenario_id: str) -> None:
        async for item in from_server:
            if isinstance(item, SessionMessage):
                wire = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                await self._send({"t": "mcp", "scenario": scenario_id, "m": wire})

    async def _read_messages(self) -> None:
        """Everything the sandbox sends; anything malformed ends the link (the learner wrote into it)."""
        try:
            while line := await self.reader.readline():
                message = json.loads(line)
                if not isinstance(message, dict):
                    raise ValueError("not an object")
                await self._dispatch(message)
        except (ValueError, asyncio.LimitOverrunError, ConnectionError, OSError):
            self._ended("broken_link")
            return
        self._ended("process_ended")

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind, current = message.get("t"), self.current
        if kind in ("loaded", "load_error"):
            if self.loaded is not None and not self.loaded.done():
                self.loaded.set_result(message)
        elif current is None or message.get("scenario") != current.id:
            return  # a message for a scenario that is over: the learner's stray task, ignored
        elif kind == "mcp":
            try:
                parsed = jsonrpc_message_adapter.validate_python(message.get("m"))
            except ValueError:
                return
            await current.to_server.send(SessionMessage(parsed))
        elif kind in ("outcome", "crash"):
            current.finish(report=message)

    async def _serve_clock(self) -> None:
        """Answer each wait with the new virtual time; a wait past the budget stops the scenario instead."""
        try:
            while line := await self.clock_reader.readline():
                request = json.loads(line)
                seconds = request.get("sleep") if isinstance(request, dict) else None
                if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds):
                    raise ValueError("bad wait")
                current = self.current
                if current is not None and request.get("scenario") != current.id:
                    current = None  # a stray task from a finished scenario: its waits move no clock
                if current is not None and seconds > 0:
                    if current.clock.now + seconds > current.budget.max_virtual_seconds:
                        current.clock.now = current.budget.max_virtual_seconds
                        current.finish(stop="virtual_time")
                        continue  # no answer: the scenario is over and the sandbox will be killed
                    current.clock.now += seconds
                self.clock_writer.write(json.dumps({"now": current.clock.now if current else 0.0}).encode() + b"\n")
                await self.clock_writer.drain()
        except (ValueError, ConnectionError, OSError):
            self._ended("broken_link")

