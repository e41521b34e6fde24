from django import forms


class SubmissionForm(forms.Form):
    # The size limit is enforced by the service with a structured message; the form only needs text.
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false", "class": "code-input"}),
                           strip=False)


class ApiTokenForm(forms.Form):
    name = forms.CharField(max_length=100, initial="CI pipeline")


class FailureModeForm(forms.Form):
    tool = forms.CharField(max_length=100)
    mode = forms.CharField(max_length=40)
