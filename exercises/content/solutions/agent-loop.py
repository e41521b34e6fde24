"""Reference solution for the agent-loop exercise. Kept out of learners' reach: no page, API or static route
serves this folder; the tests grade it to prove every scenario can be passed."""
import asyncio

from mcp import MCPError

MAX_CALLS = 4


def _failure(category, message, attempted, partial=None):
    return {"action": "report_failure", "errorCategory": category, "message": message,
            "partialResults": partial or [], "attemptedActions": attempted}


async def handle(session, request):
    tool, arguments = request["tool"], dict(request["arguments"])
    attempted = []
    corrected = False
    wait = 0
    for call in range(1, MAX_CALLS + 1):
        try:
            result = await session.call_tool(tool, arguments)
        except MCPError as error:
            attempted.append(f"{tool}({arguments}) -> protocol error {error.code}: {error.message}")
            return _failure("protocol", f"The server refused the call: {error.message}", attempted)
        info = result.structured_content or {}
        if not result.is_error:
            if info.get("partial"):
                return {"action": "answer", "data": info.get("results", info), "partial": True,
                        "missing": info.get("failedSources", []), "message": info.get("message", "")}
            if info.get("found") is False or info.get("resultCount") == 0:
                return {"action": "no_results", "message": f"The search ran and found nothing for {arguments}."}
            return {"action": "answer", "data": info}

        category = info.get("errorCategory", "transient")
        attempted.append(f"{tool}({arguments}) -> {category}: {info.get('description', '')}")
        if category == "transient" and info.get("isRetryable") and call < MAX_CALLS:
            wait = max(info.get("retryAfterSeconds", 1), wait * 2)  # never shorter than asked, never shrinking
            await asyncio.sleep(wait)
            continue
        if category == "validation" and info.get("suggestedArguments") and not corrected:
            arguments, corrected = dict(info["suggestedArguments"]), True
            continue
        if category == "business":
            return {"action": "escalate", "message": info.get("customerFriendlyMessage") or info.get("description")}
        if category == "permission":
            return {"action": "request_credentials", "message": info.get("description", "Access is missing.")}
        return _failure(category, info.get("description", "The call failed."), attempted)
    return _failure("transient", "The service kept failing; giving up.", attempted)
