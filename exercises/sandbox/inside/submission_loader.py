"""Shared by the programs that run inside the sandbox: write the learner's file to scratch space, import it,
describe what went wrong in the learner's terms (only their own frames in a traceback), and talk to the grader
over a socket one JSON object per line."""
import contextlib
import importlib.util
import io
import json
import os
import socket
import sys
import tempfile
import traceback

SUBMISSION_PATH = os.path.join(tempfile.gettempdir(), "submission.py")
OUTPUT_LIMIT = 8 * 1024  # characters of printed output kept


class BoundedOutput(io.TextIOBase):
    def __init__(self, limit: int = OUTPUT_LIMIT):
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        if len(text) > max(room, 0):
            self.truncated = True
        return len(text)

    def text(self) -> str:
        return "".join(self.parts) + ("\n… (output truncated)" if self.truncated else "")


def learner_traceback(error: BaseException) -> str:
    """The traceback, keeping only the frames in the learner's own file."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == SUBMISSION_PATH]
    lines = traceback.format_list(frames) if frames else []
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).replace(SUBMISSION_PATH, "submission.py")[-4000:]


def load_submission(source: str, *, capture_output: bool = True):
    """Import the learner's file as the module `submission`: (module, printed output, None) when it loads, else
    (None, "", a load_error message).

    With capture_output the file's top-level prints are kept (and reported) instead of reaching stdout."""
    with open(SUBMISSION_PATH, "w", encoding="utf-8") as file:
        file.write(source)
    output = BoundedOutput()
    try:
        compile(source, "submission.py", "exec")
    except (SyntaxError, ValueError) as error:
        return None, "", {"t": "load_error", "kind": "syntax", "message": getattr(error, "msg", str(error)),
                      "line": getattr(error, "lineno", None), "offset": getattr(error, "offset", None),
                      "text": (getattr(error, "text", None) or "").rstrip()[:300]}
    spec = importlib.util.spec_from_file_location("submission", SUBMISSION_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission"] = module
    redirect = ((contextlib.redirect_stdout(output), contextlib.redirect_stderr(output)) if capture_output
                else ())
    try:
        with contextlib.ExitStack() as stack:
            for manager in redirect:
                stack.enter_context(manager)
            spec.loader.exec_module(module)
    except BaseException as error:  # noqa: BLE001 (SystemExit included: the learner's file must import)
        return None, "", {"t": "load_error", "kind": "import", "message": learner_traceback(error),
                      "output": output.text()}
    return module, output.text(), None


def public_names(module) -> list[str]:
    return sorted(n for n in vars(module) if not n.startswith("_"))[:30]


class JsonLines:
    """A blocking link to the grader: one JSON object per line each way. `name` says what went away, if it does."""

    def __init__(self, fd: int, name: str):
        self.sock = socket.socket(fileno=fd)
        self.name = name
        self.buffer = b""

    def send(self, message) -> None:
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def receive(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"{self.name} went away")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)
