"""The chat screen's queue: what was sent and has not gone out yet, per session; shown under
the transcript, editable and removable until it goes.

A mixin of :class:`~acp_tui.ui.screens.chat.screen.ChatScreen` (typed as a
:class:`~acp_tui.ui.screens.chat.host.ChatHost`; handlers by name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.queue_view import QueuedItem, QueueView

if TYPE_CHECKING:
    from acp_tui.ui.screens.chat.host import ChatHost
else:
    ChatHost = object


class QueueGlue(ChatHost):
    """Draw the queue of the session on screen and act on its items' requests."""

    def _on_queue_changed(self, session_id: str | None) -> None:
        if session_id == self._queue_key() and self.is_mounted:
            self.call_later(self._draw_queue)

    def _queue_key(self) -> str | None:
        """Where a message sent from this view waits: the session on screen, or ``None`` (the
        new session) when that one could not be reopened."""
        session_id = self.session_id
        return None if session_id in self._unopenable else session_id

    async def _draw_queue(self) -> None:
        await self.query_one(QueueView).show(self.prompts.items(self._queue_key()))

    def on_queued_item_remove_requested(self, event: QueuedItem.RemoveRequested) -> None:
        event.stop()
        item = event.queued.item
        if item.editing:
            self.query_one(PromptEditor).set_draft("")
        key = self._queue_key()
        self.prompts.remove(key, item.queue_id)
        self._flush(key)

    def on_queued_item_edit_requested(self, event: QueuedItem.EditRequested) -> None:
        event.stop()
        item = event.queued.item
        prompt = self.query_one(PromptEditor)
        if prompt.draft.strip():
            self.notify("Send or clear what you are typing first.", severity="warning")
            return
        # Held back from sending until the edit is saved (Enter) or abandoned (Escape).
        if self.prompts.begin_edit(self._queue_key(), item.queue_id) is None:
            self.notify("That message has been sent already.")
            return
        prompt.set_draft(item.text)
        prompt.text_area.focus()

    def _finish_edit(self, session_id: str | None, typed: str) -> str:
        """Leaving a session while editing one of its queued messages: a non-blank edit is
        saved, a blank one abandoned. Returns what remains of the draft."""
        editing = self.prompts.editing(session_id)
        if editing is None:
            return typed
        if typed.strip():
            self.prompts.save_edit(session_id, editing.queue_id, typed)
        else:
            self.prompts.abandon_edit(session_id, editing.queue_id)
        self._flush(session_id)
        return ""

    def _flush(self, session_id: str | None) -> None:
        if self.link is not None and session_id is not None:
            self.link.flush(session_id)
