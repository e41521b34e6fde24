"""The ten agent-loop scenarios of the grading contract: the request, the server's script, and the checks.

Each check reads only what the grader itself recorded (the trace of calls on the virtual clock) and the outcome
the learner's `handle` returned. Messages speak to the learner: what their loop did, why it matters to an agent,
and what to write instead.
"""
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..result import Check
from .session import Budget, ScenarioRun

ACTIONS = ("answer", "no_results", "escalate", "request_credentials", "report_failure")
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    request: dict[str, Any]
    script: dict[str, list[dict[str, Any]]]
    checks: Callable[[ScenarioRun], list[Check]]
    budget: Budget = field(default_factory=Budget)


# --- Reading a run ---------------------------------------------------------------------------------------

def _action(run: ScenarioRun) -> str | None:
    outcome = run.outcome
    return outcome.get("action") if isinstance(outcome, dict) and isinstance(outcome.get("action"), str) else None


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _calls(run: ScenarioRun, tool: str | None = None) -> list:
    return [entry for entry in run.trace if tool is None or entry.tool == tool]


def _calls_phrase(count: int) -> str:
    return f"{count} call{'' if count == 1 else 's'}"


def _retry_after(entry) -> float | None:
    content = entry.structured_content if isinstance(entry.structured_content, dict) else {}
    value = content.get("retryAfterSeconds")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


STOP_MESSAGES = {
    "calls": ("Your loop kept calling after {calls}, so the grader stopped it. Every retry loop needs a cap: "
              "count the attempts and give up (report_failure) after a few.", "unbounded-retries"),
    "virtual_time": ("Your loop waited more than {limit:.0f} seconds in all (virtual time), so the grader stopped it. "
                     "Wait what retryAfterSeconds asks, and cap the number of attempts.", "unbounded-retries"),
    "real_time": ("Your code ran for {real:.0f} seconds of real time without returning (waits are virtual and take no "
                  "real time, so this is busy work or a blocking call). Return an outcome; never spin in a loop.", None),
    "process_ended": ("Your code's process ended before returning an outcome (sys.exit, os._exit or a resource "
                      "limit). Return an outcome from handle instead.", None),
    "broken_link": ("Your code wrote into the grader's connection, so this scenario could not continue. Talk to the "
                    "server only through `session`.", None),
}


def finished_check(run: ScenarioRun, scenario: Scenario) -> Check:
    """Did handle return an outcome? Crashes and cut-offs are reported here, with their cause."""
    name = "Returned an outcome"
    if run.stop:
        message, misconception = STOP_MESSAGES[run.stop]
        message = message.format(calls=_calls_phrase(scenario.budget.max_calls), limit=scenario.budget.max_virtual_seconds,
                                 real=scenario.budget.real_seconds)
        return Check("finished", name, False, message, misconception=misconception)
    if run.crash:
        where = f"\n{run.crash['traceback']}" if run.crash.get("traceback") else ""
        if run.crash.get("protocol_error"):
            return Check("finished", name, False,
                         "handle raised mcp.MCPError out of the loop. A protocol error (here: the server has no such "
                         "tool) is raised, not returned: catch MCPError around session.call_tool and return "
                         f"report_failure.{where}", misconception="crashes-on-protocol-error")
        return Check("finished", name, False, f"handle raised {run.crash['type']}: {run.crash['message']}{where}")
    if run.unserializable:
        return Check("finished", name, False, f"handle returned something that is not JSON data ({run.unserializable}). "
                     "Return a dict of plain values: strings, numbers, lists, dicts.")
    if _action(run) not in ACTIONS:
        return Check("finished", name, False, f"handle returned {_text(run.outcome)[:200]}. Return a dict whose "
                     f"\"action\" is one of: {', '.join(ACTIONS)}.")
    return Check("finished", name, True, f"handle returned {{\"action\": \"{_action(run)}\", …}}.")


def call_count_check(run: ScenarioRun, *, check_id: str, name: str, tool: str, allowed: range, few: tuple[str, str | None],
                     many: tuple[str, str | None], ok: str) -> Check:
    count = len(_calls(run, tool))
    if count < allowed.start:
        return Check(check_id, name, False, few[0].format(count=_calls_phrase(count)), misconception=few[1])
    if count >= allowed.stop:
        return Check(check_id, name, False, many[0].format(count=_calls_phrase(count)), misconception=many[1])
    return Check(check_id, name, True, ok.format(count=_calls_phrase(count)))


