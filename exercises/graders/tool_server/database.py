"""The grader's copy of `training_db`: the learner's tool queries it over a socket, and it notes which ids reached
the database. The learner's process cannot see or change this record."""
import importlib.util
from dataclasses import dataclass
from typing import Any

from ...sandbox.command import INSIDE_DIR

TRAINING_DB_PATH = INSIDE_DIR / "learner_modules" / "training_db.py"
MAX_QUERIES = 1000  # kept per server; a tool that queries more than this is not noted further


def _load_training_db():
    spec = importlib.util.spec_from_file_location("exercises_training_db", TRAINING_DB_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


training_db = _load_training_db()


@dataclass
class DatabaseQuery:
    customer_id: Any
    failure_mode: Any
    probe: str  # which probe was running when the query arrived

    def as_dict(self) -> dict[str, Any]:
        return {"customer_id": self.customer_id, "failure_mode": self.failure_mode}


def answer(customer_id: Any, failure_mode: Any) -> dict[str, Any]:
    """What the database says to one query, in the line protocol of `tool_server_runner.py`."""
    try:
        return {"record": training_db._lookup(customer_id, failure_mode)}
    except training_db.DatabaseError as error:
        return {"raise": type(error).__name__}
    except ValueError as error:
        return {"value_error": str(error)}
