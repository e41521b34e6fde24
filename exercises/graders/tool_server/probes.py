"""What the grader asks the learner's server, and how each answer is judged.

Each probe is one or more `tools/call`s, sent by a real MCP client over stdio, in both protocol eras. Its checks
look only at what crossed the wire (the raw JSON-RPC answer) and at the grader's own record of database queries.
Answers that are tool results are judged with the same checks as the payload exercises, so the feedback a
learner gets for a live server matches what they learnt writing payloads by hand.
"""
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..payload import grade_payload_object, leak_check, schema_check, text_blocks
from ..result import Check
from .connection import WireCall
from .database import DatabaseQuery, training_db

TOOL = "customer_lookup"
FOUND_ID, UNKNOWN_ID = "CUST-00042", "CUST-99999"
ANSWER_TIMEOUT_SECONDS = 5
OVERSIZED_ID = "CUST-" + "0" * 100_000
SHORT_ANSWER_CHARS = 10_000
ID_FORMAT_MENTIONS = ["CUST-"]


@dataclass(frozen=True)
class Call:
    arguments: Any
    tool: str = TOOL


@dataclass
class ProbeRun:
    """One probe in one protocol era, as the grader saw it."""
    era: str
    calls: list[WireCall] = field(default_factory=list)
    queries: list[DatabaseQuery] = field(default_factory=list)
    stop: str | None = None  # no_answer | server_exited | skipped
    stop_detail: str = ""
    client_errors: dict[int, str] = field(default_factory=dict)  # call index -> what the SDK client refused

    def response(self, index: int = 0) -> dict[str, Any] | None:
        return self.calls[index].response if index < len(self.calls) else None


@dataclass(frozen=True)
class Probe:
    id: str
    title: str
    calls: tuple[Call, ...]
    judge: Callable[["Probe", ProbeRun], list[Check]]
    expected: str  # what the server should answer, in one sentence for the learner
    rubric: dict[str, Any] | None = None
    concurrent: int = 0  # the first this-many calls are sent at once, the rest one at a time


# --- Shared checks ----------------------------------------------------------------------------------------

def describe_call(call: Call) -> str:
    return f"{call.tool}({_short(call.arguments)})"


def _short(value: Any, limit: int = 80) -> str:
    """A value as JSON, cut to `limit` characters."""
    return clip(json.dumps(value, ensure_ascii=False), limit)


def clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def answered_check(probe: Probe, run: ProbeRun) -> Check:
    name = "Answered"
    if run.stop == "skipped":
        return Check("answered", name, False, run.stop_detail or "Not run.", misconception=None)
    missing = [i for i, call in enumerate(run.calls) if call.response is None]
    if run.stop is None and not missing and len(run.calls) == len(probe.calls):
        return Check("answered", name, True, "Your server answered.")
    if run.stop == "server_exited":
        return Check("answered", name, False,
                     f"Your server stopped while answering {describe_call(probe.calls[0])}: {run.stop_detail} A "
                     "host loses every tool of a server that exits; catch what can go wrong in the tool and return "
                     "a result with isError: true instead.", misconception="server-crashes")
    if "dropped it unread" in run.stop_detail:
        return Check("answered", name, False, f"No usable answer to {describe_call(probe.calls[0])}. "
                     f"{run.stop_detail}", misconception="oversized-answer")
    return Check("answered", name, False,
                 f"No answer within {ANSWER_TIMEOUT_SECONDS} seconds to {describe_call(probe.calls[0])}"
                 f"{f' ({len(missing)} of {len(probe.calls)} calls unanswered)' if len(probe.calls) > 1 else ''}. "
                 f"{run.stop_detail} An agent waiting on a hung tool is stuck; answer every call, with an error "
                 "if need be.", misconception="server-hangs")


PROTOCOL_ERROR_EXPLANATIONS = {
    0: "That is what a low-level Server sends when its handler raises an exception: the exception's own text goes "
       "to the client as it is. ",
    -32603: "That is what a server sends when a handler raises an exception (in the 2026-07-28 era the message is "
            "hidden as \u201cInternal server error\u201d). ",
    -32602: "Raising MCPError(INVALID_PARAMS) makes a protocol error. Since the 2025-11-25 specification (SEP-1303), "
            "arguments that fail validation are a tool execution error instead, so the model can read what to "
            "fix. ",
}


