"""The JSON API: auth, 202 and polling, idempotency, limits, every error in the project's convention."""
import json

import pytest
from django.core.management import call_command
from django.test import Client

from exercises.models import Submission
from exercises.services import api_token_create, api_token_revoke

from .graders.payload_table import TABLE

GOOD_TIMEOUT = json.dumps(TABLE["order-db-timeout"][0][1])


@pytest.fixture
def api_user(django_user_model):
    return django_user_model.objects.create_user("ci", password="not-used-here-123")


@pytest.fixture
def api(exercises, api_user, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    _, raw = api_token_create(user=api_user)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def _post(client, body, **headers):
    return client.post("/api/v1/submissions", data=json.dumps(body) if not isinstance(body, str) else body,
                       content_type="application/json", **headers)


def _assert_convention(response, status, category):
    assert response.status_code == status
    body = response.json()
    assert body["errorCategory"] == category and isinstance(body["isRetryable"], bool)
    assert len(body["description"]) > 15 and "Traceback" not in response.content.decode()
    return body


def test_submit_then_poll_returns_the_result_object(api):
    response = _post(api, {"exercise": "order-db-timeout", "submission": GOOD_TIMEOUT})
    assert response.status_code == 202
    accepted = response.json()
    assert accepted["status"] == "queued" and accepted["url"].endswith(f"/api/v1/submissions/{accepted['id']}")
    polled = api.get(f"/api/v1/submissions/{accepted['id']}").json()
    assert polled["status"] == "graded" and polled["result"]["status"] == "pass" and polled["result"]["score"] == 1
    assert Submission.objects.get(pk=accepted["id"]).source == "api"


def test_submission_is_stored_before_the_answer_and_queued(exercises, api_user, settings):
    """With the real database queue and no worker, the 202 comes back with the row and its job stored."""
    from django_tasks_db.models import DBTaskResult

    _, raw = api_token_create(user=api_user)
    response = _post(Client(HTTP_AUTHORIZATION=f"Bearer {raw}"),
                     {"exercise": "order-db-timeout", "submission": GOOD_TIMEOUT})
    assert response.status_code == 202
    assert Submission.objects.get(pk=response.json()["id"]).state == "queued"
    assert DBTaskResult.objects.filter(args_kwargs__args=[response.json()["id"]]).count() == 1


@pytest.mark.parametrize("header", [None, "Bearer nope", "Token abc", "Bearer "])
def test_missing_or_bad_token_is_401(exercises, header):
    client = Client(HTTP_AUTHORIZATION=header) if header else Client()
    response = _post(client, {"exercise": "order-db-timeout", "submission": "{}"})
    body = _assert_convention(response, 401, "permission")
    assert "api_token" in body["description"]
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_revoked_token_is_refused(exercises, api_user):
    token, raw = api_token_create(user=api_user)
    api_token_revoke(user=api_user, token_id=token.pk)
    _assert_convention(Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/v1/exercises"), 401, "permission")


def test_another_users_submission_is_404(api, django_user_model, exercises):
    accepted = _post(api, {"exercise": "order-db-timeout", "submission": GOOD_TIMEOUT}).json()
    other = django_user_model.objects.create_user("other", password="not-used-here-123")
    _, raw = api_token_create(user=other)
    _assert_convention(Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get(f"/api/v1/submissions/{accepted['id']}"),
                       404, "validation")
    _assert_convention(api.get("/api/v1/submissions/999999"), 404, "validation")


@pytest.mark.parametrize("body,words", [
    ("{not json", "not valid JSON"),
    ({"exercise": "order-db-timeout"}, "submission"),
    ({"submission": "{}"}, "exercise"),
    ({"exercise": "order-db-timeout", "submission": 42}, "submission"),
    ({"exercise": "order-db-timeout", "submission": "a\u0000b"}, "NUL"),
    ([1, 2], "body"),
])
def test_invalid_requests_say_what_to_fix(api, body, words):
    response = _post(api, body)
    assert response.status_code in (400, 422)
    assert words in _assert_convention(response, response.status_code, "validation")["description"]
    assert not Submission.objects.exists()


def test_unknown_exercise_is_404_and_lists_the_known_ones(api):
    response = _post(api, {"exercise": "no-such-exercise", "submission": "{}"})
    assert "order-db-timeout" in _assert_convention(response, 404, "validation")["description"]


def test_oversized_body_is_413_and_nothing_is_stored(api):
    huge = {"exercise": "order-db-timeout", "submission": "x" * (300 * 1024)}
    _assert_convention(_post(api, huge), 413, "validation")
    big_submission = {"exercise": "order-db-timeout", "submission": "x" * (65 * 1024)}
    _assert_convention(_post(api, big_submission), 413, "validation")
    assert not Submission.objects.exists()


def test_idempotency_key_returns_the_same_submission(api):
    body = {"exercise": "order-db-timeout", "submission": GOOD_TIMEOUT}
    first = _post(api, body, HTTP_IDEMPOTENCY_KEY="build-42").json()
    again = _post(api, body, HTTP_IDEMPOTENCY_KEY="build-42").json()
    assert first["id"] == again["id"] and Submission.objects.count() == 1
    conflict = _post(api, {**body, "submission": "{}"}, HTTP_IDEMPOTENCY_KEY="build-42")
    assert "Idempotency-Key" in _assert_convention(conflict, 422, "validation")["description"]
    assert Submission.objects.count() == 1


def test_rate_limit_is_429_with_retry_after_per_user(api, settings, django_user_model):
    settings.API_SUBMISSIONS_PER_MINUTE = 2
    body = {"exercise": "order-db-timeout", "submission": GOOD_TIMEOUT}
    assert [_post(api, body).status_code for _ in range(2)] == [202, 202]
    limited = _post(api, body)
    error = _assert_convention(limited, 429, "transient")
    assert error["isRetryable"] is True and int(limited["Retry-After"]) == error["retryAfterSeconds"] >= 1
    other = django_user_model.objects.create_user("other", password="not-used-here-123")
    _, raw = api_token_create(user=other)
    assert _post(Client(HTTP_AUTHORIZATION=f"Bearer {raw}"), body).status_code == 202


def test_database_failure_is_503_with_retry_after(api, monkeypatch):
    from django.db.utils import OperationalError

    from exercises import services

    def locked(**kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "submission_create", locked)
    response = _post(api, {"exercise": "order-db-timeout", "submission": GOOD_TIMEOUT})
    error = _assert_convention(response, 503, "transient")
    assert response["Retry-After"] == str(error["retryAfterSeconds"])


def test_openapi_describes_the_endpoints(client):
    spec = client.get("/api/v1/openapi.json").json()
    assert {"/api/v1/submissions", "/api/v1/submissions/{submission_id}"} <= set(spec["paths"])
    assert {"202", "401", "413", "422", "429", "503"} <= set(spec["paths"]["/api/v1/submissions"]["post"]["responses"])


def test_web_cli_and_api_give_the_same_result_object(api, exercises, tmp_path, capsys):
    from exercises.services import exercise_grade_text

    payload = json.dumps(TABLE["refund-over-limit"][1][1])
    accepted = _post(api, {"exercise": "refund-over-limit", "submission": payload}).json()
    via_api = api.get(f"/api/v1/submissions/{accepted['id']}").json()["result"]
    path = tmp_path / "answer.json"
    path.write_text(payload)
    with pytest.raises(SystemExit):
        call_command("grade", "refund-over-limit", str(path), "--json")
    via_cli = json.loads(capsys.readouterr().out)
    web = Client()
    web.post("/exercises/refund-over-limit/submit/", {"text": payload})
    via_web = Submission.objects.filter(source="web").get().result
    assert via_api == via_cli == via_web == exercise_grade_text(exercise=exercises["refund-over-limit"], text=payload)


@pytest.mark.sandbox
def test_an_agent_loop_graded_through_the_api_carries_scenarios_traces_and_outcomes(api):
    from tests.exercises.agent_loops import MISTAKES

    source, failing, misconception = MISTAKES["empty-result-as-failure"]
    accepted = _post(api, {"exercise": "agent-loop", "submission": source}).json()
    result = api.get(f"/api/v1/submissions/{accepted['id']}").json()["result"]
    assert result["status"] == "fail" and len(result["scenarios"]) == 10
    not_found = next(s for s in result["scenarios"] if s["id"] == "customer-not-found")
    assert not_found["status"] == "fail" and not_found["outcome"]["action"] == "report_failure"
    assert [(e["tool"], e["category"], e["at"]) for e in not_found["trace"]] == [("lookup_customer", "empty", 0.0)]
    assert misconception in {c["misconception"] for c in not_found["checks"]}


@pytest.mark.sandbox
def test_a_tool_server_graded_through_the_api_carries_each_probe_and_what_came_back(api):
    from tests.exercises.tool_servers import MISTAKES

    source = MISTAKES["reports an unknown customer as an error"][0]
    accepted = _post(api, {"exercise": "customer-lookup-tool", "submission": source}).json()
    result = api.get(f"/api/v1/submissions/{accepted['id']}").json()["result"]
    assert result["status"] == "fail" and len(result["scenarios"]) == 18
    not_found = next(s for s in result["scenarios"] if s["id"] == "not-found")
    assert not_found["status"] == "fail" and not_found["eras"] == {"2026-07-28": "fail", "2025-11-25": "fail"}
    assert [e["response"]["result"]["isError"] for e in not_found["trace"]] == [True, True]
    assert "empty-result-as-error" in {c["misconception"] for c in not_found["checks"]}


def test_a_running_code_submission_reports_its_progress(api, api_user, exercises):
    submission = Submission.objects.create(user=api_user, exercise=exercises["agent-loop"], exercise_version="x",
                                           text="", state=Submission.RUNNING,
                                           progress={"done": 3, "total": 10, "scenario": "validation-fixable"})
    body = api.get(f"/api/v1/submissions/{submission.pk}").json()
    assert body["status"] == "running" and body["progress"] == {"done": 3, "total": 10, "scenario": "validation-fixable"}
