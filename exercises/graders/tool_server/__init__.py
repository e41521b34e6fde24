"""The customer-lookup-tool grader: the learner's MCP server runs in a sandbox as a stdio server, and a real MCP
client probes it from outside, in both protocol eras, the way a public MCP scoreboard would.

One sandbox serves each era. A probe that stops the server (it exits, or does not answer in time) is failed with
the reason, the sandbox is killed, and the remaining probes continue against a fresh copy of the server.
"""
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import Client, MCPError
from mcp.types import REQUEST_TIMEOUT

from ...sandbox import SandboxUnavailable, sandbox_pool
from ..result import Check, GradeResult, infrastructure_error, scenario_check, structured_error
from ..sandboxed import ProgressCallback, load_problem, run_coroutine
from .checks import listing_checks, merge_eras, stdout_checks
from .connection import MAX_LINE_BYTES, Pollution, ServerConnection, WireCall
from ..payload import text_blocks
from .probes import ANSWER_TIMEOUT_SECONDS, PROBES, TOOL, Probe, ProbeRun, clip

logger = logging.getLogger(__name__)

RUNNER = "tool_server_runner.py"
ERAS = (("2026-07-28", "auto"), ("2025-11-25", "legacy"))  # (what the client speaks, the Client's mode)
SUBMISSION_TIME_LIMIT_SECONDS = 60
MAX_STOPS = 3  # servers that had to be stopped this often would be stopped on every probe: the rest are skipped
OUTPUT_KEPT = 4000


@dataclass
class EraRun:
    era: str
    runs: dict[str, ProbeRun] = field(default_factory=dict)
    tools: list[dict[str, Any]] | None = None
    pollution: list[Pollution] = field(default_factory=list)
    stops: list[tuple[str, str]] = field(default_factory=list)  # (probe id, why the server was stopped)
    output: str = ""  # the server's stderr where it explains a stop


