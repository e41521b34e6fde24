"""Graders: pure functions from (exercise, submission text) to the contract's result object."""

from typing import Any

from .payload import grade_payload, grade_payload_set

GRADERS = {"payload": grade_payload, "payload-set": grade_payload_set}


def grade(*, slug: str, kind: str, rubric: dict[str, Any], text: str) -> dict[str, Any]:
    """The one entry point the web page, the API, the CLI and the tests share."""
    return GRADERS[kind](slug=slug, rubric=rubric, text=text)
