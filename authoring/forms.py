"""Browser forms for the three kinds of authored item. Each turns its fields into the content file's text
(`to_source`) and reads them back from it (`initial_from`), so the form and the file share one schema."""
import json
from typing import Any

from django import forms

from exercises.content_files import ERROR_CATEGORIES
from lessons.content_files import MAX_CHOICES
from lessons.taxonomy import CATEGORIES, QUESTION_KINDS, TOPICS

from . import files

MARKDOWN_HELP = "Markdown: **bold**, `code`, lists, tables and ```fenced code```. The preview shows it as learners will."
ID_HELP = "Lowercase letters, digits and dashes. Fixed once published: learners' history is kept under it."
TEXTAREA = {"rows": 10, "spellcheck": "true"}


def _lines(value: Any) -> str:
    return "\n".join(value) if isinstance(value, list) else ""


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.replace(",", "\n").splitlines() if part.strip()]


class ItemForm(forms.Form):
    kind: str
    field_map: dict[str, str] = {}  # a problem's file field -> the form field it is shown under

    content_id = forms.CharField(label="Id", max_length=80, help_text=ID_HELP)
    order = forms.IntegerField(label="Order", min_value=0, initial=100, required=False)

    def to_source(self) -> str:
        raise NotImplementedError

    @classmethod
    def initial_from(cls, source: str) -> dict[str, Any]:
        raise NotImplementedError

    def form_field_for(self, file_field: str) -> str | None:
        name = self.field_map.get(file_field) or self.field_map.get(file_field.split("[")[0].split(".")[0])
        return name if name in self.fields else None


class LessonForm(ItemForm):
    kind = files.LESSON
    field_map = {"id": "content_id", "slug": "slug", "title": "title", "summary": "summary", "topic": "topic",
                 "order": "order", "(body)": "body"}
    slug = forms.SlugField(label="Slug (the lesson's address)", max_length=120)
    title = forms.CharField(max_length=200)
    summary = forms.CharField(max_length=400, help_text="One sentence shown in the lesson list.")
    topic = forms.ChoiceField(choices=TOPICS.items())
    body = forms.CharField(label="Lesson text", widget=forms.Textarea(attrs={**TEXTAREA, "rows": 18}),
                           help_text=MARKDOWN_HELP)

    def to_source(self) -> str:
        d = self.cleaned_data
        front = {"id": d["content_id"], "slug": d["slug"], "title": d["title"], "summary": d["summary"],
                 "topic": d["topic"], "order": d["order"] if d["order"] is not None else 100}
        return files.lesson_text(front, d["body"])

    @classmethod
    def initial_from(cls, source: str) -> dict[str, Any]:
        f = files.fields_of(files.LESSON, source)
        return {"content_id": f.get("id"), "slug": f.get("slug"), "title": f.get("title"),
                "summary": f.get("summary"), "topic": f.get("topic"), "order": f.get("order"), "body": f.get("body")}


class QuestionForm(ItemForm):
    kind = files.QUESTION
    field_map = {"id": "content_id", "lesson": "lesson", "category": "category", "kind": "question_kind",
                 "prompt": "prompt", "order": "order", "choices": "correct"}
    lesson = forms.CharField(label="Lesson id", max_length=80, help_text="The id of the published lesson this question practises.")
    category = forms.ChoiceField(label="Error category it practises", choices=CATEGORIES.items())
    question_kind = forms.ChoiceField(label="Kind of question", choices=QUESTION_KINDS.items())
    prompt = forms.CharField(widget=forms.Textarea(attrs=TEXTAREA), help_text=MARKDOWN_HELP)
    correct = forms.TypedChoiceField(label="The correct choice", coerce=int,
                                     choices=[(i, f"Choice {i}") for i in range(1, MAX_CHOICES + 1)])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for i in range(1, MAX_CHOICES + 1):
            self.fields[f"choice_{i}_text"] = forms.CharField(label=f"Choice {i}", required=False,
                                                              widget=forms.Textarea(attrs={"rows": 2}))
            self.fields[f"choice_{i}_why"] = forms.CharField(label=f"Why choice {i} is right or wrong", required=False,
                                                             widget=forms.Textarea(attrs={"rows": 2}))
        self.field_map = {**self.field_map, **{f"choices[{i - 1}]": f"choice_{i}_text"
                                               for i in range(1, MAX_CHOICES + 1)}}

    def choice_rows(self):
        return [(i, self[f"choice_{i}_text"], self[f"choice_{i}_why"]) for i in range(1, MAX_CHOICES + 1)]

    def to_source(self) -> str:
        d = self.cleaned_data
        choices = []
        for i in range(1, MAX_CHOICES + 1):
            text, why = d.get(f"choice_{i}_text", "").strip(), d.get(f"choice_{i}_why", "").strip()
            if text or why:
                choice = {"text": text, "why": why}
                if i == d["correct"]:
                    choice["correct"] = True
                choices.append(choice)
        data = {"id": d["content_id"], "lesson": d["lesson"], "category": d["category"], "kind": d["question_kind"],
                "order": d["order"] if d["order"] is not None else 100, "prompt": d["prompt"], "choices": choices}
        return files.dump_yaml(data)

    @classmethod
    def initial_from(cls, source: str) -> dict[str, Any]:
        f = files.fields_of(files.QUESTION, source)
        initial = {"content_id": f.get("id"), "lesson": f.get("lesson"), "category": f.get("category"),
                   "question_kind": f.get("kind"), "order": f.get("order"), "prompt": f.get("prompt")}
        choices = f.get("choices") if isinstance(f.get("choices"), list) else []
        for i, choice in enumerate(choices[:MAX_CHOICES], start=1):
            if isinstance(choice, dict):
                initial[f"choice_{i}_text"], initial[f"choice_{i}_why"] = choice.get("text"), choice.get("why")
                if choice.get("correct") is True:
                    initial["correct"] = i
        return initial


