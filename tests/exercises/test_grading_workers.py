"""Nothing is lost: a worker killed mid-grade is recovered by the sweeper, and several workers against one
PostgreSQL grade every submission exactly once. Real `grading_worker` processes, real databases, real sandboxes."""
import os
import signal
import subprocess
import warnings

import pytest

from tests.exercises.agent_loops import REFERENCE
from tests.exercises.deployment import Deployment, postgres_database, postgres_drop
from tests.exercises.graders.payload_table import TABLE

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

# Busy for about a second of real time in the first scenario (waits are virtual, so this is how a test makes a
# grading take long enough to kill its worker in the middle of it).
SLOW_LOOP = REFERENCE.replace(
    '    tool, arguments = request["tool"], dict(request["arguments"])',
    '    import time\n'
    '    if request["goal"].startswith("Tell the customer") and request["arguments"] == {"order_id": "ORD-10001"}:\n'
    '        started = time.monotonic()\n'
    '        while time.monotonic() - started < 1.2:\n'
    '            pass\n'
    '    tool, arguments = request["tool"], dict(request["arguments"])')


@pytest.fixture
def deployment(tmp_path):
    deployment = Deployment(tmp_path).prepare()
    yield deployment
    deployment.stop()


def test_a_worker_killed_mid_grade_is_recovered_and_the_submission_graded_once(deployment):
    [submission_id] = deployment.submit([("agent-loop", SLOW_LOOP)])
    first = deployment.start_worker("worker-a")
    deployment.wait_until(lambda: deployment.submissions()[submission_id]["state"] == "running", timeout=60,
                          what="worker-a to start grading")
    sandboxes = subprocess.run(["pgrep", "-P", str(first.pid)], capture_output=True, text=True).stdout.split()
    first.send_signal(signal.SIGKILL)
    first.wait()
    [lost_job] = deployment.jobs()
    assert lost_job["status"] == "RUNNING"  # django-tasks-db would leave it like this for ever
    deployment.wait_until(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in sandboxes), timeout=10,
                          what="the killed worker's sandboxes to die with it")

    deployment.start_worker("worker-b", GRADING_STALE_AFTER_SECONDS="6", GRADING_SWEEP_INTERVAL_SECONDS="0.5")
    graded = deployment.wait_until(lambda: (s := deployment.submissions()[submission_id])["state"] == "graded" and s,
                                   timeout=90, what="the sweeper and worker-b to re-grade the submission")
    assert graded["grading_runs"] == 2 and graded["status"] in ("pass", "fail")
    jobs = {job["id"]: job for job in deployment.jobs()}
    assert jobs[lost_job["id"]]["status"] == "FAILED" and jobs[lost_job["id"]]["exception"].endswith("WorkerLost")
    assert [job["status"] for job in jobs.values() if job["id"] != lost_job["id"]] == ["SUCCESSFUL"]
    assert graded["task_id"] != lost_job["id"]
    assert "grading sweep" in deployment.log("worker-b")


@pytest.mark.postgres
def test_two_workers_on_postgresql_grade_every_submission_exactly_once(tmp_path):
    url = postgres_database()
    if url is None:
        message = "NO POSTGRESQL ON 127.0.0.1:5432: the scale-out test did not run"
        warnings.warn(message)
        pytest.skip(message)
    deployment = Deployment(tmp_path, url)
    try:
        deployment.prepare()
        payload = TABLE["order-db-timeout"][0][1]
        import json

        ids = deployment.submit([("agent-loop", REFERENCE)] * 6 + [("order-db-timeout", json.dumps(payload))] * 10)
        for name in ("pg-worker-1", "pg-worker-2"):
            deployment.start_worker(name)
        deployment.wait_until(lambda: all(s["state"] == "graded" for s in deployment.submissions().values()),
                              timeout=120, what="two workers to grade 16 submissions")
        submissions = deployment.submissions()
        assert sorted(submissions) == sorted(ids)
        assert all(s["grading_runs"] == 1 and s["status"] == "pass" for s in submissions.values()), submissions
        jobs = deployment.jobs()
        assert sorted(job["submission"] for job in jobs) == sorted(ids)  # one job per submission, none repeated
        assert all(job["status"] == "SUCCESSFUL" and len(job["workers"]) == 1 for job in jobs)
        assert {job["workers"][0] for job in jobs} == {"pg-worker-1", "pg-worker-2"}  # both took a share
    finally:
        deployment.stop()
        postgres_drop(url)
