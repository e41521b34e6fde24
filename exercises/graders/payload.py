"""The payload grader: is this `CallToolResult` what the tool should return in the exercise's situation?

The rubric (from the exercise file) says what is expected; every check earns its own point, names the
misconception it catches, and says what to change. `grade_payload` never raises on bad input.
"""
import json
from typing import Any

from mcp.types import CallToolResult
from pydantic import ValidationError

from .leaks import find_leaks
from .parsing import UnreadableSubmission, parse_json_object
from .result import Check, GradeResult, structured_error

CATEGORIES = ("transient", "validation", "permission", "business")
CONVENTION_KEYS = ("errorCategory", "isRetryable", "retryAfterSeconds", "description", "customerFriendlyMessage")
GENERIC_PHRASES = ("an error occurred", "something went wrong", "error", "failed", "internal error", "unknown error",
                   "operation failed", "request failed", "oops", "try again")
NEXT_STEP_WORDS = ("retry", "wait", "try again", "ask", "escalate", "contact", "do not", "don't", "check", "correct",
                   "use ", "provide", "grant", "request", "call ", "hand ", "report", "after")
EMPTY_WORDS = ("no ", "not found", "none", "0 ", "zero", "matched nothing", "no match", "did not match", "found no")
_VARIANTS = {"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
             "resource_link": "ResourceLink", "resource": "EmbeddedResource"}
_RETRYABLE_MISCONCEPTIONS = {"validation": "retryable-validation-error", "business": "retryable-business-error",
                             "permission": "retryable-permission-error"}


def schema_problems(payload: dict[str, Any]) -> list[str]:
    """Where the payload breaks the MCP `CallToolResult` schema (the SDK's own types), one line per place."""
    problems = []
    try:
        CallToolResult.model_validate(payload, strict=True)
    except ValidationError as error:
        for item in error.errors():
            loc = list(item["loc"])
            if len(loc) >= 3 and loc[0] == "content" and isinstance(loc[1], int) and isinstance(loc[2], str):
                block = payload["content"][loc[1]] if isinstance(payload.get("content"), list) else None
                block_type = block.get("type") if isinstance(block, dict) else None
                if block_type not in _VARIANTS:
                    line = (f"content[{loc[1]}].type: must be one of {', '.join(repr(t) for t in _VARIANTS)} "
                            f"(got {json.dumps(block_type)})")
                    if line not in problems:
                        problems.append(line)
                    continue
                if loc[2] != _VARIANTS[block_type]:
                    continue  # the error is about another kind of block than the one written
                loc = loc[:2] + loc[3:]
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "(top level)"
            problems.append(f"{where}: {item['msg']}")
    structured = payload.get("structuredContent")
    if "structuredContent" in payload and not isinstance(structured, dict):
        problems.append("structuredContent: must be a JSON object (the 2025-11-25 specification requires one)")
    return problems


def text_blocks(payload: dict[str, Any]) -> list[str]:
    content = payload.get("content")
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]


def _mirrored_json(payload: dict[str, Any]) -> dict[str, Any] | None:
    for text in text_blocks(payload):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def schema_check(payload: dict[str, Any]) -> Check:
    problems = schema_problems(payload)
    return Check("valid-call-tool-result", "A valid MCP CallToolResult", not problems,
                 "Valid against the SDK's CallToolResult schema." if not problems else
                 "Not a valid CallToolResult: " + "; ".join(problems[:5]) + ". A client would reject it before the "
                 "agent saw anything.", misconception="invalid-call-tool-result")


def leak_check(payload: dict[str, Any]) -> Check:
    leaks = find_leaks(payload)
    if not leaks:
        return Check("no-internal-details", "No internal details", True,
                     "Nothing internal (hosts, addresses, paths, traces, SQL, class names, secrets) reaches the agent.",
                     max_points=2)
    shown = "; ".join(leak.describe() for leak in leaks[:3])
    return Check("no-internal-details", "No internal details", False,
                 f"The payload exposes {shown}. Agents and customers cannot use these, and attackers can. Describe "
                 "the failure in the caller's terms and keep the details in your server logs.",
                 max_points=2, misconception="leaks-internals")


