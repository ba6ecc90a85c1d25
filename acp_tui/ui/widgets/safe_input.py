"""Text fields that never hold what a terminal would run.

Textual's ``Input`` and ``TextArea`` draw their text as it is: an escape sequence in it goes to
the terminal with the next paint (a window title, a screen clear, a clipboard write). What
enters them is not only typed: an agent's command name completed into the prompt, a session
title put in the rename field, the default an agent gives a form field, a paste of coloured
terminal output. So every way in (setting the value, loading a draft, inserting, replacing,
pasting, undo) goes through :func:`field_text`, once, here.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, TextArea
from textual.widgets.text_area import Edit, EditResult

from acp_tui.text.safety import sanitize_terminal_text

__all__ = ["SafeInput", "SafeTextArea", "field_text"]


def field_text(text: str, *, one_line: bool = False) -> str:
    """``text`` without escape sequences, control characters or bidi controls (newlines and
    tabs kept, or folded to spaces for a one-line field)."""
    text = sanitize_terminal_text(text)
    if one_line and ("\n" in text or "\t" in text):
        text = text.replace("\n", " ").replace("\t", " ")
    return text


class SafeInput(Input):
    """An ``Input`` whose value is always :func:`field_text` (one line)."""

    def validate_value(self, value: str) -> str:
        return field_text(value, one_line=True)


class SafeTextArea(TextArea):
    """A ``TextArea`` whose document is always :func:`field_text`."""

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(field_text(text), **kwargs)

    def edit(self, edit: Edit) -> EditResult:
        edit.text = field_text(edit.text)
        return super().edit(edit)

    def load_text(self, text: str) -> None:
        super().load_text(field_text(text))
