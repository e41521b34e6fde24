"""Hostile and broken submissions: always a clear result object, never an exception."""
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from exercises.graders import grade
from exercises.graders.parsing import MAX_JSON_DEPTH, MAX_SUBMISSION_BYTES

NAUGHTY = [
    "", " ", "null", "true", "0", "-1e999", "1e999", "[]", "\"a string\"", "{", "}", "{]", "[1,2", "{\"a\":}",
    "NaN", "{\"x\": NaN}", "{\"x\": Infinity}", "{\"x\": -Infinity}", "{'single': 'quotes'}", "{\"a\":1,}",
    "\ufeff{}", "{\"content\": []}\n{\"content\": []}", "\x00", "{\"a\": \"\\u0000\"}", "{\"a\": \"\\ud800\"}",
    "{\"a\": 1" + "0" * 5000 + "}", "[" * 100000, "{\"a\":" * 5000 + "1" + "}" * 5000,
    "<script>alert(1)</script>", "'; DROP TABLE submissions; --", "{{7*7}}", "${jndi:ldap://x}",
    "\u202e{}\u202d", "🙂" * 1000, "{\"content\": [{\"type\": \"text\", \"text\": \"" + "A" * 60000 + "\"}]}",
    json.dumps({"content": [{"type": "text", "text": "x"}], "isError": True, "structuredContent": [[[[1]]]]}),
    json.dumps({"content": [None, 1, "x", {"type": None}], "isError": None, "structuredContent": None}),
    json.dumps({"content": [{"type": "text", "text": "x"}], "structuredContent": {"errorCategory": {"a": 1},
                "isRetryable": [], "retryAfterSeconds": "soon", "description": 5, "customerFriendlyMessage": []}}),
]

SLUGS = ["order-db-timeout", "malformed-order-id", "financial-records-denied", "refund-over-limit",
         "customer-not-found", "customer-lookup-payloads"]


def _assert_well_formed(outcome):
    assert outcome["status"] in {"pass", "fail", "error"}
    assert 0 <= outcome["score"] <= 1
    if outcome["status"] == "error":
        error = outcome["error"]
        assert error["errorCategory"] == "validation" and error["isRetryable"] is False
        assert len(error["description"]) > 20
    json.dumps(outcome)  # always serialisable for the API


@pytest.mark.parametrize("text", NAUGHTY, ids=range(len(NAUGHTY)))
@pytest.mark.parametrize("slug", SLUGS)
def test_naughty_text_gets_a_result_object(exercises, slug, text):
    exercise = exercises[slug]
    _assert_well_formed(grade(slug=slug, kind=exercise.kind, rubric=exercise.rubric, text=text))


@pytest.mark.parametrize("text,words", [
    ("[1, 2]", "an array"), ("{\"a\": NaN}", "NaN"), ("{\"a\": 1,}", "line 1"),
    ("[" * (MAX_JSON_DEPTH + 1), "nested"), (" " * (MAX_SUBMISSION_BYTES + 1), "limit"), ("", "empty"),
])
def test_error_says_what_to_change(exercises, text, words):
    exercise = exercises["order-db-timeout"]
    outcome = grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=text)
    assert outcome["status"] == "error" and words in outcome["error"]["description"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=20), children, max_size=5),
    max_leaves=40,
)
payloadish = st.fixed_dictionaries({}, optional={
    "content": st.lists(st.fixed_dictionaries({"type": st.sampled_from(["text", "image", "x"]), "text": json_values}),
                        max_size=3) | json_values,
    "isError": json_values, "structuredContent": st.dictionaries(
        st.sampled_from(["errorCategory", "isRetryable", "retryAfterSeconds", "description",
                         "customerFriendlyMessage", "field", "received", "found", "resultCount"]), json_values)
    | json_values,
})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=payloadish | json_values)
def test_generated_json_always_grades(exercises, value):
    for slug in ("order-db-timeout", "customer-not-found", "customer-lookup-payloads"):
        exercise = exercises[slug]
        _assert_well_formed(grade(slug=slug, kind=exercise.kind, rubric=exercise.rubric, text=json.dumps(value)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text())
def test_generated_text_always_grades(exercises, text):
    exercise = exercises["malformed-order-id"]
    _assert_well_formed(grade(slug=exercise.slug, kind=exercise.kind, rubric=exercise.rubric, text=text))
