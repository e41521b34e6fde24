"""Learners' MCP servers for the tests: the reference solution (MCPServer), a correct low-level Server, and one
variant per mistake the probes detect, each made by changing exactly the lines that embody it (every change is
asserted to apply, so a rewrite of a reference cannot silently turn a mistake into a correct server)."""
from pathlib import Path

from django.conf import settings

REFERENCE = (Path(settings.EXERCISE_CONTENT_DIR) / "solutions" / "customer-lookup-tool.py").read_text()

ALL_SCENARIOS = ("tools-list", "found", "not-found", "timeout", "permission", "refund-limit", "malformed-id",
                 "empty-id", "emoji-id", "right-to-left-id", "nul-byte-id", "oversized-id", "missing-argument",
                 "wrong-type", "unknown-tool", "concurrent", "still-answering", "stdout")
VALIDATION_SCENARIOS = {"malformed-id", "empty-id", "emoji-id", "right-to-left-id", "nul-byte-id", "oversized-id"}
FAILURE_SCENARIOS = {"timeout", "permission", "refund-limit"}

LOW_LEVEL = '''
import json
import re

import mcp.types as types
import training_db
from mcp import MCPError
from mcp.server import Server

CUSTOMER_ID = re.compile(r"CUST-[0-9]{5}")
TOOL = types.Tool(
    name="customer_lookup",
    description="Look up one customer by id (CUST- followed by five digits, e.g. CUST-00042).",
    input_schema={"type": "object", "required": ["customer_id"],
                  "properties": {"customer_id": {"type": "string"}, "failure_mode": {"type": "string"}}})


def result(payload, is_error):
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(payload))],
                                structured_content=payload, is_error=is_error)


def failure(category, description, message, retry_after=None, **extra):
    payload = {"errorCategory": category, "isRetryable": retry_after is not None}
    if retry_after is not None:
        payload["retryAfterSeconds"] = retry_after
    payload.update(description=description, customerFriendlyMessage=message, **extra)
    return result(payload, True)


def invalid(received):
    shown = received[:40] if isinstance(received, str) else received
    return failure("validation", f"customer_id {shown!r} is not a customer id: use CUST- and five digits. "
                                 "Correct it and call again.",
                   "That customer number does not look right.", field="customer_id", received=shown,
                   expected="CUST- followed by five digits, e.g. CUST-00042")


def lookup(customer_id, failure_mode):
    try:
        record = training_db.get_customer(customer_id, failure_mode=failure_mode)
    except training_db.DatabaseTimeout:
        return failure("transient", f"The customer database timed out looking up {customer_id}. Wait 30 seconds "
                                    "and retry.", "Our records are slow right now.", retry_after=30)
    except training_db.AccessDenied:
        return failure("permission", f"This tool may not read customer records, so {customer_id} was not looked "
                                     "up. Do not retry; ask an administrator for access.",
                       "I cannot open customer records; a colleague will help you.")
    except training_db.RefundPolicyViolation:
        return failure("business", f"{customer_id} is on hold under the refund policy. Do not retry; escalate "
                                   "to a person.", "Your account is under review because refunds went over our "
                                                    "automatic refund limit of 500.")
    if record is None:
        return result({"found": False, "resultCount": 0,
                       "message": f"The lookup ran and no customer has the id {customer_id}."}, False)
    return result({"found": True, "customer": record}, False)


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx, params):
    if params.name != "customer_lookup":
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
    arguments = params.arguments or {}
    customer_id = arguments.get("customer_id")
    if not isinstance(customer_id, str) or not CUSTOMER_ID.fullmatch(customer_id):
        return invalid(customer_id)
    return lookup(customer_id, arguments.get("failure_mode", "none"))


server = Server("customers", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
'''


def variant(*replacements: tuple[str, str], source: str = REFERENCE) -> str:
    for old, new in replacements:
        assert source.count(old) == 1, f"the reference no longer contains exactly one {old!r}"
        source = source.replace(old, new)
    return source


def low_level(*replacements: tuple[str, str]) -> str:
    return variant(*replacements, source=LOW_LEVEL)


GOOD = {"reference (MCPServer)": REFERENCE, "low-level Server": LOW_LEVEL}

def each(scenarios, check_id: str) -> dict[str, str]:
    return {scenario: check_id for scenario in scenarios}


