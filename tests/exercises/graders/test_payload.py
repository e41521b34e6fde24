"""The payload grader against a table of good and bad payloads for every payload exercise."""
import json

import pytest

from exercises.graders import grade

from .payload_table import TABLE, result, TIMEOUT

ROWS = [(slug, *row) for slug, rows in TABLE.items() for row in rows]


@pytest.mark.parametrize("slug,label,payload,status,score,failing", ROWS,
                         ids=[f"{r[0]}: {r[1]}" for r in ROWS])
def test_payload_table(exercises, slug, label, payload, status, score, failing):
    exercise = exercises[slug]
    outcome = grade(slug=slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(payload))
    failed = [c["id"] for c in outcome["checks"] if c["status"] == "fail"]
    assert outcome["status"] == status, failed
    assert outcome["score"] == pytest.approx(float(score), abs=1e-4), failed
    if failing is not None:
        assert failed == failing
    for check in outcome["checks"]:
        assert check["message"], check  # every check explains itself
        if check["status"] == "fail" and check["id"] != "valid-call-tool-result":
            assert check["misconception"], check


def test_every_payload_exercise_has_at_least_ten_rows(exercises):
    for slug in TABLE:
        assert slug in exercises
        assert len(TABLE[slug]) >= 10


def test_validation_marked_retryable_is_explained_kindly(exercises):
    exercise = exercises["malformed-order-id"]
    payload = json.loads(json.dumps(TABLE["malformed-order-id"][0][1]))
    payload["structuredContent"]["isRetryable"] = True
    outcome = grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(payload))
    check = next(c for c in outcome["checks"] if c["id"] == "is-retryable")
    assert check["misconception"] == "retryable-validation-error"
    assert "fair reading" in check["message"] and "identical request" in check["message"]


def test_schema_error_names_the_place(exercises):
    exercise = exercises["order-db-timeout"]
    payload = result(TIMEOUT)
    payload["content"][0] = {"type": "text", "text": 42}
    outcome = grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(payload))
    check = next(c for c in outcome["checks"] if c["id"] == "valid-call-tool-result")
    assert check["status"] == "fail"
    assert "content[0].text: Input should be a valid string" in check["message"]
    assert "ImageContent" not in check["message"]  # only the kind of block that was written


def test_unknown_content_type_is_named(exercises):
    exercise = exercises["order-db-timeout"]
    payload = result(TIMEOUT)
    payload["content"][0]["type"] = "txt"
    outcome = grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(payload))
    check = next(c for c in outcome["checks"] if c["id"] == "valid-call-tool-result")
    assert "content[0].type: must be one of 'text'" in check["message"] and '"txt"' in check["message"]


def test_alias_customer_message_is_named(exercises):
    exercise = exercises["financial-records-denied"]
    row = next(r for r in TABLE["financial-records-denied"] if r[0] == "alias customerMessage accepted")
    outcome = grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(row[1]))
    check = next(c for c in outcome["checks"] if c["id"] == "customer-message")
    assert "customerFriendlyMessage" in check["message"]


def test_payload_set_grades_each_part(exercises):
    exercise = exercises["customer-lookup-payloads"]
    parts = {
        "transient": result({"errorCategory": "transient", "isRetryable": True, "retryAfterSeconds": 20,
                             "description": "The customer database did not answer within 5 s for CUST-00042; "
                                            "retry after 20 seconds.",
                             "customerFriendlyMessage": "Our systems are slow; one moment please."}),
        "validation": result({"errorCategory": "validation", "isRetryable": False, "field": "customer_id",
                              "received": "42", "expected": "CUST- followed by five digits",
                              "description": "customer_id '42' is not a customer id; ask the user for the CUST- id."}),
        "permission": result({"errorCategory": "permission", "isRetryable": False,
                              "description": "customer_lookup(CUST-00042) refused: the agent lacks customers:read. "
                                             "Request access.",
                              "customerFriendlyMessage": "I can't open customer records; a colleague will help."}),
        "business": result({"errorCategory": "business", "isRetryable": True, "retryAfterSeconds": 5,
                            "description": "CUST-00077 asked to be forgotten; do not show the record, escalate.",
                            "customerFriendlyMessage": "That record is no longer available to us."}),
    }
    outcome = grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(parts))
    failed = {c["id"] for c in outcome["checks"] if c["status"] == "fail"}
    assert failed == {"business/is-retryable", "business/retry-after", "empty/present"}
    assert outcome["status"] == "fail" and 0.8 < outcome["score"] < 1
