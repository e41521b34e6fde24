"""What the graders that run learners' code in a sandbox share: running their asyncio code from any thread, and
turning a file that would not load into a structured error that says what to change."""
import asyncio
import threading
from collections.abc import Callable
from typing import Any

from .result import structured_error

ProgressCallback = Callable[[dict[str, Any]], None]


def run_coroutine(coroutine) -> Any:
    """asyncio.run, in a thread of its own when this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", asyncio.run(coroutine)))
    thread.start()
    thread.join()
    return box["result"]


def load_problem(loaded: dict[str, Any], process_output: str, descriptions: dict[str, str],
                 otherwise: str) -> dict[str, Any]:
    """The structured error for a `load_error` from a sandbox runner. Syntax errors and crashes while importing
    read the same for every exercise; `descriptions` words the other kinds (templates that may use {names}, the
    file's top-level names, and {type}, the type of what was found), and `otherwise` any kind not listed."""
    kind = loaded.get("kind")
    output = (loaded.get("output") or process_output or "")[:4000]
    details: dict[str, Any] = {"field": "submission"}
    if output:
        details["output"] = output
    if kind == "syntax":
        line = loaded.get("line")
        text = f" ({loaded['text']})" if loaded.get("text") else ""
        details["line"] = line
        return structured_error(f"Syntax error on line {line}: {loaded.get('message')}{text}. Fix it so the file is "
                                "valid Python 3.11.", **details)
    if kind == "import":
        return structured_error(
            f"Your file raised an error while it was being loaded:\n{loaded.get('message')}\nCode at the top level "
            "of the file runs once when it loads; keep it to imports and definitions.", **details)
    if kind not in descriptions:
        return structured_error(otherwise, **details)
    fill = {"names": ", ".join(loaded.get("names") or ["none"]), "type": loaded.get("type")}
    return structured_error(descriptions[kind].format(**fill), **details)