def grade_tool_server(*, slug: str, rubric: dict[str, Any], text: str,
                      on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    if not text.strip():
        return GradeResult(exercise=slug, error=structured_error(
            "The file is empty. Define `server = MCPServer(\"customers\")` with a customer_lookup tool.",
            field="submission")).as_dict()
    return run_coroutine(_grade(slug, text, on_progress or (lambda progress: None)))


async def _grade(slug: str, source: str, on_progress: ProgressCallback) -> dict[str, Any]:
    deadline = time.monotonic() + SUBMISSION_TIME_LIMIT_SECONDS
    eras: list[EraRun] = []
    total = len(PROBES) * len(ERAS)
    for era, mode in ERAS:
        state = EraRun(era)
        eras.append(state)
        pending = list(PROBES)
        while pending:
            stops = sum(len(e.stops) for e in eras)
            if stops >= MAX_STOPS or time.monotonic() > deadline:
                _skip(state, pending, "Not run: your server had to be stopped too often (it crashed or did not "
                                      "answer), so the remaining probes were skipped. Fix those first.")
                break
            try:
                sandbox = sandbox_pool(RUNNER).take()
            except SandboxUnavailable as error:
                return infrastructure_error(slug, f"Learners' code cannot run on the grading machine right now: "
                                                  f"{error} Your submission is kept and costs no attempt.",
                                            retry_after_seconds=60)
            connection = ServerConnection(sandbox)
            try:
                async with anyio.create_task_group() as tasks:
                    try:
                        ended = await _serve_probes(slug, connection, tasks, source, mode, pending, state,
                                                    first=(len(eras) == 1 and not state.runs and not state.stops),
                                                    progress=lambda probe: on_progress(
                                                        {"done": sum(len(e.runs) for e in eras), "total": total,
                                                         "scenario": f"{probe.id} ({era})"}))
                    finally:
                        tasks.cancel_scope.cancel()
            finally:
                connection.close()
                state.pollution += connection.log.pollution
            if isinstance(ended, dict):
                return ended
            if ended is not None:  # this probe stopped the server: say why, then go on with a fresh one
                run = state.runs[ended]
                run.stop_detail = _why_stopped(run, connection)
                state.stops.append((ended, run.stop))
                state.output = state.output or _stderr_tail(connection)
    on_progress({"done": total, "total": total, "scenario": None})
    return _result(slug, eras)


async def _serve_probes(slug: str, connection: ServerConnection, tasks, source: str, mode: str, pending: list[Probe],
                        state: EraRun, *, first: bool, progress) -> dict[str, Any] | str | None:
    """Probe one fresh server until the pending probes are done or one of them stops it.

    Returns a final result when grading must end here, the id of the probe that stopped the server, or None."""
    try:
        await connection.start(tasks)
    except (TimeoutError, ConnectionError, ValueError, OSError) as error:
        logger.warning("sandbox %s did not become ready (%r); its output: %s", connection.sandbox.pid, error,
                       connection.sandbox.output()[-2000:])
        return infrastructure_error(slug, "The sandbox for your server did not start. Your "
                                    "submission is kept and costs no attempt.")
    loaded = await connection.load(source)
    if loaded.get("t") != "loaded":
        if first:
            return GradeResult(exercise=slug,
                               error=_load_problem(loaded, connection.sandbox.output())).as_dict()
        _skip(state, pending, "Not run: a fresh copy of your server failed to load after an earlier probe stopped "
                              "it.")
        return None
    started, stopped_by = False, None
    try:
        async with Client(connection.transport(), mode=mode, read_timeout_seconds=ANSWER_TIMEOUT_SECONDS) as client:
            if state.tools is None:
                listing = await client.list_tools()
                state.tools = [tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                               for tool in listing.tools]
                if TOOL not in [tool.get("name") for tool in state.tools]:
                    names = ", ".join(str(tool.get("name")) for tool in state.tools) or "none"
                    return GradeResult(exercise=slug, error=structured_error(
                        f"Your server does not offer a tool named {TOOL} (it lists: {names}). Register it, e.g. "
                        f"with @server.tool() on `def {TOOL}(customer_id: str, failure_mode: str = \"none\")`.",
                        field="submission", tools=names)).as_dict()
            started = True
            while pending:
                probe = pending.pop(0)
                progress(probe)
                run = await _run_probe(client, connection, probe, state.era)
                state.runs[probe.id] = run
                if run.stop:
                    stopped_by = probe.id
                    break
    except Exception as error:  # noqa: BLE001 (narrowed below; the SDK wraps them in exception groups)
        if not _session_failure(error):
            raise
        if started:  # the session ended later (the server died while the client was closing): as seen above
            return stopped_by
        # The client could not even start talking: the server never answered its first request.
        logger.info("learner server did not answer the client's first request: %r", error)
        with anyio.move_on_after(1):  # let a dying server finish, so what is said about it does not vary
            while connection.sandbox.alive():
                await anyio.sleep(0.02)
        detail = _why_stopped(ProbeRun(state.era, stop="server_exited" if connection.exited() else "no_answer"),
                              connection)
        request = "server/discover" if state.era.startswith("2026") else "initialize"
        if first:
            output = _stderr_tail(connection)
            return GradeResult(exercise=slug, error=structured_error(
                f"Your server did not answer the MCP client's first request ({request}): {detail} Make sure it "
                "starts: anything it does on start (a lifespan, connections) must not fail.",
                field="submission", **({"output": output} if output else {}))).as_dict()
        _skip(state, pending, f"Not run: your server did not answer the client's first request ({request}); "
                              f"{detail}")
        state.output = state.output or _stderr_tail(connection)
        return None
    if stopped_by is None:
        await connection.shutdown()
    return stopped_by


async def _run_probe(client: Client, connection: ServerConnection, probe: Probe, era: str) -> ProbeRun:
    connection.probe = probe.id
    first_call, first_query = len(connection.log.calls), len(connection.log.queries)
    run = ProbeRun(era)
    timed_out = False

    async def call(index: int) -> None:
        nonlocal timed_out
        sent = probe.calls[index]
        try:
            await client.call_tool(sent.tool, sent.arguments)
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                timed_out = True
            # any other protocol error is in the recorded wire answer
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the server went away: seen below
        except Exception as error:  # noqa: BLE001 (the SDK client refused the result; the learner's to fix)
            run.client_errors[index] = f"{type(error).__name__}: {str(error)[:300]}"

    async def calls() -> None:
        async with anyio.create_task_group() as burst:
            for index in range(probe.concurrent):
                burst.start_soon(call, index)
        for index in range(probe.concurrent, len(probe.calls)):
            await call(index)

    async with anyio.create_task_group() as tasks:
        async def stop_when_an_answer_is_dropped() -> None:
            await connection.answer_dropped.wait()
            tasks.cancel_scope.cancel()  # the dropped answer's call would wait for its timeout

        tasks.start_soon(stop_when_an_answer_is_dropped)
        await calls()
        tasks.cancel_scope.cancel()
    if connection.answer_dropped.is_set():
        timed_out = True
    run.calls = _match(probe, connection.log.calls[first_call:])
    run.queries = [q for q in connection.log.queries[first_query:] if q.probe == probe.id]
    if any(call.response is None for call in run.calls):
        if connection.exited() or not connection.sandbox.alive():
            run.stop = "server_exited"
        elif timed_out:
            run.stop = "no_answer"
        else:
            run.stop = "server_exited"
    return run


def _match(probe: Probe, recorded: list[WireCall]) -> list[WireCall]:
    """The recorded wire call for each of the probe's calls, in the probe's order (they may be sent in any
    order); a call that never reached the wire gets an empty record."""
    unmatched = list(recorded)
    calls = []
    for sent in probe.calls:
        found = next((c for c in unmatched if c.tool == sent.tool and c.arguments == sent.arguments), None)
        if found is not None:
            unmatched.remove(found)
        calls.append(found or WireCall(None, sent.tool, sent.arguments, probe.id))
    return calls


SESSION_FAILURES = (MCPError, TimeoutError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError,
                    RuntimeError)


def _session_failure(error: BaseException) -> bool:
    """A failure of the MCP session itself (the server went away or never answered), not of the grader."""
    if isinstance(error, BaseExceptionGroup):
        return all(_session_failure(inner) for inner in error.exceptions)
    return isinstance(error, SESSION_FAILURES)


def _skip(state: EraRun, pending: list[Probe], reason: str) -> None:
    for probe in pending:
        state.runs[probe.id] = ProbeRun(state.era, stop="skipped", stop_detail=reason)
    pending.clear()


def _why_stopped(run: ProbeRun, connection: ServerConnection) -> str:
    if run.stop == "no_answer":
        if connection.log.oversized:
            return (f"Its answer was longer than {MAX_LINE_BYTES // 1024} KiB, so the grader dropped it unread; keep "
                    "answers to what the agent needs. The grader stopped the server and went on with a fresh copy.")
        return "The grader stopped the server and went on with a fresh copy."
    code = connection.sandbox.popen.poll()
    parts = [f"it exited with code {code}." if code is not None else "it closed its stdout."]
    if connection.end.traceback:
        parts.append(f"Its last error:\n{connection.end.traceback}")
    return " ".join(parts)


def _stderr_tail(connection: ServerConnection) -> str:
    return connection.sandbox.output()[-OUTPUT_KEPT:]


LOAD_PROBLEMS = {
    "missing": "Your file does not define `server`. Create it at the top level, `server = MCPServer(\"customers\")`, "
               "and register customer_lookup on it with @server.tool() (names found: {names}).",
    "wrong_type": "`server` is a {type}, not an MCP server. Make it an mcp.server.MCPServer (or a low-level "
                  "mcp.server.Server): the grader serves it over stdio.",
    "timeout": "Your file took more than 5 seconds to load. If it calls server.run() at the top level, put that under "
               "`if __name__ == \"__main__\":`; the grader imports the file and serves `server` itself.",
}


def _load_problem(loaded: dict[str, Any], process_output: str) -> dict[str, Any]:
    return load_problem(loaded, process_output, LOAD_PROBLEMS,
                        "The process running your file ended while loading it (sys.exit, os._exit, a resource limit, "
                        "or server.run() at the top level). Keep the top level to imports and definitions, and put "
                        "server.run() under `if __name__ == \"__main__\":`.")


# --- The result -----------------------------------------------------------------------------------------

def _result(slug: str, eras: list[EraRun]) -> dict[str, Any]:
    scenarios: list[dict[str, Any]] = []
    listing = {e.era: listing_checks(e.tools) for e in eras}
    scenarios.append(_scenario(slug, "tools-list", "Lists customer_lookup with its arguments", merge_eras(listing),
                               eras=_era_verdicts(listing),
                               expected="customer_lookup in tools/list, with customer_id (a string, required), "
                                        "failure_mode (optional) and a description.",
                               trace=[{"era": e.era, "tools": e.tools} for e in eras]))
    for probe in PROBES:
        per_era, answers = {}, {}
        for e in eras:
            run = e.runs[probe.id]
            checks = probe.judge(probe, run)
            if probe.id == "still-answering":
                checks.append(_kept_running_check(e))
            per_era[e.era] = checks
            if len(probe.calls) == 1 and run.calls and not all(c.passed for c in checks):
                answers.setdefault(_answer_summary(run.calls[0].response), []).append(e.era)
        answered = " ".join(f"Your server answered{'' if len(answers) == 1 else ' the ' + ' and '.join(e) + ' client'}"
                            f": {text}" for text, e in answers.items())
        scenarios.append(_scenario(
            slug, probe.id, probe.title, merge_eras(per_era), expected=probe.expected, answered=answered,
            eras=_era_verdicts(per_era),
            request=[{"tool": c.tool, "arguments": _display(c.arguments)}
                     for c in probe.calls[:probe.concurrent or len(probe.calls)]],
            trace=[_trace_entry(e.era, call, e.runs[probe.id] if len(probe.calls) == 1 else None)
                   for e in eras for call in e.runs[probe.id].calls],
            stopped={e.era: e.runs[probe.id].stop for e in eras if e.runs[probe.id].stop},
            output="\n".join(e.output for e in eras if e.output and any(p == probe.id for p, _ in e.stops))))
    stdout = {e.era: stdout_checks(e.pollution) for e in eras}
    scenarios.append(_scenario(slug, "stdout", "Keeps stdout for the protocol", merge_eras(stdout),
                               eras=_era_verdicts(stdout),
                               expected="Nothing on stdout but JSON-RPC messages, from start to exit.",
                               trace=[{"era": e.era, "stdout": p.text, "during": p.probe}
                                      for e in eras for p in e.pollution]))
    checks = [scenario_check(scenario, explain=_explain_failure) for scenario in scenarios]
    return GradeResult(exercise=slug, checks=checks, scenarios=scenarios).as_dict()


def _explain_failure(scenario: dict[str, Any], failure: dict[str, Any]) -> str:
    """A probe's headline: its first failure, what the server answered, and what it should have."""
    # a missing answer or a protocol error already says what came back
    answered = scenario.get("answered") if failure["id"] not in ("answered", "tool-result") else ""
    return " ".join(filter(None, (failure["message"], answered,
                                  f"Expected: {scenario['expected']}" if scenario.get("expected") else "")))


def _scenario(slug: str, scenario_id: str, title: str, checks: list[Check], **details: Any) -> dict[str, Any]:
    graded = GradeResult(exercise=slug, checks=checks).as_dict()
    return {"id": scenario_id, "title": title, "status": graded["status"], "score": graded["score"],
            "checks": graded["checks"], "outcome": None, **details}


def _era_verdicts(per_era: dict[str, list[Check]]) -> dict[str, str]:
    return {era: "pass" if all(c.passed for c in checks) else "fail" for era, checks in per_era.items()}


def _kept_running_check(state: EraRun) -> Check:
    if not state.stops:
        return Check("kept-running", "Kept running through every probe", True,
                     "One server process answered every probe.")
    where = ", ".join(f"{probe} ({'no answer' if why == 'no_answer' else 'it exited'})" for probe, why in state.stops)
    return Check("kept-running", "Kept running through every probe", False,
                 f"The grader had to start your server again after: {where}. A host would have lost the server "
                 "there. Each of those probes says what went wrong.",
                 misconception="server-crashes" if any(w != "no_answer" for _, w in state.stops) else "server-hangs")


def _trace_entry(era: str, call: WireCall, run: ProbeRun | None) -> dict[str, Any]:
    """One call as the learner sees it; with the database queries it caused when it was the probe's only call
    (overlapping calls' queries arrive in no fixed order, and grading is deterministic)."""
    entry = {"era": era, "tool": call.tool, "arguments": _display(call.arguments), "response": _display(call.response)}
    if run is not None:
        entry["databaseQueries"] = [_display(q.as_dict()) for q in run.queries]
    return entry


def _answer_summary(response: dict[str, Any] | None) -> str:
    """One line saying what came back, for the scenario's headline."""
    if response is None:
        return "nothing."
    if isinstance(response.get("error"), dict):
        error = response["error"]
        return f"a JSON-RPC error, code {error.get('code')}, \u201c{clip(str(error.get('message')), 100)}\u201d."
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    shown = {key: result[key] for key in ("isError", "structuredContent") if key in result}
    if "structuredContent" not in result:
        shown["text"] = " ".join(text_blocks(result))
    return clip(json.dumps(shown, ensure_ascii=False), 240) + "."


def _display(value: Any, limit: int = 300, depth: int = 0) -> Any:
    """The value as shown to the learner: long strings cut, with their length, and at most 50 items a level, 8
    levels deep, so whatever a server answers, the stored result stays small."""
    if isinstance(value, str):
        return clip(value, limit)
    if depth >= 8 and isinstance(value, (dict, list)):
        return "… (nested too deep to show)"
    if isinstance(value, dict):
        shown = {str(key): _display(item, limit, depth + 1) for key, item in list(value.items())[:50]}
        if len(value) > 50:
            shown["…"] = f"{len(value) - 50} more keys"
        return shown
    if isinstance(value, list):
        return [_display(item, limit, depth + 1) for item in value[:50]] + (
            [f"… {len(value) - 50} more items"] if len(value) > 50 else [])
    return value
