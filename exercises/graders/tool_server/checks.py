"""Checks that span a whole session (the tool listing, stdout) and how each era's verdicts become one."""
import json
from typing import Any

from ..result import Check
from .connection import Pollution
from .probes import TOOL

ERA_NAMES = {"2026-07-28": "2026-07-28 client (no handshake)", "2025-11-25": "2025-11-25 client (initialize handshake)"}


def listing_checks(tools: list[dict[str, Any]] | None) -> list[Check]:
    tool = next((t for t in tools or [] if t.get("name") == TOOL), None)
    if tool is None:
        return [Check("tool-listed", f"Lists {TOOL}", False,
                      "The server's tool list could not be read: it never answered tools/list.")]
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    customer_id = properties.get("customer_id") if isinstance(properties.get("customer_id"), dict) else None
    failure_mode = properties.get("failure_mode") if isinstance(properties.get("failure_mode"), dict) else None
    problems = []
    if customer_id is None:
        problems.append("it has no customer_id property")
    else:
        if customer_id.get("type") != "string":
            problems.append(f"customer_id's type is {json.dumps(customer_id.get('type'))}, not \"string\"")
        if "customer_id" not in required:
            problems.append("customer_id is not listed as required")
    if failure_mode is None:
        problems.append("it has no failure_mode property")
    elif "failure_mode" in required:
        problems.append("failure_mode is required, but it should be optional (default \"none\")")
    checks = [Check("tool-listed", f"Lists {TOOL}", True, f"tools/list includes {TOOL}."),
              Check("input-schema", "Describes its arguments", not problems,
                    "The input schema declares customer_id (a required string) and an optional failure_mode."
                    if not problems else "The input schema is off: " + "; ".join(problems) + ". The model builds "
                    "its calls from this schema, so it must say what the tool takes.",
                    misconception="misleading-input-schema")]
    description = tool.get("description") if isinstance(tool.get("description"), str) else ""
    ok = len(description.strip()) >= 20
    checks.append(Check("tool-description", "Says what the tool does", ok,
                        "The tool has a description." if ok else
                        "Give the tool a description (the function's docstring, with MCPServer) saying what it looks "
                        "up and what the id looks like: the model chooses tools by their descriptions.",
                        misconception="missing-tool-description"))
    return checks


def stdout_checks(pollution: list[Pollution]) -> list[Check]:
    name = "Nothing but protocol on stdout"
    if not pollution:
        return [Check("stdout-clean", name, True, "Every line your server wrote to stdout was a JSON-RPC message.")]
    first = pollution[0]
    when = {"startup": "while starting", "shutdown": "when it exited (Python holds back output to a pipe until "
                                                     "the buffer is flushed, often at exit)"}.get(
        first.probe, f"while answering the {first.probe} probe")
    return [Check("stdout-clean", name, False,
                  f"Your server wrote \u201c{first.text[:120]}\u201d to stdout {when}"
                  + (f", and {len(pollution) - 1} more line(s)" if len(pollution) > 1 else "") +
                  ". Over stdio, stdout carries only JSON-RPC messages: a client cannot parse the line (the Python "
                  "SDK logs \u201cFailed to parse JSONRPC message\u201d; stricter hosts drop the server). Print "
                  "diagnostics to stderr (print(..., file=sys.stderr)) or use logging.",
                  misconception="prints-to-stdout")]


def merge_eras(per_era: dict[str, list[Check]]) -> list[Check]:
    """One list of checks for both eras: a check passes when it passes in every era; where eras differ, the
    message says which client saw what."""
    eras = list(per_era)
    order: list[str] = []
    for checks in per_era.values():
        order += [c.id for c in checks if c.id not in order]
    merged = []
    for check_id in order:
        found = {era: next((c for c in per_era[era] if c.id == check_id), None) for era in eras}
        first = next(c for c in found.values() if c is not None)
        if all(c is not None and c.passed for c in found.values()):
            merged.append(Check(first.id, first.name, True, first.message, max_points=first.max_points))
            continue
        failing = {era: c for era, c in found.items() if c is None or not c.passed}
        messages = {c.message for c in failing.values() if c is not None}
        if len(failing) == len(eras) and None not in failing.values() and len(messages) == 1:
            message = messages.pop()
        else:
            message = " ".join(
                f"With a {ERA_NAMES.get(era, era)}: "
                + (c.message if c is not None else "there was no answer to check here (see the checks above).")
                for era, c in failing.items())
        misconception = next((c.misconception for c in failing.values() if c is not None and c.misconception), None)
        merged.append(Check(first.id, first.name, False, message, max_points=first.max_points,
                            misconception=misconception))
    return merged
