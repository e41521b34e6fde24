"""Pages for lessons, practice questions, the practice exam and the learner's dashboard."""
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from . import selectors, services
from .forms import AnswerForm, ExamStartForm, exam_answers_from_post
from .learners import learner_from_request
from .taxonomy import CATEGORIES, TOPICS


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    lessons = selectors.lesson_list()
    return render(request, "lessons/home.html", {
        "lessons": lessons[:6], "lesson_count": len(lessons),
        "question_count": selectors.question_count(),
    })


@require_GET
def lesson_index(request: HttpRequest) -> HttpResponse:
    return render(request, "lessons/lesson_list.html", {"lessons": selectors.lesson_list()})


@require_GET
def lesson_detail(request: HttpRequest, slug: str) -> HttpResponse:
    lesson = selectors.lesson_get(slug=slug)
    previous, following = selectors.lesson_neighbours(lesson=lesson)
    return render(request, "lessons/lesson_detail.html", {
        "lesson": lesson, "questions": selectors.lesson_questions(lesson=lesson),
        "previous": previous, "next": following,
    })


@require_GET
def question_index(request: HttpRequest) -> HttpResponse:
    topic, category = request.GET.get("topic", ""), request.GET.get("category", "")
    learner = learner_from_request(request)
    latest = selectors.latest_answers(learner=learner)
    context = {
        "rows": [(q, latest.get(q.pk)) for q in selectors.question_bank(topic=topic, category=category)],
        "topics": TOPICS, "categories": CATEGORIES, "topic": topic, "category": category,
    }
    if request.htmx:
        return render(request, "lessons/question_list.html#question-table", context)
    return render(request, "lessons/question_list.html", context)


@require_GET
def question_detail(request: HttpRequest, content_id: str) -> HttpResponse:
    """With htmx, returns the fragment `lessons/_question_card.html` (a fresh, unanswered card)."""
    question = selectors.question_get(content_id=content_id)
    answer = None
    if answer_id := request.GET.get("answer"):
        answer = selectors.answer_get_for_learner(learner=learner_from_request(request), answer_id=answer_id)
        if answer.question_id != question.pk:
            answer = None
    if request.htmx:
        return render(request, "lessons/_question_card.html", {"question": question, "answer": answer})
    return render(request, "lessons/question_detail.html", {"question": question, "answer": answer})


@require_POST
def question_answer(request: HttpRequest, content_id: str) -> HttpResponse:
    """Returns the fragment `lessons/_question_card.html` with the feedback for the chosen option."""
    question = selectors.question_get(content_id=content_id)
    form = AnswerForm(request.POST, question=question)
    if not form.is_valid():
        if request.htmx:
            return render(request, "lessons/_question_card.html", {"question": question, "form_error": form.error_text()})
        messages.error(request, form.error_text())
        return redirect(question)
    answer = services.answer_record(learner=learner_from_request(request), question=question,
                                    choice=form.cleaned_data["choice"])
    if request.htmx:
        return render(request, "lessons/_question_card.html", {"question": question, "answer": answer})
    return redirect(f"{question.get_absolute_url()}?answer={answer.pk}#q-{question.content_id}")


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    learner = learner_from_request(request)
    return render(request, "lessons/dashboard.html", {
        "mastery": selectors.mastery_for(learner=learner),
        "attempts": selectors.exam_attempts_for(learner=learner)[:5],
    })


@require_GET
def exam_index(request: HttpRequest) -> HttpResponse:
    learner = learner_from_request(request)
    form = ExamStartForm(initial={"questions": settings.EXAM_DEFAULT_QUESTIONS, "minutes": settings.EXAM_DEFAULT_MINUTES})
    return render(request, "lessons/exam_index.html", {"form": form, "attempts": selectors.exam_attempts_for(learner=learner)})


@require_POST
def exam_start(request: HttpRequest) -> HttpResponse:
    learner = learner_from_request(request)
    form = ExamStartForm(request.POST)
    if not form.is_valid():
        return render(request, "lessons/exam_index.html",
                      {"form": form, "attempts": selectors.exam_attempts_for(learner=learner)}, status=400)
    attempt = services.exam_start(learner=learner, question_count=form.cleaned_data["questions"],
                                  minutes=form.cleaned_data["minutes"])
    if request.htmx:
        return HttpResponseClientRedirect(attempt.get_absolute_url())
    return redirect(attempt)


@require_GET
def exam_attempt(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = selectors.exam_attempt_get(learner=learner_from_request(request), pk=pk)
    attempt = services.exam_expire_if_due(attempt=attempt)
    if attempt.is_submitted:
        return render(request, "lessons/exam_report.html", {"report": selectors.exam_report(attempt=attempt)})
    saved = {a.question_id: a.choice_id for a in attempt.answers.all()}
    items = [(q, saved.get(q.pk)) for q in selectors.exam_questions(attempt=attempt)]
    return render(request, "lessons/exam_take.html", {"attempt": attempt, "items": items})


@require_POST
def exam_save(request: HttpRequest, pk: int) -> HttpResponse:
    """Returns the fragment `lessons/exam_take.html#save-status`: how many answers are saved."""
    attempt = selectors.exam_attempt_get(learner=learner_from_request(request), pk=pk)
    try:
        services.exam_answers_save(attempt=attempt, answers=exam_answers_from_post(request.POST, attempt))
    except services.ExamClosed:
        if request.htmx:
            return HttpResponseClientRedirect(attempt.get_absolute_url())
        return redirect(attempt)
    context = {"attempt": attempt, "saved_count": attempt.answers.count()}
    if request.htmx:
        return render(request, "lessons/exam_take.html#save-status", context)
    return redirect(attempt)


@require_POST
def exam_submit(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = selectors.exam_attempt_get(learner=learner_from_request(request), pk=pk)
    attempt = services.exam_submit(attempt=attempt, answers=exam_answers_from_post(request.POST, attempt))
    if request.htmx:
        return HttpResponseClientRedirect(reverse("lessons:exam-attempt", kwargs={"pk": attempt.pk}))
    return redirect(attempt)
