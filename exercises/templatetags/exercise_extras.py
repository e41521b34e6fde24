import json
import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from exercises.timeline import scenario_timeline as timeline_layout

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def failed_count(checks) -> int:
    return sum(1 for check in checks or [] if check.get("status") == "fail")


@register.inclusion_tag("exercises/_timeline.html")
def scenario_timeline(scenario: dict) -> dict:
    """Draw a graded scenario's calls on its virtual-time axis."""
    return {"t": timeline_layout(scenario)}


@register.filter
def pretty_json(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@register.filter
def inline_code(text) -> str:
    """Feedback text with `backticked` spans shown as code; everything else escaped."""
    return mark_safe(re.sub(r"`([^`\n]+)`", r"<code>\1</code>", str(escape(text))))


@register.filter
def compact_json(value) -> str:
    """A value as one line of JSON, long strings already cut by the grader."""
    return json.dumps(value, ensure_ascii=False)


@register.filter
def era_verdicts(scenario: dict) -> list[tuple[str, str | None]]:
    """A tool-server probe's verdict per protocol era, in the order the scoreboard's columns show them."""
    from exercises.graders.tool_server import ERAS

    verdicts = scenario.get("eras") if isinstance(scenario.get("eras"), dict) else {}
    return [(era, verdicts.get(era)) for era, _ in ERAS]
