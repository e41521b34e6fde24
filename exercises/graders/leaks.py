"""Finds internal details in text meant for an agent or a customer.

What counts as a leak (spec section 1): host names, IP addresses, ports, file paths, stack traces, SQL,
exception class names and credentials. Each pattern is tuned against false alarms on the things a good
payload does contain: ids like ORD-10001, dates, amounts, durations, email addresses and public https links.
"""
import ipaddress
import re
from dataclasses import dataclass
from typing import Any

INTERNAL_TLDS = r"(?:internal|local|localdomain|lan|corp|intra|intranet|private|svc|cluster\.local|home\.arpa)"
_HOSTNAME_INTERNAL = re.compile(rf"\b(?:[a-z0-9-]+\.)+{INTERNAL_TLDS}\b", re.I)
# Server-ish names: db-prod-01, pg-replica-2, redis-cache-eu1, mysql01.
_HOSTNAME_SERVER = re.compile(
    r"\b(?:db|pg|postgres|mysql|mariadb|mongo|redis|kafka|rabbit|es|elastic|api|app|srv|web|cache|node|host|"
    r"replica|primary|worker|sql)[-_]?(?:[a-z]+[-_])*(?:prod|stg|staging|dev|primary|replica|master|slave|\d+)"
    r"(?:[-_.][a-z0-9]+)*\b", re.I)
_LOCALHOST = re.compile(r"\blocalhost\b", re.I)
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_IPV6 = re.compile(r"(?<![\w:])[0-9a-f]{0,4}:[0-9a-f:]*:[0-9a-f]{0,4}(?![\w:])", re.I)  # checked by ipaddress
_HOST_PORT = re.compile(r"\b[a-z0-9][a-z0-9.-]*:(\d{2,5})\b(?!\s*(?:s|sec|seconds|ms|min|am|pm)\b)", re.I)
_PORT_WORD = re.compile(r"\bport\s*[=:]?\s*\d{2,5}\b", re.I)
_UNIX_PATH = re.compile(
    r"(?<![\w/.:-])/(?:etc|var|usr|opt|srv|home|root|tmp|app|apps|data|mnt|proc|lib|bin|sbin|run|Users)"
    r"(?:/[\w.@+-]+)+", re.I)
_FILE_PATH = re.compile(r"(?<![\w/:])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+\.(?:py|js|ts|java|rb|go|php|cs|sql|conf|ini|"
                        r"ya?ml|log|env|pem|key|cfg|sh)\b")
_WINDOWS_PATH = re.compile(r"\b[a-z]:\\(?:[^\\\s]+\\)*[^\\\s]*", re.I)
_STACK = re.compile(r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+|\bat [\w$.]+\([\w$]+\.\w+:\d+\)"
                    r"|\bline \d+, in \w+|^\s+at \S+ \(\S+:\d+:\d+\)", re.M)
_SQL = re.compile(r"\bSELECT\b[\s\S]{1,200}?\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
                  r"|\b(?:DROP|ALTER|CREATE)\s+TABLE\b|\bWHERE\s+\w+\s*=\s*'|\bORA-\d{5}\b|\bSQLSTATE\b", re.I)
_EXCEPTION = re.compile(r"\b(?:[a-z_][\w]*\.)*[A-Z][A-Za-z0-9]*(?:Error|Exception|Timeout|Denied|Violation|Fault)\b"
                        r"|\b(?:[a-z_]\w*\.)+[A-Z]\w+(?=:)")
_CREDENTIAL = re.compile(
    r"\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|token|auth)\s*[=:]\s*\S+"
    r"|\bBearer\s+[\w.~+/-]{8,}=*|\b(?:sk|pk|rk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{10,}\b|\bAKIA[0-9A-Z]{16}\b"
    r"|\beyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{5,}|-----BEGIN [A-Z ]*PRIVATE KEY-----", re.I)
_URL_CREDENTIAL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@", re.I)
_ROLE = re.compile(r"\b(?:role|user|account|login)\s+['\"]?[a-z][a-z0-9]*_[a-z0-9_]+\b|\bsvc[_-][a-z0-9_-]+\b", re.I)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://([^\s/?#]+)", re.I)

