"""One sandboxed process: started with two inherited sockets (messages and the clock), its output drained into
a bounded buffer, and killed with its whole process tree. A program that speaks over stdio (an MCP server) gets
pipes for its stdin and stdout instead, and only its stderr is drained."""
import logging
import os
import signal
import socket
import shutil
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from .command import STDIO_PROGRAMS, Limits, SandboxUnavailable, sandbox_argv, sandbox_status, unsandboxed_allowed, unsandboxed_argv

logger = logging.getLogger(__name__)

# bubblewrap's --die-with-parent is PR_SET_PDEATHSIG, which fires when the *thread* that started it ends, not the
# process. Sandboxes are therefore always started from this one long-lived thread, so a warm sandbox started while
# grading on a short-lived thread (a web request, a test) does not die with that thread.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spawner")


class SandboxProcess:
    """A program from `sandbox/inside/` running confined. `mux` and `clock` are the grader's ends of its sockets;
    for the programs in STDIO_PROGRAMS, `popen.stdin` and `popen.stdout` are the grader's ends of its standard
    streams."""

    def __init__(self, program: str, *, limits: Limits | None = None):
        stdio = program in STDIO_PROGRAMS
        if problem := sandbox_status():
            raise SandboxUnavailable(problem)
        self.limits = limits or Limits()
        self.mux, mux_inside = socket.socketpair()
        self.clock, clock_inside = socket.socketpair()
        fds = (mux_inside.fileno(), clock_inside.fileno())
        self.unsandboxed = unsandboxed_allowed()
        self.scratch = None
        if self.unsandboxed:
            self.scratch = tempfile.mkdtemp(prefix="unsandboxed-")
            logger.warning("!!! SANDBOX_ALLOW_UNSANDBOXED is on: running learner code WITHOUT a sandbox. "
                           "Development only; never on a machine that grades other people's code. !!!")
            argv = unsandboxed_argv(program)
            env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
                   "SANDBOX_FDS": ",".join(map(str, fds)), "TMPDIR": self.scratch, "HOME": self.scratch}
        else:
            argv, env = sandbox_argv(program, limits=self.limits, fds=fds), {"PATH": "/usr/bin:/bin"}
        self.started_at = time.monotonic()
        try:
            streams = (dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) if stdio else
                       dict(stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
            self.popen = _SPAWNER.submit(subprocess.Popen, argv, **streams, pass_fds=fds, env=env,
                                         start_new_session=True).result()
        except OSError as error:
            raise SandboxUnavailable(f"could not start a sandbox: {error}") from error
        finally:
            mux_inside.close()
            clock_inside.close()
        self._output = bytearray()
        self.output_truncated = False
        self._drainer = threading.Thread(target=self._drain, name=f"sandbox-output-{self.popen.pid}", daemon=True)
        self._drainer.start()

    def _drain(self) -> None:
        """Keep the first `output_bytes` of what the process writes to its stdout and stderr (only stderr for a
        program that speaks over stdio); discard the rest."""
        stream = self.popen.stderr or self.popen.stdout
        while chunk := stream.read1(65536):
            room = self.limits.output_bytes - len(self._output)
            if room > 0:
                self._output += chunk[:room]
            if len(chunk) > room:
                self.output_truncated = True
        stream.close()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def output(self) -> str:
        text = bytes(self._output).decode("utf-8", "replace")
        return text + ("\n… (output truncated)" if self.output_truncated else "")

    def kill(self) -> None:
        """Kill the sandbox and everything in it: bubblewrap's pid namespace ends with its first process."""
        if self.alive():
            try:
                if self.unsandboxed:
                    os.killpg(self.popen.pid, signal.SIGKILL)
                else:
                    self.popen.kill()
            except ProcessLookupError:
                pass
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            logger.error("sandbox %s did not exit after SIGKILL", self.popen.pid)
        self._drainer.join(timeout=2)
        for sock in (self.mux, self.clock):
            sock.close()
        for pipe in (self.popen.stdin, self.popen.stdout):
            if pipe is not None and not pipe.closed:
                try:
                    pipe.close()
                except OSError:
                    pass
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
