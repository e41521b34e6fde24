"""Pages for exercises, submissions and their results, the Playground (live training server) and API tokens."""
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseStopPolling

from lessons.learners import learner_from_request

from . import selectors, services
from .forms import ApiTokenForm, FailureModeForm, SubmissionForm
from .graders.tool_server.database import TRAINING_DB_PATH
from .mcp_server.tools import MODE_LABELS, TOOLS


@require_GET
def exercise_index(request: HttpRequest) -> HttpResponse:
    learner = learner_from_request(request)
    progress = selectors.exercise_progress(learner=learner)
    rows = [(exercise, progress.get(exercise.pk)) for exercise in selectors.exercise_list()]
    return render(request, "exercises/exercise_list.html", {"rows": rows})


def _exercise_context(request: HttpRequest, exercise, *, text: str | None = None, error: dict | None = None) -> dict:
    learner = learner_from_request(request)
    history = selectors.submission_history(learner=learner, exercise=exercise)
    if text is None:
        text = exercise.starter
        if from_pk := request.GET.get("from", ""):
            if from_pk.isdigit():
                text = selectors.submission_get_for_learner(learner=learner, pk=int(from_pk)).text
    return {"exercise": exercise, "form": SubmissionForm(initial={"text": text}), "history": history,
            "progress": selectors.exercise_progress(learner=learner).get(exercise.pk), "submit_error": error}


@require_GET
def exercise_detail(request: HttpRequest, slug: str) -> HttpResponse:
    exercise = selectors.exercise_get(slug=slug)
    return render(request, "exercises/exercise_detail.html", _exercise_context(request, exercise))


def exercise_training_db(request: HttpRequest, slug: str) -> HttpResponse:
    """The `training_db` module a tool-server exercise builds on, to run the learner's server at home."""
    exercise = selectors.exercise_get(slug=slug)
    if exercise.kind != "tool-server":
        raise Http404("This exercise has no training_db module.")
    return FileResponse(TRAINING_DB_PATH.open("rb"), as_attachment=True, filename="training_db.py",
                        content_type="text/x-python; charset=utf-8")


@require_POST
def submission_create(request: HttpRequest, slug: str) -> HttpResponse:
    """With htmx, returns the fragment `exercises/_result_panel.html` (polling until graded)."""
    exercise = selectors.exercise_get(slug=slug)
    form = SubmissionForm(request.POST)
    text = request.POST.get("text", "")
    error = None
    if not form.is_valid():
        error = {"description": "Write your answer in the editor before submitting."}
    else:
        try:
            submission, _ = services.submission_create(learner=learner_from_request(request), exercise=exercise,
                                                       text=form.cleaned_data["text"], source="web")
        except services.SubmissionRejected as rejected:
            error = rejected.error
    if error is not None:
        context = _exercise_context(request, exercise, text=text, error=error)
        if request.htmx:  # htmx swaps only 2xx answers; the fragment carries the error
            return render(request, "exercises/exercise_detail.html#submit-error", context)
        return render(request, "exercises/exercise_detail.html", context, status=422)
    if request.htmx:
        panel = render_to_string("exercises/_result_panel.html", {"submission": submission, "exercise": exercise},
                                 request=request)
        cleared = render_to_string("exercises/exercise_detail.html#submit-error", {}, request=request)
        return HttpResponse(panel + cleared)
    return redirect(submission)


@require_GET
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """With htmx, returns the fragment `exercises/_result_panel.html`; polling stops once graded."""
    submission = selectors.submission_get_for_viewer(learner=learner_from_request(request), user=request.user, pk=pk)
    context = {"submission": submission, "exercise": submission.exercise}
    if request.htmx:
        response = render(request, "exercises/_result_panel.html", context)
        if submission.is_graded and request.GET.get("poll"):
            response.status_code = HttpResponseStopPolling.status_code
        return response
    context["earlier_results"] = submission.earlier_results.select_related("regrade")
    context["own"] = submission.user_id is None or submission.user_id == request.user.pk
    return render(request, "exercises/submission_detail.html", context)


# --- Playground: the learner's live training MCP server --------------------------------------

def _playground_context(request: HttpRequest) -> dict:
    instance = services.training_instance_for(user=request.user)
    base = request.build_absolute_uri("/mcp/")
    token = services.instance_token(instance)
    tools = [(tool, instance.forced_modes.get(tool.name, "none")) for tool in TOOLS.values()]
    return {"instance": instance, "token": token, "mcp_url": base, "token_url": f"{base}{token}/",
            "tools": tools, "mode_labels": MODE_LABELS, "calls": selectors.live_calls(instance=instance),
            "rate_limit": settings.MCP_RATE_LIMIT_PER_MINUTE,
            "python": settings.BASE_DIR / ".venv" / "bin" / "python", "manage_py": settings.BASE_DIR / "manage.py"}


@login_required
@require_GET
def playground(request: HttpRequest) -> HttpResponse:
    return render(request, "exercises/playground.html", _playground_context(request))


@login_required
@require_GET
def playground_calls(request: HttpRequest) -> HttpResponse:
    """Returns the fragment `exercises/playground.html#live-calls` (polled every second)."""
    instance = services.training_instance_for(user=request.user)
    return render(request, "exercises/playground.html#live-calls", {"calls": selectors.live_calls(instance=instance)})


@login_required
@require_POST
def playground_mode(request: HttpRequest) -> HttpResponse:
    """Returns the fragment `exercises/playground.html#mode-table` with the switched mode."""
    form = FailureModeForm(request.POST)
    instance = services.training_instance_for(user=request.user)
    problem = None
    if form.is_valid():
        try:
            services.training_instance_set_mode(instance=instance, tool=form.cleaned_data["tool"],
                                                mode=form.cleaned_data["mode"])
        except ValueError as error:
            problem = str(error)
    else:
        problem = "Choose a tool and a failure mode."
    if request.htmx:
        context = _playground_context(request)
        context["mode_problem"] = problem
        return render(request, "exercises/playground.html#mode-table", context, status=422 if problem else 200)
    if problem:
        messages.error(request, problem)
    return redirect("exercises:playground")


@login_required
@require_POST
def playground_clear(request: HttpRequest) -> HttpResponse:
    """Returns the fragment `exercises/playground.html#live-calls`, now empty."""
    instance = services.training_instance_for(user=request.user)
    services.live_calls_clear(instance=instance)
    if request.htmx:
        return render(request, "exercises/playground.html#live-calls", {"calls": []})
    return redirect("exercises:playground")


@login_required
@require_POST
def playground_rotate_token(request: HttpRequest) -> HttpResponse:
    services.training_instance_rotate_token(instance=services.training_instance_for(user=request.user))
    messages.success(request, "Your training server has a new token; the old one stopped working. "
                              "Update your client configuration.")
    return redirect("exercises:playground")


# --- API tokens -------------------------------------------------------------------------------

@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request: HttpRequest) -> HttpResponse:
    new_token = None
    form = ApiTokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        _, new_token = services.api_token_create(user=request.user, name=form.cleaned_data["name"])
        form = ApiTokenForm()
    return render(request, "exercises/api_tokens.html", {
        "form": form, "new_token": new_token, "tokens": selectors.api_tokens_for(user=request.user),
        "api_base": request.build_absolute_uri("/api/v1/"),
    })


@login_required
@require_POST
def api_token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    if services.api_token_revoke(user=request.user, token_id=pk):
        messages.success(request, "Token revoked; requests that use it are now refused.")
    else:
        messages.error(request, "No such token.")
    return redirect(reverse("exercises:api-tokens"))
