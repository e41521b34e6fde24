"""Forms for answering a question and starting a practice exam."""
from django import forms
from django.http import QueryDict

from .models import Choice, ExamAttempt, Question


class AnswerForm(forms.Form):
    choice = forms.CharField(max_length=1)

    def __init__(self, *args, question: Question, **kwargs):
        super().__init__(*args, **kwargs)
        self.question = question

    def clean_choice(self) -> Choice:
        key = self.cleaned_data["choice"]
        for choice in self.question.choices.all():
            if choice.key == key:
                return choice
        raise forms.ValidationError("That option is not one of this question's choices.")

    def error_text(self) -> str:
        if "choice" in self.errors and not self.data.get("choice"):
            return "Pick one of the options, then check your answer."
        return " ".join(e for errors in self.errors.values() for e in errors)


class ExamStartForm(forms.Form):
    questions = forms.IntegerField(min_value=5, max_value=60, label="Number of questions")
    minutes = forms.IntegerField(min_value=1, max_value=180, label="Time limit (minutes)")


def exam_answers_from_post(data: QueryDict, attempt: ExamAttempt) -> dict[int, int]:
    """Read `q-<question id>` = `<choice id>` fields; anything malformed is ignored, not fatal."""
    answers = {}
    for question_id in attempt.question_ids:
        raw = data.get(f"q-{question_id}", "")
        if raw.isdigit():
            answers[question_id] = int(raw)
    return answers