def waits_check(run: ScenarioRun, *, tool: str, not_shrinking: bool = False) -> Check:
    """Each retry after a retryable failure comes at least retryAfterSeconds later (on the virtual clock)."""
    name = "Waited retryAfterSeconds before each retry"
    calls = _calls(run, tool)
    gaps = []
    for before, after in zip(calls, calls[1:]):
        wanted = _retry_after(before)
        gap = after.at - before.at
        if wanted is not None and gap + TOLERANCE < wanted:
            return Check("waits", name, False, f"Call {after.seq} came {gap:g} s after call {before.seq} failed with "
                         f"retryAfterSeconds = {wanted:g}. Wait at least that long before retrying: "
                         "`await asyncio.sleep(info['retryAfterSeconds'])`.", misconception="ignores-retry-after")
        gaps.append(gap)
    if not_shrinking:
        for index, (first, second) in enumerate(zip(gaps, gaps[1:]), start=2):
            if second + TOLERANCE < first:
                return Check("waits", name, False, f"Your waits shrank ({first:g} s, then {second:g} s). When a "
                             "service keeps failing, wait as long or longer each time (backoff), never shorter.",
                             misconception="ignores-retry-after")
    if not gaps:
        return Check("waits", name, True, "No retry, so no wait to check.")
    return Check("waits", name, True, "Waits between calls: " + ", ".join(f"{g:g} s" for g in gaps) + ".")


def no_repeat_check(run: ScenarioRun, *, tool: str, what: str, misconception: str, why: str) -> Check:
    calls = _calls(run, tool)
    if len(calls) > 1:
        return Check("no-retry", f"Did not retry the {what}", False,
                     f"Your loop called {tool} {len(calls)} times. {why}", misconception=misconception)
    return Check("no-retry", f"Did not retry the {what}", True, f"One call to {tool}, no retry.")


def outcome_check(run: ScenarioRun, *, check_id: str, name: str, expected: str, wrong: dict[str, tuple[str, str | None]],
                  extra: Callable[[dict], str | tuple[str, str | None] | None] | None = None,
                  extra_misconception: str | None = None) -> Check:
    """The action is `expected`; `wrong` explains each other action; `extra` returns a problem with the details
    (a message, or a message and its own misconception)."""
    action = _action(run)
    if action is None:
        return Check(check_id, name, False, f"No outcome to check: the scenario expects {{\"action\": \"{expected}\"}}.")
    if action != expected:
        message, misconception = wrong.get(action, (f"Your loop returned {action}; this situation calls for "
                                                    f"{expected}.", None))
        return Check(check_id, name, False, message, misconception=misconception)
    if extra is not None and (problem := extra(run.outcome)):
        message, misconception = problem if isinstance(problem, tuple) else (problem, extra_misconception)
        return Check(check_id, name, False, message, misconception=misconception)
    return Check(check_id, name, True, f"Returned {expected}.")


SWALLOWED = ("Your loop returned answer although the call failed (isError: true). Check result.is_error before "
             "using a result: an error is not data.", "swallows-errors")


def _is_error_payload(data: Any) -> bool:
    return isinstance(data, dict) and ("errorCategory" in data or "isRetryable" in data)


def _gave_up(run: ScenarioRun, message: str) -> tuple[str, str | None]:
    """Too few calls: an answer made of the error itself is swallowing it; anything else is giving up."""
    if _action(run) == "answer" and _is_error_payload(run.outcome.get("data")):
        return SWALLOWED
    return message, "gives-up-on-transient"


def _has_order(order_id: str) -> Callable[[dict], str | tuple[str, str | None] | None]:
    def problem(outcome: dict) -> str | tuple[str, str | None] | None:
        if _is_error_payload(outcome.get("data")):
            return SWALLOWED
        if order_id not in _text(outcome.get("data")):
            return f"The answer's data does not hold the order {order_id}. Put the tool's result in \"data\"."
        return None
    return problem


def _report_category(category: str) -> Callable[[dict], str | None]:
    def problem(outcome: dict) -> str | None:
        if outcome.get("errorCategory") != category:
            return (f"report_failure says errorCategory {_text(outcome.get('errorCategory'))}; the failure was "
                    f"{category}. Pass on the errorCategory from the error's structuredContent.")
        return None
    return problem


# --- The ten scenarios ----------------------------------------------------------------------------------