def _error_checks(payload: dict[str, Any], rubric: dict[str, Any]) -> list[Check]:
    expected_category = rubric["category"]
    expected_retryable = bool(rubric["retryable"])
    structured = payload.get("structuredContent")
    structured = structured if isinstance(structured, dict) else {}
    mirror = _mirrored_json(payload)
    checks: list[Check] = []

    is_error = payload.get("isError")
    if is_error is True:
        checks.append(Check("is-error", "Marked as a failure", True, "isError is true: the agent knows the call failed."))
    else:
        checks.append(Check("is-error", "Marked as a failure", False,
                            f"isError is {json.dumps(is_error) if 'isError' in payload else 'missing'}, so the agent "
                            "reads this as success and may act on an error message as if it were data. Set "
                            '"isError": true on every failed call.', misconception="success-with-error-text"))

    top_level = [k for k in CONVENTION_KEYS if k in payload]
    if structured.get("errorCategory") is not None:
        checks.append(Check("structured-content", "Recovery metadata in structuredContent", True,
                            "The recovery fields are in structuredContent, where the agent's code can read them."))
    else:
        where = ("at the top level of the result, where clients drop unknown fields" if top_level else
                 "only in the text" if mirror and "errorCategory" in mirror else "nowhere")
        checks.append(Check("structured-content", "Recovery metadata in structuredContent", False,
                            f"errorCategory, isRetryable and the rest are {where}. Put them in structuredContent so "
                            "an agent can branch on them without parsing prose.",
                            misconception="metadata-outside-structured-content"))

    if mirror is not None and structured and mirror == structured:
        checks.append(Check("text-mirror", "Mirrored as JSON text", True,
                            "The same JSON is in a text block, for clients that show the model only content."))
    else:
        checks.append(Check("text-mirror", "Mirrored as JSON text", False,
                            "Add a text block to content holding exactly the structuredContent serialised as JSON: "
                            "the MCP specification says a tool returning structured content SHOULD, and many clients "
                            "show the model only content.", misconception="missing-text-mirror"))

    category = structured.get("errorCategory")
    checks.append(_category_check(category, expected_category))
    checks.append(_retryable_check(structured, expected_category, expected_retryable))
    checks.append(_retry_after_check(structured, expected_retryable))
    checks.extend(_description_checks(structured, rubric))
    if rubric.get("customer_message") in ("required", "recommended"):
        checks.append(_customer_message_check(structured, rubric))
    if rubric.get("validation"):
        checks.extend(_validation_checks(structured, rubric["validation"]))
    return checks


def _category_check(category: Any, expected: str) -> Check:
    if category == expected:
        return Check("error-category", "Right error category", True, f"errorCategory is {expected!r}.", max_points=2)
    if category in CATEGORIES:
        why = {
            "transient": "it is a temporary condition that clears by itself; the identical call can succeed later",
            "validation": "the input itself is wrong; only a corrected call can succeed",
            "permission": "the caller lacks access; only someone granting it can change the outcome",
            "business": "a rule of the business forbids it; no retry or reformatting changes the answer",
        }[expected]
        message = f"errorCategory is {category!r}, but this is {expected!r}: {why}."
    else:
        message = (f"errorCategory is {json.dumps(category) if category is not None else 'missing'}; use one of "
                   f"{', '.join(CATEGORIES)}. Here it is {expected!r}.")
    return Check("error-category", "Right error category", False, message, max_points=2,
                 misconception="wrong-error-category")


