"""Markdown rendering keeps formatting and strips everything that could run code or drive htmx."""
import re
from html import unescape

import pytest

from lessons.rendering import render_markdown

XSS_CORPUS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    '<img src=x onerror="alert(1)">',
    '<svg onload="alert(1)"><circle r="5"/></svg>',
    '<a href="javascript:alert(1)">click</a>',
    '<a href="JaVaScRiPt:alert(1)">click</a>',
    '<a href="&#106;avascript:alert(1)">click</a>',
    "[click](javascript:alert(1))",
    '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '<iframe src="https://evil.example"></iframe>',
    '<body onload="alert(1)">',
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<form action="https://evil.example"><input name="password"></form>',
    '<a href="/x" hx-get="/evil" hx-trigger="load">htmx link</a>',
    '<div hx-post="/accounts/logout/" hx-trigger="load">x</div>',
    '<div data-hx-get="/evil" data-hx-trigger="load">x</div>',
    '<div hx-on:click="alert(1)" hx-on::load="alert(2)">x</div>',
    '<span hx-vals=\'{"x": 1}\' hx-headers=\'{"X": 1}\'>x</span>',
    '<object data="evil.swf"></object><embed src="evil.swf">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    '<style>body{display:none}</style>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<details open ontoggle="alert(1)">x</details>',
    '<base href="https://evil.example/">',
    "<!--<img src=x onerror=alert(1)>-->",
    '`<script>in code</script>` and\n\n```html\n<img src=x onerror=alert(1)>\n```',
]

FORBIDDEN = [
    re.compile(r"<\s*(script|iframe|object|embed|style|meta|link|form|base|svg|math|input|body)\b", re.I),
    re.compile(r"\son[a-z:]+\s*=", re.I),
    re.compile(r"javascript:", re.I),
    re.compile(r"\s(data-)?hx-[a-z:-]+\s*=", re.I),
    re.compile(r"\sstyle\s*=", re.I),
    re.compile(r"href\s*=\s*\"data:", re.I),
]


@pytest.mark.parametrize("payload", XSS_CORPUS)
def test_hostile_markup_is_neutralised(payload):
    html = render_markdown(f"Before\n\n{payload}\n\nAfter")
    for pattern in FORBIDDEN:
        assert not pattern.search(html), f"{pattern.pattern!r} survived in {html!r}"
    assert "Before" in html  # the learner-visible text around it is kept


def test_code_samples_stay_visible_as_text():
    html = render_markdown("```html\n<script>alert(1)</script>\n```")
    assert "<script" not in html
    assert "<script>alert(1)</script>" in unescape(re.sub(r"<[^>]+>", "", html))


def test_json_is_highlighted_and_compare_blocks_survive():
    html = render_markdown('<div class="compare" markdown>\n<div class="bad" markdown>\n\n```json\n{"isError": false}\n```\n</div>\n</div>')
    assert 'class="compare"' in html and 'class="bad"' in html
    assert '<span class="nt">"isError"</span>' in html


def test_links_keep_safe_urls_and_get_rel():
    html = render_markdown("[spec](https://modelcontextprotocol.io/specification)")
    assert 'href="https://modelcontextprotocol.io/specification"' in html
    assert 'rel="noopener noreferrer nofollow"' in html


def test_tables_and_headings_render():
    html = render_markdown("## Fields\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert '<h2 id="fields">Fields</h2>' in html and "<td>1</td>" in html
