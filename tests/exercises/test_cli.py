"""`manage.py grade` exit codes and output, and `manage.py api_token`, run as real subprocesses."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from .graders.payload_table import TABLE

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def grade(*args, stdin=None):
    return subprocess.run([sys.executable, "manage.py", "grade", *args], cwd=ROOT, capture_output=True, text=True,
                          input=stdin, timeout=60)


@pytest.fixture
def answer(tmp_path):
    def write(payload, name="answer.json"):
        path = tmp_path / name
        path.write_text(payload if isinstance(payload, str) else json.dumps(payload))
        return str(path)
    return write


def test_pass_exits_0_with_a_summary(answer):
    run = grade("order-db-timeout", answer(TABLE["order-db-timeout"][0][1]))
    assert run.returncode == 0 and "PASS  score 100%" in run.stdout.replace("order-db-timeout: ", "")


def test_fail_exits_1_and_json_is_the_result_object(answer):
    run = grade("order-db-timeout", answer(TABLE["order-db-timeout"][1][1]), "--json")
    result = json.loads(run.stdout)
    assert run.returncode == 1 and result["status"] == "fail"
    assert [c["id"] for c in result["checks"] if c["status"] == "fail"] == ["retry-after"]


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", ""])
def test_ungradable_submission_exits_2(answer, content):
    run = grade("order-db-timeout", answer(content), "--json")
    result = json.loads(run.stdout)
    assert run.returncode == 2 and result["status"] == "error" and result["error"]["errorCategory"] == "validation"


def test_missing_file_and_binary_file_exit_2(tmp_path):
    assert grade("order-db-timeout", str(tmp_path / "nope.json")).returncode == 2
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    run = grade("order-db-timeout", str(binary))
    assert run.returncode == 2 and "UTF-8" in run.stdout


def test_unknown_exercise_exits_3_and_lists_the_known_ones(answer):
    run = grade("no-such-exercise", answer("{}"), "--json")
    assert run.returncode == 3 and "order-db-timeout" in json.loads(run.stdout)["error"]["description"]


def test_standard_input_is_read_with_a_dash():
    run = grade("customer-not-found", "-", stdin=json.dumps(TABLE["customer-not-found"][0][1]))
    assert run.returncode == 0


def test_api_token_prints_a_working_token(transactional_db, django_user_model):
    from exercises.services import api_token_authenticate

    # In-process (the subprocess would not see the test database).
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("api_token", "pipeline-bot", stdout=out, stderr=StringIO())
    token = out.getvalue().strip()
    assert token.startswith("rw_") and api_token_authenticate(raw=token).username == "pipeline-bot"
    call_command("api_token", "pipeline-bot", stdout=StringIO(), stderr=StringIO())
    assert django_user_model.objects.filter(username="pipeline-bot").count() == 1


@pytest.mark.sandbox
def test_a_tool_server_is_graded_from_the_command_line(tmp_path):
    from django.conf import settings

    from tests.exercises.tool_servers import MISTAKES

    reference = Path(settings.EXERCISE_CONTENT_DIR) / "solutions" / "customer-lookup-tool.py"
    assert grade("customer-lookup-tool", str(reference)).returncode == 0
    leaky = tmp_path / "server.py"
    leaky.write_text(MISTAKES["leaks the database's message"][0])
    run = grade("customer-lookup-tool", str(leaky), "--json")
    result = json.loads(run.stdout)
    assert run.returncode == 1 and [s["id"] for s in result["scenarios"] if s["status"] == "fail"] == ["timeout"]
    missing = tmp_path / "empty_server.py"
    missing.write_text("import training_db\n")
    run = grade("customer-lookup-tool", str(missing))
    assert run.returncode == 2 and "does not define `server`" in run.stdout
