"""How a sandbox is started: the bubblewrap command line, its limits, and whether it can run on this machine.

Facts behind the flags (measured, see the sandbox notes): only what is bound is visible and `/` is remounted
read-only; the network namespace is empty; RLIMIT_NPROC is ignored for uid 0, so as root we first drop to an
unprivileged uid (a different one per sandbox, so one sandbox's fork bomb cannot starve another's start), and
the process limit is set inside the sandbox, where it cannot stop bwrap itself from starting.
"""
import logging
import os
import secrets
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)

INSIDE_DIR = Path(__file__).resolve().parent / "inside"
UNPRIVILEGED_UIDS = range(40000, 60000)
STDIO_PROGRAMS = frozenset({"tool_server_runner.py"})  # they speak to the grader over their stdin and stdout


class SandboxUnavailable(Exception):
    """Untrusted code cannot be run here; the message says why, in words an operator can act on."""


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 1024 * 1024 * 1024  # RLIMIT_AS counts virtual memory: mcp and anyio need about 1 GiB
    cpu_seconds: int = 30
    file_bytes: int = 4 * 1024 * 1024
    open_files: int = 64
    processes: int = 32  # threads count too
    tmp_bytes: int = 16 * 1024 * 1024
    output_bytes: int = 64 * 1024  # what the grader keeps of the process's own stdout and stderr


def runtime_python() -> Path:
    return Path(settings.SANDBOX_RUNTIME) / "bin" / "python"


def unsandboxed_allowed() -> bool:
    return bool(getattr(settings, "SANDBOX_ALLOW_UNSANDBOXED", False))


def sandbox_argv(program: str, *, limits: Limits, fds: tuple[int, ...]) -> list[str]:
    """The command that runs `inside/<program>` with the sandbox runtime, confined."""
    runtime = Path(settings.SANDBOX_RUNTIME)
    inner = ["prlimit", f"--nproc={limits.processes}", "--", "/runtime/bin/python", "-I", f"/grader/{program}"]
    argv = [
        "prlimit", f"--as={limits.memory_bytes}", f"--cpu={limits.cpu_seconds}", f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}", "--core=0", "--",
        "bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--ro-bind", str(runtime), "/runtime", "--ro-bind", str(INSIDE_DIR), "/grader",
        "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--disable-userns",
        "--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
        "--clearenv", "--setenv", "PATH", "/runtime/bin:/usr/bin", "--setenv", "HOME", "/tmp",
        "--setenv", "TMPDIR", "/tmp", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "PYTHONUNBUFFERED", "1", "--setenv", "SANDBOX_FDS", ",".join(map(str, fds)),
        "--remount-ro", "/", "--chdir", "/tmp", *inner,
    ]
    if os.geteuid() == 0:
        uid = str(UNPRIVILEGED_UIDS.start + secrets.randbelow(len(UNPRIVILEGED_UIDS)))
        argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--", *argv]
    return argv


def unsandboxed_argv(program: str) -> list[str]:
    """Development only: the same program without confinement (see SANDBOX_ALLOW_UNSANDBOXED)."""
    return [str(runtime_python()), "-I", str(INSIDE_DIR / program)]


# --- Can untrusted code run here? ----------------------------------------------------------------------

_status_lock = threading.Lock()
_status: tuple[float, str | None] | None = None  # (checked at, problem or None)
RECHECK_AFTER_FAILURE_SECONDS = 30


def sandbox_status() -> str | None:
    """None when sandboxes can start here, else the reason they cannot (checked once, rechecked after a failure)."""
    global _status
    with _status_lock:
        if _status is not None and (_status[1] is None or time.monotonic() - _status[0] < RECHECK_AFTER_FAILURE_SECONDS):
            return _status[1]
        problem = _probe()
        _status = (time.monotonic(), problem)
        if problem:
            logger.error("sandbox unavailable: %s", problem)
        return problem


def _probe() -> str | None:
    if not runtime_python().exists():
        return (f"The sandbox runtime is missing ({settings.SANDBOX_RUNTIME}). Run `make setup` on the grading "
                "machine to build it.")
    if unsandboxed_allowed():
        return None
    for tool in ("bwrap", "prlimit", *(("setpriv",) if os.geteuid() == 0 else ())):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == "bwrap" else "util-linux"
            return (f"`{tool}` is not installed on the grading machine, so learners' code cannot be confined. "
                    f"Install it (apt-get install {package}).")
    argv = sandbox_argv("probe.py", limits=Limits(), fds=())
    try:
        done = subprocess.run(argv, capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start a sandbox: {error}"
    if done.returncode != 0 or done.stdout.strip() != b"sandbox ok":
        detail = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        hint = ""
        if any("uid map" in line or "Operation not permitted" in line for line in detail):
            hint = (" Unprivileged user namespaces look disabled or restricted (Ubuntu 23.10+ restricts them "
                    "with AppArmor); see the README's sandbox section.")
        if any("Permission denied" in line for line in detail):
            hint += (" The sandbox runs as an unprivileged user, which must be able to read the project "
                     "folder and the runtime (not under a private home directory such as /root).")
        return f"bubblewrap could not start a sandbox ({'; '.join(detail[-3:]) or 'no output'}).{hint}"
    return None