GOOD_SLOTS, BAD_SLOTS = 2, 3
STARTER = '{\n  "content": [{"type": "text", "text": "..."}],\n  "isError": true,\n  "structuredContent": {}\n}\n'


class ScenarioForm(ItemForm):
    kind = files.SCENARIO
    field_map = {"id": "content_id", "slug": "slug", "title": "title", "summary": "summary", "order": "order",
                 "situation": "situation", "starter": "starter", "hints": "hints", "rubric.expect": "expect",
                 "rubric.category": "category", "rubric.retryable": "retryable",
                 "rubric.customer_message": "customer_message", "rubric.validation": "validation_field",
                 "rubric.validation.suggestion": "validation_suggestion",
                 "rubric.validation.suggested": "validation_suggested", "rubric.query_mentions": "query_mentions",
                 **{f"examples.good[{i}]": f"good_{i + 1}" for i in range(GOOD_SLOTS)},
                 **{f"examples.bad[{i}]": f"bad_{i + 1}" for i in range(BAD_SLOTS)},
                 "examples.good": "good_1", "examples.bad": "bad_1"}
    slug = forms.SlugField(label="Slug (the exercise's address)", max_length=120)
    title = forms.CharField(max_length=200)
    summary = forms.CharField(max_length=400, help_text="One sentence shown in the exercise list.")
    situation = forms.CharField(widget=forms.Textarea(attrs={**TEXTAREA, "rows": 12}),
                                help_text="What happened, and what the learner's tool must return. " + MARKDOWN_HELP)
    starter = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
                              help_text="What the editor holds when a learner opens the exercise.")
    expect = forms.ChoiceField(label="The tool should return", choices=[
        ("error", "an error (isError: true)"), ("empty", "a valid empty result (isError: false)")])
    category = forms.ChoiceField(label="Expected error category", required=False,
                                 choices=[("", "—")] + [(c, CATEGORIES[c]) for c in ERROR_CATEGORIES])
    retryable = forms.TypedChoiceField(label="Expected isRetryable", required=False, coerce=lambda v: v == "true",
                                       choices=[("false", "false: retrying will not help"),
                                                ("true", "true: retrying later can work (retryAfterSeconds required)")])
    customer_message = forms.ChoiceField(label="customerFriendlyMessage", choices=[
        ("recommended", "recommended"), ("required", "required"), ("none", "not expected")])
    customer_message_mentions = forms.CharField(label="The customer message must mention", required=False,
                                                help_text="Words, separated by commas.")
    tool = forms.CharField(label="Tool name", required=False, max_length=80)
    failing_input = forms.CharField(label="The input that failed", required=False, max_length=200,
                                    help_text="A description must name it (such as an order id).")
    validation_field = forms.CharField(label="Validation: the field that was wrong", required=False, max_length=80)
    validation_received = forms.CharField(label="Validation: the value received", required=False, max_length=200)
    validation_suggestion = forms.ChoiceField(label="Validation: suggestedArguments", required=False, choices=[
        ("allowed", "allowed"), ("required", "required"), ("forbidden", "forbidden (no safe guess)")])
    validation_suggested = forms.CharField(label="Validation: the suggested value", required=False, max_length=200)
    query_mentions = forms.CharField(label="An empty result's text must mention", required=False,
                                     help_text="Words, separated by commas.")
    hints = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}),
                            help_text="One per line: misconception-tag: the hint a learner sees when they show it.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for verdict, slots in (("good", GOOD_SLOTS), ("bad", BAD_SLOTS)):
            for i in range(1, slots + 1):
                self.fields[f"{verdict}_{i}"] = forms.CharField(
                    label=f"{verdict.capitalize()} example {i}", required=False,
                    widget=forms.Textarea(attrs={"rows": 7, "spellcheck": "false", "class": "code-input"}),
                    help_text="A CallToolResult as JSON." + (" Must pass every check." if verdict == "good"
                                                             else " Must fail at least one check."))

    @property
    def good_example_fields(self):
        return [self[f"good_{i}"] for i in range(1, GOOD_SLOTS + 1)]

    @property
    def bad_example_fields(self):
        return [self[f"bad_{i}"] for i in range(1, BAD_SLOTS + 1)]

    def clean(self):
        data = super().clean()
        for name in [f"good_{i}" for i in range(1, GOOD_SLOTS + 1)] + [f"bad_{i}" for i in range(1, BAD_SLOTS + 1)]:
            text = (data.get(name) or "").strip()
            if text:
                try:
                    data[f"{name}_payload"] = json.loads(text)
                except json.JSONDecodeError as error:
                    self.add_error(name, f"is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}")
        return data

    def to_source(self) -> str:
        d = self.cleaned_data
        rubric: dict[str, Any] = {"expect": d["expect"]}
        if d["expect"] == "empty":
            if mentions := _split(d["query_mentions"]):
                rubric["query_mentions"] = mentions
        else:
            rubric.update({"category": d["category"], "retryable": bool(d["retryable"]),
                           "customer_message": d["customer_message"]})
            if d["tool"]:
                rubric["tool"] = d["tool"]
            if d["failing_input"]:
                rubric["failing_input"] = d["failing_input"]
            if mentions := _split(d["customer_message_mentions"]):
                rubric["customer_message_mentions"] = mentions
            if d["validation_field"] or d["validation_received"]:
                validation = {"field": d["validation_field"], "received": d["validation_received"],
                              "suggestion": d["validation_suggestion"] or "allowed"}
                if d["validation_suggested"]:
                    validation["suggested"] = d["validation_suggested"]
                rubric["validation"] = validation
        hints = {}
        for line in d["hints"].splitlines():
            tag, _, text = line.partition(":")
            if tag.strip() and text.strip():
                hints[tag.strip()] = text.strip()
        examples = {verdict: [d[f"{verdict}_{i}_payload"] for i in range(1, slots + 1) if f"{verdict}_{i}_payload" in d]
                    for verdict, slots in (("good", GOOD_SLOTS), ("bad", BAD_SLOTS))}
        data = {"id": d["content_id"], "slug": d["slug"], "title": d["title"], "kind": "payload",
                "order": d["order"] if d["order"] is not None else 100,
                **({"category": d["category"]} if d["expect"] == "error" and d["category"] else {"category": "none"}),
                "summary": d["summary"], "situation": d["situation"], "starter": d["starter"] or STARTER,
                "rubric": rubric, "hints": hints, "examples": examples}
        return files.dump_yaml(data)

    @classmethod
    def initial_from(cls, source: str) -> dict[str, Any]:
        f = files.fields_of(files.SCENARIO, source)
        rubric = f.get("rubric") if isinstance(f.get("rubric"), dict) else {}
        validation = rubric.get("validation") if isinstance(rubric.get("validation"), dict) else {}
        hints = f.get("hints") if isinstance(f.get("hints"), dict) else {}
        examples = f.get("examples") if isinstance(f.get("examples"), dict) else {}
        initial = {
            "content_id": f.get("id"), "slug": f.get("slug"), "title": f.get("title"), "summary": f.get("summary"),
            "order": f.get("order"), "situation": f.get("situation"), "starter": f.get("starter"),
            "expect": rubric.get("expect"), "category": rubric.get("category"),
            "retryable": "true" if rubric.get("retryable") is True else "false",
            "customer_message": rubric.get("customer_message", "recommended"),
            "customer_message_mentions": ", ".join(rubric.get("customer_message_mentions", [])),
            "tool": rubric.get("tool"), "failing_input": rubric.get("failing_input"),
            "validation_field": validation.get("field"), "validation_received": validation.get("received"),
            "validation_suggestion": validation.get("suggestion"), "validation_suggested": validation.get("suggested"),
            "query_mentions": ", ".join(rubric.get("query_mentions", [])),
            "hints": "\n".join(f"{tag}: {text}" for tag, text in hints.items()),
        }
        for verdict, slots in (("good", GOOD_SLOTS), ("bad", BAD_SLOTS)):
            payloads = examples.get(verdict) if isinstance(examples.get(verdict), list) else []
            for i, payload in enumerate(payloads[:slots], start=1):
                initial[f"{verdict}_{i}"] = json.dumps(payload, indent=2, ensure_ascii=False)
        return initial


FORMS = {files.LESSON: LessonForm, files.QUESTION: QuestionForm, files.SCENARIO: ScenarioForm}


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class ImportForm(forms.Form):
    files = forms.FileField(label="Content files (.md, .yaml) or a zip of them",
                            widget=MultipleFileInput(attrs={"accept": ".md,.yaml,.yml,.zip"}))