def _retryable_check(structured: dict, category: str, expected: bool) -> Check:
    value = structured.get("isRetryable")
    if value is expected:
        return Check("is-retryable", "Right isRetryable", True, f"isRetryable is {json.dumps(expected)}.")
    if not isinstance(value, bool):
        return Check("is-retryable", "Right isRetryable", False,
                     f"isRetryable must be a boolean (true or false), here {json.dumps(expected)}; it is "
                     f"{json.dumps(value) if 'isRetryable' in structured else 'missing'}.",
                     misconception="missing-is-retryable")
    if category == "validation":
        return Check("is-retryable", "Right isRetryable", False,
                     "You marked this validation error retryable. Some guides do that, meaning \"fix the input and "
                     "try again\", and that is a fair reading. This project uses isRetryable for the identical "
                     "request, which will fail the same way every time, so it is false here; a corrected call is a "
                     "new request. The lesson on where the sources disagree explains the choice.",
                     misconception="retryable-validation-error")
    if expected is False:
        return Check("is-retryable", "Right isRetryable", False,
                     f"A {category} error marked retryable invites the agent to repeat a call that cannot succeed: "
                     "the same request gets the same refusal. Set isRetryable to false.",
                     misconception=_RETRYABLE_MISCONCEPTIONS.get(category))
    return Check("is-retryable", "Right isRetryable", False,
                 "This failure is temporary, so the identical call can succeed later: set isRetryable to true, or "
                 "the agent gives up on something that would have worked.", misconception="transient-not-retryable")


def _retry_after_check(structured: dict, retryable: bool) -> Check:
    value = structured.get("retryAfterSeconds")
    present = "retryAfterSeconds" in structured
    if retryable:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return Check("retry-after", "retryAfterSeconds says when", True,
                         f"retryAfterSeconds is {value}: the agent knows how long to wait.")
        if not present:
            return Check("retry-after", "retryAfterSeconds says when", False,
                         "A retryable error should say when to retry: add retryAfterSeconds (a positive whole number "
                         "of seconds). Without it agents guess, and often retry at once.",
                         misconception="missing-retry-after")
        return Check("retry-after", "retryAfterSeconds says when", False,
                     f"retryAfterSeconds must be a positive whole number of seconds; it is {json.dumps(value)}.",
                     misconception="invalid-retry-after")
    if not present:
        return Check("retry-after", "No retryAfterSeconds on a permanent error", True,
                     "No retryAfterSeconds: nothing suggests that waiting would help.")
    return Check("retry-after", "No retryAfterSeconds on a permanent error", False,
                 "retryAfterSeconds tells the agent that waiting will help, but the same call will never succeed "
                 "here. Remove it.", misconception="retry-after-on-permanent-error")


def _description_checks(structured: dict, rubric: dict) -> list[Check]:
    description = structured.get("description")
    text = description.strip() if isinstance(description, str) else ""
    failing_input = rubric.get("failing_input")
    generic = len(text) < 25 or text.lower().rstrip(".!") in GENERIC_PHRASES
    if generic:
        specific = Check("description-specific", "Description says what failed", False,
                         "The description is " + ("missing" if not text else f"too generic (\u201c{text[:60]}\u201d)") +
                         f". Say what failed, with the failing input{f' ({failing_input})' if failing_input else ''}, "
                         "so the agent can explain and decide.", misconception="generic-message")
    elif failing_input and failing_input.lower() not in text.lower():
        specific = Check("description-specific", "Description says what failed", False,
                         f"The description does not mention the failing input {failing_input!r}. Include it, so the "
                         "agent knows which of its calls this is about.", misconception="generic-message")
    else:
        specific = Check("description-specific", "Description says what failed", True,
                         "The description names what failed and the input.")
    if text and any(word in text.lower() for word in NEXT_STEP_WORDS):
        next_step = Check("description-next-step", "Description says what to do next", True,
                          "The description tells the agent what to do next.")
    else:
        next_step = Check("description-next-step", "Description says what to do next", False,
                          "Tell the agent what to do next: wait and retry, correct an argument, ask for access, or "
                          "escalate to a person.", misconception="generic-message")
    return [specific, next_step]


