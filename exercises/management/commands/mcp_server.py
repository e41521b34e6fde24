"""`python manage.py mcp_server [--token TOKEN]`: the training MCP server over stdio.

Without a token it is a private local instance whose trace goes nowhere; with a learner's token it uses that
learner's failure modes and its calls appear on their Playground page. Logs go to stderr: stdout is the
protocol channel.
"""
import anyio
from asgiref.sync import sync_to_async
from django.core.management.base import BaseCommand, CommandError
from mcp.server.stdio import stdio_server

from exercises.mcp_server.live import live_call_recorder
from exercises.mcp_server.server import single_instance_server
from exercises.mcp_server.state import InstanceState
from exercises.selectors import training_instance_by_salt
from exercises.services import instance_token_parse


class Command(BaseCommand):
    help = "Serve the training MCP server over stdio (for Claude Desktop, the MCP Inspector and other local clients)."

    def add_arguments(self, parser):
        parser.add_argument("--token", help="A learner's training-server token (from the Playground page).")

    def handle(self, *args, token=None, **options):
        state = InstanceState(label="stdio")
        if token:
            parsed = instance_token_parse(token)
            instance = training_instance_by_salt(salt=parsed.salt) if parsed else None
            if instance is None:
                raise CommandError("This token is not valid (it may have been replaced). Copy the current one from "
                                   "your Playground page.")
            load = sync_to_async(training_instance_by_salt)

            async def refresh_modes() -> dict[str, str]:
                current = await load(salt=parsed.salt)
                return dict(current.forced_modes) if current else {}

            state = InstanceState(label=f"instance-{instance.pk}", forced_modes=dict(instance.forced_modes),
                                  on_record=live_call_recorder(instance.pk), refresh_modes=refresh_modes)
        server, _ = single_instance_server(state)

        async def serve():
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(serve)
