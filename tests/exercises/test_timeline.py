"""The timeline layout: calls placed by virtual time, waits labelled and flagged when shorter than asked."""
from exercises.timeline import scenario_timeline


def entry(seq, at, category, retry_after=None, is_error=True):
    content = {"retryAfterSeconds": retry_after} if retry_after else {}
    return {"seq": seq, "tool": "lookup_order", "at": at, "category": category, "isError": is_error,
            "structuredContent": content, "error": None}


def test_calls_are_placed_by_virtual_time_and_short_waits_are_flagged():
    timeline = scenario_timeline({"id": "transient-recovers", "status": "fail", "stopped": None,
                                  "outcome": {"action": "answer"},
                                  "trace": [entry(1, 0, "transient", 2), entry(2, 0.5, "transient", 2),
                                            entry(3, 4.5, "ok", is_error=False)]})
    assert timeline.span == 5
    xs = [call.x for call in timeline.calls]
    assert xs[0] < xs[1] < xs[2] and abs((xs[2] - xs[0]) / (xs[1] - xs[0]) - 9) < 0.01
    assert [wait.too_short for wait in timeline.waits] == [True, False]
    assert timeline.waits[1].label == "waited 4 s (asked 2 s)"
    assert timeline.outcome_label == "returned answer" and not timeline.outcome_passed
    assert "3 calls over 4.5 s of virtual time" in timeline.title


def test_calls_at_the_same_moment_stay_apart_and_a_cut_off_is_named():
    timeline = scenario_timeline({"id": "x", "status": "fail", "stopped": "calls", "outcome": None,
                                  "trace": [entry(1, 0, "validation"), entry(2, 0, "validation")]})
    assert timeline.calls[1].x - timeline.calls[0].x >= 22
    assert timeline.outcome_label == "stopped: too many calls"
