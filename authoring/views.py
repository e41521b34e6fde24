"""Instructors' pages: the Teach home, authoring lessons, questions and payload scenarios (drafts, live
Markdown preview, checks, publish, history, learner preview, export and import), and regrades."""
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseStopPolling

from accounts.roles import instructor_required
from cohorts.selectors import cohorts_taught_by
from exercises import selectors as exercise_selectors
from exercises import services as exercise_services
from exercises.forms import SubmissionForm
from exercises.models import Regrade
from lessons.rendering import render_markdown

from . import files, selectors, services
from .forms import FORMS, ImportForm
from .models import AuthoredItem


@instructor_required
@require_GET
def teach_home(request: HttpRequest) -> HttpResponse:
    return render(request, "authoring/teach_home.html", {
        "cohorts": cohorts_taught_by(user=request.user), "items": selectors.items_for(user=request.user)})


def _content_list_context(request: HttpRequest, **extra) -> dict:
    return {"items": selectors.items_for(user=request.user), "file_items": selectors.file_items(),
            "import_form": ImportForm(), **extra}


@instructor_required
@require_GET
def content_list(request: HttpRequest) -> HttpResponse:
    return render(request, "authoring/content_list.html", _content_list_context(request))


def _editor_context(request, *, kind: str, form, item: AuthoredItem | None, problems=None) -> dict:
    problems = problems if problems is not None else (
        services.authored_problems(kind=kind, source=item.source, item=item) if item else [])
    if not form.is_bound:  # a bound form marks its own invalid fields; outline the ones the problems name
        for problem in problems:
            if (name := form.form_field_for(problem.field)) is not None:
                form.fields[name].widget.attrs["aria-invalid"] = "true"
    latest = item.latest_version if item else None
    exercise = selectors.live_exercise(item=item) if item else None
    return {"form": form, "item": item, "kind": kind, "kind_label": AuthoredItem.KINDS[kind], "problems": problems,
            "latest": latest, "unpublished": item is not None and (latest is None or latest.source != item.source),
            "exercise": exercise,
            "regrade_count": exercise_services.regrade_candidates(exercise=exercise).count() if exercise else 0,
            "running_regrade": exercise.regrades.exclude(state=Regrade.DONE).first() if exercise else None}