def _transient_recovers(run: ScenarioRun) -> list[Check]:
    return [
        call_count_check(run, check_id="retries", name="Retried until the order came back", tool="lookup_order",
                         allowed=range(3, 4),
                         few=_gave_up(run, "Your loop made {count}; the first two failed with isRetryable: true "
                                           "and the third would have worked. Retry transient errors."),
                         many=("Your loop made {count}; the third one succeeded, so stop as soon as a call works.",
                               None),
                         ok="{count}: two transient failures, then the order."),
        waits_check(run, tool="lookup_order"),
        outcome_check(run, check_id="outcome", name="Answered with the order", expected="answer",
                      wrong={"report_failure": ("Your loop gave up, but the failure was transient and retryable. "
                                                "Retry after retryAfterSeconds.", "gives-up-on-transient")},
                      extra=_has_order("ORD-10001")),
    ]


def _transient_persists(run: ScenarioRun) -> list[Check]:
    def attempted(outcome: dict) -> str | None:
        actions = outcome.get("attemptedActions")
        if not isinstance(actions, list) or not actions:
            return ("report_failure has no attemptedActions. List what you tried (for example each call and its "
                    "result) so the next agent or a person does not repeat it.")
        return None
    return [
        call_count_check(run, check_id="retried", name="Retried at least once", tool="lookup_order",
                         allowed=range(2, 10_000),
                         few=_gave_up(run, "Your loop made {count} and gave up at once, but the error said "
                                           "isRetryable: true. Retry a transient error at least once."),
                         many=("", None), ok="{count} in all."),
        call_count_check(run, check_id="bounded", name="Stopped after at most 4 calls", tool="lookup_order",
                         allowed=range(1, 5), few=("", None),
                         many=("Your loop made {count} against a service that never recovered. Cap the attempts "
                               "(at most 4 calls in all), then report the failure.", "unbounded-retries"),
                         ok="{count}, within the cap of 4."),
        waits_check(run, tool="lookup_order", not_shrinking=True),
        outcome_check(run, check_id="outcome", name="Reported a transient failure", expected="report_failure",
                      wrong={"answer": SWALLOWED}, extra=_report_category("transient")),
        outcome_check(run, check_id="attempted-actions", name="Said what was attempted", expected="report_failure",
                      wrong={}, extra=attempted, extra_misconception="missing-attempted-actions"),
    ]


def _rate_limited(run: ScenarioRun) -> list[Check]:
    return [
        waits_check(run, tool="lookup_order"),
        call_count_check(run, check_id="retries", name="Retried once, after the wait", tool="lookup_order",
                         allowed=range(2, 3),
                         few=_gave_up(run, "Your loop made {count}: it gave up on a rate limit, which clears after "
                                           "retryAfterSeconds. Wait, then retry."),
                         many=("Your loop made {count}; the second call succeeded, so stop there.", None),
                         ok="{count}: rate limited, then the order."),
        outcome_check(run, check_id="outcome", name="Answered with the order", expected="answer",
                      wrong={"report_failure": ("Your loop gave up on a rate limit. Wait retryAfterSeconds (30 s "
                                                "here, however long it feels) and retry.", "gives-up-on-transient")},
                      extra=_has_order("ORD-10001")),
    ]


def _validation_fixable(run: ScenarioRun) -> list[Check]:
    calls = _calls(run, "lookup_order")
    repeated = any(later.arguments == earlier.arguments for i, earlier in enumerate(calls) if earlier.is_error
                   for later in calls[i + 1:])
    corrected = [c for c in calls[1:] if isinstance(c.arguments, dict) and c.arguments.get("order_id") == "ORD-10001"]
    problem: tuple[str, str] | None = None
    if repeated:
        problem = ("Your loop sent the same invalid arguments again. A validation error does not go away by itself: "
                   "change the input (here, use suggestedArguments) or stop.", "retries-identical-validation")
    elif len(calls) == 1:
        problem = ("Your loop stopped after the validation error, but the error carried suggestedArguments "
                   "({\"order_id\": \"ORD-10001\"}). When the server is certain of the fix, make one corrected call.",
                   "ignores-suggested-arguments")
    elif len(calls) > 2 or not corrected:
        problem = (f"Your loop made {_calls_phrase(len(calls))}; expected exactly one corrected retry using "
                   "suggestedArguments.", "ignores-suggested-arguments")
    message, misconception = problem or ("One corrected call with order_id ORD-10001.", None)
    retry = Check("corrected-retry", "Retried once with the suggested arguments", problem is None, message,
                  misconception=misconception)
    return [retry, outcome_check(run, check_id="outcome", name="Answered with the order", expected="answer",
                                 wrong={"report_failure": ("Your loop gave up, but the error told you the corrected "
                                                           "arguments. Use suggestedArguments once.",
                                                           "ignores-suggested-arguments")},
                                 extra=_has_order("ORD-10001"))]


