"""Writes for authored items: drafts, checks, publishing (the live row plus a numbered version), export and import."""
import io
import zipfile
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from exercises.models import Exercise
from exercises.services import exercise_write
from lessons.content_files import BROWSER_SOURCE, ContentProblem
from lessons.models import Lesson, Question
from lessons.services import lesson_write, question_write

from . import files
from .models import AuthoredItem, AuthoredVersion

LIVE_MODELS = {files.LESSON: Lesson, files.QUESTION: Question, files.SCENARIO: Exercise}
MAX_IMPORT_BYTES = 2_000_000


class AuthoringRefused(Exception):
    """Nothing was written; `problems` say what to change (file field names, as `sync_content` reports them)."""

    def __init__(self, problems: list[ContentProblem]):
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


def _name(item_kind: str, content_id: str) -> str:
    return f"{item_kind} {content_id or '(no id yet)'}"


def authored_problems(*, kind: str, source: str, item: AuthoredItem | None = None) -> list[ContentProblem]:
    """Everything that stops this text from being published, all at once: the file checks, then its place
    among the live content (ids and slugs taken, the lesson a question belongs to, example payloads)."""
    fields = files.fields_of(kind, source)
    content_id = str(fields.get("id") or "")
    name = _name(kind, content_id)
    parsed, problems = files.parse_item(kind, source, name)
    if parsed is None:
        return problems
    problem = lambda field_name, message: problems.append(ContentProblem(name, field_name, message))  # noqa: E731
    model = LIVE_MODELS[kind]
    owned = f"{BROWSER_SOURCE}{kind}/{parsed.content_id}"
    clash = model.objects.filter(content_id=parsed.content_id).exclude(source_path=owned).first()
    if clash is not None:
        problem("id", f"{parsed.content_id!r} is already used by {_where(clash)}; choose another id")
    others = AuthoredItem.objects.filter(kind=kind, content_id=parsed.content_id)
    if item is not None:
        others = others.exclude(pk=item.pk)
    if others.exists():
        problem("id", f"{parsed.content_id!r} is already used by another item authored in the browser")
    if item is not None and item.versions.exists() and parsed.content_id != item.content_id:
        problem("id", f"cannot change after publishing (it was {item.content_id!r}): learners' answers and "
                      "submissions are kept under it")
    if hasattr(parsed, "slug") and parsed.slug:
        slug_clash = model.objects.filter(slug=parsed.slug).exclude(content_id=parsed.content_id).first()
        if slug_clash is not None:
            problem("slug", f"{parsed.slug!r} is already used by {_where(slug_clash)}")
    if kind == files.QUESTION and parsed.lesson_id and not Lesson.objects.filter(
            content_id=parsed.lesson_id, is_active=True).exists():
        problem("lesson", f"no published lesson has the id {parsed.lesson_id!r}")
    if kind == files.SCENARIO:
        if parsed.kind and parsed.kind != "payload":
            problem("kind", "must be 'payload': the browser authors payload scenarios; code exercises are files")
        examples = fields.get("examples") if isinstance(fields.get("examples"), dict) else {}
        for verdict in ("good", "bad"):
            if not examples.get(verdict):
                problem(f"examples.{verdict}", f"give at least one {verdict} example payload, so the rubric can be "
                                               "checked against it before learners meet it")
    return problems


def _where(row) -> str:
    if row.source_path.startswith(BROWSER_SOURCE):
        return "an item authored in the browser"
    return row.source_path


def authored_create(*, author, kind: str, source: str) -> AuthoredItem:
    content_id = str(files.fields_of(kind, source).get("id") or "").strip()
    if not content_id:
        raise AuthoringRefused([ContentProblem(_name(kind, ""), "id", "is required to save a draft")])
    if AuthoredItem.objects.filter(kind=kind, content_id=content_id).exists():
        raise AuthoringRefused([ContentProblem(_name(kind, content_id), "id", "is already used by another item "
                                                                                "authored in the browser")])
    return AuthoredItem.objects.create(kind=kind, content_id=content_id, author=author, source=source)


def authored_save_draft(*, item: AuthoredItem, source: str) -> AuthoredItem:
    """Keep the draft as typed, valid or not; only its id must be there, and fixed once published."""
    content_id = str(files.fields_of(item.kind, source).get("id") or "").strip()
    problems = []
    if not content_id:
        problems.append(ContentProblem(_name(item.kind, item.content_id), "id", "is required to save a draft"))
    elif content_id != item.content_id and (item.versions.exists() or AuthoredItem.objects.filter(
            kind=item.kind, content_id=content_id).exists()):
        problems.append(ContentProblem(_name(item.kind, item.content_id), "id",
                                       "cannot change after publishing" if item.versions.exists()
                                       else f"{content_id!r} is already used by another item"))
    if problems:
        raise AuthoringRefused(problems)
    item.source, item.content_id, item.updated_at = source, content_id, timezone.now()
    item.save(update_fields=["source", "content_id", "updated_at"])
    return item


