"""The result object every grader returns (spec section 2), and the structured errors it can carry."""
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Check:
    id: str
    name: str
    passed: bool
    message: str
    max_points: float = 1.0
    misconception: str | None = None
    points: float | None = None  # defaults to all or nothing

    def as_dict(self) -> dict[str, Any]:
        points = self.points if self.points is not None else (self.max_points if self.passed else 0.0)
        return {"id": self.id, "name": self.name, "status": "pass" if self.passed else "fail",
                "points": points, "max_points": self.max_points, "message": self.message,
                "misconception": None if self.passed else self.misconception}


@dataclass
class GradeResult:
    exercise: str
    checks: list[Check] = field(default_factory=list)
    scenarios: list[dict[str, Any]] | None = None
    error: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        if self.error is not None:
            return {"exercise": self.exercise, "status": "error", "score": 0.0, "checks": [], "scenarios": [],
                    "error": self.error}
        checks = [c.as_dict() for c in self.checks]
        total = sum(c["max_points"] for c in checks)
        score = round(sum(c["points"] for c in checks) / total, 4) if total else 0.0
        return {"exercise": self.exercise, "status": "pass" if score == 1 else "fail", "score": score,
                "checks": checks, "scenarios": self.scenarios or [], "error": None}


def scenario_check(scenario: dict[str, Any], *,
                   explain: Callable[[dict[str, Any], dict[str, Any]], str] | None = None) -> Check:
    """A submission's own check for one graded scenario (a dict with id, title, score and checks, as in the
    result): it earns the scenario's score and carries its first failure, worded by `explain(scenario, failure)`
    if given, else by the failing check's own message."""
    failure = next((c for c in scenario["checks"] if c["status"] == "fail"), None)
    if failure is None:
        message = "Every check passed."
    else:
        message = explain(scenario, failure) if explain else failure["message"]
    return Check(f"scenario-{scenario['id']}", f"{scenario['id']}: {scenario['title']}", failure is None, message,
                 points=scenario["score"], misconception=failure["misconception"] if failure else None)


def structured_error(description: str, *, category: str = "validation", retry_after_seconds: int | None = None,
                     **details: Any) -> dict[str, Any]:
    """An error in the convention the product teaches; retryable exactly when a wait is given."""
    error: dict[str, Any] = {"errorCategory": category, "isRetryable": retry_after_seconds is not None}
    if retry_after_seconds is not None:
        error["retryAfterSeconds"] = retry_after_seconds
    error["description"] = description
    error.update(details)
    return error


def submission_error(exercise: str, description: str, **details: Any) -> dict[str, Any]:
    """The submission could not be graded: the learner must change it (not retryable as is)."""
    return GradeResult(exercise=exercise, error=structured_error(description, **details)).as_dict()


def infrastructure_error(exercise: str, description: str, *, retry_after_seconds: int = 30) -> dict[str, Any]:
    """The grader could not run: not the learner's fault, costs no attempt."""
    return GradeResult(exercise=exercise, error=structured_error(
        description, category="transient", retry_after_seconds=retry_after_seconds)).as_dict()
