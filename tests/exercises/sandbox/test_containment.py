"""Hostile learner code is contained: each test submits an agent loop that attacks the sandbox from inside and
reports what it managed, then checks the host. These run the real bubblewrap sandbox, as root in CI and as an
ordinary user on a laptop."""
import os
import socket
import subprocess
import textwrap
import threading
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from exercises.graders import grade

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def attack(body: str) -> dict:
    """Run `body` (which fills the dict `report`) inside handle; returns the first scenario's outcome data."""
    source = "import os, sys, socket, time, subprocess\n\nasync def handle(session, request):\n    report = {}\n" + \
        textwrap.indent(textwrap.dedent(body), "    ") + "\n    return {'action': 'answer', 'data': report}\n"
    result = grade(slug="agent-loop", kind="agent-loop", rubric={}, text=source)
    assert result["status"] != "error", result["error"]
    first = result["scenarios"][0]
    return {"data": (first["outcome"] or {}).get("data"), "scenario": first, "result": result}


def test_no_network_not_even_the_hosts_loopback():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    accepted = []
    listener.settimeout(3)
    waiter = threading.Thread(target=lambda: accepted.append(_accept(listener)))
    waiter.start()
    outcome = attack(f"""
        for host, port in (("127.0.0.1", {port}), ("1.1.1.1", 80), ("pypi.org", 443)):
            try:
                socket.create_connection((host, port), timeout=2).close()
                report[host] = "connected"
            except OSError as error:
                report[host] = type(error).__name__ + ": " + str(error)
        report["interfaces"] = sorted(name for _, name in socket.if_nameindex())
    """)
    waiter.join()
    listener.close()
    data = outcome["data"]
    assert not any(value == "connected" for value in data.values()), data
    assert data["interfaces"] == ["lo"]  # a network namespace of its own, with only its own loopback
    assert accepted == [None], "the host's listener saw a connection from the sandbox"


def _accept(listener):
    try:
        connection, _ = listener.accept()
        connection.close()
        return "accepted"
    except OSError:
        return None


def test_host_files_are_invisible_and_only_the_runtime_is_mounted():
    secret = Path(settings.VAR_DIR) / "secret_key"
    outcome = attack(f"""
        report["root"] = sorted(os.listdir("/"))
        for path in ("/etc/passwd", "/etc/shadow", {str(secret)!r}, {str(settings.BASE_DIR / "trainer" / "settings.py")!r},
                     "/root"):
            try:
                with open(path) as file:
                    report[path] = "read: " + file.read(40)
            except OSError as error:
                report[path] = type(error).__name__
        report["uid"] = os.getuid()
        report["environ"] = sorted(os.environ)
        report["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        report["init_environ"] = open("/proc/1/environ").read()
    """)
    data = outcome["data"]
    assert data["root"] == ["bin", "dev", "grader", "lib", "lib64", "proc", "runtime", "tmp", "usr"]
    for path, seen in data.items():
        if path.startswith("/"):
            assert not seen.startswith("read"), (path, seen)
    assert data["uid"] != 0
    # its own pid namespace: a handful of its own processes, and pid 1 is bubblewrap's, holding nothing secret
    assert len(data["pids"]) < 6
    assert data["init_environ"] == "PATH=/usr/bin:/bin\x00"
    assert set(data["environ"]) <= {"PATH", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
                                    "SANDBOX_FDS", "LC_CTYPE", "PWD"}
    assert not any("SECRET" in name or "DATABASE" in name or "DJANGO" in name for name in data["environ"])


