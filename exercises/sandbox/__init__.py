"""The sandbox that runs learners' code: bubblewrap with resource limits, a pool of warm sandboxes, and the
refusal to run untrusted code anywhere else (unless a developer explicitly allows it, loudly)."""
from .command import Limits, SandboxUnavailable, sandbox_status
from .pool import SandboxPool, sandbox_pool
from .process import SandboxProcess

__all__ = ["Limits", "SandboxPool", "SandboxProcess", "SandboxUnavailable", "sandbox_pool", "sandbox_status"]
