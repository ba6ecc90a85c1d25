"""The agent's prompt suggestions, as dim chips under the prompt.

Attributes down, messages up: the screen hands the labels to :meth:`SuggestionChips.show`
(the session on screen's, or none); a click on a chip posts :class:`SuggestionChips.Chosen`
with its index, and the screen puts that suggestion in the prompt (the prompt's Tab does the
same for the first one). Nothing is sent from here: a suggestion goes out only when the
person sends it. Labels are the agent's text, drawn literally on one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from acp_tui.ui.agent_text import agent_line

__all__ = ["SuggestionChip", "SuggestionChips"]


class SuggestionChip(Static):
    """One suggestion: a click takes it."""

    DEFAULT_CSS = """
    SuggestionChip {
        width: auto; height: 1; padding: 0 1; margin: 0 1 0 0;
        color: $text-muted; background: $boost;
    }
    SuggestionChip:hover { color: $text; background: $accent-muted; }
    """

    def __init__(self, index: int, label: str) -> None:
        super().__init__(agent_line(label), markup=False)
        self.index = index
        self.label = label

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(SuggestionChips.Chosen(self))


class SuggestionChips(Horizontal):
    """The row of chips; hidden when there is none to offer."""

    DEFAULT_CSS = """
    SuggestionChips { height: 1; display: none; padding: 0 1; }
    SuggestionChips.-visible { display: block; }
    SuggestionChips > .hint { width: auto; color: $text-muted; text-style: italic; }
    """

    class Chosen(Message):
        """The person clicked a chip: the suggestion ``index`` goes into the prompt."""

        def __init__(self, chip: SuggestionChip) -> None:
            super().__init__()
            self.chip = chip
            self.index = chip.index

        @property
        def control(self) -> SuggestionChip:
            return self.chip

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._labels: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        return self._labels

    def compose(self) -> ComposeResult:
        yield Static("Suggested (Tab):", classes="hint", markup=False)

    def show(self, labels: Sequence[str]) -> None:
        """Offer these suggestions (in order); none hides the row."""
        labels = tuple(labels)
        self.set_class(bool(labels), "-visible")
        if labels == self._labels:
            return
        self._labels = labels
        for chip in list(self.query(SuggestionChip)):
            chip.remove()
        self.mount_all(SuggestionChip(index, label) for index, label in enumerate(labels))
