"""The queue above the prompt: editing and removing a queued message, and its place in the
Tab order.

The queue's buttons sit above the prompt, and the controls under it came first in Tab's
order: the first "edit" was eight Tabs away. Tab from the prompt goes to the queue first when
it holds messages, then on to the controls under the prompt; Shift+Tab goes back the same
way.

:class:`QueueActions` is a plain object the chat screen owns; the queue's messages and the
screen's focus steps come to it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget
from textual.widgets import Button

from acp_tui.ui.models.chat import ChatModel
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
        self.widgets = widgets
        self.focused = focused
        self.chain = chain
        self.focus = focus

    def handle(self, event: QueuedItem.EditRequested | QueuedItem.RemoveRequested) -> None:
        """Edit or remove a queued message (its button was pressed)."""
        prompt = self.widgets.prompt
        item = event.queued.item
        if isinstance(event, QueuedItem.RemoveRequested):
            if item.editing:
                prompt.set_draft("")
            self.model.remove_queued(item.queue_id)
            return
        text = self.model.edit_queued(item.queue_id, prompt.draft)
        if text is not None:
            prompt.set_draft(text)
            prompt.text_area.focus()

    def buttons(self) -> list[Widget]:
        """The queue's buttons that can take the focus, in order."""
        return [button for button in self.widgets.queue.query(Button) if button.focusable]

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
        buttons = self.buttons()
        if not buttons:
            return None
        focused = self.focused()
        area = self.widgets.prompt.text_area
        after = self._after_prompt(self.chain())
        if forward:
            if focused is area:
                return buttons[0]
            if focused is buttons[-1]:
                return after or area
            return None
        if focused is buttons[0]:
            return area
        if focused is not None and focused is after:
            return buttons[-1]
        return None

    def step(self, forward: bool, otherwise: Callable[[], Widget | None]) -> Widget | None:
        """A focus step: the queue's way (see :meth:`target`), else ``otherwise``."""
        target = self.target(forward)
        if target is None:
            return otherwise()
        self.focus(target)
        return target