def tool_result_check(response: dict[str, Any] | None, client_error: str | None = None) -> Check:
    """The answer is a CallToolResult, not a JSON-RPC error, and the SDK client accepted it."""
    name = "A tool result, not a protocol error"
    if response is not None and "error" in response:
        error = response["error"] if isinstance(response["error"], dict) else {}
        code = error.get("code")
        return Check("tool-result", name, False,
                     f"Your server answered with a JSON-RPC error (code {code}, \u201c{clip(str(error.get('message')))}\u201d) "
                     f"instead of a tool result. {PROTOCOL_ERROR_EXPLANATIONS.get(code, '')}Agents see a protocol "
                     "error as a broken connection, not as a failed call they can reason about. Catch the failure "
                     "and return CallToolResult(is_error=True, ...) with the recovery fields.",
                     misconception="exception-as-protocol-error")
    if client_error:
        return Check("tool-result", name, False,
                     f"The MCP client refused your result: {client_error}. A tool that declares an outputSchema "
                     "must return structured content matching it on success.",
                     misconception="invalid-call-tool-result")
    return Check("tool-result", name, True, "A CallToolResult, as a tool's answer should be.")


def database_untouched_check(run: ProbeRun, value: Any) -> Check:
    name = "Rejected before querying the database"
    if not run.queries:
        return Check("database-untouched", name, True, "The database was not queried.")
    return Check("database-untouched", name, False,
                 f"Your tool passed {_short(run.queries[0].customer_id)} to training_db.get_customer although "
                 f"{_short(value)} is not a customer id. Check the argument first (CUST- and five digits, e.g. "
                 "re.fullmatch(r\"CUST-[0-9]{5}\", customer_id)) and reject it before touching the database: a "
                 "malformed id can never match, and each query costs the database work.",
                 misconception="queries-before-validating")


def _database_used_check(run: ProbeRun, customer_id: str, failure_mode: str) -> Check:
    name = "Answered from training_db"
    if any(q.customer_id == customer_id and q.failure_mode == failure_mode for q in run.queries):
        return Check("uses-database", name, True,
                     f"Your tool queried training_db for {customer_id} (failure_mode {failure_mode!r}).")
    seen = ", ".join(f"{_short(q.customer_id)} with failure_mode {_short(q.failure_mode)}" for q in run.queries[:3])
    return Check("uses-database", name, False,
                 f"Your tool should call training_db.get_customer({customer_id!r}, failure_mode={failure_mode!r}). "
                 + (f"It queried {seen} instead." if seen else "It did not query the database at all.")
                 + " Pass both arguments through: the grader uses failure_mode to make the database fail.",
                 misconception="ignores-database")


def _leaks_in_protocol_error(response: dict[str, Any]) -> Check:
    error = response.get("error") if isinstance(response.get("error"), dict) else {}
    return leak_check({"content": [{"type": "text", "text": str(error.get("message", ""))}],
                       "structuredContent": error.get("data") if isinstance(error.get("data"), dict) else {}})


def _result(response: dict[str, Any] | None) -> dict[str, Any] | None:
    if response is None or not isinstance(response.get("result"), dict):
        return None
    return response["result"]


def _without_meta(result: dict[str, Any]) -> dict[str, Any]:
    """The result as the payload checks expect it: the 2026-07-28 envelope fields are the SDK's, not the tool's."""
    return {key: value for key, value in result.items() if key not in ("_meta", "resultType")}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


# --- Judges ---------------------------------------------------------------------------------------------

def _precheck(probe: Probe, run: ProbeRun, index: int = 0) -> tuple[list[Check], dict[str, Any] | None]:
    """Answered, and answered with a tool result: the checks every call starts with, and the result if any."""
    answered = answered_check(probe, run)
    if not answered.passed:
        return [answered], None
    response = run.response(index)
    tool_result = tool_result_check(response, run.client_errors.get(index))
    if not tool_result.passed:
        checks = [answered, tool_result]
        if "error" in response:
            checks.append(_leaks_in_protocol_error(response))
        return checks, None
    return [answered, tool_result], _without_meta(_result(response) or {})


