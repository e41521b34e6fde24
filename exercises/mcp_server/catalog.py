"""Fictional data behind the training tools. Nothing here is real; ids follow the formats the lessons use."""
import re
from datetime import date

ORDER_ID = re.compile(r"^ORD-\d{5}$")
CUSTOMER_ID = re.compile(r"^CUST-\d{5}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

# The day the fictional shop "is" on, so return windows give the same answer every time.
TODAY = date(2026, 11, 20)
RETURN_WINDOW_DAYS = 30
AUTOMATIC_REFUND_LIMIT = 500

CUSTOMERS = {
    "CUST-00042": {"customerId": "CUST-00042", "name": "Ada Okafor", "email": "ada@example.com", "tier": "gold"},
    "CUST-00077": {"customerId": "CUST-00077", "name": "Bruno Lindqvist", "email": "bruno@example.org", "tier": "standard"},
    "CUST-00105": {"customerId": "CUST-00105", "name": "Chen Wei", "email": "chen.wei@example.net", "tier": "standard"},
}

ORDERS = {
    "ORD-10001": {"orderId": "ORD-10001", "customerId": "CUST-00042", "status": "shipped", "total": 129.90,
                  "currency": "EUR", "placedOn": "2026-11-02", "items": ["Trail shoes"]},
    "ORD-10002": {"orderId": "ORD-10002", "customerId": "CUST-00042", "status": "delivered", "total": 820.00,
                  "currency": "EUR", "placedOn": "2026-11-10", "items": ["Road bike helmet", "Bike computer"]},
    "ORD-10003": {"orderId": "ORD-10003", "customerId": "CUST-00077", "status": "delivered", "total": 45.50,
                  "currency": "EUR", "placedOn": "2026-08-14", "items": ["Water bottle set"]},
    "ORD-10004": {"orderId": "ORD-10004", "customerId": "CUST-00105", "status": "processing", "total": 310.00,
                  "currency": "EUR", "placedOn": "2026-11-18", "items": ["Rain jacket"]},
}

FINANCIAL_RECORDS = {
    "CUST-00042": {"customerId": "CUST-00042", "lifetimeValue": 4210.35, "openInvoices": 1, "creditLimit": 2000},
    "CUST-00077": {"customerId": "CUST-00077", "lifetimeValue": 512.10, "openInvoices": 0, "creditLimit": 500},
    "CUST-00105": {"customerId": "CUST-00105", "lifetimeValue": 310.00, "openInvoices": 0, "creditLimit": 750},
}

# search_orders reads from several regional sources; in "partial" mode one of them does not answer.
SEARCH_SOURCES = ("orders-eu", "orders-us", "orders-archive")


def suggested_order_id(received: str) -> str | None:
    """The corrected id when the fix is certain (right digits, wrong prefix or case), else None."""
    match = re.fullmatch(r"(?i)\s*ord(?:er)?[-_ ]?(\d{5})\s*", received)
    return f"ORD-{match.group(1)}" if match else None


def suggested_customer_id(received: str) -> str | None:
    match = re.fullmatch(r"(?i)\s*cust(?:omer)?[-_ ]?(\d{5})\s*", received)
    return f"CUST-{match.group(1)}" if match else None
