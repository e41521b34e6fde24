"""Where a cohort goes wrong: misconceptions by error category, and the questions most often missed."""
from collections import Counter, defaultdict
from dataclasses import dataclass

from exercises.graders.agent_loop.scenarios import SCENARIOS
from exercises.graders.tool_server.probes import PROBES
from exercises.models import Submission
from lessons.models import Answer, ExamAnswer, Question
from lessons.taxonomy import CATEGORIES

from .models import Cohort
from .selectors import cohort_members

HEATMAP_CATEGORIES = {**{k: v for k, v in CATEGORIES.items() if k != "none"}, "none": "Not an error",
                      "other": "Protocol and robustness"}

# What each code scenario or probe is about, so a misconception found there lands in the right column.
SCENARIO_CATEGORIES = {
    "transient-recovers": "transient", "transient-persists": "transient", "rate-limited": "transient",
    "validation-fixable": "validation", "validation-unfixable": "validation", "refund-over-limit": "business",
    "permission-denied": "permission", "customer-not-found": "none", "partial-results": "none",
}
assert set(SCENARIO_CATEGORIES) <= {s.id for s in SCENARIOS}


def _probe_category(probe) -> str:
    if probe.rubric is None:
        return "other"
    return "none" if probe.rubric.get("expect") == "empty" else probe.rubric.get("category", "other")


PROBE_CATEGORIES = {probe.id: _probe_category(probe) for probe in PROBES}


def check_category(exercise, check: dict) -> str:
    """The error category a failed check is about."""
    check_id = check.get("id", "")
    if exercise.kind in ("agent-loop", "tool-server"):
        scenario = check_id.removeprefix("scenario-")
        table = SCENARIO_CATEGORIES if exercise.kind == "agent-loop" else PROBE_CATEGORIES
        return table.get(scenario, "other")
    if exercise.kind == "payload-set":
        part = exercise.rubric.get("parts", {}).get(check_id.partition("/")[0], {})
        return "none" if part.get("expect") == "empty" else part.get("category", "other")
    if exercise.rubric.get("expect") == "empty":
        return "none"
    return exercise.rubric.get("category") or exercise.category or "other"


@dataclass
class Heatmap:
    categories: dict[str, str]
    rows: list[tuple[str, list[int]]]  # misconception, learners per category (in `categories` order)
    learner_count: int
    peak: int

    def share(self, count: int) -> float:
        return count / self.learner_count if self.learner_count else 0.0


def misconception_heatmap(*, cohort: Cohort) -> Heatmap:
    """How many learners of the cohort showed each misconception, per error category (from every graded
    submission's failed checks, on any exercise)."""
    members = cohort_members(cohort=cohort)
    learners: dict[tuple[str, str], set[int]] = defaultdict(set)
    graded = (Submission.objects.filter(user__in=members, state=Submission.GRADED, counts_as_attempt=True)
              .select_related("exercise").only("user_id", "result", "exercise__kind", "exercise__rubric",
                                                "exercise__category"))
    for submission in graded:
        for check in (submission.result or {}).get("checks", []):
            if check.get("status") == "fail" and check.get("misconception"):
                category = check_category(submission.exercise, check)
                learners[(check["misconception"], category)].add(submission.user_id)
    columns = list(HEATMAP_CATEGORIES)
    tags = sorted({tag for tag, _ in learners}, key=lambda t: (-sum(len(learners[(t, c)]) for c in columns), t))
    rows = [(tag, [len(learners[(tag, c)]) for c in columns]) for tag in tags]
    peak = max((n for _, counts in rows for n in counts), default=0)
    return Heatmap(HEATMAP_CATEGORIES, rows, len(members), peak)


@dataclass
class MissedQuestion:
    question: Question
    wrong: int
    answered: int

    @property
    def miss_rate(self) -> float:
        return self.wrong / self.answered if self.answered else 0.0


def most_missed_questions(*, cohort: Cohort, limit: int = 10) -> list[MissedQuestion]:
    """Questions the cohort answered wrongly most often, in practice and in practice exams."""
    members = cohort_members(cohort=cohort)
    answered, wrong = Counter(), Counter()
    for question_id, correct in Answer.objects.filter(user__in=members).values_list("question_id", "is_correct"):
        answered[question_id] += 1
        wrong[question_id] += not correct
    exam_answers = ExamAnswer.objects.filter(attempt__user__in=members, attempt__submitted_at__isnull=False)
    for question_id, correct in exam_answers.values_list("question_id", "choice__is_correct"):
        answered[question_id] += 1
        wrong[question_id] += not correct
    top = [pk for pk, n in wrong.most_common() if n][:limit]
    questions = Question.objects.in_bulk(top)
    return [MissedQuestion(questions[pk], wrong[pk], answered[pk]) for pk in top if pk in questions]
