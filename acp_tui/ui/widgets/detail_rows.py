"""(label, value) rows for a dialog that asks about something: what will run, where a page
goes. The label is ours, the value (usually the agent's) is drawn in its own column and
colour, so however it wraps it cannot pass for the dialog's own words ("Site: bank.com
(verified)" on a line of its own). Values from outside come already made one line with their
control characters visible (:func:`acp_tui.text.safety.escaped_line`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Label, Static

from acp_tui.ui.agent_text import agent_line, agent_lines

__all__ = ["DetailRows"]


class DetailRows(VerticalScroll, can_focus=False):
    """The rows, scrolled when there are more than fit."""

    DEFAULT_CSS = """
    DetailRows { height: auto; max-height: 16; }
    DetailRows .detail { height: auto; }
    DetailRows .detail-label { width: 12; color: $text-muted; }
    DetailRows .detail-value { width: 1fr; color: $text-warning; background: $boost; }
    """

    def __init__(
        self,
        rows: Iterable[tuple[str, str | Text]],
        *,
        value_ids: Mapping[str, str] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._rows = list(rows)
        #: Widget ids for the values of some rows, by label.
        self._value_ids = dict(value_ids or {})

    def compose(self) -> ComposeResult:
        for label, value in self._rows:
            with Horizontal(classes="detail"):
                yield Label(agent_line(label, 40), classes="detail-label")
                shown = value if isinstance(value, Text) else agent_lines(value)
                shown.overflow = "fold"
                yield Static(shown, classes="detail-value", id=self._value_ids.get(label))
