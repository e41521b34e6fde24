"""Reading a code grader's result in tests: which scenarios failed, and one scenario by id."""


def failing(result: dict) -> set[str]:
    return {s["id"] for s in result["scenarios"] if s["status"] == "fail"}


def scenario(result: dict, scenario_id: str) -> dict:
    return next(s for s in result["scenarios"] if s["id"] == scenario_id)
