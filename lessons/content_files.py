"""Reading and validating the content files under `lessons/content/` (no database here).

Lessons are Markdown files with YAML front matter in `lessons/`; questions are one YAML file each in
`questions/` (any sub-folder). Every problem found is reported with the file and the field, and all of
them are reported at once, so an author can fix a whole batch in one pass.
"""
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .rendering import render_markdown
from .taxonomy import CATEGORIES, QUESTION_KINDS, TOPICS

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,78}[a-z0-9]$")
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.DOTALL)
MIN_CHOICES, MAX_CHOICES = 2, 6
# Items authored in the browser keep this prefix in `source_path`; syncing the files leaves them alone.
BROWSER_SOURCE = "browser:"


@dataclass(frozen=True)
class ContentProblem:
    path: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.message}"


@dataclass
class LessonFile:
    content_id: str
    slug: str
    title: str
    summary: str
    topic: str
    order: int
    body_html: str
    source_path: str
    content_hash: str


@dataclass
class ChoiceData:
    key: str
    text_html: str
    is_correct: bool
    explanation_html: str


@dataclass
class QuestionFile:
    content_id: str
    lesson_id: str
    category: str
    kind: str
    order: int
    prompt_html: str
    choices: list[ChoiceData]
    source_path: str
    content_hash: str


@dataclass
class ContentBundle:
    lessons: list[LessonFile] = field(default_factory=list)
    questions: list[QuestionFile] = field(default_factory=list)
    problems: list[ContentProblem] = field(default_factory=list)


class FileChecker:
    """Collects problems for one file while fields are read from its mapping."""

    def __init__(self, path: str, data: dict[str, Any], problems: list[ContentProblem], prefix: str = ""):
        self.path, self.data, self.problems, self.prefix = path, data, problems, prefix

    def problem(self, field_name: str, message: str) -> None:
        self.problems.append(ContentProblem(self.path, self.prefix + field_name, message))

    def text(self, name: str, *, max_length: int = 10_000, pattern: re.Pattern | None = None,
             hint: str = "") -> str:
        value = self.data.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            self.problem(name, "is required")
            return ""
        if not isinstance(value, str):
            self.problem(name, f"must be text, not {type(value).__name__}")
            return ""
        value = value.strip()
        if len(value) > max_length:
            self.problem(name, f"is {len(value)} characters long; the limit is {max_length}")
        if pattern and not pattern.match(value):
            self.problem(name, f"{value!r} is not valid{': ' + hint if hint else ''}")
        return value

    def choice_of(self, name: str, allowed: dict[str, str]) -> str:
        value = self.text(name, max_length=40)
        if value and value not in allowed:
            self.problem(name, f"{value!r} is not one of: {', '.join(allowed)}")
        return value

    def integer(self, name: str, default: int = 0) -> int:
        value = self.data.get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            self.problem(name, "must be a whole number, 0 or more")
            return default
        return value


def content_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def read_content_file(path: Path, root: Path, problems: list[ContentProblem]) -> tuple[str, str] | None:
    # Shown from the repository's top (lessons/content/...), the way an author finds the file.
    rel = str(path.relative_to(root.parent.parent))
    try:
        return rel, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(ContentProblem(rel, "(file)", f"cannot be read as UTF-8 text: {exc.__class__.__name__}"))
        return None


def load_yaml_mapping(rel: str, raw: str, problems: list[ContentProblem], first_line: int = 1) -> dict[str, Any] | None:
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + first_line}, column {mark.column + 1}" if mark else ""
        problems.append(ContentProblem(rel, "(yaml)", f"is not valid YAML{where}"))
        return None
    if not isinstance(data, dict):
        problems.append(ContentProblem(rel, "(yaml)", "must be a mapping of field names to values"))
        return None
    return data


def parse_lesson(path: Path, root: Path, problems: list[ContentProblem]) -> LessonFile | None:
    read = read_content_file(path, root, problems)
    return None if read is None else parse_lesson_text(*read, problems)


