"""The five training tools: their advertised schemas, their natural behaviour, and their failure modes.

A call is answered in this order: the next scripted response for the tool (grading), else the call's own
`failure_mode` argument (exploring), else the mode the learner switched on in the Playground, else the tool's
natural behaviour over the fictional data. Arguments are validated here, not by the SDK, so that a bad
argument becomes a validation error in the project's convention rather than a raw pydantic dump.
"""
from dataclasses import dataclass
from datetime import date
from typing import Any, Callable

from mcp.types import CallToolResult, Tool, ToolAnnotations

from . import catalog, results

TRANSIENT_MODES = ("timeout", "rate_limit", "unavailable")
COMMON_MODES = ("none", *TRANSIENT_MODES, "validation", "permission")

MODE_LABELS = {
    "none": "Normal (real data)",
    "timeout": "Timeout (transient)",
    "rate_limit": "Rate limit (transient, retryAfterSeconds)",
    "unavailable": "Service unavailable (transient)",
    "validation": "Invalid argument (validation)",
    "permission": "Missing scope (permission)",
    "empty": "No match (valid empty result)",
    "partial": "Some sources down (partial result)",
    "refund_limit": "Over the refund limit (business)",
    "return_window": "Outside the return window (business)",
}


@dataclass(frozen=True)
class TrainingTool:
    name: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...]
    failure_modes: tuple[str, ...]
    main_field: str
    answer: Callable[[dict[str, Any]], CallToolResult]
    read_only: bool = True

    def definition(self) -> Tool:
        properties = dict(self.properties)
        properties["failure_mode"] = {
            "type": "string", "enum": list(self.failure_modes), "default": "none",
            "description": "Training only: make this call fail in a chosen way. 'none' uses the real data.",
        }
        return Tool(
            name=self.name, description=self.description,
            input_schema={"type": "object", "properties": properties, "required": list(self.required),
                          "additionalProperties": False},
            annotations=ToolAnnotations(read_only_hint=self.read_only, idempotent_hint=self.read_only,
                                        open_world_hint=False),
        )


class ArgumentProblem(Exception):
    """An argument failed validation; carries the validation result to return."""

    def __init__(self, result: CallToolResult):
        super().__init__("invalid argument")
        self.result = result


def _text_id(tool: str, args: dict, field: str, pattern, example: str, suggest) -> str:
    value = args.get(field)
    if isinstance(value, str) and pattern.fullmatch(value):
        return value
    suggestion = suggest(value) if isinstance(value, str) else None
    raise ArgumentProblem(results.invalid_argument(
        tool=tool, field=field, expected=f"a string like '{example}' ({example.split('-')[0]}- and five digits)",
        received=value, suggested_arguments={**_public(args), field: suggestion} if suggestion else None))


def _public(args: dict) -> dict:
    return {key: value for key, value in args.items() if key != "failure_mode"}


def _order_id(tool: str, args: dict) -> str:
    return _text_id(tool, args, "order_id", catalog.ORDER_ID, "ORD-10001", catalog.suggested_order_id)


def _customer_id(tool: str, args: dict) -> str:
    return _text_id(tool, args, "customer_id", catalog.CUSTOMER_ID, "CUST-00042", catalog.suggested_customer_id)


def _lookup_order(args: dict) -> CallToolResult:
    order_id = _order_id("lookup_order", args)
    if order := catalog.ORDERS.get(order_id):
        return results.success({"found": True, "order": order})
    return results.empty_result(query={"order_id": order_id}, what="order")


def _lookup_customer(args: dict) -> CallToolResult:
    if "customer_id" in args:
        customer_id = _customer_id("lookup_customer", args)
        customer = catalog.CUSTOMERS.get(customer_id)
        query = {"customer_id": customer_id}
    else:
        email = args.get("email")
        if not isinstance(email, str) or not catalog.EMAIL.fullmatch(email):
            raise ArgumentProblem(results.invalid_argument(
                tool="lookup_customer", field="email", expected="an email address such as 'ada@example.com'",
                received=email))
        customer = next((c for c in catalog.CUSTOMERS.values() if c["email"].lower() == email.lower()), None)
        query = {"email": email}
    if customer:
        return results.success({"found": True, "customer": customer})
    return results.empty_result(query=query, what="customer")


def _amount(args: dict) -> float:
    amount = args.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not 0 < amount <= 1_000_000:
        raise ArgumentProblem(results.invalid_argument(
            tool="process_refund", field="amount", expected="a positive number of euros, such as 49.90",
            received=amount))
    return float(amount)


def _process_refund(args: dict) -> CallToolResult:
    order_id = _order_id("process_refund", args)
    amount = _amount(args)
    order = catalog.ORDERS.get(order_id)
    if order is None:
        raise ArgumentProblem(results.invalid_argument(
            tool="process_refund", field="order_id", expected="the id of an existing order", received=order_id))
    if amount > catalog.AUTOMATIC_REFUND_LIMIT:
        return results.refund_over_limit(order_id=order_id, amount=amount, limit=catalog.AUTOMATIC_REFUND_LIMIT)
    if (catalog.TODAY - date.fromisoformat(order["placedOn"])).days > catalog.RETURN_WINDOW_DAYS:
        return results.return_window_closed(order_id=order_id, placed_on=order["placedOn"],
                                            window_days=catalog.RETURN_WINDOW_DAYS)
    return results.success({"refunded": True, "orderId": order_id, "amount": amount, "currency": order["currency"],
                            "refundId": f"RF-{order_id[4:]}-{int(amount * 100)}"})


