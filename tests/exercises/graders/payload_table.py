"""Good and bad payloads per exercise: (label, payload, expected status, expected score, failing check ids)."""
import copy
import json

from fractions import Fraction as F


def result(structured, *, is_error=True, mirror=True, text=None):
    content = [{"type": "text", "text": text if text is not None else json.dumps(structured)}] if mirror else []
    payload = {"content": content, "structuredContent": structured}
    if is_error is not None:
        payload["isError"] = is_error
    return payload


def variant(base, *, drop=(), is_error="keep", mirror=True, text=None, **changes):
    structured = copy.deepcopy(base)
    for key in drop:
        structured.pop(key, None)
    structured.update(changes)
    return result(structured, is_error=True if is_error == "keep" else is_error, mirror=mirror, text=text)


TIMEOUT = {"errorCategory": "transient", "isRetryable": True, "retryAfterSeconds": 30,
           "description": "The order database did not answer within 5 seconds for ORD-10001. It is under load; "
                          "retry the identical call after 30 seconds.",
           "customerFriendlyMessage": "Our order system is slow right now; please give us a moment."}
MALFORMED = {"errorCategory": "validation", "isRetryable": False,
             "description": "lookup_order got 'order-abc', which is not an order id. Ask the user for the order id.",
             "field": "order_id", "expected": "ORD- followed by five digits, e.g. ORD-10001", "received": "order-abc"}
DENIED = {"errorCategory": "permission", "isRetryable": False,
          "description": "get_financial_records(CUST-00042) was refused: the agent lacks the finance:read scope. "
                         "Do not retry; request access or hand over to the finance team.",
          "customerFriendlyMessage": "I can't see billing details myself, so I've passed your question to finance."}
REFUND = {"errorCategory": "business", "isRetryable": False,
          "description": "process_refund(ORD-10001, 750) refused: automatic refunds are capped at 500. Do not "
                         "retry; escalate to a human agent.",
          "customerFriendlyMessage": "Refunds over 500 need approval from our support team; I've passed yours on."}
NOT_FOUND = {"content": [{"type": "text", "text": "The search ran and found no customer with email john@example.com."}],
             "isError": False, "structuredContent": {"found": False, "resultCount": 0,
                                                     "query": {"email": "john@example.com"}}}