@instructor_required
@require_http_methods(["GET", "POST"])
def item_create(request: HttpRequest, kind: str) -> HttpResponse:
    if kind not in FORMS:
        raise Http404("Unknown kind of item.")
    form = FORMS[kind](request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            item = services.authored_create(author=request.user, kind=kind, source=form.to_source())
        except services.AuthoringRefused as refused:
            return render(request, "authoring/item_edit.html",
                          _editor_context(request, kind=kind, form=form, item=None, problems=refused.problems), status=422)
        messages.success(request, "Draft saved. Learners do not see it until you publish it.")
        return redirect(item)
    return render(request, "authoring/item_edit.html", _editor_context(request, kind=kind, form=form, item=None),
                  status=422 if form.errors else 200)


@instructor_required
@require_http_methods(["GET", "POST"])
def item_edit(request: HttpRequest, pk: int) -> HttpResponse:
    item = selectors.item_get_for_editor(user=request.user, pk=pk)
    form_class = FORMS[item.kind]
    if request.method == "GET":
        form = form_class(initial=form_class.initial_from(item.source))
        return render(request, "authoring/item_edit.html", _editor_context(request, kind=item.kind, form=form, item=item))
    form = form_class(request.POST)
    if form.is_valid():
        try:
            services.authored_save_draft(item=item, source=form.to_source())
        except services.AuthoringRefused as refused:
            return render(request, "authoring/item_edit.html", _editor_context(
                request, kind=item.kind, form=form, item=item, problems=refused.problems), status=422)
        if "publish" in request.POST:
            return _publish(request, item)
        messages.success(request, "Draft saved.")
        return redirect(item)
    return render(request, "authoring/item_edit.html",
                  _editor_context(request, kind=item.kind, form=form, item=item), status=422)


@instructor_required
@require_POST
def item_publish(request: HttpRequest, pk: int) -> HttpResponse:
    return _publish(request, selectors.item_get_for_editor(user=request.user, pk=pk))


def _publish(request: HttpRequest, item: AuthoredItem) -> HttpResponse:
    try:
        version = services.authored_publish(item=item, user=request.user)
    except services.AuthoringRefused as refused:
        form_class = FORMS[item.kind]
        form = form_class(initial=form_class.initial_from(item.source))
        context = _editor_context(request, kind=item.kind, form=form, item=item, problems=refused.problems)
        context["publish_refused"] = True
        return render(request, "authoring/item_edit.html", context, status=422)
    messages.success(request, f"Published version {version.number}. Learners see it now.")
    return redirect(item)


@instructor_required
@require_GET
def item_history(request: HttpRequest, pk: int) -> HttpResponse:
    item = selectors.item_get_for_editor(user=request.user, pk=pk)
    latest = item.latest_version
    return render(request, "authoring/item_history.html", {
        "item": item, "history": selectors.version_history(item=item),
        "draft_diff": selectors.source_diff(latest.source, item.source) if latest else None})


@instructor_required
@require_GET
def item_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """The draft as a learner would see it: written live inside a transaction that is rolled back."""
    item = selectors.item_get_for_editor(user=request.user, pk=pk)
    problems = services.authored_problems(kind=item.kind, source=item.source, item=item)
    if problems:
        return render(request, "authoring/preview_refused.html", {"item": item, "problems": problems}, status=422)
    banner = (f"Preview of your draft of {item.content_id}, as learners will see it once published. "
              "Nothing here is saved, and answers or submissions are disabled.")
    with transaction.atomic():
        row = services.authored_apply(item=item)
        context = {"preview_banner": banner, "preview": True}
        if item.kind == files.LESSON:
            template = "lessons/lesson_detail.html"
            context.update(lesson=row, questions=list(row.questions.filter(is_active=True)))
        elif item.kind == files.QUESTION:
            template = "lessons/question_detail.html"
            context.update(question=row)
        else:
            template = "exercises/exercise_detail.html"
            context.update(exercise=row, form=SubmissionForm(initial={"text": row.starter}), history=[])
        html = render_to_string(template, context, request=request)
        transaction.set_rollback(True)
    return HttpResponse(html)


@instructor_required
@require_POST
def markdown_preview(request: HttpRequest) -> HttpResponse:
    """Returns the fragment: the posted Markdown field rendered and sanitized, as learners will see it."""
    field = request.POST.get("field", "")
    text = request.POST.get(field, "") if field in ("body", "prompt", "situation") else ""
    if not text.strip():
        return HttpResponse('<p class="muted">The preview appears here as you type.</p>')
    return HttpResponse(render_markdown(text[:100_000]))


@instructor_required
@require_GET
def file_item(request: HttpRequest, kind: str, content_id: str) -> HttpResponse:
    row, source = selectors.file_item_get(kind=kind, content_id=content_id)
    exercise = row if kind == "exercise" else None
    return render(request, "authoring/file_item.html", {
        "row": row, "kind": kind, "source": source, "exercise": exercise,
        "regrade_count": exercise_services.regrade_candidates(exercise=exercise).count() if exercise else 0})


@instructor_required
@require_GET
def content_export(request: HttpRequest) -> HttpResponse:
    data = services.authored_export(items=selectors.items_for(user=request.user))
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="authored-content.zip"'
    return response


@instructor_required
@require_POST
def content_import(request: HttpRequest) -> HttpResponse:
    uploads = [(f.name, f.read()) for f in request.FILES.getlist("files")]
    if not uploads:
        messages.error(request, "Choose one or more content files (.md, .yaml) or a zip of them to import.")
        return redirect("authoring:content-list")
    report = services.authored_import(author=request.user, uploads=uploads,
                                      may_edit=lambda item: selectors.item_may_edit(user=request.user, item=item))
    if report.problems:
        return render(request, "authoring/content_list.html",
                      _content_list_context(request, import_problems=report.problems), status=422)
    messages.success(request, f"Imported {len(report.created)} new and {len(report.updated)} updated draft(s). "
                              "Check and publish each one.")
    return redirect("authoring:content-list")


# --- Regrades -------------------------------------------------------------------------------------

def _exercise_for_regrade(request: HttpRequest, slug: str):
    """Authors regrade their own scenarios; exercises from files and others' scenarios are for staff."""
    exercise = exercise_selectors.exercise_get(slug=slug)
    item = AuthoredItem.objects.filter(kind=files.SCENARIO, content_id=exercise.content_id).first()
    owned = item is not None and exercise.source_path == item.source_path and item.author_id == request.user.pk
    if not (request.user.is_staff or owned):
        raise Http404("No such exercise among the ones you may regrade.")
    return exercise


@instructor_required
@require_POST
def regrade_start(request: HttpRequest, slug: str) -> HttpResponse:
    exercise = _exercise_for_regrade(request, slug)
    regrade = exercise_services.regrade_start(exercise=exercise, user=request.user)
    return redirect(regrade)


@instructor_required
@require_GET
def regrade_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """With htmx, returns the fragment `authoring/regrade.html#progress`; polling stops once done."""
    regrade = Regrade.objects.select_related("exercise", "requested_by").filter(pk=pk).first()
    if regrade is None:
        raise Http404("No such regrade.")
    _exercise_for_regrade(request, regrade.exercise.slug)
    context = {"regrade": regrade, "records": regrade.records.select_related("submission__user")[:200]}
    if request.htmx:
        response = render(request, "authoring/regrade.html#progress", context)
        if regrade.state == Regrade.DONE:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "authoring/regrade.html", context)
