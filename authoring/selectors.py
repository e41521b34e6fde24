"""Reads for authoring. An item is edited by its author or by staff; any other instructor gets a 404."""
import difflib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import Http404

from exercises.models import Exercise
from lessons.content_files import BROWSER_SOURCE
from lessons.models import Lesson, Question

from . import files
from .models import AuthoredItem, AuthoredVersion


def items_for(*, user) -> list[AuthoredItem]:
    items = AuthoredItem.objects.all() if user.is_staff else AuthoredItem.objects.filter(author=user)
    return list(items.select_related("author").prefetch_related("versions"))


def item_may_edit(*, user, item: AuthoredItem) -> bool:
    return user.is_staff or item.author_id == user.pk


def item_get_for_editor(*, user, pk: int) -> AuthoredItem:
    item = AuthoredItem.objects.filter(pk=pk).select_related("author").first()
    if item is None or not item_may_edit(user=user, item=item):
        raise Http404("No such item among the ones you author.")
    return item


@dataclass
class FileItem:
    """A live item that comes from a content file: read-only in the browser."""

    kind: str
    content_id: str
    title: str
    source_path: str


def file_items() -> list[FileItem]:
    from_files = lambda model: model.objects.filter(is_active=True).exclude(source_path__startswith=BROWSER_SOURCE)  # noqa: E731
    items = [FileItem(files.LESSON, l.content_id, l.title, l.source_path) for l in from_files(Lesson)]
    items += [FileItem(files.QUESTION, q.content_id, q.content_id, q.source_path) for q in from_files(Question)]
    items += [FileItem("exercise", e.content_id, e.title, e.source_path) for e in from_files(Exercise)]
    return items


FILE_MODELS = {files.LESSON: Lesson, files.QUESTION: Question, "exercise": Exercise}


def file_item_get(*, kind: str, content_id: str) -> tuple[object, str]:
    """A file item's live row and the text of its file (as it is on disk now)."""
    model = FILE_MODELS.get(kind)
    row = model and model.objects.filter(content_id=content_id).exclude(source_path__startswith=BROWSER_SOURCE).first()
    if row is None:
        raise Http404("No such item from the content files.")
    base = Path(settings.BASE_DIR).resolve()
    path = (base / row.source_path).resolve()
    if base not in path.parents or not path.is_file():
        return row, ""
    return row, path.read_text(encoding="utf-8")


@dataclass
class DiffLine:
    kind: str  # add | remove | context | hunk
    text: str


def source_diff(old: str, new: str) -> list[DiffLine]:
    """A line diff of two versions of an item's text, for the history page."""
    lines = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        kind = {"@": "hunk", "+": "add", "-": "remove"}.get(line[:1], "context")
        lines.append(DiffLine(kind, line))
    return lines


def version_history(*, item: AuthoredItem) -> list[tuple[AuthoredVersion, list[DiffLine]]]:
    versions = list(item.versions.select_related("published_by"))
    return [(v, source_diff(versions[i + 1].source if i + 1 < len(versions) else "", v.source))
            for i, v in enumerate(versions)]


def live_exercise(*, item: AuthoredItem) -> Exercise | None:
    if item.kind != files.SCENARIO:
        return None
    return Exercise.objects.filter(content_id=item.content_id, source_path=item.source_path).first()
