"""The export's formats, one way for every face (the TUI's review, ``acp-tui export``):
render a session as Markdown or HTML, redacted or not, and the file suffix of each."""

from __future__ import annotations

from typing import Literal

from acp_tui.session.export.html_page import transcript_html
from acp_tui.session.export.markdown import Lookup, transcript_markdown
from acp_tui.store.session import SessionState
from acp_tui.text.redaction import Redactor

__all__ = ["FORMAT_NAMES", "SUFFIXES", "ExportFormat", "redacted_title", "render"]

ExportFormat = Literal["md", "html"]
SUFFIXES: dict[ExportFormat, str] = {"md": ".md", "html": ".html"}
FORMAT_NAMES: dict[ExportFormat, str] = {"md": "Markdown", "html": "HTML"}


def render(
    state: SessionState,
    lookup: Lookup | None,
    fmt: ExportFormat,
    redactor: Redactor | None = None,
) -> str:
    """``state`` as the export of ``fmt``, redacted by ``redactor`` when given (its findings
    collected in it). Redacted, it is rendered twice: the first pass learns the secrets, so
    that the second also takes out their pieces wherever they are (before the secret was
    met whole, too)."""
    if redactor is not None:
        _render(state, lookup, fmt, redactor)
        redactor.learn()
    return _render(state, lookup, fmt, redactor)


def _render(
    state: SessionState, lookup: Lookup | None, fmt: ExportFormat, redactor: Redactor | None
) -> str:
    if fmt == "html":
        return transcript_html(state, lookup, redactor=redactor)
    return transcript_markdown(state, lookup, redactor=redactor)


def redacted_title(state: SessionState, redactor: Redactor | None) -> str | None:
    """The title that names the file: the session's, redacted like the export (None: the
    session's own, for an export that is not redacted)."""
    if redactor is None:
        return None
    return Redactor(redactor.patterns, home=redactor.home).scrub(state.display_title, "title")
