"""Transcript export as one self-contained HTML page: the export's Markdown
(:func:`~acp_tui.session.export.markdown.transcript_markdown`) made HTML by markdown-it.

Agent text is data: raw HTML in it is escaped (markdown-it's ``html`` option off), links
with a scheme that runs code are not made (markdown-it's own check), and no image is made
(an image would fetch from the network when the page is opened). The page loads nothing: its
style is inline, and its Content-Security-Policy forbids every other source."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from acp_tui.session.export.markdown import Lookup, transcript_markdown
from acp_tui.store.session import SessionState
from acp_tui.text.redaction import Redactor

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["page", "transcript_html"]

#: Nothing but the page's own inline style may load.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto;
       padding: 0 1rem; color: #1f2328; background: #fff; }
pre { background: #f6f8fa; padding: .75rem; overflow-x: auto; border-radius: 6px; }
code { font: 13px ui-monospace, monospace; }
blockquote { margin: 0; padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .2em; }
table { border-collapse: collapse; } td, th { border: 1px solid #d1d9e0; padding: .2em .5em; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; } pre { background: #161b22; }
  blockquote { color: #9198a1; border-color: #3d444d; } h2 { border-color: #3d444d; }
}
"""


def _renderer() -> MarkdownIt:
    # Imported here: the app loads no Markdown machinery before it draws Markdown.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False})
    md.enable(["table", "strikethrough"])
    md.disable("image")
    return md


def page(title: str, markdown: str) -> str:
    """``markdown`` as a whole HTML page titled ``title`` (both agent text: escaped)."""
    body = _renderer().render(markdown)
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n"
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="acp-tui">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{_STYLE}</style>\n"
        f"</head>\n<body>\n{body}</body>\n</html>\n"
    )


def transcript_html(
    state: SessionState,
    lookup: Lookup | None = None,
    *,
    redactor: Redactor | None = None,
) -> str:
    """The whole conversation as one HTML page (see the module docstring); redacted as the
    Markdown export is, with the same note at its top."""
    markdown = transcript_markdown(state, lookup, redactor=redactor, for_html=True)
    title = state.display_title
    if redactor is not None:
        title = Redactor(redactor.patterns, home=redactor.home).scrub(title, "title")
    return page(title, markdown)
