"""Exercise, submission, Playground and API-token pages, with and without htmx, and who may see what."""
import json

import pytest
from django.urls import reverse

from exercises.models import LiveCall, Submission, TrainingInstance

from .graders.payload_table import TABLE

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def immediate(settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def learner(client, django_user_model):
    user = django_user_model.objects.create_user("lena", password="a-long-password-1")
    client.force_login(user)
    return user


def test_exercise_list_shows_every_exercise_and_progress(client, exercises, immediate):
    client.post("/exercises/order-db-timeout/submit/", {"text": json.dumps(TABLE["order-db-timeout"][0][1])})
    page = client.get("/exercises/").content.decode()
    for exercise in exercises.values():
        assert exercise.title.replace('"', "&quot;") in page or exercise.title in page
    assert "100%" in page


def test_exercise_page_has_situation_editor_and_starter(client, exercises):
    page = client.get("/exercises/malformed-order-id/").content.decode()
    assert "order-abc" in page and 'class="code-input"' in page and "codemirror.js" in page
    assert "&quot;isError&quot;: true" in page  # the starter, escaped in the textarea


def test_submit_without_htmx_redirects_to_the_graded_result(client, exercises, immediate):
    response = client.post("/exercises/order-db-timeout/submit/", {"text": json.dumps(TABLE["order-db-timeout"][1][1])})
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == submission.get_absolute_url()
    page = client.get(response["Location"]).content.decode()
    assert "retryAfterSeconds says when" in page and "missing-retry-after" in page
    assert "Say when to retry" in page  # the exercise's hint for that misconception


def test_submit_with_htmx_returns_a_panel_that_polls_until_graded(client, exercises):
    response = client.post("/exercises/order-db-timeout/submit/", {"text": "{}"}, **HX)
    body = response.content.decode()
    submission = Submission.objects.get()
    assert submission.state == "queued" and 'hx-trigger="every 500ms"' in body and "Queued" in body
    from exercises.services import submission_grade

    submission_grade(submission_id=submission.pk)
    polled = client.get(f"/submissions/{submission.pk}/?poll=1", **HX)
    assert polled.status_code == 286  # htmx stops polling
    assert "every 500ms" not in polled.content.decode() and "Not yet" in polled.content.decode()
    assert "What you submitted" in client.get(f"/submissions/{submission.pk}/").content.decode()


def test_rejected_submission_keeps_the_text_and_says_why(client, exercises):
    huge = "x" * (70 * 1024)
    response = client.post("/exercises/order-db-timeout/submit/", {"text": huge})
    assert response.status_code == 422 and "the limit is 65536" in response.content.decode()
    assert huge in response.content.decode()  # nothing lost: the editor still holds it
    htmx = client.post("/exercises/order-db-timeout/submit/", {"text": huge}, **HX)
    assert htmx.status_code == 200 and "the limit is 65536" in htmx.content.decode()
    assert not Submission.objects.exists()


def test_someone_elses_submission_is_404(client, exercises, immediate):
    from django.test import Client

    client.post("/exercises/order-db-timeout/submit/", {"text": "{}"})
    submission = Submission.objects.get()
    stranger = Client()
    assert stranger.get(submission.get_absolute_url()).status_code == 404
    assert stranger.get(submission.get_absolute_url(), **HX).status_code == 404
    assert stranger.get(f"/exercises/order-db-timeout/?from={submission.pk}").status_code == 404


def test_anonymous_submissions_follow_the_learner_to_their_account(client, exercises, immediate, django_user_model):
    client.post("/exercises/order-db-timeout/submit/", {"text": "{}"})
    django_user_model.objects.create_user("newbie", password="a-long-password-1")
    client.post(reverse("accounts:login"), {"username": "newbie", "password": "a-long-password-1"})
    assert Submission.objects.get().user.username == "newbie"


def test_playground_needs_an_account(client, db):
    response = client.get("/playground/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.post("/playground/mode/", {"tool": "lookup_order", "mode": "timeout"}).status_code == 302


def test_playground_shows_the_learners_url_and_config(client, learner):
    page = client.get("/playground/").content.decode()
    from exercises.services import instance_token

    token = instance_token(TrainingInstance.objects.get(user=learner))
    assert f"/mcp/{token}/" in page and "claude mcp add --transport http" in page and "mcp-inspector" not in page
    assert "@modelcontextprotocol/inspector --cli" in page and "mcpServers" in page


def test_switching_a_failure_mode(client, learner):
    response = client.post("/playground/mode/", {"tool": "lookup_order", "mode": "rate_limit"}, **HX)
    assert response.status_code == 200 and 'value="rate_limit" selected' in response.content.decode()
    assert TrainingInstance.objects.get(user=learner).forced_modes == {"lookup_order": "rate_limit"}
    bad = client.post("/playground/mode/", {"tool": "lookup_order", "mode": "partial"}, **HX)
    assert bad.status_code == 422 and "not a failure mode" in bad.content.decode()
    client.post("/playground/mode/", {"tool": "lookup_order", "mode": "none"})
    assert TrainingInstance.objects.get(user=learner).forced_modes == {}


def test_live_calls_fragment_shows_only_my_calls_coloured_by_category(client, learner, django_user_model):
    from exercises.services import training_instance_for

    mine = training_instance_for(user=learner)
    other = training_instance_for(user=django_user_model.objects.create_user("otto", password="a-long-password-1"))
    LiveCall.objects.create(instance=mine, tool="lookup_order", arguments={"order_id": "ORD-10001"},
                            outcome="tool_error", category="transient",
                            structured_content={"description": "Slow database, retry in 5 s"})
    LiveCall.objects.create(instance=other, tool="secret_tool_of_otto", arguments={}, outcome="ok", category="ok")
    fragment = client.get("/playground/calls/", **HX).content.decode()
    assert "call-transient" in fragment and "Slow database" in fragment and "secret_tool_of_otto" not in fragment
    client.post("/playground/clear/", **HX)
    assert not LiveCall.objects.filter(instance=mine).exists() and LiveCall.objects.filter(instance=other).exists()


def test_rotating_the_token_invalidates_the_old_one(client, learner):
    from exercises.services import instance_token, instance_token_parse, training_instance_for
    from exercises.selectors import training_instance_by_salt

    old = instance_token(training_instance_for(user=learner))
    client.post("/playground/rotate/")
    assert training_instance_by_salt(salt=instance_token_parse(old).salt) is None


def test_api_token_is_shown_once_and_can_be_revoked(client, learner):
    page = client.post("/account/api-tokens/", {"name": "CI"}).content.decode()
    token = learner.api_tokens.get()
    assert "shown only once" in page and token.prefix in page
    assert "shown only once" not in client.get("/account/api-tokens/").content.decode()
    client.post(f"/account/api-tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_cannot_revoke_someone_elses_token(client, learner, django_user_model):
    from exercises.services import api_token_create

    other_token, _ = api_token_create(user=django_user_model.objects.create_user("o2", password="a-long-password-1"))
    client.post(f"/account/api-tokens/{other_token.pk}/revoke/")
    other_token.refresh_from_db()
    assert other_token.revoked_at is None



def test_a_running_code_submission_shows_which_scenario_is_being_graded(client, exercises, django_user_model):
    from exercises.models import Submission

    user = django_user_model.objects.create_user("runner", password="a-long-password-1")
    client.force_login(user)
    submission = Submission.objects.create(user=user, exercise=exercises["agent-loop"], exercise_version="x",
                                           text="", state=Submission.RUNNING,
                                           progress={"done": 3, "total": 10, "scenario": "validation-fixable"})
    fragment = client.get(f"/submissions/{submission.pk}/?poll=1", HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200 and b"<html" not in fragment.content
    text = fragment.content.decode()
    assert "Scenario 4 of 10" in text and "validation-fixable" in text and 'hx-trigger="every 500ms"' in text
    page = client.get(f"/submissions/{submission.pk}/")
    assert b"<html" in page.content and b"Scenario 4 of 10" in page.content


def test_a_running_server_submission_shows_which_probe_is_being_sent(client, exercises, django_user_model):
    from exercises.models import Submission

    user = django_user_model.objects.create_user("prober", password="a-long-password-1")
    client.force_login(user)
    submission = Submission.objects.create(user=user, exercise=exercises["customer-lookup-tool"],
                                           exercise_version="x", text="", state=Submission.RUNNING,
                                           progress={"done": 20, "total": 34, "scenario": "emoji-id (2025-11-25)"})
    text = client.get(f"/submissions/{submission.pk}/?poll=1", HTTP_HX_REQUEST="true").content.decode()
    assert "Probe 21 of 34" in text and "emoji-id (2025-11-25)" in text


def test_training_db_downloads_from_the_tool_exercise_only(client, exercises):
    download = client.get("/exercises/customer-lookup-tool/training_db.py")
    assert download.status_code == 200
    assert download["Content-Disposition"] == 'attachment; filename="training_db.py"'
    source = b"".join(download.streaming_content).decode()
    assert "def get_customer(customer_id, failure_mode=\"none\"):" in source and "class AccessDenied" in source
    assert client.get("/exercises/agent-loop/training_db.py").status_code == 404
    page = client.get("/exercises/customer-lookup-tool/").content.decode()
    assert 'href="/exercises/customer-lookup-tool/training_db.py"' in page


def test_the_downloaded_training_db_behaves_as_the_instructions_say(tmp_path, client, exercises):
    import importlib.util

    path = tmp_path / "training_db.py"
    path.write_bytes(b"".join(client.get("/exercises/customer-lookup-tool/training_db.py").streaming_content))
    spec = importlib.util.spec_from_file_location("downloaded_training_db", path)
    training_db = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(training_db)
    assert training_db.get_customer("CUST-00042")["name"] == "Ada Lindqvist"
    assert training_db.get_customer("CUST-99999") is None
    for mode, exception in [("timeout", training_db.DatabaseTimeout), ("permission", training_db.AccessDenied),
                            ("refund_limit", training_db.RefundPolicyViolation)]:
        with pytest.raises(exception) as raised:
            training_db.get_customer("CUST-00042", failure_mode=mode)
        assert ".internal:" in str(raised.value)  # the internal details a tool must keep out of its result
    with pytest.raises(ValueError, match="unknown failure_mode"):
        training_db.get_customer("CUST-00042", failure_mode="sometimes")
