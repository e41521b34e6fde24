"""Authored items as content files: the same text a file in `lessons/content/` or `exercises/content/` holds.

Pure functions, no database: turning form fields into file text and back, parsing with the file parsers,
and where an item lives when exported. Because the draft *is* the file text, export is a copy and import
is a parse.
"""
from typing import Any

import yaml

from exercises.content_files import parse_exercise_text
from lessons.content_files import FRONT_MATTER, ContentProblem, parse_lesson_text, parse_question_text

LESSON, QUESTION, SCENARIO = "lesson", "question", "scenario"


class _BlockDumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks, so an exported file reads like a hand-written one and diffs line by line."""


def _text(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _text)


def dump_yaml(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)


def lesson_text(front: dict[str, Any], body: str) -> str:
    return f"---\n{dump_yaml(front)}---\n{body.strip()}\n"


def fields_of(kind: str, source: str) -> dict[str, Any]:
    """The mapping an item's text holds (a lesson's body under "body"); {} when the text cannot be read."""
    try:
        if kind == LESSON:
            match = FRONT_MATTER.match(source)
            if not match:
                return {}
            front = yaml.safe_load(match.group(1))
            return {**front, "body": match.group(2).strip()} if isinstance(front, dict) else {}
        data = yaml.safe_load(source)
        return data if isinstance(data, dict) else {}
    except yaml.YAMLError:
        return {}


def parse_item(kind: str, source: str, name: str):
    """(parsed item or None, problems), exactly as `sync_content` would judge the same text in a file."""
    problems: list[ContentProblem] = []
    parser = {LESSON: parse_lesson_text, QUESTION: parse_question_text, SCENARIO: parse_exercise_text}[kind]
    parsed = parser(name, source, problems)
    return parsed, problems


def export_path(kind: str, fields: dict[str, Any], content_id: str) -> str:
    """Where the item goes in the repository, so `sync_content` picks it up from there."""
    if kind == LESSON:
        return f"lessons/content/lessons/{fields.get('slug') or content_id}.md"
    if kind == QUESTION:
        return f"lessons/content/questions/authored/{content_id}.yaml"
    return f"exercises/content/exercises/{fields.get('slug') or content_id}.yaml"


def detect_kind(name: str, source: str) -> str | None:
    """What an imported file is: a lesson (Markdown with front matter), a question (has choices) or a payload
    scenario (kind: payload)."""
    if name.endswith(".md"):
        return LESSON if FRONT_MATTER.match(source) else None
    if not name.endswith((".yaml", ".yml")):
        return None
    data = fields_of(QUESTION, source)
    if "choices" in data:
        return QUESTION
    if data.get("kind") == "payload":
        return SCENARIO
    return None
