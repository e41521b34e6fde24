"""The leak detector: every kind of internal detail is found, and ordinary payload text is left alone."""
import pytest

from exercises.graders.leaks import find_in_text, find_leaks

LEAKS = [
    ("hostname", "connection to db-orders-01.internal refused"),
    ("hostname", "could not reach localhost"),
    ("hostname", "pg-replica-2 is lagging"),
    ("ip-address", "host 10.0.3.17 did not answer"),
    ("ip-address", "bound to fe80::1ff:fe23:4567:890a"),
    ("port", "upstream at orders-db:5432 timed out"),
    ("port", "redis on port 6379 refused"),
    ("file-path", "could not open /var/lib/postgresql/data/pg_wal"),
    ("file-path", "see orders/services/refunds.py for details"),
    ("file-path", r"failed reading C:\inetpub\app\web.config"),
    ("stack-trace", "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>"),
    ("stack-trace", "at com.shop.Orders.find(Orders.java:42)"),
    ("sql", "SELECT id, total FROM orders WHERE id = 'ORD-1'"),
    ("sql", "INSERT INTO refunds VALUES (1)"),
    ("exception-class", "psycopg.OperationalError: the server closed the connection"),
    ("exception-class", "raised DatabaseTimeout after 5s"),
    ("credential", "password=hunter2"),
    ("credential", "Authorization: Bearer abcdefghijklmnopqrstuv"),
    ("credential", "key sk-live-0123456789abcdefgh"),
    ("credential", "postgres://app:s3cret@db/shop"),
    ("account", "role svc_support lacks SELECT"),
]

CLEAN = [
    "The order database did not answer within 5 seconds for ORD-10001. Retry after 30 seconds.",
    "Order ids look like ORD- and five digits; received 'order-abc'.",
    "Refunds above 500 EUR need review: see https://help.example.com/refunds",
    "Placed on 2026-11-02 at 14:30; server version 2.3.0.",
    "We will email ada@example.com when it is done.",
    "Customer CUST-00042 has no open invoices.",
    "The agent lacks the finance:read scope; ask an administrator to grant it.",
    "Wait 30s, then retry the identical call.",
    "The query ran and matched no customer for john@example.com.",
    "lookup_order(ORD-10001) timed out.",
    "Rate limit: 100 requests per minute, retry after 12:30.",
    "Use customer_id, not customerId.",
    "The refund was refused because the return window closed.",
    "An error occurred in the payment service; retry in 10 seconds.",
]


@pytest.mark.parametrize("kind,text", LEAKS)
def test_leak_is_found_with_its_kind(kind, text):
    assert kind in {found_kind for found_kind, _ in find_in_text(text)}


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_payload_text_is_not_a_leak(text):
    assert find_in_text(text) == []


def test_leak_path_points_into_the_payload():
    payload = {"content": [{"type": "text", "text": "ok"}],
               "structuredContent": {"description": "timeout at 10.1.2.3", "nested": [{"x": "/etc/passwd here"}]}}
    places = {(leak.kind, leak.path) for leak in find_leaks(payload)}
    assert ("ip-address", "structuredContent.description") in places
    assert ("file-path", "structuredContent.nested[0].x") in places


def test_deep_structures_do_not_recurse():
    value = "10.0.0.1"
    for _ in range(5000):
        value = [value]
    assert [leak.kind for leak in find_leaks(value)] == ["ip-address"]


@pytest.mark.parametrize("text", ["x." * 30000, "1." * 30000, "db-" + "a-" * 20000, "a.b." * 15000 + "Error"])
def test_pathological_text_is_scanned_without_backtracking_blowup(text):
    # Before windowing, each of these took from 28 s to 150 s; they must now finish with a plain answer.
    assert isinstance(find_in_text(text), list)