def _validation_unfixable(run: ScenarioRun) -> list[Check]:
    return [
        no_repeat_check(run, tool="lookup_order", what="invalid input", misconception="retries-identical-validation",
                        why="The input \"???\" is invalid and the server offered no correction; the identical request "
                            "fails every time (isRetryable: false)."),
        outcome_check(run, check_id="outcome", name="Reported a validation failure", expected="report_failure",
                      wrong={"answer": SWALLOWED}, extra=_report_category("validation")),
    ]


def _refund_over_limit(run: ScenarioRun) -> list[Check]:
    customer_message = next((c.structured_content.get("customerFriendlyMessage") for c in _calls(run, "process_refund")
                             if isinstance(c.structured_content, dict)), None) or ""

    def relays(outcome: dict) -> str | None:
        message = outcome.get("message")
        if not isinstance(message, str) or customer_message.strip() not in message:
            return ("escalate's message does not pass on the error's customerFriendlyMessage. Relay it as it is: "
                    "it is written to be shown to the customer and explains the policy.")
        return None
    return [
        no_repeat_check(run, tool="process_refund", what="business-rule refusal", misconception="retries-business-error",
                        why="A refund over the automatic limit is refused by a business rule: the same request gets "
                            "the same answer every time. Escalate instead."),
        outcome_check(run, check_id="outcome", name="Escalated to a person", expected="escalate",
                      wrong={"answer": SWALLOWED,
                             "report_failure": ("Your loop reported a failure, but nothing is broken: a business rule "
                                                "needs a person's decision. Return escalate.", "business-error-as-failure")}),
        outcome_check(run, check_id="customer-message", name="Relayed the customer-facing explanation",
                      expected="escalate", wrong={}, extra=relays, extra_misconception="drops-customer-message"),
    ]


def _permission_denied(run: ScenarioRun) -> list[Check]:
    def says_access(outcome: dict) -> str | None:
        message = outcome.get("message")
        if not isinstance(message, str) or len(message.strip()) < 10:
            return "request_credentials needs a message saying which access is missing (the error names the scope)."
        return None
    return [
        no_repeat_check(run, tool="get_financial_records", what="permission error",
                        misconception="retries-permission-error",
                        why="Missing access does not appear by itself; every retry fails the same way."),
        outcome_check(run, check_id="outcome", name="Asked for the missing access", expected="request_credentials",
                      wrong={"answer": SWALLOWED,
                             "report_failure": ("Your loop reported a failure, but the fix is known: someone must grant "
                                                "the access. Return request_credentials with what is needed.",
                                                "permission-as-failure")},
                      extra=says_access),
    ]


def _customer_not_found(run: ScenarioRun) -> list[Check]:
    as_error = ("Your loop treated \"no customer matched\" as a failure. The query ran and the answer is: none. "
                "isError was false; return no_results.", "empty-result-as-error")
    return [
        no_repeat_check(run, tool="lookup_customer", what="empty result", misconception="empty-result-as-error",
                        why="An empty result is a valid answer, not a failure: asking again finds nothing new."),
        outcome_check(run, check_id="outcome", name="Said nothing was found", expected="no_results",
                      wrong={"report_failure": as_error, "escalate": as_error,
                             "answer": ("Your loop answered with the empty result as if it were data. Return "
                                        "no_results, so the agent tells the user nothing matched.", None)},
                      extra=lambda o: None if isinstance(o.get("message"), str) and o["message"].strip()
                      else "no_results needs a message saying the search ran and matched nothing."),
    ]


