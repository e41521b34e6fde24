"""Turning untrusted submission text into JSON safely: bounded size and depth, no NaN, clear errors."""
import json
from typing import Any

MAX_SUBMISSION_BYTES = 64 * 1024
MAX_JSON_DEPTH = 32


class UnreadableSubmission(Exception):
    """The text cannot be graded; `description` says what to change."""

    def __init__(self, description: str, **details: Any):
        super().__init__(description)
        self.description = description
        self.details = details


def _nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside strings, measured without recursion (json.loads would recurse)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _reject_constant(name: str) -> Any:
    raise UnreadableSubmission(
        f"The JSON contains {name}, which is not valid JSON (JavaScript allows it, JSON does not). "
        "Use a number, or null.", constant=name)


def parse_json_object(text: str) -> dict[str, Any]:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SUBMISSION_BYTES:
        raise UnreadableSubmission(
            f"The submission is {size} bytes; the limit is {MAX_SUBMISSION_BYTES}. A tool result is a few hundred "
            "bytes: remove what the agent does not need.", limit=MAX_SUBMISSION_BYTES, received=size)
    if not text.strip():
        raise UnreadableSubmission("The submission is empty. Paste the CallToolResult JSON your tool should return.")
    if _nesting_depth(text) > MAX_JSON_DEPTH:
        raise UnreadableSubmission(
            f"The JSON is nested more than {MAX_JSON_DEPTH} levels deep. A tool result needs three or four.",
            limit=MAX_JSON_DEPTH)
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise UnreadableSubmission(
            f"This is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}. "
            "Check for a missing comma or quote, or a trailing comma, near that point.",
            line=error.lineno, column=error.colno) from None
    except (ValueError, RecursionError) as error:  # e.g. an integer with thousands of digits
        raise UnreadableSubmission(f"The JSON could not be read: {str(error)[:200]}") from None
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")
        raise UnreadableSubmission(
            f"The submission is {kind}; a CallToolResult is a JSON object such as "
            '{"content": [...], "isError": true, "structuredContent": {...}}.', received=kind)
    return value
