"""Instructors' cohort pages (their cohorts only), the gradebook and its CSV, and learners joining by invite."""
import csv

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.roles import instructor_required
from lessons.selectors import exam_report

from . import analytics, selectors, services
from .forms import AssignmentForm, CohortForm, JoinForm


@instructor_required
@require_http_methods(["GET", "POST"])
def cohort_list(request: HttpRequest) -> HttpResponse:
    form = CohortForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        cohort = services.cohort_create(instructor=request.user, name=form.cleaned_data["name"])
        messages.success(request, f"Cohort “{cohort.name}” created. Share its invite link or code with your learners.")
        return redirect(cohort)
    cohorts = selectors.cohorts_taught_by(user=request.user)
    return render(request, "cohorts/cohort_list.html", {"cohorts": cohorts, "form": form},
                  status=422 if form.errors else 200)


def _cohort_context(request: HttpRequest, cohort, assignment_form=None) -> dict:
    return {"cohort": cohort, "members": cohort.memberships.select_related("user"),
            "assignments": cohort.assignments.select_related("exercise"),
            "assignment_form": assignment_form or AssignmentForm(),
            "invite_url": request.build_absolute_uri(reverse("cohorts:join", kwargs={"code": cohort.invite_code}))}


@instructor_required
@require_GET
def cohort_detail(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    return render(request, "cohorts/cohort_detail.html", _cohort_context(request, cohort))


@instructor_required
@require_POST
def cohort_invite_rotate(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    services.cohort_rotate_invite(cohort=cohort)
    messages.success(request, "New invite code and link; the old ones no longer work. Members stay in the cohort.")
    return redirect(cohort)


@instructor_required
@require_POST
def assignment_create(request: HttpRequest, pk: int) -> HttpResponse:
    """With htmx, returns the fragment `cohorts/cohort_detail.html#assignments`."""
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    form = AssignmentForm(request.POST)
    if form.is_valid():
        kind, exercise = form.assignment_kind_and_exercise()
        try:
            services.assignment_create(cohort=cohort, kind=kind, exercise=exercise, due_at=form.cleaned_data["due_at"])
            form = AssignmentForm()
        except services.CohortRefused as refused:
            form.add_error(None, str(refused))
    context = _cohort_context(request, cohort, form)
    status = 422 if form.errors else 200
    if request.htmx:
        return render(request, "cohorts/cohort_detail.html#assignments", context)
    if status == 200:
        return redirect(cohort)
    return render(request, "cohorts/cohort_detail.html", context, status=status)


@instructor_required
@require_POST
def assignment_delete(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    if services.assignment_delete(cohort=cohort, assignment_id=assignment_pk):
        messages.success(request, "Assignment removed. Submissions already made are kept.")
    return redirect(cohort)


@instructor_required
@require_GET
def cohort_gradebook(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    return render(request, "cohorts/gradebook.html", {
        "cohort": cohort, "assignments": cohort.assignments.select_related("exercise"),
        "rows": selectors.gradebook(cohort=cohort), "heatmap": analytics.misconception_heatmap(cohort=cohort),
        "missed": analytics.most_missed_questions(cohort=cohort),
    })


CSV_HEADER = ["cohort", "learner", "assignment", "kind", "due_at", "best_score_percent", "attempts",
              "last_submission_at", "last_submission_url", "late"]


@instructor_required
@require_GET
def cohort_gradebook_csv(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="gradebook-cohort-{cohort.pk}.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_HEADER)
    for row in selectors.gradebook(cohort=cohort):
        for cell in row.cells:
            a = cell.assignment
            writer.writerow([
                _csv_safe(cohort.name), _csv_safe(row.learner.username), _csv_safe(a.title), a.get_kind_display(),
                a.due_at.isoformat(), "" if cell.best_score is None else round(cell.best_score * 100, 1),
                cell.attempts, cell.last_at.isoformat() if cell.last_at else "",
                request.build_absolute_uri(cell.last_url) if cell.last_url else "", "yes" if cell.late else "no",
            ])
    return response


def _csv_safe(text: str) -> str:
    """Names are typed by people: keep a spreadsheet from reading one as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@instructor_required
@require_GET
def cohort_learner(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    learner = selectors.cohort_member_get(cohort=cohort, user_id=user_id)
    submissions, exams = selectors.learner_work(learner=learner)
    return render(request, "cohorts/learner.html", {
        "cohort": cohort, "learner": learner, "submissions": submissions, "exams": exams,
        "row": selectors.gradebook(cohort=cohort, learners=[learner])[0]})


@instructor_required
@require_GET
def exam_report_for_instructor(request: HttpRequest, pk: int, attempt_pk: int) -> HttpResponse:
    cohort = selectors.cohort_get_for_instructor(user=request.user, pk=pk)
    attempt = selectors.exam_attempt_for_instructor(cohort=cohort, pk=attempt_pk)
    return render(request, "lessons/exam_report.html", {"report": exam_report(attempt=attempt), "cohort": cohort})


# --- Learners ---------------------------------------------------------------------------------

@require_http_methods(["GET", "POST"])
def join_by_code(request: HttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or request.GET or None)
    if form.is_valid():
        cohort = selectors.cohort_by_invite_code(code=form.cleaned_data["code"])
        if cohort is not None:
            return redirect("cohorts:join", code=cohort.invite_code)
        form.add_error("code", "No cohort has this code. Check it with your instructor; codes are 8 letters and "
                               "digits, and a code stops working when the instructor makes a new one.")
    return render(request, "cohorts/join.html", {"form": form}, status=404 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, code: str) -> HttpResponse:
    cohort = selectors.cohort_by_invite_code(code=code)
    if cohort is None:
        form = JoinForm(initial={"code": code})
        form.errors["code"] = form.error_class(["This invite is not valid any more. Ask your instructor for the "
                                                "current link or code."])
        return render(request, "cohorts/join.html", {"form": form}, status=404)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('accounts:login')}?next={request.path}")
        try:
            _, created = services.cohort_join(cohort=cohort, user=request.user)
        except services.CohortRefused as refused:
            messages.error(request, str(refused))
            return redirect(cohort.get_absolute_url())
        messages.success(request, f"You joined “{cohort.name}”." if created else f"You are already in “{cohort.name}”.")
        return redirect("cohorts:my-cohorts")
    return render(request, "cohorts/join_confirm.html", {"cohort": cohort})


@login_required
@require_GET
def my_cohorts(request: HttpRequest) -> HttpResponse:
    cohorts = [(cohort, selectors.gradebook(cohort=cohort, learners=[request.user], own=True)[0])
               for cohort in selectors.cohorts_joined_by(user=request.user)]
    return render(request, "cohorts/my_cohorts.html", {"cohorts": cohorts})
