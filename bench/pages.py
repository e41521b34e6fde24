"""Benchmark: how much dearer the heavy learner pages are than a trivial page, measured in the same run.

Prints each page's median render time as a ratio to the baseline (the 404 page, which renders the base
layout and nothing else), so a noisy machine does not distort the comparison. Run with `make bench`.
"""
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "trainer.settings")
os.environ["TRAINER_VAR_DIR"] = tempfile.mkdtemp(prefix="bench-")  # a throwaway database

import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

REPEATS = 40


def median_seconds(client: Client, path: str, expected_status: int) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        response = client.get(path)
        samples.append(time.perf_counter() - start)
        assert response.status_code == expected_status, (path, response.status_code)
    return statistics.median(samples)


def main() -> None:
    logging.getLogger("django.request").setLevel(logging.ERROR)  # the baseline is a 404 on purpose
    setup_test_environment()
    call_command("migrate", verbosity=0)
    call_command("sync_content", verbosity=0)
    client = Client()
    client.get("/")  # warm up templates and the session
    baseline = median_seconds(client, "/no-such-page/", 404)
    print(f"baseline (404 page): median {baseline * 1000:.2f} ms over {REPEATS} requests")
    for label, path in [("home", "/"), ("lesson with 16 questions", "/lessons/four-error-categories/"),
                        ("question bank (all)", "/questions/"), ("dashboard", "/dashboard/"),
                        ("exam start page", "/exam/")]:
        ratio = median_seconds(client, path, 200) / baseline
        print(f"{label:28s} {ratio:6.2f}x baseline")


if __name__ == "__main__":
    main()
