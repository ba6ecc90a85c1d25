"""The messages waiting to go out for the session on screen, each with edit, remove and
send now.

Attributes down, messages up: the screen hands the list to :meth:`QueueView.show`; a press on
a button, or a key on a focused row (Tab from the prompt reaches the rows: ↑/↓ between them,
Enter edits, Delete removes, Home moves first, the send-now key sends now), posts a
:class:`QueuedItem.Requested` (``what``: edit, remove, first or now; the item as
``control``), and the screen decides what happens to the queue. Rebuilt, the row that had the
focus keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
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


#: What the person asked of a queued message.
Request = Literal["edit", "remove", "first", "now"]


class QueuedItem(Horizontal, can_focus=True):
    """One queued message: its text, and buttons to edit, remove or send it now (the mouse's;
    the keys are the focused row's)."""

    DEFAULT_CSS = """
    QueuedItem { height: auto; }
    QueuedItem > Static { width: 1fr; color: $text-muted; }
    QueuedItem:focus > Static { color: $block-cursor-foreground; background: $block-cursor-background; }
    QueuedItem > Button { min-width: 8; height: 1; border: none; margin: 0 0 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "step(-1)", "Previous", show=False, id="queue-row-up"),
        Binding("down", "step(1)", "Next", show=False, id="queue-row-down"),
        Binding("enter", "ask('edit')", "Edit", id="queue-row-edit"),
        Binding("delete,backspace", "ask('remove')", "Remove", id="queue-row-remove"),
        Binding("home", "ask('first')", "First", id="queue-row-first"),
        Binding("alt+s,ctrl+enter", "ask('now')", "Send now", id="queue-row-send-now"),
    ]

    class Requested(Message):
        """The person asked to edit, remove, move first or send now this queued message."""

        def __init__(self, queued: QueuedItem, what: Request) -> None:
            super().__init__()
            self.queued = queued
            self.what: Request = what

        @property
        def control(self) -> QueuedItem:
            return self.queued

    def __init__(self, item: QueuedPrompt) -> None:
        super().__init__()
        self.item = item
        #: What the row shows (see :meth:`QueuedPrompt.drawn_as`): drawn again when it differs.
        self.drawn: tuple[int, str, bool] | None = None

    def compose(self) -> ComposeResult:
        self.drawn = self.item.drawn_as()
        text = sanitize_terminal_text(self.item.text).replace("\n", " ⏎ ")
        shown = text[:QUEUED_TEXT_LIMIT]
        if self.item.editing:
            # Held back until the edit is saved or abandoned: say so where it shows.
            save = key_label(self, "prompt-send", owner=PromptEditor)
            keep = key_label(self, "cancel-turn")
            now = key_label(self, "send-now", owner=PromptEditor)
            yield Static(
                Text(
                    f"✎ editing ({save} saves, {keep} keeps it as it was, {now} sends it now): {shown}"
                )
            )
        else:
            yield Static(Text(f"⏳ {shown}"))
            yield self._button("send now", "now")
            yield self._button("edit", "edit")
        yield self._button("remove", "remove")

    def _button(self, label: str, what: Request) -> Button:
        button = Button(label, id=f"{what}-{self.item.queue_id}", classes=what, compact=True)
        button.can_focus = False  # the row takes the focus, and has a key for each
        return button

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        for what in ("edit", "remove", "now"):
            if event.button.has_class(what):
                self.action_ask(what)

    def action_ask(self, what: Request) -> None:
        self.post_message(self.Requested(self, what))

    def action_step(self, step: int) -> None:
        """To the row above (-1) or below: none there, the key does nothing."""
        parent = self.parent
        rows = list(parent.query_children(QueuedItem)) if parent is not None else []
        index = rows.index(self) + step if self in rows else -1
        if 0 <= index < len(rows):
            # At once, not on a later turn: the next key (Home, Delete) is for that row.
            self.screen.set_focus(rows[index])


class QueueView(Vertical):
    """The queued messages of the session on screen; shown only when there are some (the
    ``-visible`` class, styled by the screen)."""

    def rows(self) -> list[QueuedItem]:
        return list(self.query_children(QueuedItem))

    def assign(self, items: Sequence[QueuedPrompt]) -> None:
        """Give each row its message by position at once (drawn on the next :meth:`show`):
        a key on a row acts on the message it will show, however soon it comes."""
        for row, item in zip(self.rows(), items, strict=False):
            row.item = item

    async def show(self, items: Sequence[QueuedPrompt]) -> None:
        """Draw ``items``. Rows are kept by position and redrawn in place (new ones added at
        the end, the extra ones removed from it), so a focused row keeps the focus."""
        rows = self.rows()
        self.set_class(bool(items), "-visible")
        # Said where the queue shows: the keys that reach it (the key sheet has them all).
        up = key_label(self, "queue-previous", owner=PromptEditor)
        now = key_label(self, "send-now", owner=PromptEditor)
        self.border_title = (
            f"{up} on an empty prompt edits the last · {now} sends now · Tab reaches each"
            if items
            else None
        )
        for row, item in zip(rows, items, strict=False):
            if row.drawn != item.drawn_as():
                row.item = item
                await row.recompose()
        extra = rows[len(items) :]
        if extra:
            focused = self.screen.focused if self.is_attached else None
            await self.remove_children(extra)
            kept = self.rows()
            if focused in extra and kept:
                self.screen.set_focus(kept[-1])
        if len(items) > len(rows):
            await self.mount_all([QueuedItem(item) for item in items[len(rows) :]])
