"""Helpers shared by tests."""
from concurrent.futures import ThreadPoolExecutor

import anyio


def run_async(function, *args):
    """Run an async function to completion in a fresh thread.

    Playwright's sync API keeps an event loop running in the main thread for the rest of the session, so a
    plain `anyio.run` there fails with "Already running asyncio in this thread" once a browser test has run.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, function, *args).result()
