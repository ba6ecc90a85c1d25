"""The queue above the prompt from the keyboard and the mouse: editing, removing, moving
first and sending now a queued message, walking the queue from the prompt, and the queue's
place in the Tab order.

Up on an empty prompt takes the last queued message to edit (when messages wait; else Up
walks the history as ever); while one is edited, Up and Down go to the others. The rows take
the focus: Tab from the prompt goes to the queue's first row when it holds messages, then on
to the controls under the prompt; Shift+Tab goes back the same way.

:class:`QueueActions` is a plain object the chat screen owns; the queue's messages, the
prompt's queue keys and the screen's focus steps come to it; what they mean for the queue is
:class:`~acp_tui.ui.models.queue.QueueModel`'s.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget

from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.models.queue import QueueModel
from acp_tui.ui.screens.chat.drawing import ChatWidgets
from acp_tui.ui.widgets.queue_view import QueuedItem

__all__ = ["QueueActions"]


class QueueActions:
    """``focused`` is the widget with the focus, ``chain`` the screen's focus chain and
    ``focus`` gives a widget the focus at once."""

    def __init__(
        self,
        model: ChatModel,
        widgets: ChatWidgets,
        *,
        focused: Callable[[], Widget | None],
        chain: Callable[[], list[Widget]],
        focus: Callable[[Widget], object],
    ) -> None:
        self.model = model
        self.queue = QueueModel(model)
        self.widgets = widgets
        self.focused = focused
        self.chain = chain
        self.focus = focus

    def handle(self, event: QueuedItem.Requested) -> None:
        """What the person asked of a queued message (a button, or a key on its row). The
        focus moves at once (a key typed right after is for where it lands): a row moved
        first keeps it, a removed one's place takes it, an edited or sent one gives it to
        the prompt."""
        prompt = self.widgets.prompt
        view = self.widgets.queue
        item = event.queued.item
        rows = view.rows()
        index = rows.index(event.queued) if event.queued in rows else 0
        if event.what == "remove":
            if item.editing:
                prompt.set_draft("")
            self.model.remove_queued(item.queue_id)
        elif event.what == "first":
            self.queue.move_first(item.queue_id)
            index = 0
        elif event.what == "now":
            if item.editing:
                prompt.submit(now=True)  # what the prompt holds is this message now
            else:
                self.queue.send_queued_now(item.queue_id)
        else:
            text = self.model.edit_queued(item.queue_id, prompt.draft)
            if text is not None:
                prompt.set_draft(text)
                self.focus(prompt.text_area)
            return
        left = self.model.prompts.items(self.model.queue_key())
        view.assign(left)
        if event.what == "now" or not left:
            self.focus(prompt.text_area)
        elif event.queued.has_focus:
            self.focus(rows[min(index, len(left) - 1)])

    def prompt_key(self, action: str) -> bool:
        """The prompt's queue keys (Up, Down at its edge): True when the queue used it."""
        prompt = self.widgets.prompt
        shown = self.queue.step(prompt.text, older=action == "queue_previous")
        if shown is None:
            return False
        if shown != prompt.text:
            prompt.set_draft(shown)
        return True

    def rows(self) -> list[Widget]:
        """The queue's rows that can take the focus, in order."""
        return [row for row in self.widgets.queue.query(QueuedItem) if row.focusable]

    def _after_prompt(self, chain: list[Widget]) -> Widget | None:
        """The first control under the prompt (what Tab reached from it before)."""
        area = self.widgets.prompt.text_area
        if area not in chain:
            return None
        index = chain.index(area)
        return chain[index + 1] if index + 1 < len(chain) else None

    def target(self, forward: bool) -> Widget | None:
        """Where Tab (``forward``) or Shift+Tab goes from the focus, when the queue changes
        the way: None to go as the screen would."""
        rows = self.rows()
        if not rows:
            return None
        focused = self.focused()
        area = self.widgets.prompt.text_area
        after = self._after_prompt(self.chain())
        if forward:
            if focused is area:
                return rows[0]
            if focused is rows[-1]:
                return after or area
            return None
        if focused is rows[0]:
            return area
        if focused is not None and focused is after:
            return rows[-1]
        return None

    def step(self, forward: bool, otherwise: Callable[[], Widget | None]) -> Widget | None:
        """A focus step: the queue's way (see :meth:`target`), else ``otherwise``."""
        target = self.target(forward)
        if target is None:
            return otherwise()
        self.focus(target)
        return target
