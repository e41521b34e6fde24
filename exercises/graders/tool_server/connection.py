"""The grader's side of a learner's MCP server: one sandbox running `tool_server_runner.py`, spoken to over its
stdin and stdout the way an MCP host speaks to a stdio server.

Everything the server writes to stdout is read here, line by line. JSON-RPC messages go on to the grader's MCP
client; anything else is noted as stdout pollution (the classic stdio mistake) and dropped. Every `tools/call`
is recorded with its raw answer, and every database query with the probe that was running when it arrived, so the
checks judge exactly what crossed the wire.
"""
import asyncio
import json
import logging
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

from ...sandbox import SandboxProcess
from .database import MAX_QUERIES, DatabaseQuery, answer

logger = logging.getLogger(__name__)

MAX_LINE_BYTES = 512 * 1024  # a longer answer is dropped unread: judging it would cost the grader seconds
READY_TIMEOUT_SECONDS = 20  # a cold sandbox imports Python and mcp first
LOAD_TIMEOUT_SECONDS = 5
SHUTDOWN_TIMEOUT_SECONDS = 3
POLLUTION_KEPT = 20


@dataclass
class WireCall:
    """One `tools/call` as it crossed the wire: what the grader sent and the raw JSON-RPC answer."""
    request_id: Any
    tool: str
    arguments: Any
    probe: str
    response: dict[str, Any] | None = None


@dataclass
class Pollution:
    text: str
    probe: str  # "startup", a probe id, or "shutdown"


@dataclass
class ServerEnd:
    """How the server process ended, when it did."""
    traceback: str | None = None  # the runner reported serve() raising


@dataclass
class ConnectionLog:
    calls: list[WireCall] = field(default_factory=list)
    queries: list[DatabaseQuery] = field(default_factory=list)
    pollution: list[Pollution] = field(default_factory=list)
    oversized: list[str] = field(default_factory=list)  # the probes during which an answer was too long to read