def _customer_message_check(structured: dict, rubric: dict) -> Check:
    required = rubric["customer_message"] == "required"
    message = structured.get("customerFriendlyMessage")
    alias_note = ""
    if message is None and isinstance(structured.get("customerMessage"), str):
        message = structured["customerMessage"]
        alias_note = (" (You called it customerMessage, a common name; this project's convention calls it "
                      "customerFriendlyMessage, and the grader accepts both.)")
    name = "Message safe for the customer"
    if not isinstance(message, str) or len(message.strip()) < 15:
        return Check("customer-message", name, False,
                     "Add customerFriendlyMessage: a sentence the agent can pass to the end user, with no internals."
                     + (" It is required for business and permission errors, where the agent must explain a refusal."
                        if required else ""), misconception="missing-customer-message")
    missing = [word for word in rubric.get("customer_message_mentions", []) if word.lower() not in message.lower()]
    if missing:
        return Check("customer-message", name, False,
                     f"The customer message should explain the policy, including {', '.join(missing)}, so the "
                     "customer understands why." + alias_note, misconception="unexplained-refusal")
    return Check("customer-message", name, True, "There is a message the agent can relay to the customer." + alias_note)


def _validation_checks(structured: dict, spec: dict) -> list[Check]:
    checks = []
    field = structured.get("field")
    checks.append(Check("validation-field", "Names the invalid field", field == spec["field"],
                        f"field is {spec['field']!r}." if field == spec["field"] else
                        f"Set field to the argument that is wrong ({spec['field']!r}) so the agent knows what to "
                        "change.", misconception="validation-without-field"))
    if "received" in spec:  # absent when the value is too long to echo whole
        received = structured.get("received")
        checks.append(Check("validation-received", "Echoes the received value", received == spec["received"],
                            "received shows the value the tool got, unchanged." if received == spec["received"] else
                            f"Set received to the value the tool got ({spec['received']!r}), unchanged, so the agent "
                            f"can see its mistake. " + (f"Yours was {json.dumps(received, ensure_ascii=False)[:80]}."
                                                     if "received" in structured else "You left it out."),
                            misconception="validation-without-field"))
    expected = structured.get("expected")
    mentions = [m for m in spec.get("expected_mentions", []) if not (isinstance(expected, str) and m in expected)]
    checks.append(Check("validation-expected", "Says what is expected", not mentions and isinstance(expected, str),
                        "expected describes the valid format." if not mentions and isinstance(expected, str) else
                        "Set expected to the valid format, e.g. \u201cORD- followed by five digits (ORD-10001)\u201d.",
                        misconception="validation-without-field"))
    suggestion = structured.get("suggestedArguments")
    policy = spec.get("suggestion", "allowed")
    if policy == "forbidden":
        ok = suggestion is None
        message = ("No suggestedArguments: right, the fix is not certain." if ok else
                   "suggestedArguments should appear only when the fix is certain. Nothing in the input says which "
                   "order was meant, so a suggestion here would have the agent act on a guess.")
        checks.append(Check("suggested-arguments", "Suggests a fix only when certain", ok, message,
                            misconception="uncertain-suggestion"))
    elif policy == "required":
        ok = suggestion == spec.get("suggested")
        checks.append(Check("suggested-arguments", "Suggests the certain fix", ok,
                            "suggestedArguments gives the corrected call." if ok else
                            f"The fix is certain here: add suggestedArguments {json.dumps(spec.get('suggested'))}.",
                            misconception="missing-suggestion"))
    return checks