def authored_apply(*, item: AuthoredItem):
    """Write the live row (lesson, question or exercise) from the draft; the caller has checked it."""
    parsed, problems = files.parse_item(item.kind, item.source, item.source_path)
    if parsed is None or problems:
        raise AuthoringRefused(problems)
    parsed.source_path = item.source_path
    model = LIVE_MODELS[item.kind]
    row = model.objects.filter(content_id=parsed.content_id).first()
    if item.kind == files.LESSON:
        return lesson_write(row=row, item=parsed)
    if item.kind == files.QUESTION:
        return question_write(row=row, item=parsed, lesson=Lesson.objects.get(content_id=parsed.lesson_id))
    return exercise_write(row=row, item=parsed)


def authored_publish(*, item: AuthoredItem, user) -> AuthoredVersion:
    """Check the draft, write it live and record it as the next version; refused with every problem, or
    with none when the draft is what was last published."""
    problems = authored_problems(kind=item.kind, source=item.source, item=item)
    if problems:
        raise AuthoringRefused(problems)
    latest = item.latest_version
    if latest is not None and latest.source == item.source:
        raise AuthoringRefused([ContentProblem(_name(item.kind, item.content_id), "(draft)",
                                               f"has no changes since version {latest.number}")])
    with transaction.atomic():
        authored_apply(item=item)
        return AuthoredVersion.objects.create(item=item, number=(latest.number if latest else 0) + 1,
                                              source=item.source, published_by=user)


# --- Files out and in ---------------------------------------------------------------------------

def authored_export(*, items: list[AuthoredItem]) -> bytes:
    """A zip laid out like the repository: unpack it at the top and `sync_content` loads every item."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in items:
            path = files.export_path(item.kind, files.fields_of(item.kind, item.source), item.content_id)
            archive.writestr(path, item.source)
    return buffer.getvalue()


@dataclass
class ImportReport:
    created: list[AuthoredItem] = field(default_factory=list)
    updated: list[AuthoredItem] = field(default_factory=list)
    problems: list[ContentProblem] = field(default_factory=list)


def authored_import(*, author, uploads: list[tuple[str, bytes]], may_edit) -> ImportReport:
    """Read content files (or zips of them) into drafts. All or nothing: if any file cannot become a draft,
    none is written and every problem is reported. Drafts may still need work before publishing."""
    report = ImportReport()
    texts: list[tuple[str, str]] = []
    for name, data in uploads:
        texts.extend(_unpack(name, data, report.problems))
    planned = []
    for name, text in texts:
        kind = files.detect_kind(name, text)
        if kind is None:
            report.problems.append(ContentProblem(name, "(file)", "is not a lesson (.md with front matter), a question "
                                                                  "(.yaml with choices) or a payload scenario (.yaml "
                                                                  "with kind: payload)"))
            continue
        content_id = str(files.fields_of(kind, text).get("id") or "").strip()
        if not content_id:
            report.problems.append(ContentProblem(name, "id", "is required"))
            continue
        live = LIVE_MODELS[kind].objects.filter(content_id=content_id).first()
        if live is not None and not live.source_path.startswith(BROWSER_SOURCE):
            report.problems.append(ContentProblem(name, "id", f"{content_id!r} belongs to {live.source_path}, which is "
                                                              "read-only in the browser; edit that file instead"))
            continue
        existing = AuthoredItem.objects.filter(kind=kind, content_id=content_id).first()
        if existing is not None and not may_edit(existing):
            report.problems.append(ContentProblem(name, "id", f"{content_id!r} is another author's item"))
            continue
        planned.append((kind, content_id, text, existing))
    if report.problems:
        return report
    with transaction.atomic():
        for kind, content_id, text, existing in planned:
            if existing is None:
                report.created.append(AuthoredItem.objects.create(kind=kind, content_id=content_id, author=author,
                                                                  source=text))
            else:
                report.updated.append(authored_save_draft(item=existing, source=text))
    return report


def _unpack(name: str, data: bytes, problems: list[ContentProblem]) -> list[tuple[str, str]]:
    if len(data) > MAX_IMPORT_BYTES:
        problems.append(ContentProblem(name, "(file)", f"is {len(data)} bytes; the limit is {MAX_IMPORT_BYTES}"))
        return []
    if name.endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [m for m in archive.infolist() if not m.is_dir()]
                if sum(m.file_size for m in members) > MAX_IMPORT_BYTES:
                    problems.append(ContentProblem(name, "(file)", "unpacks to more than the import limit"))
                    return []
                found = []
                for member in members:
                    found.extend(_unpack(member.filename, archive.read(member), problems))
                return found
        except zipfile.BadZipFile:
            problems.append(ContentProblem(name, "(file)", "is not a readable zip file"))
            return []
    try:
        return [(name, data.decode("utf-8"))]
    except UnicodeDecodeError:
        problems.append(ContentProblem(name, "(file)", "is not UTF-8 text"))
        return []
