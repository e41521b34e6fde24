"""Every learner's live training server at /mcp/, in the same ASGI app as the site.

One MCP server object serves all learners; the gateway in front of it authenticates the personal token
(in the path, /mcp/<token>/, or as `Authorization: Bearer <token>`), applies the learner's rate limit, and
tells the server whose call it is through a header that only the gateway sets. Each learner's instance
keeps its own failure modes and trace; nobody can reach another's.
"""
import json
import logging
import time
from collections import deque
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings

from .server import build_server
from .state import InstanceState, TraceEntry

logger = logging.getLogger(__name__)

INSTANCE_HEADER = b"x-trainer-instance"
MCP_PATH = "/mcp"


class InstanceRegistry:
    """The in-process state of each live instance, and each learner's request budget."""

    def __init__(self):
        self.states: dict[int, InstanceState] = {}
        self.requests: dict[int, deque] = {}

    def state_for(self, instance_id: int, forced_modes: dict[str, str]) -> InstanceState:
        state = self.states.get(instance_id)
        if state is None:
            state = InstanceState(label=f"instance-{instance_id}", on_record=live_call_recorder(instance_id))
            self.states[instance_id] = state
        state.forced_modes = dict(forced_modes)
        return state

    def retry_after(self, instance_id: int, limit_per_minute: int, now: float | None = None) -> int | None:
        """Seconds to wait when this instance has used its budget for the last minute, else None (and count it)."""
        now = time.monotonic() if now is None else now
        window = self.requests.setdefault(instance_id, deque())
        while window and now - window[0] >= 60:
            window.popleft()
        if len(window) >= limit_per_minute:
            return max(1, int(60 - (now - window[0])) + 1)
        window.append(now)
        return None

    def resolve(self, ctx: ServerRequestContext) -> InstanceState:
        request = ctx.request
        raw = request.headers.get(INSTANCE_HEADER.decode()) if request is not None else None
        if raw is None or not raw.isdigit() or int(raw) not in self.states:
            raise RuntimeError("a live MCP call arrived without an authenticated instance")  # the gateway prevents this
        return self.states[int(raw)]


def live_call_recorder(instance_id: int):
    from exercises.services import live_call_record

    record = sync_to_async(live_call_record)

    async def on_record(entry: TraceEntry) -> None:
        try:
            await record(instance_id=instance_id, entry=entry.as_dict())
        except Exception:  # the learner's call must not fail because the Playground could not be updated
            logger.exception("could not store a live call for instance %s", instance_id)

    return on_record


def _transport_security() -> TransportSecuritySettings:
    hosts = [h for h in settings.ALLOWED_HOSTS if h != "*"]
    if "*" in settings.ALLOWED_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed_hosts = [item for host in hosts for item in (host.lstrip("."), f"{host.lstrip('.')}:*")]
    origins = [f"{scheme}://{host.lstrip('.')}{port}" for host in hosts for scheme in ("http", "https")
               for port in ("", ":*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts,
                                     allowed_origins=origins)


async def _send_json(send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] = ()) -> None:
    payload = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": payload})


def _refusal(code: int, description: str, *, category: str, retry_after: int | None = None) -> dict[str, Any]:
    """A JSON-RPC error body (MCP clients surface it as MCPError) whose data follows the project's convention."""
    data: dict[str, Any] = {"errorCategory": category, "isRetryable": retry_after is not None}
    if retry_after is not None:
        data["retryAfterSeconds"] = retry_after
    data["description"] = description
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": description, "data": data}}


def _token_from(scope) -> tuple[str | None, str]:
    """(token, the path the MCP app should see) from /mcp/<token>/ or an Authorization header."""
    rest = scope["path"][len(MCP_PATH):].strip("/")
    if rest:
        return rest.split("/")[0], MCP_PATH
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer":
                return credentials.strip(), MCP_PATH
    return None, MCP_PATH


class LiveGateway:
    def __init__(self):
        self.registry = InstanceRegistry()
        self.server = build_server(self.registry.resolve)
        self.app = self.server.streamable_http_app(streamable_http_path=MCP_PATH,
                                                   transport_security=_transport_security())

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        from exercises.selectors import training_instance_by_salt
        from exercises.services import instance_token_parse

        token, path = _token_from(scope)
        parsed = instance_token_parse(token) if token else None
        instance = await sync_to_async(training_instance_by_salt)(salt=parsed.salt) if parsed else None
        if instance is None:
            description = ("This is a personal training server: add your token, as /mcp/<token>/ or with "
                           "'Authorization: Bearer <token>'. Your Playground page shows it." if not token else
                           "This token is not valid (it may have been replaced). Copy the current one from your "
                           "Playground page.")
            await _send_json(send, 401, _refusal(-32600, description, category="permission"),
                             [(b"www-authenticate", b'Bearer realm="mcp"')])
            return
        wait = self.registry.retry_after(instance.pk, settings.MCP_RATE_LIMIT_PER_MINUTE)
        if wait is not None:
            await _send_json(send, 429, _refusal(
                -32000, f"Rate limit: at most {settings.MCP_RATE_LIMIT_PER_MINUTE} requests a minute for each "
                        f"learner. Retry after {wait} seconds.", category="transient", retry_after=wait),
                [(b"retry-after", str(wait).encode())])
            return
        self.registry.state_for(instance.pk, instance.forced_modes)
        headers = [(k, v) for k, v in scope.get("headers", []) if k not in (b"authorization", INSTANCE_HEADER)]
        headers.append((INSTANCE_HEADER, str(instance.pk).encode()))
        scope = dict(scope, path=path, raw_path=path.encode(), headers=headers)
        await self.app(scope, receive, send)