def _empty_result_checks(payload: dict[str, Any], rubric: dict[str, Any]) -> list[Check]:
    structured = payload.get("structuredContent")
    structured = structured if isinstance(structured, dict) else {}
    checks = []
    if payload.get("isError") is True:
        checks.append(Check("not-an-error", "Not marked as a failure", False,
                            "The query ran and simply matched nothing: that is a valid answer, not a failure. With "
                            "isError true the agent may retry, or tell the customer the system is broken. Set "
                            "isError to false.", max_points=2, misconception="empty-result-as-error"))
    else:
        checks.append(Check("not-an-error", "Not marked as a failure", True,
                            "isError is false: an empty answer is still an answer.", max_points=2))
    if "errorCategory" in structured or "isRetryable" in structured:
        checks.append(Check("no-error-metadata", "No error metadata", False,
                            "errorCategory and isRetryable describe failures; a search that found nothing did not "
                            "fail. Remove them.", misconception="empty-result-as-error"))
    else:
        checks.append(Check("no-error-metadata", "No error metadata", True, "No error fields on a successful search."))
    marked = structured.get("found") is False or structured.get("resultCount") == 0 or structured.get("total") == 0
    checks.append(Check("empty-marker", "Says plainly that nothing matched", marked,
                        "structuredContent says found: false / resultCount: 0." if marked else
                        'Put "found": false or "resultCount": 0 in structuredContent, so code can tell an empty '
                        "answer from a missing one.", misconception="ambiguous-empty-result"))
    text = " ".join(text_blocks(payload)).lower()
    mentions = [m for m in rubric.get("query_mentions", []) if m.lower() not in text]
    says_empty = any(word in text for word in EMPTY_WORDS)
    ok = bool(text) and says_empty and not mentions
    checks.append(Check("empty-text", "Text says the query ran and matched nothing", ok,
                        "The text says the search ran and found nothing." if ok else
                        "Add text saying the query ran and matched nothing"
                        + (f", naming what was searched for ({', '.join(mentions)})" if mentions else "")
                        + ". Clients that show only content need it, and it stops the agent reading silence as "
                        "failure.", misconception="ambiguous-empty-result"))
    return checks


def grade_payload_object(slug: str, rubric: dict[str, Any], payload: dict[str, Any]) -> list[Check]:
    checks = [schema_check(payload)]
    if rubric["expect"] == "empty":
        checks += _empty_result_checks(payload, rubric)
    else:
        checks += _error_checks(payload, rubric)
    checks.append(leak_check(payload))
    return checks


def grade_payload(*, slug: str, rubric: dict[str, Any], text: str) -> dict[str, Any]:
    """Grade one payload exercise; returns the contract's result object (as a dict)."""
    try:
        payload = parse_json_object(text)
    except UnreadableSubmission as problem:
        return GradeResult(exercise=slug, error=_error(problem)).as_dict()
    return GradeResult(exercise=slug, checks=grade_payload_object(slug, rubric, payload)).as_dict()


def grade_payload_set(*, slug: str, rubric: dict[str, Any], text: str) -> dict[str, Any]:
    """Several payloads in one object (build exercise, steps 2 to 4): each part graded by its own rubric."""
    try:
        submitted = parse_json_object(text)
    except UnreadableSubmission as problem:
        return GradeResult(exercise=slug, error=_error(problem)).as_dict()
    parts: dict[str, dict] = rubric["parts"]
    unknown = sorted(set(submitted) - set(parts))
    if unknown:
        return GradeResult(exercise=slug, error=_error(UnreadableSubmission(
            f"Unexpected key {unknown[0]!r}. The object needs exactly these keys: {', '.join(parts)}.",
            field=unknown[0]))).as_dict()
    checks: list[Check] = []
    for name, part_rubric in parts.items():
        payload = submitted.get(name)
        if not isinstance(payload, dict):
            checks.append(Check(f"{name}/present", f"{name}: a CallToolResult", False,
                                f"Add {name!r}: the CallToolResult the tool returns for this case.",
                                max_points=5, misconception="missing-case"))
            continue
        for check in grade_payload_object(slug, part_rubric, payload):
            check.id, check.name = f"{name}/{check.id}", f"{name}: {check.name}"
            checks.append(check)
    return GradeResult(exercise=slug, checks=checks).as_dict()


def _error(problem: UnreadableSubmission) -> dict[str, Any]:
    return structured_error(problem.description, **problem.details)