# name: (source, {each scenario it must fail: the failing check that names the mistake there}, the misconception)
MISTAKES = {
    "leaks the database's message": (variant(
        ("    except training_db.DatabaseTimeout:", "    except training_db.DatabaseTimeout as error:"),
        ('"description": f"The customer database did not answer in time while looking up {customer_id}. It is "',
         '"description": f"Lookup failed ({error}). It is "')),
        each({"timeout"}, "no-internal-details"), "leaks-internals"),
    "queries the database without checking the id": (variant((
        "    if not CUSTOMER_ID.fullmatch(customer_id):\n        return _invalid_id(customer_id)\n", "")),
        each(VALIDATION_SCENARIOS, "database-untouched"), "queries-before-validating"),
    "checks only the start of the id": (variant(("CUSTOMER_ID.fullmatch(customer_id)", "CUSTOMER_ID.match(customer_id)")),
                                        each({"nul-byte-id", "oversized-id"}, "database-untouched"),
                                        "queries-before-validating"),
    "reports an unknown customer as an error": (variant((
        '"message": f"The lookup ran and no customer has the id {customer_id}."}, is_error=False)',
        '"message": f"The lookup ran and no customer has the id {customer_id}."}, is_error=True)')),
        each({"not-found"}, "not-an-error"), "empty-result-as-error"),
    "no retryAfterSeconds": (variant(('"isRetryable": True, "retryAfterSeconds": RETRY_AFTER_SECONDS,',
                                      '"isRetryable": True,')),
                             each({"timeout"}, "retry-after"), "missing-retry-after"),
    "business error marked retryable": (variant(('"errorCategory": "business", "isRetryable": False,',
                                                 '"errorCategory": "business", "isRetryable": True,')),
                                        each({"refund-limit"}, "is-retryable"), "retryable-business-error"),
    "does not pass failure_mode on": (variant(("training_db.get_customer(customer_id, failure_mode=failure_mode)",
                                               "training_db.get_customer(customer_id)")),
                                      each(FAILURE_SCENARIOS, "uses-database"), "ignores-database"),
    "prints to stdout": (variant(('server = MCPServer("customers", version="1.0.0")',
                                  'server = MCPServer("customers", version="1.0.0")\nprint("customers server ready")')),
                         each({"stdout"}, "stdout-clean"), "prints-to-stdout"),
    "shares state between calls": (variant(
        ("import re\n", "import re\nimport time\n"),
        ("    if not CUSTOMER_ID.fullmatch(customer_id):",
         "    _LAST[\"id\"] = customer_id\n    time.sleep(0.05)\n    customer_id = _LAST[\"id\"]\n"
         "    if not CUSTOMER_ID.fullmatch(customer_id):"),
        ("ECHO_LIMIT = 40\n", "ECHO_LIMIT = 40\n_LAST = {}\n")),
        each({"concurrent"}, "same-answer-at-once"), "shared-state-between-calls"),
    "echoes a huge argument whole": (variant(("ECHO_LIMIT = 40", "ECHO_LIMIT = 10 ** 6")),
                                     each({"oversized-id"}, "short-answer"), "echoes-oversized-input"),
    "mangles unicode in what it echoes": (variant((
        "def _echo(value: str) -> str:\n",
        "def _echo(value: str) -> str:\n    value = value.encode(\"ascii\", \"replace\").decode()\n")),
        each({"emoji-id", "right-to-left-id"}, "validation-received"), "validation-without-field"),
    "protocol error for a malformed id": (variant(
        ("from mcp.types import CallToolResult, TextContent", "from mcp import MCPError\nfrom mcp.types import "
                                                              "INVALID_PARAMS, CallToolResult, TextContent"),
        ("    shown = _echo(customer_id)\n", "    shown = _echo(customer_id)\n    raise MCPError(code=INVALID_PARAMS, "
                                            "message=f\"bad customer_id {shown!r}\")\n")),
        each(VALIDATION_SCENARIOS, "tool-result"), "exception-as-protocol-error"),
    "exits on an empty id": (variant(
        ("import re\n", "import os\nimport re\n"),
        ("    if not CUSTOMER_ID.fullmatch(customer_id):", "    if customer_id == \"\":\n        os._exit(3)\n"
                                                        "    if not CUSTOMER_ID.fullmatch(customer_id):")),
        {"empty-id": "answered", "still-answering": "kept-running"}, "server-crashes"),
    "hangs on emoji": (variant(
        ("import re\n", "import re\nimport time\n"),
        ("    if not CUSTOMER_ID.fullmatch(customer_id):", "    if \"\\U0001f642\" in customer_id:\n"
                                                        "        time.sleep(60)\n"
                                                        "    if not CUSTOMER_ID.fullmatch(customer_id):")),
        {"emoji-id": "answered", "still-answering": "kept-running"}, "server-hangs"),
    "no description on the tool": (variant((
        '    """Look up one customer by id (CUST- followed by five digits, e.g. CUST-00042).\n\n'
        '    Returns the customer\'s record, or found: false when no customer has that id."""\n', "")),
        each({"tools-list"}, "tool-description"), "missing-tool-description"),
    "low-level: lets database exceptions escape": (low_level(
        ("    try:\n        record = training_db.get_customer(customer_id, failure_mode=failure_mode)\n"
         "    except training_db.DatabaseTimeout:",
         "    record = training_db.get_customer(customer_id, failure_mode=failure_mode)\n    try:\n        pass\n"
         "    except training_db.DatabaseTimeout:")),
        each(FAILURE_SCENARIOS, "tool-result"), "exception-as-protocol-error"),
    "low-level: answers any tool name": (low_level((
        '    if params.name != "customer_lookup":\n'
        '        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")\n', "")),
        each({"unknown-tool"}, "reports-unknown-tool"), "ignores-tool-name"),
    "low-level: trusts its arguments": (low_level(
        ('    customer_id = arguments.get("customer_id")', '    customer_id = arguments["customer_id"]'),
        ("    if not isinstance(customer_id, str) or not CUSTOMER_ID.fullmatch(customer_id):",
         "    if not CUSTOMER_ID.fullmatch(customer_id):")),
        each({"missing-argument", "wrong-type"}, "tool-result"), "exception-as-protocol-error"),
}
