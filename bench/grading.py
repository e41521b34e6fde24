"""Benchmark: how fast a learner gets code graded (an agent loop, an MCP server), and whether a burst loses anything.

Starts the real site (uvicorn) and two grading workers on a throwaway SQLite database, then measures in the
same run:
  - the median time of a cold `python -c "import mcp"` with the sandbox's runtime (the baseline: what every
    submission would pay without the pool of warm sandboxes);
  - the median submit-to-graded time of a correct agent loop through the JSON API (POST, then GET until graded),
    one submission at a time with a pause between them, as learners submit;
  - their ratio (target: 0.5 or less);
  - the same for a correct MCP server (customer-lookup-tool): two sandboxes, two protocol eras, 34 probes;
  - a burst of 40 submissions posted at once: the time until all are graded, and how many were lost
    (target: none, within 60 s on 2 cores).
Run with `make bench`.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
RUNTIME_PYTHON = ROOT / "var" / "sandbox-runtime" / "bin" / "python"
SOLUTIONS = ROOT / "exercises" / "content" / "solutions"
REFERENCES = {slug: (SOLUTIONS / f"{slug}.py").read_text() for slug in ("agent-loop", "customer-lookup-tool")}
COLD_IMPORTS = 7
SEQUENTIAL = 9
PAUSE_BETWEEN_SUBMISSIONS = 1.5  # seconds: a learner reads the result before submitting again
BURST = 40
BURST_DEADLINE = 120
WORKERS = 2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Site:
    def __init__(self):
        self.var = tempfile.mkdtemp(prefix="bench-grading-")
        self.env = {**os.environ, "TRAINER_VAR_DIR": self.var, "DATABASE_URL": f"sqlite:///{self.var}/db.sqlite3",
                    "API_SUBMISSIONS_PER_MINUTE": "10000", "DJANGO_DEBUG": "1"}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen] = []

    def manage(self, *args: str) -> str:
        return subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def start(self) -> None:
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("sync_content")
        self.token = self.manage("api_token", "bench").strip().splitlines()[-1]
        log = open(Path(self.var) / "processes.log", "w")
        self.processes.append(subprocess.Popen(
            [PYTHON, "-m", "uvicorn", "trainer.asgi:application", "--port", str(self.port), "--lifespan", "on",
             "--no-access-log", "--log-level", "warning"], cwd=ROOT, env=self.env, stdout=log, stderr=log))
        for index in range(WORKERS):
            self.processes.append(subprocess.Popen(
                [PYTHON, "manage.py", "grading_worker", "--queue-name", "default", "--interval", "0.05",
                 "--no-startup-delay", "--worker-id", f"bench-{index}"], cwd=ROOT, env=self.env, stdout=log,
                stderr=log))
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.base + "/api/v1/exercises", timeout=2)
                break
            except urllib.error.HTTPError:
                break  # the site answers (401 without a token): it is up
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def submit(self, exercise: str = "agent-loop") -> int | None:
        status, body = self.request("POST", "/api/v1/submissions",
                                    {"exercise": exercise, "submission": REFERENCES[exercise]})
        return body["id"] if status == 202 else None

    def graded(self, submission_id: int) -> dict | None:
        status, body = self.request("GET", f"/api/v1/submissions/{submission_id}")
        return body if status == 200 and body.get("status") == "graded" else None

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def cold_import_seconds() -> float:
    samples = []
    for _ in range(COLD_IMPORTS):
        start = time.perf_counter()
        subprocess.run([str(RUNTIME_PYTHON), "-c", "import mcp"], check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def submit_to_graded_seconds(site: Site, exercise: str = "agent-loop") -> tuple[float, list[str]]:
    samples, statuses = [], []
    for _ in range(SEQUENTIAL):
        time.sleep(PAUSE_BETWEEN_SUBMISSIONS)
        start = time.perf_counter()
        submission_id = site.submit(exercise)
        while (result := site.graded(submission_id)) is None:
            if time.perf_counter() - start > BURST_DEADLINE:
                sys.exit(f"submission {submission_id} was not graded within {BURST_DEADLINE} s: are the grading "
                         f"workers running? See {site.var}/processes.log")
            time.sleep(0.01)
        samples.append(time.perf_counter() - start)
        statuses.append(result["result"]["status"])
    return statistics.median(samples), statuses


def burst(site: Site) -> tuple[float, int, int, int]:
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=BURST) as pool:
        ids = list(pool.map(lambda _: site.submit(), range(BURST)))
    accepted = [i for i in ids if i is not None]
    pending = set(accepted)
    passed = 0
    while pending and time.perf_counter() - start < BURST_DEADLINE:
        for submission_id in list(pending):
            if (result := site.graded(submission_id)) is not None:
                pending.discard(submission_id)
                passed += result["result"]["status"] == "pass"
        time.sleep(0.05)
    return time.perf_counter() - start, BURST - len(accepted) + len(pending), len(accepted), passed


def main() -> None:
    if not RUNTIME_PYTHON.exists():
        sys.exit(f"The sandbox runtime is missing ({RUNTIME_PYTHON}): run `make setup` first.")
    site = Site()
    try:
        site.start()
        site.submit()  # the first grading of each worker warms its database connection
        time.sleep(3)
        baseline = cold_import_seconds()
        median, statuses = submit_to_graded_seconds(site)
        print(f"cold `python -c \"import mcp\"` (baseline, median of {COLD_IMPORTS}): {baseline * 1000:7.0f} ms")
        print(f"agent loop submit-to-graded via the API (median of {SEQUENTIAL}): {median * 1000:7.0f} ms  "
              f"(all {statuses.count('pass')}/{len(statuses)} passed)")
        print(f"ratio submit-to-graded / cold import: {median / baseline:.2f}  (target 0.5 or less)")
        server_median, server_statuses = submit_to_graded_seconds(site, "customer-lookup-tool")
        print(f"MCP server submit-to-graded via the API (median of {SEQUENTIAL}): {server_median * 1000:7.0f} ms  "
              f"(all {server_statuses.count('pass')}/{len(server_statuses)} passed; "
              f"ratio to cold import {server_median / baseline:.2f})")
        drained, lost, accepted, passed = burst(site)
        print(f"burst of {BURST} at once, {WORKERS} workers: {accepted} accepted, all graded after {drained:.1f} s, "
              f"lost {lost}, passed {passed}  (target: none lost, within 60 s)")
    finally:
        site.stop()


if __name__ == "__main__":
    main()
