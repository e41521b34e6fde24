"""Reading and checking exercise files under `exercises/content/exercises/` (no database here).

One YAML file per exercise, with a stable `id`. The rubric is checked here so a typo in a file is a
clear problem at sync time, never a grader crash later.
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessons.content_files import (
    ID_PATTERN, SLUG_PATTERN, ContentProblem, FileChecker, content_hash, load_yaml_mapping, read_content_file,
)
from lessons.rendering import render_markdown
from lessons.taxonomy import CATEGORIES

from .graders.payload import grade_payload_object
from .models import EXERCISE_KINDS

ERROR_CATEGORIES = ("transient", "validation", "permission", "business")


@dataclass
class ExerciseFile:
    content_id: str
    slug: str
    title: str
    summary: str
    kind: str
    category: str
    order: int
    situation_html: str
    starter: str
    rubric: dict[str, Any]
    hints: dict[str, str]
    source_path: str
    content_hash: str


@dataclass
class ExerciseBundle:
    exercises: list[ExerciseFile] = field(default_factory=list)
    problems: list[ContentProblem] = field(default_factory=list)


def check_payload_rubric(check: FileChecker, rubric: Any, name: str = "rubric") -> None:
    """Report every way a payload rubric would make the grader misbehave."""
    if not isinstance(rubric, dict):
        check.problem(name, "must be a mapping")
        return
    expect = rubric.get("expect")
    if expect == "empty":
        if not isinstance(rubric.get("query_mentions", []), list):
            check.problem(f"{name}.query_mentions", "must be a list of texts")
        return
    if expect != "error":
        check.problem(f"{name}.expect", "must be 'error' or 'empty'")
        return
    if rubric.get("category") not in ERROR_CATEGORIES:
        check.problem(f"{name}.category", f"must be one of: {', '.join(ERROR_CATEGORIES)}")
    if not isinstance(rubric.get("retryable"), bool):
        check.problem(f"{name}.retryable", "must be true or false")
    if rubric.get("customer_message", "recommended") not in ("required", "recommended", "none"):
        check.problem(f"{name}.customer_message", "must be required, recommended or none")
    validation = rubric.get("validation")
    if validation is not None:
        if not isinstance(validation, dict) or not {"field", "received"} <= set(validation):
            check.problem(f"{name}.validation", "must be a mapping with at least 'field' and 'received'")
        elif validation.get("suggestion", "allowed") not in ("forbidden", "required", "allowed"):
            check.problem(f"{name}.validation.suggestion", "must be forbidden, required or allowed")
        elif validation.get("suggestion") == "required" and "suggested" not in validation:
            check.problem(f"{name}.validation.suggested", "is required when suggestion is 'required'")


def check_payload_examples(check: FileChecker, rubric: dict[str, Any], examples: Any) -> None:
    """Grade the author's example payloads with the rubric: every good one must pass every check and every bad
    one must fail at least one, or the rubric does not say what the author means."""
    if not isinstance(examples, dict) or set(examples) - {"good", "bad"}:
        check.problem("examples", "must be a mapping with 'good' and 'bad' lists of payloads")
        return
    for verdict in ("good", "bad"):
        payloads = examples.get(verdict, [])
        if not isinstance(payloads, list):
            check.problem(f"examples.{verdict}", "must be a list of payloads")
            continue
        for index, payload in enumerate(payloads):
            name = f"examples.{verdict}[{index}]"
            if not isinstance(payload, dict):
                check.problem(name, "must be a payload (a JSON object, the CallToolResult)")
                continue
            failed = [c for c in grade_payload_object("example", rubric, payload) if not c.passed]
            if verdict == "good" and failed:
                check.problem(name, f"is meant to be good but fails the rubric on \"{failed[0].name}\": "
                                    f"{failed[0].message}")
            elif verdict == "bad" and not failed:
                check.problem(name, "is meant to be bad but passes every check, so the rubric would give it full "
                                    "marks; make the rubric stricter or fix the example")


def parse_exercise(path: Path, root: Path, problems: list[ContentProblem]) -> ExerciseFile | None:
    read = read_content_file(path, root, problems)
    return None if read is None else parse_exercise_text(*read, problems)


def parse_exercise_text(rel: str, raw: str, problems: list[ContentProblem]) -> ExerciseFile | None:
    """An exercise from its YAML file text; `rel` names it in problems."""
    data = load_yaml_mapping(rel, raw, problems)
    if data is None:
        return None
    check = FileChecker(rel, data, problems)
    kind = check.choice_of("kind", EXERCISE_KINDS)
    category = data.get("category", "")
    if category and category not in CATEGORIES:
        check.problem("category", f"{category!r} is not one of: {', '.join(CATEGORIES)}")
    rubric = data.get("rubric")
    if kind == "payload":
        before = len(problems)
        check_payload_rubric(check, rubric)
        if "examples" in data and len(problems) == before:
            check_payload_examples(check, rubric, data["examples"])
    elif kind == "payload-set":
        parts = rubric.get("parts") if isinstance(rubric, dict) else None
        if not isinstance(parts, dict) or not parts:
            check.problem("rubric.parts", "must map each part's key to its payload rubric")
        else:
            for part, part_rubric in parts.items():
                check_payload_rubric(check, part_rubric, f"rubric.parts.{part}")
    elif kind in ("agent-loop", "tool-server") and not isinstance(rubric, dict):
        check.problem("rubric", "must be a mapping (the scenarios and probes are fixed by the grading contract)")
    hints = data.get("hints", {})
    if not isinstance(hints, dict) or not all(isinstance(v, str) for v in hints.values()):
        check.problem("hints", "must map misconception tags to hint texts")
        hints = {}
    starter = data.get("starter", "")
    if not isinstance(starter, str):
        check.problem("starter", "must be text")
        starter = ""
    return ExerciseFile(
        content_id=check.text("id", pattern=ID_PATTERN, hint="lowercase letters, digits and dashes"),
        slug=check.text("slug", max_length=120, pattern=SLUG_PATTERN, hint="lowercase words joined by dashes"),
        title=check.text("title", max_length=200),
        summary=check.text("summary", max_length=400),
        kind=kind, category=category or "", order=check.integer("order"),
        situation_html=render_markdown(check.text("situation")),
        starter=starter, rubric=rubric if isinstance(rubric, dict) else {}, hints=hints,
        source_path=rel, content_hash=content_hash(raw),
    )


def load_exercises(root: Path) -> ExerciseBundle:
    bundle = ExerciseBundle()
    for path in sorted((root / "exercises").glob("*.y*ml")):
        if (exercise := parse_exercise(path, root, bundle.problems)) is not None:
            bundle.exercises.append(exercise)
    seen: dict[tuple[str, str], str] = {}
    for exercise in bundle.exercises:
        for name, value in (("id", exercise.content_id), ("slug", exercise.slug)):
            if value and (name, value) in seen:
                bundle.problems.append(ContentProblem(exercise.source_path, name,
                                                      f"{value!r} is already used by {seen[(name, value)]}"))
            seen[(name, value)] = exercise.source_path
    return bundle
