"""Learners' agent loops for the tests: the reference solution, and one variant per classic mistake made by
changing exactly the lines that embody it (each change is asserted to apply, so a rewrite of the reference
cannot silently turn a mistake into a correct loop)."""
from pathlib import Path

from django.conf import settings

REFERENCE = (Path(settings.EXERCISE_CONTENT_DIR) / "solutions" / "agent-loop.py").read_text()

ALL_SCENARIOS = ("transient-recovers", "transient-persists", "rate-limited", "validation-fixable",
                 "validation-unfixable", "refund-over-limit", "permission-denied", "customer-not-found",
                 "partial-results", "unknown-tool")


def variant(*replacements: tuple[str, str]) -> str:
    source = REFERENCE
    for old, new in replacements:
        assert source.count(old) == 1, f"the reference no longer contains exactly one {old!r}"
        source = source.replace(old, new)
    return source


# name: (source, the scenarios it must fail, the misconception the feedback must name)
MISTAKES = {
    "retries-business-errors": (variant((
        '        if category == "business":',
        '        if category == "business" and call < MAX_CALLS:\n            continue\n        if category == "business":',
    )), {"refund-over-limit"}, "retries-business-error"),
    "retries-permission-errors": (variant((
        '        if category == "permission":',
        '        if category == "permission" and call < MAX_CALLS:\n            await asyncio.sleep(5)\n            continue\n'
        '        if category == "permission":',
    )), {"permission-denied"}, "retries-permission-error"),
    "ignores-retry-after": (variant(("            await asyncio.sleep(wait)", "            await asyncio.sleep(0.5)")),
                            {"transient-recovers", "transient-persists", "rate-limited"}, "ignores-retry-after"),
    "unbounded-retries": (variant(("MAX_CALLS = 4", "MAX_CALLS = 10 ** 6")), {"transient-persists"},
                          "unbounded-retries"),
    "empty-result-as-failure": (variant((
        '                return {"action": "no_results", "message": f"The search ran and found nothing for {arguments}."}',
        '                return _failure("business", "No customer found.", attempted)',
    )), {"customer-not-found"}, "empty-result-as-error"),
    "swallows-errors": (variant(("        if not result.is_error:", "        if True:")),
                        {"transient-recovers", "transient-persists", "rate-limited", "validation-fixable",
                         "validation-unfixable", "refund-over-limit", "permission-denied"}, "swallows-errors"),
    "drops-partial-results": (variant((
        '                return {"action": "answer", "data": info.get("results", info), "partial": True,\n'
        '                        "missing": info.get("failedSources", []), "message": info.get("message", "")}',
        '                return _failure("transient", "Some sources failed.", attempted)',
    )), {"partial-results"}, "drops-partial-results"),
    "crashes-on-protocol-error": (variant(("        except MCPError as error:", "        except ValueError as error:")),
                                  {"unknown-tool"}, "crashes-on-protocol-error"),
    "retries-identical-validation": (variant((
        "            arguments, corrected = dict(info[\"suggestedArguments\"]), True",
        "            corrected = True",
    )), {"validation-fixable"}, "retries-identical-validation"),
    "ignores-suggested-arguments": (variant((
        'if category == "validation" and info.get("suggestedArguments") and not corrected:',
        'if False:',
    )), {"validation-fixable"}, "ignores-suggested-arguments"),
    "shrinking-waits": (variant(("            wait = max(info.get(\"retryAfterSeconds\", 1), wait * 2)",
                                 "            wait = max(info.get(\"retryAfterSeconds\", 1), 8 / call)")),
                        {"transient-persists"}, "ignores-retry-after"),
}
