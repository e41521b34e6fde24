"""One training-server instance's state: its failure modes, its scenario script, its clock and its trace.

Each learner's live instance, and each grading scenario, has its own `InstanceState`; the server code is
shared. The trace is written here, on the trusted side, from what the server received and answered.
"""
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .tools import TrainingTool


@dataclass
class TraceEntry:
    seq: int
    tool: str
    arguments: Any
    at: float  # seconds on the instance's clock (virtual while grading)
    outcome: str  # ok | tool_error | protocol_error | cancelled | exception
    category: str  # ok | empty | partial | transient | validation | permission | business | protocol | cancelled
    is_error: bool | None = None
    structured_content: Any = None
    text: str | None = None
    error: dict[str, Any] | None = None
    protocol_version: str = ""
    duration_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq, "tool": self.tool, "arguments": self.arguments, "at": round(self.at, 3),
            "outcome": self.outcome, "category": self.category, "isError": self.is_error,
            "structuredContent": self.structured_content, "text": self.text, "error": self.error,
            "protocolVersion": self.protocol_version, "durationMs": self.duration_ms,
        }


def _wall_clock() -> Callable[[], float]:
    start = time.monotonic()
    return lambda: time.monotonic() - start


@dataclass
class InstanceState:
    """`script` maps a tool to its scripted responses, e.g. [{"mode": "timeout", "retryAfterSeconds": 2},
    {"mode": "none"}]; each call takes the next one and the last one repeats."""

    label: str = "local"
    forced_modes: dict[str, str] = field(default_factory=dict)
    script: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    clock: Callable[[], float] = field(default_factory=_wall_clock)
    trace: list[TraceEntry] = field(default_factory=list)
    on_record: Callable[[TraceEntry], Awaitable[None]] | None = None
    # Reloads forced_modes before each call (stdio with a learner's token: the Playground may switch them).
    refresh_modes: Callable[[], Awaitable[dict[str, str]]] | None = None
    _script_position: dict[str, int] = field(default_factory=dict)

    def mode_for(self, tool: TrainingTool, arguments: dict[str, Any]) -> tuple[str, int | None]:
        """The failure mode of the next call to `tool` and its retryAfterSeconds override, if any."""
        steps = self.script.get(tool.name)
        if steps:
            position = self._script_position.get(tool.name, 0)
            self._script_position[tool.name] = position + 1
            step = steps[min(position, len(steps) - 1)]
            return step.get("mode", "none"), step.get("retryAfterSeconds")
        requested = arguments.get("failure_mode")
        if isinstance(requested, str) and requested in tool.failure_modes:
            return requested, None
        return self.forced_modes.get(tool.name, "none"), None

    async def record(self, entry: TraceEntry) -> None:
        self.trace.append(entry)
        if self.on_record is not None:
            await self.on_record(entry)