def judge_found(probe: Probe, run: ProbeRun) -> list[Check]:
    checks, result = _precheck(probe, run)
    if result is None:
        return checks
    customer_id = probe.calls[0].arguments["customer_id"]
    name = training_db._CUSTOMERS[customer_id]["name"]
    structured = result.get("structuredContent")
    checks.append(schema_check(result))
    if result.get("isError") is True:
        checks.append(Check("not-an-error", "Not marked as a failure", False,
                            f"{customer_id} exists, but your result has isError: true. A found customer is a "
                            "success.", max_points=2, misconception="success-marked-as-error"))
    else:
        checks.append(Check("not-an-error", "Not marked as a failure", True, "isError is false.", max_points=2))
    values = _strings(structured)
    if customer_id in values and name in values:
        checks.append(Check("record-structured", "The record in structuredContent", True,
                            f"structuredContent holds {name}'s record, which code can read field by field."))
    else:
        checks.append(Check("record-structured", "The record in structuredContent", False,
                            f"Put the customer's record (with customer_id {customer_id!r} and name {name!r}) in "
                            f"structuredContent, so an agent's code can read its fields. Your structuredContent was "
                            f"{_short(structured, 160) if structured is not None else 'missing'}.",
                            misconception="record-only-in-text"))
    text = " ".join(text_blocks(result))
    ok = customer_id in text or name in text
    checks.append(Check("record-text", "The record in the text too", ok,
                        "The text content names the customer, for clients that show the model only text." if ok else
                        "Add a text block describing the customer (the record as JSON is fine): many clients show "
                        "the model only content.", misconception="missing-text-mirror"))
    checks.append(leak_check(result))
    checks.append(_database_used_check(run, customer_id, "none"))
    return checks


def judge_payload(probe: Probe, run: ProbeRun) -> list[Check]:
    """A situation the payload exercises teach: the result must follow the convention, judged by the same checks."""
    checks, result = _precheck(probe, run)
    if result is None:
        return checks
    checks += grade_payload_object(probe.id, probe.rubric, result)
    arguments = probe.calls[0].arguments
    if probe.rubric.get("category") == "validation":
        checks.append(database_untouched_check(run, arguments.get("customer_id")))
    else:
        checks.append(_database_used_check(run, arguments["customer_id"], arguments.get("failure_mode", "none")))
    if probe.rubric.get("short_answer"):
        size = len(json.dumps(result, ensure_ascii=False))
        checks.append(Check("short-answer", "Keeps the answer short", size <= SHORT_ANSWER_CHARS,
                            f"The answer is {size} characters." if size <= SHORT_ANSWER_CHARS else
                            f"The answer is {size} characters long: it repeats the {len(OVERSIZED_ID)}-character "
                            "argument. Everything a tool returns lands in the model's context; echo a bounded "
                            "excerpt (say the first 40 characters and the length) instead.",
                            misconception="echoes-oversized-input"))
    return checks


def judge_rejected(probe: Probe, run: ProbeRun) -> list[Check]:
    """Arguments that do not fit the tool's schema: a tool error that names the argument, nothing queried."""
    checks, result = _precheck(probe, run)
    if result is None:
        return checks
    if result.get("isError") is True:
        checks.append(Check("is-error", "Marked as a failure", True, "isError is true: the call was rejected."))
    else:
        checks.append(Check("is-error", "Marked as a failure", False,
                            f"{describe_call(probe.calls[0])} cannot be answered, but your result has isError "
                            f"{json.dumps(result.get('isError'))}. Reject it as a validation failure with isError: "
                            "true.", misconception="success-with-error-text"))
    said = " ".join(_strings(result.get("structuredContent")) + text_blocks(result) +
                    [key for key in (result.get("structuredContent") or {}) if isinstance(key, str)])
    names = "customer_id" in said
    checks.append(Check("names-argument", "Names the argument", names,
                        "The answer names customer_id." if names else
                        "Say which argument is wrong (customer_id) and what it should be, so the agent can correct "
                        "its call.", misconception="validation-without-field"))
    checks.append(leak_check(result))
    checks.append(database_untouched_check(run, probe.calls[0].arguments.get("customer_id")
                                           if isinstance(probe.calls[0].arguments, dict) else None))
    return checks


