"""Tool results in the project's error convention: the metadata in `structuredContent`, mirrored as JSON text.

Every training tool builds its answers here, so the server teaches by example what the graders check.
"""
import json
from typing import Any

from mcp.types import CallToolResult, TextContent


def _result(structured: dict[str, Any], *, is_error: bool) -> CallToolResult:
    text = json.dumps(structured, ensure_ascii=False, indent=2)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured,
                          is_error=is_error)


def success(data: dict[str, Any]) -> CallToolResult:
    return _result(data, is_error=False)


def empty_result(*, query: dict[str, Any], what: str) -> CallToolResult:
    """The query ran and matched nothing: not an error."""
    return _result({"found": False, "resultCount": 0, "query": query,
                    "message": f"The search ran successfully and found no {what} matching {json.dumps(query)}."},
                   is_error=False)


def partial_result(*, results: list, failed_sources: list[str], succeeded_sources: list[str]) -> CallToolResult:
    return _result({
        "partial": True, "resultCount": len(results), "results": results,
        "succeededSources": succeeded_sources, "failedSources": failed_sources,
        "message": (f"Only part of the data is here: {', '.join(failed_sources)} did not answer. "
                    "The results below are complete for the other sources; retrying once later may fill the gap."),
    }, is_error=False)


def tool_error(category: str, description: str, *, retry_after_seconds: int | None = None,
               customer_message: str | None = None, **details: Any) -> CallToolResult:
    structured: dict[str, Any] = {"errorCategory": category, "isRetryable": retry_after_seconds is not None}
    if retry_after_seconds is not None:
        structured["retryAfterSeconds"] = retry_after_seconds
    structured["description"] = description
    if customer_message:
        structured["customerFriendlyMessage"] = customer_message
    structured.update({key: value for key, value in details.items() if value is not None})
    return _result(structured, is_error=True)


def timeout(*, tool: str, argument: str, retry_after_seconds: int = 5) -> CallToolResult:
    return tool_error(
        "transient",
        f"{tool}({argument}) did not finish: the backing service did not answer within 5 seconds. It is under load "
        f"and usually recovers quickly. Retry the identical call after {retry_after_seconds} seconds.",
        retry_after_seconds=retry_after_seconds,
        customer_message="The system is a little slow right now. Please give us a moment.",
    )


def rate_limited(*, tool: str, retry_after_seconds: int = 30) -> CallToolResult:
    return tool_error(
        "transient",
        f"{tool} is rate limited: too many calls in the last minute. Wait {retry_after_seconds} seconds, "
        "then retry the identical call. Calling sooner will be refused again.",
        retry_after_seconds=retry_after_seconds,
        customer_message="We are handling a lot of requests right now. Please try again in a moment.",
    )


def unavailable(*, tool: str, retry_after_seconds: int = 10) -> CallToolResult:
    return tool_error(
        "transient",
        f"{tool} is temporarily unavailable (planned failover in progress). Retry the identical call after "
        f"{retry_after_seconds} seconds; if it still fails after a few tries, report the failure.",
        retry_after_seconds=retry_after_seconds,
        customer_message="This service is briefly unavailable. Please try again shortly.",
    )


def invalid_argument(*, tool: str, field: str, expected: str, received: Any,
                     suggested_arguments: dict[str, Any] | None = None) -> CallToolResult:
    shown = json.dumps(received, ensure_ascii=False)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    next_step = (f"Call {tool} again with {json.dumps(suggested_arguments)}." if suggested_arguments
                 else "Ask the user for the correct value; do not retry the same input.")
    return tool_error(
        "validation", f"{tool}: '{field}' must be {expected}; received {shown}. {next_step}",
        field=field, expected=expected, received=received if len(json.dumps(received)) <= 200 else shown,
        suggestedArguments=suggested_arguments,
    )


def permission_denied(*, tool: str, needed: str, subject: str) -> CallToolResult:
    return tool_error(
        "permission",
        f"{tool}({subject}) was refused: this agent's service account lacks the '{needed}' scope. Retrying will "
        f"not help; ask an administrator to grant '{needed}', or hand the request to someone who has it.",
        customer_message="I can't access that information with my current permissions. I've flagged it for a "
                         "colleague who can.",
        requiredScope=needed,
    )


def refund_over_limit(*, order_id: str, amount: float, limit: int) -> CallToolResult:
    return tool_error(
        "business",
        f"process_refund({order_id}, {amount:g}) was refused: automatic refunds are capped at {limit}. This is a "
        "policy, not a fault: do not retry. Escalate to a human agent who can approve larger refunds.",
        customer_message=(f"Refunds above {limit} need a quick review by our support team. I've passed your request "
                          "on, and someone will be in touch."),
        policy="automatic-refund-limit", limit=limit, requested=amount,
    )


def return_window_closed(*, order_id: str, placed_on: str, window_days: int) -> CallToolResult:
    return tool_error(
        "business",
        f"process_refund({order_id}) was refused: the order was placed on {placed_on}, outside the {window_days}-day "
        "return window. Do not retry; explain the policy to the customer or escalate for an exception.",
        customer_message=(f"This order is outside our {window_days}-day return window, so I can't refund it "
                          "automatically. I can ask our support team to review it."),
        policy="return-window", windowDays=window_days, placedOn=placed_on,
    )


def internal_failure(*, tool: str) -> CallToolResult:
    """What a crash inside a tool becomes: retryable, with no internals."""
    return tool_error(
        "transient", f"{tool} failed unexpectedly inside the training server. Retry once after 5 seconds; "
                     "if it fails again, report the failure.",
        retry_after_seconds=5, customer_message="Something went wrong on our side. Please try again shortly.",
    )
