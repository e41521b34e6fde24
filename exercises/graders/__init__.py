"""Graders: pure functions from (exercise, submission text) to the contract's result object."""

from typing import Any

from ..sandbox import SandboxPool, sandbox_pool
from .agent_loop import RUNNER as AGENT_LOOP_RUNNER
from .agent_loop import ProgressCallback, grade_agent_loop
from .payload import grade_payload, grade_payload_set
from .tool_server import RUNNER as TOOL_SERVER_RUNNER
from .tool_server import grade_tool_server

GRADERS = {"payload": grade_payload, "payload-set": grade_payload_set, "agent-loop": grade_agent_loop,
           "tool-server": grade_tool_server}
GRADERS_WITH_PROGRESS = {"agent-loop", "tool-server"}


def sandbox_pools() -> list[SandboxPool]:
    """The pools of the graders that run learners' code: the grading worker keeps them warm."""
    return [sandbox_pool(AGENT_LOOP_RUNNER), sandbox_pool(TOOL_SERVER_RUNNER)]


def grade(*, slug: str, kind: str, rubric: dict[str, Any], text: str,
          on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    """The one entry point the web page, the API, the CLI and the tests share."""
    if kind in GRADERS_WITH_PROGRESS:
        return GRADERS[kind](slug=slug, rubric=rubric, text=text, on_progress=on_progress)
    return GRADERS[kind](slug=slug, rubric=rubric, text=text)
