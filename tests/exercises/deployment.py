"""A throwaway deployment for the worker tests: its own database (SQLite file or a fresh PostgreSQL database),
migrated and synced by the real management commands, with real `grading_worker` processes."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.conf import settings

MANAGE = str(Path(settings.BASE_DIR) / "manage.py")
POSTGRES_ADMIN_URL = "postgresql://root@127.0.0.1:5432/postgres"

CREATE_SUBMISSIONS = """
import json, sys
from django.contrib.auth import get_user_model
from exercises.models import Exercise
from exercises.services import submission_create
from lessons.services import Learner
user, _ = get_user_model().objects.get_or_create(username="ci")
ids = []
for slug, text in json.loads(sys.stdin.read()):
    submission, _ = submission_create(learner=Learner(user=user, learner_key=""), exercise=Exercise.objects.get(slug=slug),
                                      text=text, source="cli")
    ids.append(submission.pk)
print(json.dumps(ids))
"""


class Deployment:
    def __init__(self, tmp_path: Path, database_url: str | None = None):
        self.tmp_path = tmp_path
        self.database_url = database_url or f"sqlite:///{tmp_path / 'db.sqlite3'}"
        self.env = {**os.environ, "DATABASE_URL": self.database_url, "TRAINER_VAR_DIR": str(tmp_path / "var"),
                    "SANDBOX_POOL_SIZE": "1", "PYTHONUNBUFFERED": "1"}
        self.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        self.workers: dict[str, subprocess.Popen] = {}

    def manage(self, *args: str, stdin: str | None = None) -> str:
        done = subprocess.run([sys.executable, MANAGE, *args], env=self.env, input=stdin, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def prepare(self) -> "Deployment":
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("sync_content")
        return self

    def submit(self, items: list[tuple[str, str]]) -> list[int]:
        return json.loads(self.manage("shell", "-c", CREATE_SUBMISSIONS, stdin=json.dumps(items)).strip().splitlines()[-1])

    def start_worker(self, worker_id: str, **env: str) -> subprocess.Popen:
        log = open(self.tmp_path / f"{worker_id}.log", "w")
        worker = subprocess.Popen(
            [sys.executable, MANAGE, "grading_worker", "--queue-name", "default", "--interval", "0.05",
             "--worker-id", worker_id, "--no-startup-delay"],
            env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT)
        self.workers[worker_id] = worker
        return worker

    def log(self, worker_id: str) -> str:
        return (self.tmp_path / f"{worker_id}.log").read_text()

    def query(self, sql: str) -> list[tuple]:
        if self.database_url.startswith("sqlite"):
            with sqlite3.connect(self.database_url.removeprefix("sqlite:///"), timeout=20) as connection:
                return connection.execute(sql).fetchall()
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as connection:
            return connection.execute(sql).fetchall()

    def submissions(self) -> dict[int, dict]:
        rows = self.query("SELECT id, state, grading_runs, status, task_id FROM exercises_submission")
        return {r[0]: {"state": r[1], "grading_runs": r[2], "status": r[3], "task_id": r[4]} for r in rows}

    def jobs(self) -> list[dict]:
        rows = self.query("SELECT id, status, args_kwargs, worker_ids, exception_class_path "
                          "FROM django_tasks_database_dbtaskresult")
        jobs = []
        for job_id, status, args_kwargs, worker_ids, exception in rows:
            args_kwargs = json.loads(args_kwargs) if isinstance(args_kwargs, str) else args_kwargs
            worker_ids = json.loads(worker_ids) if isinstance(worker_ids, str) else worker_ids
            jobs.append({"id": str(job_id), "status": status, "submission": args_kwargs["args"][0],
                         "workers": worker_ids, "exception": exception})
        return jobs

    def wait_until(self, condition, *, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if value := condition():
                return value
            time.sleep(0.1)
        logs = "\n".join(f"--- {worker_id}\n{self.log(worker_id)[-2000:]}" for worker_id in self.workers)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}\n{logs}")

    def stop(self) -> None:
        for worker in self.workers.values():
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in self.workers.values():
            try:
                worker.wait(timeout=15)
            except subprocess.TimeoutExpired:
                worker.kill()


def postgres_database() -> str | None:
    """A fresh, empty PostgreSQL database on 127.0.0.1:5432, or None when no server answers there."""
    import psycopg

    name = f"trainer_scaleout_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError:
        return None
    return f"postgresql://root@127.0.0.1:5432/{name}"


def postgres_drop(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
