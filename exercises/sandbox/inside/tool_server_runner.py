"""Runs inside the sandbox: imports a learner's MCP server module and serves its `server` over this process's
stdin and stdout, the way `server.run()` would when a client launches the file.

Nothing here is trusted. The grader probes the server from outside with a real MCP client over the stdio pipes,
and keeps its own copy of the training database: every `training_db.get_customer` call travels over an
inherited socket to the grader, which answers and notes which ids reached the database.

Messages on the control socket (one JSON object per line):
  grader -> here: {"t": "load", "source"}
  here -> grader: {"t": "ready"} · {"t": "loaded", "server": "MCPServer" | "Server", "output"}
                  {"t": "load_error", "kind", ...} · {"t": "stopped"} · {"t": "crash", "traceback"}
The database socket is a request/answer line protocol: {"customer_id", "failure_mode"} ->
{"record"} | {"raise": exception name} | {"value_error": message}.
"""
import asyncio
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves this program's folder off the path
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "learner_modules"))

import mcp  # noqa: F401,E402  (imported before any learner code, so the pool's sandboxes start warm)
from mcp.server import MCPServer, Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402

import training_db  # noqa: E402
from submission_loader import JsonLines, learner_traceback, load_submission, public_names  # noqa: E402

CONTROL_FD, DATABASE_FD = (int(fd) for fd in os.environ["SANDBOX_FDS"].split(","))


class DatabaseLink:
    """`training_db`'s queries, answered by the grader. Tools may query from several threads at once."""

    def __init__(self, fd: int):
        self.link = JsonLines(fd, "the training database")
        self.lock = threading.Lock()

    def query(self, customer_id, failure_mode):
        with self.lock:
            try:
                self.link.send({"customer_id": customer_id, "failure_mode": failure_mode})
            except (TypeError, ValueError):  # not JSON: nothing was sent
                raise TypeError(f"get_customer takes a string id, not {type(customer_id).__name__}") from None
            answer = self.link.receive()
        if "raise" in answer:
            raise getattr(training_db, answer["raise"])(customer_id)
        if "value_error" in answer:
            raise ValueError(answer["value_error"])
        return answer["record"]


async def serve(server) -> None:
    if isinstance(server, MCPServer):
        await server.run_stdio_async()
    else:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def main() -> None:
    control = JsonLines(CONTROL_FD, "the grader")
    training_db._query = DatabaseLink(DATABASE_FD).query
    control.send({"t": "ready"})
    try:
        message = control.receive()
    except ConnectionError:
        raise SystemExit(0) from None
    # Top-level prints are not captured: they go to stdout, as they would when a client launches the file.
    module, output, problem = load_submission(message["source"], capture_output=False)
    if problem:
        control.send(problem)
        return
    server = getattr(module, "server", None)
    if server is None:
        control.send({"t": "load_error", "kind": "missing", "names": public_names(module)})
        return
    if not isinstance(server, (MCPServer, Server)):
        control.send({"t": "load_error", "kind": "wrong_type", "type": type(server).__name__})
        return
    control.send({"t": "loaded", "server": "MCPServer" if isinstance(server, MCPServer) else "Server"})
    try:
        asyncio.run(serve(server))
    except BaseException as error:  # noqa: BLE001 (reported to the grader, which tells the learner)
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]  # the task groups' wrapping says nothing to the learner
        control.send({"t": "crash", "traceback": learner_traceback(error)})
        raise SystemExit(1) from None
    control.send({"t": "stopped"})


if __name__ == "__main__":
    main()
