"""ASGI entry point: the site (Django) and every learner's live training MCP server at /mcp/.

Django's handler speaks only `http`; the MCP app also needs the `lifespan` events (they start its session
manager, which runs once per app), so uvicorn must run with lifespan on (its default).
"""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "trainer.settings")

django_app = get_asgi_application()

from exercises.mcp_server.live import MCP_PATH, LiveGateway  # noqa: E402  (needs Django set up)


def build_application():
    mcp_gateway = LiveGateway()

    async def application(scope, receive, send):
        if scope["type"] == "lifespan":
            await mcp_gateway(scope, receive, send)
        elif scope["type"] == "http" and (scope["path"] == MCP_PATH or scope["path"].startswith(MCP_PATH + "/")):
            await mcp_gateway(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return application


application = build_application()
