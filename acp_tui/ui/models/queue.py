"""The queue from the keyboard, and "send now": the intents about the messages waiting to go
out from one chat view, over its :class:`~acp_tui.ui.models.chat.ChatModel`.

- Walking the queue from the prompt: the last queued message is taken to edit (Up on an
  empty prompt), then the one before or after it (the edit of the one left is kept, as
  leaving the session keeps it); past the last, the prompt is empty again.
- Moving one first, removing one (its row's keys).
- "Send now" (see acp_tui.session.agent.steering): what the prompt holds, or a queued
  message, goes into the running turn where the agent takes it, else the turn is cancelled
  and it goes first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.session.errors import SessionError

if TYPE_CHECKING:
    from acp_tui.session.prompts.queue import PromptQueue
    from acp_tui.ui.models.chat import ChatModel

__all__ = ["QueueModel"]


class QueueModel:
    """The queue's intents for the view of ``chat``."""

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    @property
    def prompts(self) -> PromptQueue:
        return self.chat.prompts

    def has_queued(self) -> bool:
        """Messages wait for the session on screen."""
        return self.prompts.has(self.chat.queue_key())

    def editing(self) -> int | None:
        """The id of the queued message being edited, if any."""
        item = self.prompts.editing(self.chat.queue_key())
        return None if item is None else item.queue_id

    # ------------------------------------------------------------------ walking the queue

    def step(self, typed: str, older: bool) -> str | None:
        """Up (``older``) or Down from the prompt, which holds ``typed``: the text the prompt
        shows now, or None when the key is not the queue's (nothing queued, or not editing
        one and not on an empty prompt: the history's, as before)."""
        key = self.chat.queue_key()
        items = self.prompts.items(key)
        editing = self.prompts.editing(key)
        if not items:
            return None
        if editing is None:
            if not older or typed.strip():
                return None
            item = self.prompts.begin_edit(key, items[-1].queue_id)
            return None if item is None else item.text
        ids = [item.queue_id for item in items]
        index = ids.index(editing.queue_id) + (-1 if older else 1)
        if index < 0:
            return typed  # the first: it stays, the history is not walked from here
        self._keep_edit(key, editing.queue_id, typed)
        if index >= len(ids):
            return ""  # past the last: an empty prompt again
        item = self.prompts.begin_edit(key, ids[index])
        return "" if item is None else item.text

    def _keep_edit(self, key: str | None, queue_id: int, typed: str) -> None:
        """Leaving a queued message's edit for another: a non-blank edit is kept, a blank one
        leaves it as it was."""
        if typed.strip():
            self.prompts.save_edit(key, queue_id, typed)
        else:
            self.prompts.abandon_edit(key, queue_id)
        self.chat.flush(key)

    # ------------------------------------------------------------------ a row's keys

    def move_first(self, queue_id: int) -> None:
        """A queued message goes out next."""
        key = self.chat.queue_key()
        self.prompts.move_first(key, queue_id)
        self.chat.flush(key)

    def send_queued_now(self, queue_id: int) -> bool:
        """ "Send now" on a queued message (its row). Being edited: its text is in the
        prompt, and the prompt's key sends what is typed there (False here)."""
        key = self.chat.queue_key()
        item = self.prompts.find(key, queue_id)
        if item is None:
            self.chat.notify("That message has been sent already.")
            return False
        if item.editing:
            return False
        self.prompts.remove(key, queue_id)
        return self.send_now(item.text, item.blocks)

    # ------------------------------------------------------------------ send now

    def send_now(
        self, text: str, blocks: list[dict[str, Any]] | None = None, *, target: str | None = None
    ) -> bool:
        """ "Send now" of ``text``: the queued message being edited is this one (it leaves
        its place in the queue). False: not taken (a subagent's view, as
        :meth:`ChatModel.send`)."""
        chat = self.chat
        session_id = target if target is not None else chat.queue_key()
        controller = chat.controller
        editing = self.prompts.editing(session_id)
        if chat.child(session_id) is not None:
            return chat.send(text, blocks, target=target)  # refused there, and said why
        if editing is not None:
            self.prompts.remove(session_id, editing.queue_id)
        if controller is None or session_id is None or not chat.agent_alive:
            # Nothing runs to cancel or steer: first in line, as a message sent now.
            self.prompts.add(session_id, text, blocks, first=True)
            if session_id is None and chat.agent_alive:
                chat.start_new_session()
            return True
        try:
            how = controller.send_now(session_id, text, blocks, chat.cancel_turn_of)
        except SessionError as error:
            self.prompts.add(session_id, text, blocks, first=True)
            chat.notify(str(error), severity="error")
            return True
        if how == "cancelled":
            chat.notify(
                "The agent takes no message during a turn: cancelled the turn to send yours now.",
                severity="warning",
            )
        return True
