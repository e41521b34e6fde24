"""The fixed vocabulary content is tagged with: topics, error categories and question kinds."""

TOPICS = {
    "categories": "The four error categories",
    "convention": "isError and the project's convention",
    "empty-results": "Access failure vs valid empty result",
    "protocol": "Protocol errors vs tool errors",
    "messages": "Messages written for a model",
    "retries": "Retries and backoff",
    "resilience": "Breakers, bulkheads, limits and budgets",
    "partial-results": "Graceful degradation and partial results",
    "sessions": "Session recovery over Streamable HTTP",
    "multi-agent": "Multi-agent propagation",
    "anti-patterns": "Anti-patterns",
    "sources": "Where the sources disagree",
    "agent-recovery": "How an agent acts on an error",
}

# "none" tags questions that are about a success path (a valid empty result, a partial result).
CATEGORIES = {
    "transient": "Transient",
    "validation": "Validation",
    "permission": "Permission",
    "business": "Business",
    "none": "Not an error",
}

QUESTION_KINDS = {
    "classification": "Classification drill",
    "empty-vs-error": "Access failure or empty result?",
    "which-payload": "Which payload is right?",
    "exam-trap": "Exam trap",
    "recovery": "Recovery decision",
    "concept": "Concept check",
}
