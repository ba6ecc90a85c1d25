"""Messages the person sent that cannot go out yet, per session, in order.

A message waits here while the agent works on a turn, while the agent is still starting,
while its session is being created, or while the agent is down (it goes out once the session
is open again). The key ``None`` stands for the new session that is not created yet: the
session that opens for it adopts what waits there (:meth:`PromptQueue.rekey`).

An item the person is editing is held back: the queue does not send it, nor anything after it,
until the edit is saved (:meth:`PromptQueue.save_edit`) or abandoned
(:meth:`PromptQueue.abandon_edit`). So an edit is never overtaken by the turn ending, and the
order the person chose is kept.

Pure Python; the UI listens with ``on_change(key)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PromptQueue", "QueuedPrompt"]

QueueKey = str | None


@dataclass(slots=True)
class QueuedPrompt:
    """A message waiting to be sent; editable until it is."""

    queue_id: int
    text: str
    blocks: list[dict[str, Any]]
    editing: bool = False
    #: v2: the key it went out with before (sent again with it: never run twice).
    idempotency_key: str | None = None

    def drawn_as(self) -> tuple[int, str, bool]:
        """What a view of it shows: a view drawn from another value is out of date."""
        return (self.queue_id, self.text, self.editing)


def text_blocks(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


@dataclass(slots=True)
class PromptQueue:
    """Queued messages per session id (``None``: the session about to be created)."""

    on_change: Callable[[QueueKey], None] = lambda key: None
    _items: dict[QueueKey, list[QueuedPrompt]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def items(self, key: QueueKey) -> list[QueuedPrompt]:
        """The queue of ``key``, oldest first (a copy)."""
        return list(self._items.get(key, ()))

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._items.values())

    def has(self, key: QueueKey) -> bool:
        return bool(self._items.get(key))

    def awaiting_retry(self) -> bool:
        """Whether a message whose answer was lost waits to go again with its key (any
        session)."""
        return any(item.idempotency_key for queue in self._items.values() for item in queue)

    def add(
        self,
        key: QueueKey,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        *,
        first: bool = False,
    ) -> QueuedPrompt:
        """A message at the end of ``key``'s queue (``first``: at its head, "send now")."""
        item = QueuedPrompt(next(self._ids), text, blocks or text_blocks(text))
        queue = self._items.setdefault(key, [])
        queue.insert(0 if first else len(queue), item)
        self._changed(key)
        return item

    def put_back(
        self,
        key: QueueKey,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        idempotency_key: str | None = None,
    ) -> QueuedPrompt:
        """A message that went out and was refused unsent (or whose answer was lost, with
        the ``idempotency_key`` it went with): first in line again."""
        item = QueuedPrompt(
            next(self._ids), text, blocks or text_blocks(text), idempotency_key=idempotency_key
        )
        self._items.setdefault(key, []).insert(0, item)
        self._changed(key)
        return item

    def find(self, key: QueueKey, queue_id: int) -> QueuedPrompt | None:
        for item in self._items.get(key, ()):
            if item.queue_id == queue_id:
                return item
        return None

    def editing(self, key: QueueKey) -> QueuedPrompt | None:
        """The item of ``key`` being edited, if any."""
        for item in self._items.get(key, ()):
            if item.editing:
                return item
        return None

    def remove(self, key: QueueKey, queue_id: int) -> bool:
        queue = self._items.get(key, [])
        for index, item in enumerate(queue):
            if item.queue_id == queue_id:
                del queue[index]
                self._tidy(key)
                self._changed(key)
                return True
        return False

    def move_first(self, key: QueueKey, queue_id: int) -> bool:
        """Put an item at the head of its queue: it goes out next."""
        queue = self._items.get(key, [])
        for index, item in enumerate(queue):
            if item.queue_id == queue_id:
                if index:
                    queue.insert(0, queue.pop(index))
                    self._changed(key)
                return True
        return False

    def begin_edit(self, key: QueueKey, queue_id: int) -> QueuedPrompt | None:
        """Hold an item back while the person edits it (one at a time per session)."""
        item = self.find(key, queue_id)
        if item is None:
            return None
        for other in self._items.get(key, ()):
            other.editing = other is item
        self._changed(key)
        return item

    def save_edit(
        self, key: QueueKey, queue_id: int, text: str, blocks: list[dict[str, Any]] | None = None
    ) -> bool:
        """Replace the text of the item being edited and let it go again."""
        item = self.find(key, queue_id)
        if item is None:
            return False
        if text != item.text:
            item.idempotency_key = None  # another message now: a key is never reused for it
        item.text = text
        item.blocks = blocks or text_blocks(text)
        item.editing = False
        self._changed(key)
        return True

    def abandon_edit(self, key: QueueKey, queue_id: int | None = None) -> bool:
        """Stop editing (the item keeps its text and may go again)."""
        changed = False
        for item in self._items.get(key, ()):
            if item.editing and (queue_id is None or item.queue_id == queue_id):
                item.editing = False
                changed = True
        if changed:
            self._changed(key)
        return changed

    def take_next(self, key: QueueKey) -> QueuedPrompt | None:
        """The oldest item, removed, unless it is being edited (then nothing goes)."""
        queue = self._items.get(key)
        if not queue or queue[0].editing:
            return None
        item = queue.pop(0)
        self._tidy(key)
        self._changed(key)
        return item

    def rekey(self, old: QueueKey, new: QueueKey) -> None:
        """Move what waits under ``old`` to the end of ``new``'s queue."""
        if old == new or not self._items.get(old):
            return
        moved = self._items.pop(old)
        self._items.setdefault(new, []).extend(moved)
        self._changed(old)
        self._changed(new)

    def _tidy(self, key: QueueKey) -> None:
        if not self._items.get(key):
            self._items.pop(key, None)

    def _changed(self, key: QueueKey) -> None:
        self.on_change(key)
