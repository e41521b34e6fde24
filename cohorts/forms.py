from django import forms
from django.utils import timezone

from exercises.models import Exercise

from .models import Assignment


class CohortForm(forms.Form):
    name = forms.CharField(max_length=120, label="Cohort name", widget=forms.TextInput(attrs={"placeholder": "Spring 2027, support bots"}))


class JoinForm(forms.Form):
    code = forms.CharField(max_length=20, label="Invite code", widget=forms.TextInput(attrs={"autocomplete": "off"}))


class AssignmentForm(forms.Form):
    target = forms.ChoiceField(label="Assign")
    due_at = forms.DateTimeField(label="Due", widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                 input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        exercises = Exercise.objects.filter(is_active=True)
        self.fields["target"].choices = [("exam", "Practice exam")] + [(str(e.pk), e.title) for e in exercises]

    def clean_due_at(self):
        due_at = self.cleaned_data["due_at"]
        if due_at <= timezone.now():
            raise forms.ValidationError("Choose a due date in the future.")
        return due_at

    def assignment_kind_and_exercise(self) -> tuple[str, Exercise | None]:
        target = self.cleaned_data["target"]
        if target == "exam":
            return Assignment.EXAM, None
        return Assignment.EXERCISE, Exercise.objects.get(pk=int(target), is_active=True)