def _partial_results(run: ScenarioRun) -> list[Check]:
    failed_sources = next((c.structured_content.get("failedSources") for c in _calls(run, "search_orders")
                           if isinstance(c.structured_content, dict)), None) or []

    def keeps(outcome: dict) -> str | None:
        if outcome.get("partial") is not True:
            return ("The answer does not say it is partial. Return \"partial\": true with the data, so nobody takes "
                    "part of the orders for all of them.")
        if "ORD-10001" not in _text(outcome.get("data")):
            return "The answer's data is missing the orders that did come back (ORD-10001). Keep them."
        return None

    def names_missing(outcome: dict) -> str | None:
        if not any(source in _text(outcome) for source in failed_sources):
            return (f"The outcome does not say what is missing ({', '.join(failed_sources)} did not answer). Pass it "
                    "on, for example as \"missing\".")
        return None
    dropped = ("Your loop threw away the orders that did come back. A partial result is still a result: answer "
               "with it and say what is missing.", "drops-partial-results")
    return [
        call_count_check(run, check_id="repeats", name="Repeated the search at most once", tool="search_orders",
                         allowed=range(1, 3), few=("", None),
                         many=("Your loop searched {count}. A partial result is a success; one repeat at most.",
                               "unbounded-retries"), ok="{count}."),
        outcome_check(run, check_id="outcome", name="Answered with the partial data", expected="answer",
                      wrong={"report_failure": dropped, "no_results": dropped}, extra=keeps,
                      extra_misconception="drops-partial-results"),
        outcome_check(run, check_id="missing", name="Said what is missing", expected="answer", wrong={},
                      extra=names_missing, extra_misconception="drops-partial-results"),
    ]


def _unknown_tool(run: ScenarioRun) -> list[Check]:
    return [
        no_repeat_check(run, tool="lookup_invoice", what="protocol error", misconception="retries-protocol-error",
                        why="The server has no tool of that name; asking again cannot change that."),
        outcome_check(run, check_id="outcome", name="Reported the failure", expected="report_failure",
                      wrong={"answer": ("Your loop answered although the call raised a protocol error.",
                                        "swallows-errors")}),
    ]


def _request(tool: str, arguments: dict[str, Any], goal: str) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments, "goal": goal}


def _steps(*steps: tuple[str, int | None]) -> list[dict[str, Any]]:
    return [{"mode": mode, **({"retryAfterSeconds": wait} if wait else {})} for mode, wait in steps]


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("transient-recovers", "The order database times out twice, then answers",
             _request("lookup_order", {"order_id": "ORD-10001"}, "Tell the customer where order ORD-10001 is."),
             {"lookup_order": _steps(("timeout", 2), ("timeout", 2), ("none", None))}, _transient_recovers),
    Scenario("transient-persists", "The order database never comes back",
             _request("lookup_order", {"order_id": "ORD-10001"}, "Tell the customer where order ORD-10001 is."),
             {"lookup_order": _steps(("timeout", 1))}, _transient_persists),
    Scenario("rate-limited", "Rate limited for 30 seconds",
             _request("lookup_order", {"order_id": "ORD-10001"}, "Tell the customer where order ORD-10001 is."),
             {"lookup_order": _steps(("rate_limit", 30), ("none", None))}, _rate_limited),
    Scenario("validation-fixable", "A malformed order id the server can correct",
             _request("lookup_order", {"order_id": "order-10001"}, "The customer asks about 'order-10001'."),
             {}, _validation_fixable),
    Scenario("validation-unfixable", "An order id nobody can guess",
             _request("lookup_order", {"order_id": "???"}, "The customer typed '???' as the order id."),
             {}, _validation_unfixable),
    Scenario("refund-over-limit", "A refund over the automatic limit",
             _request("process_refund", {"order_id": "ORD-10002", "amount": 750}, "Refund 750 EUR on ORD-10002."),
             {}, _refund_over_limit),
    Scenario("permission-denied", "Financial records without the finance scope",
             _request("get_financial_records", {"customer_id": "CUST-00042"}, "Summarise CUST-00042's payments."),
             {"get_financial_records": _steps(("permission", None))}, _permission_denied),
    Scenario("customer-not-found", "No customer with that email",
             _request("lookup_customer", {"email": "john@example.com"}, "Find the account of john@example.com."),
             {}, _customer_not_found),
    Scenario("partial-results", "One of three order sources is down",
             _request("search_orders", {"query": "CUST-00042"}, "List every order of customer CUST-00042."),
             {"search_orders": _steps(("partial", None))}, _partial_results),
    Scenario("unknown-tool", "A tool the server does not have",
             _request("lookup_invoice", {"invoice_id": "INV-20001"}, "Find invoice INV-20001."),
             {}, _unknown_tool),
)
