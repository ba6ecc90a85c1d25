"""The messages waiting to go out for the session on screen, each with edit and remove.

Attributes down, messages up: the screen hands the list to :meth:`QueueView.show`; a press on
a button posts :class:`QueuedItem.EditRequested` or :class:`QueuedItem.RemoveRequested` (with
the item as ``control``), and the screen decides what happens to the queue.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from acp_tui.session.prompts.queue import QueuedPrompt
from acp_tui.text.safety import sanitize_terminal_text
from acp_tui.ui.keymap import key_label
from acp_tui.ui.widgets.prompt import PromptEditor

__all__ = ["QueueView", "QueuedItem"]

#: How much of a queued message shows (one row; the whole text goes out).
QUEUED_TEXT_LIMIT = 300


class QueuedItem(Horizontal):
    """One queued message: its text, and buttons to edit or remove it."""

    DEFAULT_CSS = """
    QueuedItem { height: auto; }
    QueuedItem > Static { width: 1fr; color: $text-muted; }
    QueuedItem > Button { min-width: 8; height: 1; border: none; margin: 0 0 0 1; }
    """

    class EditRequested(Message):
        """The person wants to change this queued message before it goes out."""

        def __init__(self, queued: QueuedItem) -> None:
            super().__init__()
            self.queued = queued

        @property
        def control(self) -> QueuedItem:
            return self.queued

    class RemoveRequested(Message):
        """The person wants this queued message never to go out."""

        def __init__(self, queued: QueuedItem) -> None:
            super().__init__()
            self.queued = queued

        @property
        def control(self) -> QueuedItem:
            return self.queued

    def __init__(self, item: QueuedPrompt) -> None:
        super().__init__()
        self.item = item

    def compose(self) -> ComposeResult:
        text = sanitize_terminal_text(self.item.text).replace("\n", " ⏎ ")
        shown = text[:QUEUED_TEXT_LIMIT]
        if self.item.editing:
            # Held back until the edit is saved or abandoned: say so where it shows.
            save = key_label(self, "prompt-send", owner=PromptEditor)
            keep = key_label(self, "cancel-turn")
            yield Static(Text(f"✎ editing ({save} saves, {keep} keeps it as it was): {shown}"))
        else:
            yield Static(Text(f"⏳ {shown}"))
            yield Button("edit", id=f"edit-{self.item.queue_id}", classes="edit", compact=True)
        yield Button("remove", id=f"remove-{self.item.queue_id}", classes="remove", compact=True)

    @on(Button.Pressed, ".edit")
    def _edit_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.EditRequested(self))

    @on(Button.Pressed, ".remove")
    def _remove_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RemoveRequested(self))


class QueueView(Vertical):
    """The queued messages of the session on screen; shown only when there are some (the
    ``-visible`` class, styled by the screen)."""

    async def show(self, items: Sequence[QueuedPrompt]) -> None:
        await self.remove_children()
        self.set_class(bool(items), "-visible")
        if items:
            await self.mount_all([QueuedItem(item) for item in items])