def judge_unknown_tool(probe: Probe, run: ProbeRun) -> list[Check]:
    answered = answered_check(probe, run)
    if not answered.passed:
        return [answered]
    response = run.response()
    checks = [answered]
    result = _result(response)
    if "error" in response:
        code = response["error"].get("code") if isinstance(response["error"], dict) else None
        checks.append(Check("reports-unknown-tool", "Says the tool does not exist", code == -32602,
                            "A JSON-RPC error -32602, as the specification asks for an unknown tool." if code == -32602
                            else f"A JSON-RPC error, but with code {code}: an unknown tool is -32602 (invalid params) "
                                 "in the specification. Code 0 and -32603 mean your handler crashed on the name; "
                                 "check params.name and raise MCPError(code=INVALID_PARAMS, ...) for names you do not "
                                 "serve.", misconception="unknown-tool-crashes"))
        checks.append(_leaks_in_protocol_error(response))
    elif result is not None and result.get("isError") is True:
        checks.append(Check("reports-unknown-tool", "Says the tool does not exist", True,
                            "A tool result with isError: true. (MCPServer answers unknown tools this way; the "
                            "specification's answer is a JSON-RPC error -32602. Both tell the agent the tool is "
                            "not there.)"))
        checks.append(leak_check(_without_meta(result)))
    else:
        checks.append(Check("reports-unknown-tool", "Says the tool does not exist", False,
                            f"Your server answered {probe.calls[0].tool!r} as if it were a tool it has. A low-level "
                            "call_tool handler gets every name: check params.name and answer names you do not serve "
                            "with MCPError(code=INVALID_PARAMS, message=f\"Unknown tool: {name}\").",
                            misconception="ignores-tool-name"))
    checks.append(database_untouched_check(run, probe.calls[0].arguments.get("customer_id")))
    return checks


CUSTOMER_NAMES = {record["name"]: customer_id for customer_id, record in training_db._CUSTOMERS.items()}


def _signature(result: dict[str, Any] | None) -> tuple:
    """What must not change when calls overlap: failure or not, the category, and whose record came back."""
    if result is None:
        return ("no tool result",)
    structured = result.get("structuredContent") if isinstance(result.get("structuredContent"), dict) else {}
    said = " ".join(_strings(structured) + text_blocks(result))
    return (result.get("isError") is True, structured.get("errorCategory"),
            tuple(sorted(name for name in CUSTOMER_NAMES if name in said)))


def _describe_signature(signature: tuple) -> str:
    if len(signature) == 1:
        return "no tool result"
    is_error, category, names = signature
    if is_error:
        return f"a {category} error" if category else "an error"
    return f"{' and '.join(names)}'s record" if names else "no customer"


def judge_concurrent(probe: Probe, run: ProbeRun) -> list[Check]:
    """The burst's answers against the same calls made one at a time: overlapping calls must not change them."""
    answered = answered_check(probe, run)
    if not answered.passed:
        return [answered]
    problems = []
    burst = probe.concurrent
    for index in range(burst):
        together = _signature(_result(run.response(index)))
        alone = _signature(_result(run.response(index + burst)))
        if together != alone:
            problems.append(f"{describe_call(probe.calls[index])} came back with {_describe_signature(together)} "
                            f"when sent with the others, and with {_describe_signature(alone)} when sent alone")
    return [answered, Check(
        "same-answer-at-once", "Overlapping calls get their own answers", not problems,
        f"{burst} calls sent at once came back exactly as they do one at a time." if not problems else
        f"Sent at once, {len(problems)} of {burst} calls came back differently: " + "; ".join(problems[:3]) +
        ". Keep each call's state in local variables: a module-level variable that one call sets while another is "
        "still running gets mixed up between them.", max_points=3, misconception="shared-state-between-calls")]


# --- The probes -------------------------------------------------------------------------------------------

def _validation(value: str, *, mention: bool = True, received: bool = True, **extra) -> dict[str, Any]:
    spec: dict[str, Any] = {"field": "customer_id", "expected_mentions": ID_FORMAT_MENTIONS, "suggestion": "allowed"}
    if received:
        spec["received"] = value
    return {"expect": "error", "category": "validation", "retryable": False,
            "failing_input": value if mention else None, "validation": spec, **extra}


def _payload_probe(probe_id: str, title: str, arguments: dict[str, Any], rubric: dict[str, Any],
                   expected: str) -> Probe:
    return Probe(probe_id, title, (Call(arguments),), judge_payload, expected, rubric)


CONCURRENT_CALLS = tuple(Call(arguments) for arguments in (
    {"customer_id": "CUST-00007"}, {"customer_id": "CUST-00042"}, {"customer_id": "CUST-00113"},
    {"customer_id": "CUST-01024"}, {"customer_id": "CUST-31337"}, {"customer_id": UNKNOWN_ID},
    {"customer_id": "CUST-55555"}, {"customer_id": "CUST-00042", "failure_mode": "timeout"},
    {"customer_id": "CUST-7"}, {"customer_id": "CUST-01024", "failure_mode": "permission"}))