TABLE = {
    "order-db-timeout": [
        ("convention followed", result(TIMEOUT), "pass", F(1), []),
        ("no retryAfterSeconds", variant(TIMEOUT, drop=["retryAfterSeconds"]), "fail", F(12, 13), ["retry-after"]),
        ("retryAfterSeconds zero", variant(TIMEOUT, retryAfterSeconds=0), "fail", F(12, 13), ["retry-after"]),
        ("marked not retryable", variant(TIMEOUT, isRetryable=False), "fail", F(12, 13), ["is-retryable"]),
        ("called business", variant(TIMEOUT, errorCategory="business"), "fail", F(11, 13), ["error-category"]),
        ("isError false with error text", variant(TIMEOUT, is_error=False), "fail", F(12, 13), ["is-error"]),
        ("no text mirror", variant(TIMEOUT, mirror=False), "fail", F(12, 13), ["text-mirror"]),
        ("leaks host and port", variant(TIMEOUT, description="Timeout connecting to db-orders-01.internal:5432 for "
                                        "ORD-10001; retry after 30 seconds."), "fail", F(11, 13), ["no-internal-details"]),
        ("generic description", variant(TIMEOUT, description="Error"), "fail", F(11, 13),
         ["description-specific", "description-next-step"]),
        ("description without the order id", variant(TIMEOUT, description="The database was slow; retry after 30 "
                                                     "seconds."), "fail", F(12, 13), ["description-specific"]),
        ("metadata at the top level", {"content": [{"type": "text", "text": "Timed out"}], "isError": True, **TIMEOUT},
         "fail", F(4, 13), ["structured-content", "text-mirror", "error-category", "is-retryable", "retry-after",
                            "description-specific", "description-next-step", "customer-message"]),
        ("stack trace in the text", variant(TIMEOUT, text="Traceback (most recent call last):\n  File \"/app/db.py\", "
                                            "line 3, in q"), "fail", F(10, 13), ["text-mirror", "no-internal-details"]),
    ],
    "malformed-order-id": [
        ("convention followed", result(MALFORMED), "pass", F(1), []),
        ("retryable, as one guide says", variant(MALFORMED, isRetryable=True), "fail", F(15, 16), ["is-retryable"]),
        ("uncertain suggestion", variant(MALFORMED, suggestedArguments={"order_id": "ORD-10001"}), "fail", F(15, 16),
         ["suggested-arguments"]),
        ("no field", variant(MALFORMED, drop=["field"]), "fail", F(15, 16), ["validation-field"]),
        ("no received value", variant(MALFORMED, drop=["received"]), "fail", F(15, 16), ["validation-received"]),
        ("no expected format", variant(MALFORMED, drop=["expected"]), "fail", F(15, 16), ["validation-expected"]),
        ("retry after on a permanent error", variant(MALFORMED, retryAfterSeconds=5), "fail", F(15, 16), ["retry-after"]),
        ("called transient", variant(MALFORMED, errorCategory="transient"), "fail", F(14, 16), ["error-category"]),
        ("protocol-style error object", {"code": -32602, "message": "Invalid params"}, "fail", F(4, 16), None),
        ("content is a string", {**result(MALFORMED), "content": "order-abc is wrong"}, "fail", F(14, 16),
         ["valid-call-tool-result", "text-mirror"]),
        ("exception class in description", variant(MALFORMED, description="ValueError: invalid literal for order-abc; "
                                                   "ask the user again."), "fail", F(14, 16), ["no-internal-details"]),
    ],
    "financial-records-denied": [
        ("convention followed", result(DENIED), "pass", F(1), []),
        ("retryable permission error", variant(DENIED, isRetryable=True, retryAfterSeconds=60), "fail", F(11, 13),
         ["is-retryable", "retry-after"]),
        ("no customer message", variant(DENIED, drop=["customerFriendlyMessage"]), "fail", F(12, 13),
         ["customer-message"]),
        ("alias customerMessage accepted", variant(DENIED, drop=["customerFriendlyMessage"],
                                                   customerMessage="I've passed your question to our finance team."),
         "pass", F(1), []),
        ("leaks role and table", variant(DENIED, description="role svc_support denied SELECT on ledger.balances for "
                                         "CUST-00042; ask for access."), "fail", F(11, 13), ["no-internal-details"]),
        ("called business", variant(DENIED, errorCategory="business"), "fail", F(11, 13), ["error-category"]),
        ("unknown category", variant(DENIED, errorCategory="auth"), "fail", F(11, 13), ["error-category"]),
        ("isRetryable as a string", variant(DENIED, isRetryable="false"), "fail", F(12, 13), ["is-retryable"]),
        ("not an error at all", variant(DENIED, is_error=None), "fail", F(12, 13), ["is-error"]),
        ("IP address in the customer message", variant(DENIED, customerFriendlyMessage="The server 10.2.0.7 refused "
                                                       "your request, sorry."), "fail", F(11, 13), ["no-internal-details"]),
    ],
    "refund-over-limit": [
        ("convention followed", result(REFUND), "pass", F(1), []),
        ("retryable business error", variant(REFUND, isRetryable=True, retryAfterSeconds=10), "fail", F(11, 13),
         ["is-retryable", "retry-after"]),
        ("customer message without the limit", variant(REFUND, customerFriendlyMessage="Sorry, we cannot do that "
                                                       "refund automatically."), "fail", F(12, 13), ["customer-message"]),
        ("no customer message", variant(REFUND, drop=["customerFriendlyMessage"]), "fail", F(12, 13),
         ["customer-message"]),
        ("called validation", variant(REFUND, errorCategory="validation"), "fail", F(11, 13), ["error-category"]),
        ("called transient and retryable", variant(REFUND, errorCategory="transient", isRetryable=True,
                                                   retryAfterSeconds=30), "fail", F(9, 13),
         ["error-category", "is-retryable", "retry-after"]),
        ("SQL in the description", variant(REFUND, description="UPDATE refunds SET amount=750 WHERE order='ORD-10001' "
                                           "violated limit; escalate."), "fail", F(11, 13), ["no-internal-details"]),
        ("no description", variant(REFUND, drop=["description"]), "fail", F(11, 13),
         ["description-specific", "description-next-step"]),
        ("mirror differs from structuredContent", variant(REFUND, text=json.dumps({"error": "refund refused"})),
         "fail", F(12, 13), ["text-mirror"]),
        ("not JSON text in the mirror", variant(REFUND, text="Refund refused (limit 500)."), "fail", F(12, 13),
         ["text-mirror"]),
    ],
    "customer-not-found": [
        ("valid empty result", NOT_FOUND, "pass", F(1), []),
        ("empty result as an error", {**NOT_FOUND, "isError": True}, "fail", F(6, 8), ["not-an-error"]),
        ("error metadata on an empty result",
         {**NOT_FOUND, "structuredContent": {**NOT_FOUND["structuredContent"], "errorCategory": "validation",
                                             "isRetryable": False}}, "fail", F(7, 8), ["no-error-metadata"]),
        ("categorised as a not-found error",
         {"content": [{"type": "text", "text": "Customer not found"}], "isError": True,
          "structuredContent": {"errorCategory": "business", "isRetryable": False}}, "fail", F(3, 8),
         ["not-an-error", "no-error-metadata", "empty-marker", "empty-text"]),
        ("no empty marker", {**NOT_FOUND, "structuredContent": {"customers": []}}, "fail", F(7, 8), ["empty-marker"]),
        ("resultCount zero counts", {**NOT_FOUND, "structuredContent": {"resultCount": 0, "customers": []}}, "pass",
         F(1), []),
        ("silent text", {**NOT_FOUND, "content": []}, "fail", F(7, 8), ["empty-text"]),
        ("text does not name the query", {**NOT_FOUND, "content": [{"type": "text", "text": "No customer found."}]},
         "fail", F(7, 8), ["empty-text"]),
        ("isError as a string", {**NOT_FOUND, "isError": "false"}, "fail", F(7, 8), ["valid-call-tool-result"]),
        ("leaks the SQL it ran", {**NOT_FOUND, "content": [{"type": "text", "text": "SELECT * FROM customers WHERE "
                                                           "email = 'john@example.com' returned no rows"}]},
         "fail", F(6, 8), ["no-internal-details"]),
    ],
}
