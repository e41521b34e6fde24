"""A small pool of sandboxes started ahead of time, so a learner does not wait for Python and `mcp` to import.

Each sandbox serves one submission and is then killed; taking one starts its replacement at once, in the
background (the new process imports while the current submission is graded). The pool fills only after
`warm()` (the grading worker calls it); a one-off caller such as the `grade` command starts sandboxes on demand.
"""
import atexit
import logging
import threading
from collections import deque

from django.conf import settings

from .command import Limits
from .process import SandboxProcess

logger = logging.getLogger(__name__)


class SandboxPool:
    def __init__(self, program: str, *, size: int, limits: Limits | None = None):
        self.program, self.size, self.limits = program, size, limits or Limits()
        self._idle: deque[SandboxProcess] = deque()
        self._lock = threading.Lock()
        self._warm = False

    def warm(self) -> None:
        self._warm = True
        self._refill()

    def take(self) -> SandboxProcess:
        """A started sandbox (maybe still importing); raises SandboxUnavailable when none can start."""
        with self._lock:
            while self._idle:
                candidate = self._idle.popleft()
                if candidate.alive():
                    break
                candidate.kill()
            else:
                candidate = None
        if self._warm:
            self._refill()
        return candidate or SandboxProcess(self.program, limits=self.limits)

    def _refill(self) -> None:
        with self._lock:
            try:
                while len(self._idle) < self.size:
                    self._idle.append(SandboxProcess(self.program, limits=self.limits))
            except Exception:  # a pool that cannot fill is not an error until a sandbox is needed
                logger.exception("could not pre-start a sandbox for %s", self.program)

    def close(self) -> None:
        """Kill the idle sandboxes and stop refilling (until `warm()` again)."""
        self._warm = False
        with self._lock:
            while self._idle:
                self._idle.popleft().kill()


_pools: dict[str, SandboxPool] = {}
_pools_lock = threading.Lock()


def sandbox_pool(program: str) -> SandboxPool:
    """The process-wide pool for a program from `sandbox/inside/`."""
    with _pools_lock:
        if program not in _pools:
            _pools[program] = SandboxPool(program, size=settings.SANDBOX_POOL_SIZE)
        return _pools[program]


@atexit.register
def _close_pools() -> None:
    for pool in list(_pools.values()):
        pool.close()