def test_writes_outside_the_small_tmp_fail_and_tmp_is_bounded():
    outcome = attack("""
        for path in ("/usr/evil", "/runtime/evil", "/grader/agent_loop_runner.py", "/evil"):
            try:
                with open(path, "w") as file:
                    file.write("x")
                report[path] = "written"
            except OSError as error:
                report[path] = type(error).__name__
        written = 0
        try:
            with open("/tmp/fill", "wb") as file:
                for _ in range(64):
                    file.write(b"x" * (1024 * 1024))
                    file.flush()
                    written += 1
        except OSError as error:
            report["fill"] = type(error).__name__
        report["megabytes"] = written
    """)
    data = outcome["data"]
    assert {data[p] for p in ("/usr/evil", "/runtime/evil", "/grader/agent_loop_runner.py", "/evil")} <= {
        "OSError", "PermissionError", "FileNotFoundError"}
    assert data["megabytes"] <= 16 and "fill" in data
    assert not Path("/usr/evil").exists() and not Path("/evil").exists()


def test_a_fork_bomb_is_capped_and_the_host_can_still_start_processes():
    outcome = attack("""
        children = 0
        try:
            for _ in range(500):
                if os.fork() == 0:
                    import signal
                    signal.pause()
                children += 1
        except OSError as error:
            report["stopped_by"] = type(error).__name__ + ": " + str(error)
        report["children"] = children
    """)
    data = outcome["data"]
    assert data["children"] < 32 and "Resource temporarily unavailable" in data["stopped_by"]
    assert subprocess.run(["true"]).returncode == 0


def test_a_memory_bomb_fails_inside_the_sandbox():
    outcome = attack("""
        try:
            hog = bytearray(3 * 1024 ** 3)
            report["allocated"] = len(hog)
        except MemoryError:
            report["allocated"] = "MemoryError"
    """)
    assert outcome["data"] == {"allocated": "MemoryError"}


def test_an_infinite_loop_is_stopped_by_the_wall_clock_and_reported():
    source = "async def handle(session, request):\n    while True:\n        pass\n"
    result = grade(slug="agent-loop", kind="agent-loop", rubric={}, text=source)
    first = result["scenarios"][0]
    assert first["stopped"] == "real_time" and first["status"] == "fail"
    assert "real time" in first["checks"][0]["message"]
    # the next scenario gets a fresh sandbox and is stopped the same way; then the rest are skipped
    assert [s["stopped"] for s in result["scenarios"]] == ["real_time"] * 2 + ["skipped"] * 8
    assert "did not run" in result["scenarios"][-1]["checks"][0]["message"]


def test_huge_output_is_truncated_and_the_grader_keeps_working():
    outcome = attack("""
        for _ in range(2000):
            print("y" * 50_000)
            os.write(1, b"z" * 50_000)
        report["printed"] = True
    """)
    assert outcome["data"] == {"printed": True}
    assert len(outcome["scenario"]["output"]) < 9000


def test_a_setsid_escaper_dies_with_the_sandbox():
    marker = f"escaper-{uuid.uuid4().hex}"
    attack(f"""
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/runtime/bin/python", ["python", "-c", "import signal; signal.pause()", {marker!r}])
            os._exit(0)
        report["forked"] = True
    """)
    survivors = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert survivors.stdout == "", f"processes outlived the sandbox: {survivors.stdout}"


def test_the_host_is_unaffected_afterwards():
    """After the attacks above, a correct loop still passes and no sandbox process is left running idle."""
    from tests.exercises.agent_loops import REFERENCE

    assert grade(slug="agent-loop", kind="agent-loop", rubric={}, text=REFERENCE)["status"] == "pass"
    assert not Path("/tmp/fill").exists()
    assert os.fork is not None and subprocess.run(["true"]).returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="already running as an ordinary user: every test above is that case")
def test_an_ordinary_user_starts_the_same_sandbox(monkeypatch):
    """CI runs as root; a laptop does not. Build the non-root command line and run it as an ordinary user."""
    from exercises.sandbox.command import Limits, sandbox_argv

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    argv = sandbox_argv("probe.py", limits=Limits(), fds=())
    assert argv[0] == "prlimit"  # no uid switch: an ordinary user's RLIMIT_NPROC already holds
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", *argv],
                          capture_output=True, timeout=30)
    assert done.stdout.strip() == b"sandbox ok", done.stderr
