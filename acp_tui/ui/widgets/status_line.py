"""The line between the transcript and the prompt: what the agent is doing (``● working… 12 s
(Esc to cancel)``), and, when output arrived below what the person is reading, a ``↓ new
output`` marker that jumps down when clicked.

Takes no room when it has nothing to say.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from acp_tui.text.relative_time import elapsed_text
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.keymap import key_label

__all__ = ["NEW_OUTPUT_TEXT", "BackgroundCount", "BudgetWarning", "StatusLine", "elapsed_text"]

NEW_OUTPUT_TEXT = "↓ new output ({key})"


class NewOutputMarker(Static):
    """``↓ new output``: a click jumps to the bottom of the transcript."""

    class Pressed(Message):
        """The person clicked the marker."""

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())


class BackgroundCount(Static):
    """``⏳ 2 running in the background``: what still runs anywhere in the workspace; a click
    opens the background-work panel."""

    class Pressed(Message):
        """The person clicked the count."""

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())


class BudgetWarning(Static):
    """``▲ daily budget: 84% · $4.20 of $5.00``: a budget this view's messages are
    sent under is at 80% or more (``-over``: spent); a click opens the Spend view."""

    class Pressed(Message):
        """The person clicked the warning."""

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())


class StatusLine(Horizontal):
    """The status text (id ``status``), the background count (id ``background-count``), the
    budget warning (id ``budget-warning``) and the new-output marker (id ``new-output``)."""

    DEFAULT_CSS = """
    StatusLine {
        height: auto;
        padding: 0 1;
        & > #status { width: 1fr; height: 0; color: $text-muted; }
        & > #status.-visible { height: 1; }
        & > #status.-visible.-two-lines { height: 2; }
        & > #status.-busy { color: $warning; }
        & > NewOutputMarker {
            display: none;
            width: auto;
            height: 1;
            padding: 0 1;
            color: $text;
            background: $accent 40%;
        }
        & > NewOutputMarker.-visible { display: block; }
        & > NewOutputMarker:hover { background: $accent; }
        & > BackgroundCount {
            display: none;
            width: auto;
            height: 1;
            padding: 0 1;
            color: $text-warning;
        }
        & > BackgroundCount.-visible { display: block; }
        & > BackgroundCount:hover { background: $boost; }
        & > BudgetWarning {
            display: none;
            width: auto;
            max-width: 75%;
            height: 1;
            padding: 0 1;
            color: $text-warning;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        & > BudgetWarning.-visible { display: block; }
        & > BudgetWarning.-over { color: $text-error; text-style: bold; }
        & > BudgetWarning:hover { background: $boost; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="status")
        yield BackgroundCount("", id="background-count")
        yield BudgetWarning("", id="budget-warning")
        key = key_label(self, "transcript-bottom", "click")
        yield NewOutputMarker(NEW_OUTPUT_TEXT.format(key=key), id="new-output")

    def set_text(self, text: str) -> None:
        text = sanitize_terminal_text(text)  # it often quotes the agent (an error, a title)
        status = self.query_one("#status", Static)
        status.update(Text(text))
        status.set_class(bool(text), "-visible")
        self._fit(status, text)

    def on_resize(self, event: events.Resize) -> None:
        status = self.query_one("#status", Static)
        self._fit(status, str(status.render()))

    def _fit(self, status: Static, text: str) -> None:
        """A status too long for its row (a narrow terminal, the sidebar open) takes a
        second row rather than being cut. Its height is fixed either way: the status that
        changes every second ("working… 12 s") never asks for a layout."""
        width = status.size.width or self.size.width - self.styles.gutter.width
        status.set_class(width > 0 and Text(text).cell_len > width, "-two-lines")

    def set_background(self, count: int) -> None:
        """How many pieces of work still run in the background (none: nothing shown)."""
        counter = self.query_one(BackgroundCount)
        text = f"⏳ {count} running in the background" if count else ""
        if str(counter.render()) != text:
            counter.update(Text(text))
        counter.set_class(count > 0, "-visible")

    @property
    def background_count(self) -> str:
        counter = self.query_one(BackgroundCount)
        return str(counter.render()) if counter.has_class("-visible") else ""

    def set_budget(self, text: str, over: bool = False) -> None:
        """The budget warning (empty: none shown); ``over``: a budget is spent."""
        warning = self.query_one(BudgetWarning)
        shown = f"▲ {text}" if text else ""
        if str(warning.render()) != shown:
            warning.update(Text(shown))
        warning.set_class(bool(text), "-visible")
        warning.set_class(over, "-over")

    @property
    def budget_warning(self) -> str:
        warning = self.query_one(BudgetWarning)
        return str(warning.render()) if warning.has_class("-visible") else ""

    def set_busy(self, busy: bool) -> None:
        self.query_one("#status").set_class(busy, "-busy")

    def show_new_output(self, shown: bool) -> None:
        self.query_one(NewOutputMarker).set_class(shown, "-visible")

    @property
    def new_output_shown(self) -> bool:
        return self.query_one(NewOutputMarker).has_class("-visible")
