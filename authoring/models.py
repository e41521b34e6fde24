"""Lessons, questions and payload scenarios written in the browser.

An item's draft is kept as the text of the content file it would be (same schema as `lessons/content/` and
`exercises/content/`), so validation, export and import all go through the same parsers as the files.
Publishing checks the draft, writes the live row (source_path "browser:...") and keeps a numbered version.
"""
from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone


class AuthoredItem(models.Model):
    LESSON, QUESTION, SCENARIO = "lesson", "question", "scenario"
    KINDS = {LESSON: "Lesson", QUESTION: "Question", SCENARIO: "Payload scenario"}

    kind = models.CharField(max_length=10, choices=KINDS.items())
    content_id = models.CharField(max_length=80)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                               related_name="authored_items")
    source = models.TextField()  # the draft: the content file's text
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["kind", "content_id"]
        constraints = [models.UniqueConstraint(fields=["kind", "content_id"], name="one_authored_item_per_id")]

    def __str__(self) -> str:
        return f"{self.kind} {self.content_id}"

    def get_absolute_url(self) -> str:
        return reverse("authoring:item-edit", kwargs={"pk": self.pk})

    @property
    def source_path(self) -> str:
        """What the live row records as its source: not a file, so syncing files leaves it alone."""
        return f"browser:{self.kind}/{self.content_id}"

    @property
    def latest_version(self) -> "AuthoredVersion | None":
        return self.versions.first()


class AuthoredVersion(models.Model):
    """One publication of an item: its exact text, who published it and when."""

    item = models.ForeignKey(AuthoredItem, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    source = models.TextField()
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    published_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["item", "number"], name="one_version_number_per_item")]
