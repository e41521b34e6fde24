"""The agent-loop grader: the learner's `async def handle(session, request)` runs in a sandbox against the
training MCP server, once per scenario of the grading contract, on a virtual clock.

One warm sandbox serves the whole submission. A scenario the grader has to stop (too many calls, too much
waiting, busy code, a process that died) is failed with the reason, the sandbox is killed with everything in
it, and the remaining scenarios continue in a fresh one.
"""
import logging
import time
from typing import Any

import anyio

from ...sandbox import SandboxUnavailable, sandbox_pool
from ..result import Check, GradeResult, infrastructure_error, scenario_check, structured_error
from ..sandboxed import ProgressCallback, load_problem, run_coroutine
from .scenarios import SCENARIOS, Scenario, finished_check
from .session import LoopConnection, LoopStopped, ScenarioRun

logger = logging.getLogger(__name__)

RUNNER = "agent_loop_runner.py"
SUBMISSION_TIME_LIMIT_SECONDS = 30
# Busy code that runs out of real time twice would do it in every scenario: the rest are skipped.
MAX_REAL_TIME_STOPS = 2


def grade_agent_loop(*, slug: str, rubric: dict[str, Any], text: str,
                     on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    if not text.strip():
        return GradeResult(exercise=slug, error=structured_error(
            "The file is empty. Define `async def handle(session, request):` and return an outcome dict.",
            field="submission")).as_dict()
    return run_coroutine(_grade(slug, text, on_progress or (lambda progress: None)))


async def _grade(slug: str, source: str, on_progress: ProgressCallback) -> dict[str, Any]:
    runs: dict[str, ScenarioRun] = {}
    pending = list(SCENARIOS)
    deadline = time.monotonic() + SUBMISSION_TIME_LIMIT_SECONDS
    first_sandbox = True
    while pending and time.monotonic() < deadline:
        if sum(run.stop == "real_time" for run in runs.values()) >= MAX_REAL_TIME_STOPS:
            break
        try:
            sandbox = sandbox_pool(RUNNER).take()
        except SandboxUnavailable as error:
            return infrastructure_error(slug, f"Learners' code cannot run on the grading machine right now: {error} "
                                              "Your submission is kept and costs no attempt.", retry_after_seconds=60)
        connection = LoopConnection(sandbox)
        try:
            async with anyio.create_task_group() as tasks:
                try:
                    ended = await _run_scenarios(connection, tasks, source, pending, runs, on_progress, slug,
                                                 first_sandbox=first_sandbox)
                finally:
                    tasks.cancel_scope.cancel()
        finally:
            connection.close()
        if isinstance(ended, dict):
            return ended  # the submission could not be graded, or the sandbox could not start
        if ended == "load_failed":
            break
        first_sandbox = False
        if (last := runs.get(ended)) is not None and last.stop in ("process_ended", "broken_link", "real_time"):
            # what the process wrote outside print() (os.write, a dying interpreter) explains its end
            last.output = (last.output + "\n" + sandbox.output()).strip()[:8192]
    for scenario in pending:
        runs[scenario.id] = ScenarioRun(stop="skipped")
    on_progress({"done": len(SCENARIOS), "total": len(SCENARIOS), "scenario": None})
    return _result(slug, runs)


async def _run_scenarios(connection: LoopConnection, tasks, source: str, pending: list[Scenario],
                         runs: dict[str, ScenarioRun], on_progress: ProgressCallback, slug: str, *,
                         first_sandbox: bool) -> dict[str, Any] | str | None:
    """Run pending scenarios in one sandbox until they are done or the sandbox is spent.

    Returns a final result when grading must stop here, "load_failed" when a later sandbox could not load the
    file again, else the id of the last scenario run (None if none ran)."""
    try:
        await connection.start(tasks)
    except (TimeoutError, LoopStopped, ValueError, OSError) as error:
        logger.warning("sandbox %s did not become ready (%r); its output: %s", connection.sandbox.pid, error,
                       connection.sandbox.output()[-2000:])
        return infrastructure_error(slug, "The sandbox for your code did not start. Your submission is kept and "
                                          "costs no attempt.")
    loaded = await connection.load(source)
    if loaded.get("kind") in ("timeout", "process_ended"):
        logger.warning("sandbox %s: loading the submission ended with %s; its output: %s", connection.sandbox.pid,
                       loaded.get("kind"), connection.sandbox.output()[-2000:])
    if loaded.get("t") != "loaded":
        if first_sandbox:
            return GradeResult(exercise=slug, error=_load_problem(loaded, connection.sandbox.output())).as_dict()
        return "load_failed"
    last = None
    while pending:
        scenario = pending.pop(0)
        on_progress({"done": len(runs), "total": len(SCENARIOS), "scenario": scenario.id})
        run = await connection.run_scenario(scenario_id=scenario.id, request=scenario.request,
                                            script=scenario.script, budget=scenario.budget)
        runs[scenario.id], last = run, scenario.id
        if run.stop or connection.closed.is_set():
            break  # this sandbox is spent: it is killed and the rest go on in a fresh one
    return last


def _result(slug: str, runs: dict[str, ScenarioRun]) -> dict[str, Any]:
    """Every scenario scored like a whole result (the same rule: pass exactly when the score is 1); the submission's
    own checks are one per scenario, carrying its first failure."""
    summaries, scenario_checks = [], []
    for scenario in SCENARIOS:
        run = runs[scenario.id]
        graded = GradeResult(exercise=slug, checks=_scenario_checks(scenario, run)).as_dict()
        summaries.append({
            "id": scenario.id, "title": scenario.title, "status": graded["status"], "score": graded["score"],
            "checks": graded["checks"], "request": scenario.request,
            "trace": [_trace_summary(entry) for entry in run.trace], "outcome": run.outcome, "stopped": run.stop,
            "virtualSeconds": round(run.virtual_seconds, 3), "output": run.output,
        })
        scenario_checks.append(scenario_check(summaries[-1]))
    return GradeResult(exercise=slug, checks=scenario_checks, scenarios=summaries).as_dict()


def _scenario_checks(scenario: Scenario, run: ScenarioRun) -> list[Check]:
    if run.stop == "skipped":
        return [Check("finished", "Returned an outcome", False,
                      "This scenario did not run: earlier scenarios ran out of real time (busy code), or your file "
                      "failed to load again after a scenario was stopped. Fix those first.")]
    return [finished_check(run, scenario), *scenario.checks(run)]


def _trace_summary(entry) -> dict[str, Any]:
    """What the learner sees of one call: deterministic (no wall-clock durations)."""
    summary = entry.as_dict()
    for key in ("durationMs", "text"):
        summary.pop(key, None)
    return summary


LOAD_PROBLEMS = {
    "missing": "Your file does not define handle. Add `async def handle(session, request):` at the top level of "
               "the file (names found: {names}).",
    "not_callable": "handle is a {type}, not a function. Define it with `async def handle(session, request):`.",
    "not_async": "handle is a plain function (def). Make it a coroutine, `async def handle(session, request):`, and "
                 "await the session's calls: `result = await session.call_tool(name, arguments)`.",
    "timeout": "Your file took more than 5 seconds to load. Code at the top level runs when the file loads; keep it "
               "to imports and definitions.",
}


def _load_problem(loaded: dict[str, Any], process_output: str) -> dict[str, Any]:
    return load_problem(loaded, process_output, LOAD_PROBLEMS,
                        "The process running your file ended while loading it (sys.exit, os._exit or a resource "
                        "limit). Remove that from the top level.")