"""ASGI entry point: the site (and, later, the MCP endpoint) served by uvicorn."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "trainer.settings")

application = get_asgi_application()