def _get_financial_records(args: dict) -> CallToolResult:
    customer_id = _customer_id("get_financial_records", args)
    if records := catalog.FINANCIAL_RECORDS.get(customer_id):
        return results.success({"found": True, "records": records})
    return results.empty_result(query={"customer_id": customer_id}, what="financial records")


def _matching_orders(args: dict, sources: tuple[str, ...]) -> list[dict]:
    query = args.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > 200:
        raise ArgumentProblem(results.invalid_argument(
            tool="search_orders", field="query", expected="a non-empty search text of at most 200 characters, "
            "such as 'helmet' or 'CUST-00042'", received=query))
    needle = query.strip().lower()
    found = [o for o in catalog.ORDERS.values()
             if needle in " ".join([o["orderId"], o["customerId"], o["status"], *o["items"]]).lower()]
    # The fictional orders are spread over the sources by id, so a missing source hides some of them.
    return [o for o in found if catalog.SEARCH_SOURCES[int(o["orderId"][-1]) % 3] in sources]


def _search_orders(args: dict) -> CallToolResult:
    found = _matching_orders(args, catalog.SEARCH_SOURCES)
    if not found:
        return results.empty_result(query={"query": args["query"]}, what="orders")
    return results.success({"found": True, "resultCount": len(found), "results": found})


def _search_orders_partial(args: dict) -> CallToolResult:
    up = catalog.SEARCH_SOURCES[:2]
    found = _matching_orders(args, up)
    return results.partial_result(results=found, failed_sources=list(catalog.SEARCH_SOURCES[2:]),
                                  succeeded_sources=list(up))


_ORDER_ID = {"type": "string", "description": "Order id: ORD- and five digits, e.g. ORD-10001."}
_CUSTOMER_ID = {"type": "string", "description": "Customer id: CUST- and five digits, e.g. CUST-00042."}

TOOLS: dict[str, TrainingTool] = {tool.name: tool for tool in (
    TrainingTool("lookup_order", "Look up one order by its id.", {"order_id": _ORDER_ID}, ("order_id",),
                 (*COMMON_MODES, "empty"), "order_id", _lookup_order),
    TrainingTool("lookup_customer", "Find a customer by id or by email address. Give one of the two.",
                 {"customer_id": _CUSTOMER_ID, "email": {"type": "string", "description": "Email address."}},
                 (), (*COMMON_MODES, "empty"), "customer_id", _lookup_customer),
    TrainingTool("process_refund", "Refund part or all of an order. Automatic refunds are capped at 500 EUR and "
                 "allowed within 30 days of the order.",
                 {"order_id": _ORDER_ID, "amount": {"type": "number", "exclusiveMinimum": 0,
                                                    "description": "Amount in EUR."}},
                 ("order_id", "amount"), (*COMMON_MODES, "refund_limit", "return_window"), "order_id",
                 _process_refund, read_only=False),
    TrainingTool("get_financial_records", "Read a customer's financial summary (needs the finance scope).",
                 {"customer_id": _CUSTOMER_ID}, ("customer_id",), (*COMMON_MODES, "empty"), "customer_id",
                 _get_financial_records),
    TrainingTool("search_orders", "Search orders across all regional sources by text (item, status, ids).",
                 {"query": {"type": "string", "description": "What to look for, e.g. 'helmet'."}}, ("query",),
                 (*COMMON_MODES, "empty", "partial"), "query", _search_orders),
)}


def answer_call(tool: TrainingTool, arguments: dict[str, Any], mode: str, *, retry_after_seconds: int | None = None
                ) -> CallToolResult:
    """The result of one call to `tool` in `mode` ("none" is the natural behaviour)."""
    args = _public(arguments)
    unknown = sorted(set(args) - set(tool.properties))
    if unknown:
        return results.invalid_argument(
            tool=tool.name, field=unknown[0], expected=f"one of the tool's arguments: {', '.join(tool.properties)}",
            received=args[unknown[0]])
    try:
        if mode == "timeout":
            return results.timeout(tool=tool.name, argument=_shown(args, tool.main_field),
                                   retry_after_seconds=retry_after_seconds or 5)
        if mode == "rate_limit":
            return results.rate_limited(tool=tool.name, retry_after_seconds=retry_after_seconds or 30)
        if mode == "unavailable":
            return results.unavailable(tool=tool.name, retry_after_seconds=retry_after_seconds or 10)
        if mode == "validation":
            value = args.get(tool.main_field)
            return results.invalid_argument(tool=tool.name, field=tool.main_field,
                                            expected=tool.properties[tool.main_field]["description"], received=value)
        if mode == "permission":
            needed = "finance:read" if tool.name == "get_financial_records" else f"{tool.name.split('_')[-1]}:access"
            return results.permission_denied(tool=tool.name, needed=needed, subject=_shown(args, tool.main_field))
        if mode == "empty":
            return results.empty_result(query=args, what=tool.name.split("_")[-1].rstrip("s") + "s")
        if mode == "partial":
            return _search_orders_partial(args)
        if mode == "refund_limit":
            return results.refund_over_limit(order_id=str(args.get("order_id", "")), amount=float(
                args["amount"]) if isinstance(args.get("amount"), (int, float)) else 750.0,
                limit=catalog.AUTOMATIC_REFUND_LIMIT)
        if mode == "return_window":
            return results.return_window_closed(order_id=str(args.get("order_id", "")), placed_on="2026-08-14",
                                                window_days=catalog.RETURN_WINDOW_DAYS)
        return tool.answer(args)
    except ArgumentProblem as problem:
        return problem.result


def _shown(args: dict, field: str) -> str:
    value = args.get(field)
    return value if isinstance(value, str) else "?"