def parse_lesson_text(rel: str, raw: str, problems: list[ContentProblem]) -> LessonFile | None:
    """A lesson from its file text (Markdown with YAML front matter); `rel` names it in problems."""
    match = FRONT_MATTER.match(raw)
    if not match:
        problems.append(ContentProblem(rel, "(front matter)", "must start with a '---' block of YAML and close it with '---'"))
        return None
    data = load_yaml_mapping(rel, match.group(1), problems, first_line=2)  # line 1 is the opening '---'
    if data is None:
        return None
    check = FileChecker(rel, data, problems)
    body = match.group(2)
    if not body.strip():
        check.problem("(body)", "the lesson has no text after its front matter")
    lesson = LessonFile(
        content_id=check.text("id", pattern=ID_PATTERN, hint="lowercase letters, digits and dashes"),
        slug=check.text("slug", max_length=120, pattern=SLUG_PATTERN, hint="lowercase words joined by dashes"),
        title=check.text("title", max_length=200),
        summary=check.text("summary", max_length=400),
        topic=check.choice_of("topic", TOPICS),
        order=check.integer("order"),
        body_html=render_markdown(body),
        source_path=rel,
        content_hash=content_hash(raw),
    )
    return lesson


def parse_question(path: Path, root: Path, problems: list[ContentProblem]) -> QuestionFile | None:
    read = read_content_file(path, root, problems)
    return None if read is None else parse_question_text(*read, problems)


def parse_question_text(rel: str, raw: str, problems: list[ContentProblem]) -> QuestionFile | None:
    """A question from its YAML file text; `rel` names it in problems."""
    data = load_yaml_mapping(rel, raw, problems)
    if data is None:
        return None
    check = FileChecker(rel, data, problems)
    question = QuestionFile(
        content_id=check.text("id", pattern=ID_PATTERN, hint="lowercase letters, digits and dashes"),
        lesson_id=check.text("lesson", max_length=80),
        category=check.choice_of("category", CATEGORIES),
        kind=check.choice_of("kind", QUESTION_KINDS),
        order=check.integer("order"),
        prompt_html=render_markdown(check.text("prompt")),
        choices=_parse_choices(check),
        source_path=rel,
        content_hash=content_hash(raw),
    )
    return question


def _parse_choices(check: FileChecker) -> list[ChoiceData]:
    raw_choices = check.data.get("choices")
    if not isinstance(raw_choices, list) or not (MIN_CHOICES <= len(raw_choices) <= MAX_CHOICES):
        check.problem("choices", f"must be a list of {MIN_CHOICES} to {MAX_CHOICES} choices")
        return []
    choices = []
    for index, item in enumerate(raw_choices):
        name = f"choices[{index}]"
        if not isinstance(item, dict):
            check.problem(name, "must be a mapping with 'text', 'why' and optionally 'correct: true'")
            continue
        sub = FileChecker(check.path, item, check.problems, prefix=f"{name}.")
        text, why = sub.text("text"), sub.text("why")
        correct = item.get("correct", False)
        if not isinstance(correct, bool):
            sub.problem("correct", "must be true or false")
            correct = False
        choices.append(ChoiceData(chr(ord("a") + index), render_markdown(text), correct,
                                  render_markdown(why)))
    if len(choices) == len(raw_choices) and sum(c.is_correct for c in choices) != 1:
        check.problem("choices", f"exactly one choice must be 'correct: true' (found {sum(c.is_correct for c in choices)})")
    return choices


def load_content(root: Path) -> ContentBundle:
    """Read every lesson and question under `root` and check them, alone and against each other."""
    bundle = ContentBundle()
    for path in sorted((root / "lessons").glob("**/*.md")):
        if (lesson := parse_lesson(path, root, bundle.problems)) is not None:
            bundle.lessons.append(lesson)
    for path in sorted(list((root / "questions").glob("**/*.yaml")) + list((root / "questions").glob("**/*.yml"))):
        if (question := parse_question(path, root, bundle.problems)) is not None:
            bundle.questions.append(question)
    _check_across_files(bundle)
    return bundle


def _check_across_files(bundle: ContentBundle) -> None:
    seen: dict[tuple[str, str], str] = {}
    items = [("id", l.content_id, l.source_path) for l in bundle.lessons]
    items += [("slug", l.slug, l.source_path) for l in bundle.lessons]
    items += [("id", q.content_id, q.source_path) for q in bundle.questions]
    for field_name, value, path in items:
        if not value:
            continue
        if (field_name, value) in seen:
            bundle.problems.append(ContentProblem(path, field_name, f"{value!r} is already used by {seen[(field_name, value)]}"))
        else:
            seen[(field_name, value)] = path
    lesson_ids = {l.content_id for l in bundle.lessons}
    for q in bundle.questions:
        if q.lesson_id and q.lesson_id not in lesson_ids:
            bundle.problems.append(ContentProblem(q.source_path, "lesson", f"no lesson has the id {q.lesson_id!r}"))