VALIDATION_EXPECTED = ("A validation error: isError true, errorCategory \u201cvalidation\u201d, isRetryable false, field "
                       "customer_id with the value received and the expected format, and no database query.")

PROBES: tuple[Probe, ...] = (
    Probe("found", "A customer who exists", (Call({"customer_id": FOUND_ID}),), judge_found,
          "The customer's record in structuredContent and in text, isError false."),
    _payload_probe("not-found", "A customer who does not exist", {"customer_id": UNKNOWN_ID},
                   {"expect": "empty", "query_mentions": [UNKNOWN_ID]},
                   "A valid empty result: isError false, found false (or resultCount 0), text saying the lookup ran "
                   "and matched nothing."),
    _payload_probe("timeout", "The database times out", {"customer_id": FOUND_ID, "failure_mode": "timeout"},
                   {"expect": "error", "category": "transient", "retryable": True, "failing_input": FOUND_ID,
                    "customer_message": "recommended"},
                   "A transient error: isRetryable true with retryAfterSeconds, a description for the agent, and "
                   "nothing from the database's message."),
    _payload_probe("permission", "The tool may not read customers", {"customer_id": FOUND_ID,
                                                                     "failure_mode": "permission"},
                   {"expect": "error", "category": "permission", "retryable": False, "failing_input": FOUND_ID,
                    "customer_message": "required"},
                   "A permission error: not retryable, no retryAfterSeconds, a customerFriendlyMessage, no role or "
                   "host names."),
    _payload_probe("refund-limit", "The refund policy blocks the account", {"customer_id": FOUND_ID,
                                                                           "failure_mode": "refund_limit"},
                   {"expect": "error", "category": "business", "retryable": False, "failing_input": FOUND_ID,
                    "customer_message": "required", "customer_message_mentions": ["refund"]},
                   "A business error: not retryable, with a customerFriendlyMessage that explains the refund "
                   "policy."),
    _payload_probe("malformed-id", "A malformed id", {"customer_id": "CUST-42"}, _validation("CUST-42"),
                   VALIDATION_EXPECTED),
    _payload_probe("empty-id", "An empty id", {"customer_id": ""}, _validation(""), VALIDATION_EXPECTED),
    _payload_probe("emoji-id", "An id made of emoji", {"customer_id": "CUST-\U0001f642\U0001f642\U0001f642"},
                   _validation("CUST-\U0001f642\U0001f642\U0001f642"),
                   VALIDATION_EXPECTED + " The value comes back unchanged (unicode intact)."),
    _payload_probe("right-to-left-id", "An id in right-to-left script", {"customer_id": "\u0639\u0645\u064a\u0644-00042"},
                   _validation("\u0639\u0645\u064a\u0644-00042"),
                   VALIDATION_EXPECTED + " The value comes back unchanged (unicode intact)."),
    _payload_probe("nul-byte-id", "An id with a NUL character at the end", {"customer_id": "CUST-00042\u0000"},
                   _validation("CUST-00042\u0000", mention=False),
                   VALIDATION_EXPECTED + " A pattern that only checks the start of the id lets this through."),
    _payload_probe("oversized-id", "A 100,000-character id", {"customer_id": OVERSIZED_ID},
                   _validation(OVERSIZED_ID, mention=False, received=False, short_answer=True),
                   VALIDATION_EXPECTED + " The answer stays short: it does not repeat the whole argument."),
    Probe("missing-argument", "No customer_id at all", (Call({}),), judge_rejected,
          "A tool error (isError true, not a protocol error) naming customer_id; no database query."),
    Probe("wrong-type", "customer_id is a number", (Call({"customer_id": 42}),), judge_rejected,
          "A tool error (isError true, not a protocol error) naming customer_id; no database query."),
    Probe("unknown-tool", "A tool the server does not have", (Call({"customer_id": FOUND_ID}, tool="customer_delete"),),
          judge_unknown_tool,
          "An error saying there is no such tool: the specification's JSON-RPC -32602, or a result with isError "
          "true; no database query."),
    Probe("concurrent", "Ten calls at once", CONCURRENT_CALLS * 2, judge_concurrent,
          "Ten answers, each the same as that call gets on its own.", concurrent=len(CONCURRENT_CALLS)),
    Probe("still-answering", "Still answering after all of that", (Call({"customer_id": "CUST-31337"}),),
          judge_found, "The record of CUST-31337, as at the start: the server survived every probe."),
)
