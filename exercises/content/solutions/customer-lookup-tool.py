"""Reference solution for the customer-lookup-tool exercise (not served to learners).

customer_lookup reports every outcome in the project's error convention: recovery metadata in
structuredContent, mirrored as JSON text, nothing from the database's own messages.
"""
import json
import logging
import re
from typing import Any

import training_db
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

logger = logging.getLogger("customer_lookup")  # logging goes to stderr: stdout belongs to the protocol

CUSTOMER_ID = re.compile(r"CUST-[0-9]{5}")  # [0-9], not \d: \d also matches other scripts' digits
ECHO_LIMIT = 40
RETRY_AFTER_SECONDS = 30

server = MCPServer("customers", version="1.0.0")


def _result(payload: dict[str, Any], *, is_error: bool) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
                          structured_content=payload, is_error=is_error)


def _echo(value: str) -> str:
    return value if len(value) <= ECHO_LIMIT else f"{value[:ECHO_LIMIT]}…"


def _invalid_id(customer_id: str) -> CallToolResult:
    shown = _echo(customer_id)
    payload = {
        "errorCategory": "validation", "isRetryable": False,
        "description": f"customer_id {shown!r} is not a customer id. Ids are CUST- followed by five digits, e.g. "
                       "CUST-00042. Correct the id and call again; do not retry this value.",
        "field": "customer_id", "expected": "CUST- followed by five digits, e.g. CUST-00042", "received": shown,
        "customerFriendlyMessage": "That customer number does not look right. It starts with CUST- and has five "
                                   "digits.",
    }
    if len(customer_id) > ECHO_LIMIT:
        payload["receivedLength"] = len(customer_id)
    return _result(payload, is_error=True)


@server.tool()
def customer_lookup(customer_id: str, failure_mode: str = "none") -> CallToolResult:
    """Look up one customer by id (CUST- followed by five digits, e.g. CUST-00042).

    Returns the customer's record, or found: false when no customer has that id."""
    if not CUSTOMER_ID.fullmatch(customer_id):
        return _invalid_id(customer_id)
    try:
        record = training_db.get_customer(customer_id, failure_mode=failure_mode)
    except training_db.DatabaseTimeout:
        logger.warning("customer lookup timed out for %s", customer_id)
        return _result({
            "errorCategory": "transient", "isRetryable": True, "retryAfterSeconds": RETRY_AFTER_SECONDS,
            "description": f"The customer database did not answer in time while looking up {customer_id}. It is "
                           f"busy, not broken: wait {RETRY_AFTER_SECONDS} seconds and retry the same call.",
            "customerFriendlyMessage": "Our customer records are slow to respond right now. Please give us a "
                                       "moment.",
        }, is_error=True)
    except training_db.AccessDenied as error:
        logger.error("customer lookup denied: %s", error)
        return _result({
            "errorCategory": "permission", "isRetryable": False,
            "description": f"This tool is not allowed to read customer records (needs the {error.required_scope} "
                           f"scope), so {customer_id} could not be looked up. Do not retry; ask an administrator "
                           "to grant the access, or hand the request to a person.",
            "customerFriendlyMessage": "I can't open customer records right now. I'm passing your request to a "
                                       "colleague who can.",
        }, is_error=True)
    except training_db.RefundPolicyViolation as error:
        return _result({
            "errorCategory": "business", "isRetryable": False,
            "description": f"{customer_id}'s account is on hold under the refund policy (automatic refunds are "
                           f"capped at {error.refund_limit}); its record may not be shown to automated agents. Do "
                           "not retry; escalate to a person who can review the account.",
            "customerFriendlyMessage": f"Your account is being reviewed because refunds went over our automatic "
                                       f"limit of {error.refund_limit}. A member of our team will contact you.",
        }, is_error=True)
    if record is None:
        return _result({"found": False, "resultCount": 0, "customer_id": customer_id,
                        "message": f"The lookup ran and no customer has the id {customer_id}."}, is_error=False)
    return _result({"found": True, "customer": record}, is_error=False)


if __name__ == "__main__":
    server.run()