class ServerConnection:
    """A sandboxed learner server. `probe` labels what happens on the wire until it is changed."""

    def __init__(self, sandbox: SandboxProcess):
        self.sandbox = sandbox
        self.probe = "startup"
        self.log = ConnectionLog()
        self.stdout_closed = anyio.Event()
        self.answer_dropped = anyio.Event()  # an answer too long to read: its call will never be answered
        self.end = ServerEnd()
        self._pending: dict[Any, WireCall] = {}
        self._to_client = None
        self._control_messages: asyncio.Queue = asyncio.Queue()
        self._transports: list[asyncio.BaseTransport] = []

    # --- lifecycle ---------------------------------------------------------------------------------

    async def start(self, tasks: anyio.abc.TaskGroup) -> None:
        """Wait for the sandbox's runtime (instant for a warm one) and start listening to everything it says."""
        loop = asyncio.get_running_loop()
        self.control_reader, self.control_writer = await asyncio.open_connection(sock=self.sandbox.mux,
                                                                                 limit=1024 * 1024)
        self.db_reader, self.db_writer = await asyncio.open_connection(sock=self.sandbox.clock, limit=1024 * 1024)
        self.stdout = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(self.stdout),
                                                         self.sandbox.popen.stdout)
        write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                                  self.sandbox.popen.stdin)
        self.stdin = asyncio.StreamWriter(write_transport, protocol, None, loop)
        self._transports += [read_transport, write_transport]
        with anyio.fail_after(READY_TIMEOUT_SECONDS):
            first = await self.control_reader.readline()
        if json.loads(first or b"{}").get("t") != "ready":
            raise ConnectionError("the sandbox ended before it was ready")
        tasks.start_soon(self._read_control)
        tasks.start_soon(self._read_stdout)
        tasks.start_soon(self._serve_database)

    async def load(self, source: str) -> dict[str, Any]:
        """Have the runner import the file and start serving; its answer (`loaded` or `load_error`)."""
        self.control_writer.write(json.dumps({"t": "load", "source": source}).encode() + b"\n")
        await self.control_writer.drain()
        with anyio.move_on_after(LOAD_TIMEOUT_SECONDS):
            while True:
                message = await self._control_messages.get()
                if message.get("t") in ("loaded", "load_error"):
                    return message
                if message.get("t") == "ended":
                    return {"t": "load_error", "kind": "process_ended"}
        return {"t": "load_error", "kind": "timeout"}

    async def shutdown(self) -> None:
        """Close stdin, as a host does when it is done, and read what the server still writes before it exits."""
        self.probe = "shutdown"
        try:
            self.stdin.close()
        except (ConnectionError, OSError):
            pass
        with anyio.move_on_after(SHUTDOWN_TIMEOUT_SECONDS):
            await self.stdout_closed.wait()

    def close(self) -> None:
        # Close the transports first: they unregister their descriptors from the event loop, which would
        # otherwise keep watching the numbers the next sandbox's pipes and sockets are given.
        for writer in (getattr(self, "control_writer", None), getattr(self, "db_writer", None)):
            if writer is not None:
                writer.close()
        for transport in self._transports:
            transport.close()
        self.sandbox.kill()

    def exited(self) -> bool:
        return self.stdout_closed.is_set() or not self.sandbox.alive()

    # --- the client's transport ----------------------------------------------------------------------

    @asynccontextmanager
    async def transport(self):
        """An MCP client transport over the server's stdin and stdout (what `stdio_client` does for a process)."""
        to_client, client_read = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        client_write, from_client = anyio.create_memory_object_stream[SessionMessage](16)
        self._to_client = to_client

        async def write_stdin():
            async with from_client:
                async for item in from_client:
                    wire = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                    if wire.get("method") == "tools/call" and "id" in wire:
                        params = wire.get("params") or {}
                        call = WireCall(wire["id"], params.get("name"), params.get("arguments"), self.probe)
                        self._pending[wire["id"]] = call
                        self.log.calls.append(call)
                    try:
                        self.stdin.write(json.dumps(wire, separators=(",", ":")).encode() + b"\n")
                        await self.stdin.drain()
                    except (ConnectionError, OSError, RuntimeError):
                        return  # the server is gone; the client's request times out or ends with the stream

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(write_stdin)
            try:
                async with client_read, client_write:
                    yield client_read, client_write
            finally:
                self._to_client = None
                tasks.cancel_scope.cancel()

    # --- plumbing ------------------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        try:
            while True:
                line = await self._next_line()
                if line is None:
                    self.log.oversized.append(self.probe)
                    self.answer_dropped.set()
                    continue
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    message = jsonrpc_message_adapter.validate_json(line)
                except ValueError:
                    self._polluted(line.decode("utf-8", "replace").rstrip("\n"))
                    continue
                wire = json.loads(line)
                call = self._pending.pop(wire.get("id"), None) if "method" not in wire else None
                if call is not None:
                    call.response = wire
                if self._to_client is not None:
                    try:
                        await self._to_client.send(SessionMessage(message))
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        pass
        finally:
            self.stdout_closed.set()
            if self._to_client is not None:
                self._to_client.close()

    async def _next_line(self) -> bytes | None:
        """The next line from stdout (b"" at the end), or None for a line over MAX_LINE_BYTES, which is dropped."""
        try:
            return await self.stdout.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            return end.partial
        except asyncio.LimitOverrunError:
            pass
        while True:
            try:
                await self.stdout.readuntil(b"\n")
                return None
            except asyncio.LimitOverrunError as overrun:
                await self.stdout.readexactly(overrun.consumed)
            except asyncio.IncompleteReadError:
                return None

    def _polluted(self, text: str) -> None:
        if len(self.log.pollution) < POLLUTION_KEPT:
            self.log.pollution.append(Pollution(text[:300], self.probe))

    async def _read_control(self) -> None:
        try:
            while line := await self.control_reader.readline():
                message = json.loads(line)
                if isinstance(message, dict):
                    if message.get("t") == "crash":
                        self.end.traceback = str(message.get("traceback") or "")[:4000]
                    await self._control_messages.put(message)
        except (ValueError, ConnectionError, OSError):
            pass
        await self._control_messages.put({"t": "ended"})

    async def _serve_database(self) -> None:
        """Answer the tool's `training_db` queries, noting each; anything malformed ends the database link."""
        try:
            while line := await self.db_reader.readline():
                query = json.loads(line)
                if not isinstance(query, dict):
                    raise ValueError("not an object")
                customer_id, failure_mode = query.get("customer_id"), query.get("failure_mode")
                if len(self.log.queries) < MAX_QUERIES:
                    self.log.queries.append(DatabaseQuery(customer_id, failure_mode, self.probe))
                self.db_writer.write(json.dumps(answer(customer_id, failure_mode)).encode() + b"\n")
                await self.db_writer.drain()
        except (ValueError, ConnectionError, OSError):
            self.db_writer.close()
