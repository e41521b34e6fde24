"""A scenario's timeline, laid out for an SVG drawn on the server: the learner's calls on a virtual-time axis,
the waits between them (red when shorter than retryAfterSeconds asked), each result coloured by its category,
and the outcome the loop returned. Layout only; `templates/exercises/_timeline.html` draws it."""
from dataclasses import dataclass, field
from typing import Any

WIDTH, LEFT, PLOT_RIGHT = 720, 24, 500
LABEL_PX_PER_CHAR = 6.2  # 11px text
AXIS_Y, CALL_Y, WAIT_Y = 92, 58, 24
MIN_GAP_PX = 22  # calls at (nearly) the same virtual time are spread out so each stays visible
NICE_SPANS = (1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600)

CATEGORY_LABELS = {"ok": "success", "empty": "empty result", "partial": "partial result", "transient": "transient",
                   "validation": "validation", "permission": "permission", "business": "business",
                   "protocol": "protocol error", "cancelled": "cancelled"}
STOP_LABELS = {"calls": "stopped: too many calls", "virtual_time": "stopped: waited too long",
               "real_time": "stopped: busy for too long", "process_ended": "process ended",
               "broken_link": "stopped: wrote to the grader's link", "skipped": "not run"}


@dataclass
class Call:
    x: float
    seq: int
    category: str
    title: str


@dataclass
class Wait:
    x1: float
    x2: float
    label: str
    too_short: bool
    row: int = 0  # labels of narrow waits alternate between two rows so they do not overlap

    @property
    def label_y(self) -> int:
        return WAIT_Y - 5 - 12 * self.row

    @property
    def middle(self) -> float:
        return (self.x1 + self.x2) / 2


@dataclass
class Timeline:
    title: str
    span: float
    calls: list[Call] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)
    outcome_label: str = ""
    outcome_passed: bool = False
    width: int = WIDTH
    axis_y: int = AXIS_Y
    call_y: int = CALL_Y
    wait_y: int = WAIT_Y
    left: int = LEFT
    plot_right: int = PLOT_RIGHT


def _span(last_time: float) -> float:
    return next((span for span in NICE_SPANS if span >= last_time), last_time)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def scenario_timeline(scenario: dict[str, Any]) -> Timeline:
    trace = scenario.get("trace") or []
    span = _span(max((entry["at"] for entry in trace), default=0.0))
    scale = (PLOT_RIGHT - LEFT) / span
    timeline = Timeline(title="", span=span)
    timeline.ticks = [(LEFT + t * scale, _seconds(t)) for t in (0, span / 2, span)]
    previous_x = None
    for entry in trace:
        x = LEFT + entry["at"] * scale
        if previous_x is not None and x - previous_x < MIN_GAP_PX:
            x = previous_x + MIN_GAP_PX
        content = entry.get("structuredContent") if isinstance(entry.get("structuredContent"), dict) else {}
        detail = CATEGORY_LABELS.get(entry["category"], entry["category"])
        if "retryAfterSeconds" in content:
            detail += f", retryAfterSeconds {content['retryAfterSeconds']}"
        if entry.get("error"):
            detail += f": {entry['error'].get('message', '')}"
        timeline.calls.append(Call(x=round(x, 1), seq=entry["seq"], category=entry["category"],
                                   title=f"Call {entry['seq']}: {entry['tool']} at {_seconds(entry['at'])} → {detail}"))
        previous_x = x
    for before, after, drawn_before, drawn_after in zip(trace, trace[1:], timeline.calls, timeline.calls[1:]):
        waited = round(after["at"] - before["at"], 3)
        content = before.get("structuredContent") if isinstance(before.get("structuredContent"), dict) else {}
        asked = content.get("retryAfterSeconds") if before.get("isError") else None
        too_short = isinstance(asked, (int, float)) and waited + 1e-6 < asked
        label = f"waited {_seconds(waited)}" + (f" (asked {_seconds(asked)})" if asked else "")
        if len(label) * LABEL_PX_PER_CHAR > drawn_after.x - drawn_before.x + 10:
            label = _seconds(waited) + (f" < {_seconds(asked)}" if too_short else "")
        row = 0
        if timeline.waits and len(label) * LABEL_PX_PER_CHAR > drawn_after.x - drawn_before.x:
            row = 1 - timeline.waits[-1].row
        timeline.waits.append(Wait(x1=drawn_before.x, x2=drawn_after.x, label=label, too_short=too_short, row=row))
    outcome = scenario.get("outcome")
    stopped = scenario.get("stopped")
    if stopped:
        timeline.outcome_label = STOP_LABELS.get(stopped, stopped)
    elif isinstance(outcome, dict) and isinstance(outcome.get("action"), str):
        timeline.outcome_label = f"returned {outcome['action']}"[:34]
    else:
        timeline.outcome_label = "crashed" if outcome is None else "returned no action"
    timeline.outcome_passed = scenario.get("status") == "pass"
    calls = len(trace)
    timeline.title = (f"{scenario.get('id')}: {calls} call{'s' if calls != 1 else ''} over "
                      f"{_seconds(trace[-1]['at'] if trace else 0)} of virtual time, then {timeline.outcome_label}")
    return timeline