KIND_LABELS = {
    "hostname": "an internal host name",
    "ip-address": "an IP address",
    "port": "a port number",
    "file-path": "a file path",
    "stack-trace": "a stack trace",
    "sql": "SQL",
    "exception-class": "an exception class name",
    "credential": "a credential or secret",
    "account": "an internal role or account name",
}


@dataclass(frozen=True)
class Leak:
    kind: str
    path: str  # where in the payload, e.g. structuredContent.description
    excerpt: str

    def describe(self) -> str:
        return f"{KIND_LABELS[self.kind]} in {self.path}: \u201c{self.excerpt}\u201d"


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


WINDOW = 128


def _windows(text: str):
    """Whitespace-separated tokens, long ones cut into overlapping windows.

    Host, address, path and class-name patterns only ever match inside one token; running them on short
    windows keeps the detector linear in the text's length whatever the text (a 64 KiB run of "x.x.x." would
    otherwise make the regular expressions backtrack for minutes).
    """
    for token in text.split():
        if len(token) <= WINDOW:
            yield token
        else:
            for start in range(0, len(token) - WINDOW // 2, WINDOW // 2):
                yield token[start:start + WINDOW]


def find_in_text(text: str) -> list[tuple[str, str]]:
    """(kind, excerpt) for every internal detail in one string."""
    found: list[tuple[str, str]] = []

    def add(kind: str, excerpt: str) -> None:
        excerpt = excerpt.strip()[:80]
        if (kind, excerpt) not in found:
            found.append((kind, excerpt))

    # Phrases that span words: searched in the whole text.
    for kind, pattern in (("credential", _CREDENTIAL), ("stack-trace", _STACK), ("sql", _SQL), ("port", _PORT_WORD),
                          ("account", _ROLE), ("file-path", _WINDOWS_PATH)):
        for match in pattern.finditer(text):
            add(kind, match.group(0))
    for token in _windows(text):
        _find_in_token(token, add)
    return found


def _find_in_token(token: str, add) -> None:
    for match in _URL_CREDENTIAL.finditer(token):
        add("credential", match.group(0))
    for pattern in (_IPV4, _IPV6):
        for match in pattern.finditer(token):
            if _is_ip(match.group(0)):
                add("ip-address", match.group(0))
    for url in _URL.finditer(token):
        host = url.group(1).rsplit("@", 1)[-1]
        if ":" in host.strip("[]") and not _is_ip(host.strip("[]")):
            add("port", url.group(0))
    for pattern in (_HOSTNAME_INTERNAL, _HOSTNAME_SERVER, _LOCALHOST):
        for match in pattern.finditer(token):
            add("hostname", match.group(0))
    for match in _HOST_PORT.finditer(token):
        if not _looks_like_time(match.group(0)) and not match.group(0).lower().startswith(("http", "https")):
            add("port", match.group(0))
    for pattern in (_UNIX_PATH, _FILE_PATH):
        for match in pattern.finditer(token):
            if not _inside_url(token, match.start()):
                add("file-path", match.group(0))
    for match in _EXCEPTION.finditer(token):
        add("exception-class", match.group(0))


def _looks_like_time(excerpt: str) -> bool:
    return bool(re.fullmatch(r"\d{1,2}:\d{2}(?::\d{2})?", excerpt.strip()))


def _inside_url(text: str, position: int) -> bool:
    start = text.rfind(" ", 0, position) + 1
    return "://" in text[start:position + 1] or text[start:position].endswith((".com", ".org", ".net", ".io"))


def find_leaks(value: Any, path: str = "") -> list[Leak]:
    """Every internal detail in any string (or key) of a JSON value, with where it was found."""
    leaks: list[Leak] = []
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            leaks.extend(Leak(kind, where or "(text)", excerpt) for kind, excerpt in find_in_text(item))
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                child_path = f"{where}.{key}" if where else str(key)
                stack.append((child_path, child))
        elif isinstance(item, list):
            for index in reversed(range(len(item))):
                stack.append((f"{where}[{index}]", item[index]))
    return leaks
