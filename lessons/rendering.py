"""Markdown to sanitized HTML, done once at sync time (and for live previews).

Markdown is rendered with python-markdown (fenced code highlighted by Pygments, tables, side-by-side
comparisons through `<div class="compare" markdown>`), then cleaned with nh3 against an allow-list:
no scripts, no event handlers, no `javascript:` URLs, no `hx-*` or `data-*` attributes, no styles.
"""
import markdown
import nh3

_EXTENSIONS = ["fenced_code", "codehilite", "tables", "md_in_html", "attr_list", "sane_lists", "toc"]
_EXTENSION_CONFIGS = {
    "codehilite": {"guess_lang": False, "css_class": "highlight"},
    "toc": {"permalink": False},
}

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "figcaption",
    "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "span",
    "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "*": {"class", "title"},
    "a": {"href"},
    "h2": {"id"},
    "h3": {"id"},
    "h4": {"id"},
    "td": {"align"},
    "th": {"align"},
}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def sanitize_html(html: str) -> str:
    """Keep only the allow-listed tags, attributes and URL schemes."""
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def render_markdown(text: str) -> str:
    """Render learner-facing Markdown to HTML that is safe to mark as safe in a template."""
    html = markdown.markdown(text, extensions=_EXTENSIONS, extension_configs=_EXTENSION_CONFIGS)
    return sanitize_html(html)
