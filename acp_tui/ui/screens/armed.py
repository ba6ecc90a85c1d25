"""The arming gate of the dialogs that answer the agent for the person: the permission dialog
(:mod:`acp_tui.ui.screens.permission`) and the elicitation form
(:mod:`acp_tui.ui.screens.elicitation`).

No answer comes by accident. A dialog *arms* :attr:`ArmedDialog.ARM_DELAY` seconds after it is
drawn, and again that long after the last key typed at it that was not an answer (someone still
typing is not answering). An answer is taken only if its key or click *happened* after the
dialog armed (:meth:`ArmedDialog.accepts`, by the input event's own time: a key typed before the
dialog was drawn but read after never counts). Until then typing goes on to the prompt beneath
(``forward_typing``), so nothing typed is lost. A dialog that is covered and uncovered again
arms afresh; ``armed`` (the ``-unarmed`` class and the hint line) shows where it stands.

A dialog answered while another screen covers it closes as soon as it is uncovered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from textual import events
from textual.app import App
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.ui.textual_patches import access

#: The clock of Textual's event times: a key's or click's time is compared with it.
_event_time = access.event_clock()

#: Where typing that is not an answer goes: ``(key, text)``, ``text`` being what the key types
#: ("" for Enter and Backspace; the whole text for a paste, whose key is ``"paste"``).
TypingForwarder = Callable[[str, str], None]

AnswerT = TypeVar("AnswerT")


class HintLine(Static):
    """The dialog's line of key hints: says when its height changed (it wraps to its width,
    and arming changes what it says), so the dialog shares its height again."""

    class Resized(Message):
        """The hint line's size changed."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())


class ArmedDialog(ModalScreen[AnswerT | None], Generic[AnswerT]):
    """A modal whose answers pass the arming gate; subclasses give :meth:`_hint_text`,
    :attr:`answered` and :meth:`close`, and set ``_answer`` and ``_answer_event`` when
    answered."""

    ARM_DELAY: ClassVar[float] = 0.5

    #: Whether an answer would be taken now (shown in the hint line; ``-unarmed`` when not).
    armed: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        *,
        arm_delay: float | None = None,
        forward_typing: TypingForwarder | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.arm_delay = self.ARM_DELAY if arm_delay is None else arm_delay
        #: Where typing that is not an answer goes (the prompt beneath).
        self.forward_typing = forward_typing
        self.set_reactive(ArmedDialog.armed, self.arm_delay <= 0)
        #: When the dialog was last drawn on screen (None while it is not).
        self._shown_at: float | None = None
        #: When the last key typed at the dialog that was not an answer came.
        self._typed_at = float("-inf")
        self._arm_timer: Timer | None = None
        self._answer: AnswerT | None = None
        self._answer_event = asyncio.Event()
        self._close_when_active = False

    @property
    def answered(self) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _hint_text(self) -> Any:
        raise NotImplementedError

    async def wait_for_answer(self) -> AnswerT | None:
        """The answer (``None``: cancelled), once the person (or code) gave it."""
        await self._answer_event.wait()
        return self._answer

    def _leave(self) -> None:
        """Answered: the dialog goes now, or as soon as it is uncovered."""
        if self._arm_timer is not None:
            self._arm_timer.stop()
        if self.is_active:
            self.dismiss(self._answer)
        else:
            self._close_when_active = True

    # -- shown and covered --

    def on_screen_resume(self) -> None:
        if self._close_when_active:
            self._close_when_active = False
            self.dismiss(self._answer)
            return
        # Shown (again): it arms afresh, counted from when it is on screen.
        self._shown_at = None
        self._arm_later()
        self.call_after_refresh(self._mark_shown)

    def on_screen_suspend(self) -> None:
        # Covered by another screen: what the person sees is not this dialog any more.
        self._shown_at = None
        self._arm_later()

    def _mark_shown(self) -> None:
        if self.is_active:
            self._shown_at = _event_time()
            self._arm_later()

    # -- arming --

    def _armed_from(self) -> float | None:
        """From when an answer is taken: a moment after the dialog was shown and after the
        last key typed at it; None while not shown."""
        if self._shown_at is None:
            return None
        return max(self._shown_at, self._typed_at) + self.arm_delay

    def accepts(self, at: float) -> bool:
        """Whether an answer given at ``at`` (an input event's time) is taken."""
        if self.arm_delay <= 0:
            return True
        armed_from = self._armed_from()
        return armed_from is not None and at >= armed_from

    def _arm_later(self) -> None:
        """Bring :attr:`armed` up to date and, if not armed yet, check again when it should be."""
        if self.arm_delay <= 0:
            return
        if self._arm_timer is not None:
            self._arm_timer.stop()
            self._arm_timer = None
        armed_from = self._armed_from()
        now = _event_time()
        self.armed = armed_from is not None and now >= armed_from
        if armed_from is not None and not self.armed:
            self._arm_timer = self.set_timer(armed_from - now + 0.01, self._arm_later)

    def watch_armed(self, armed: bool) -> None:
        self.set_class(not armed, "-unarmed")
        for hint in self.query("#hint").results(Static):
            hint.update(self._hint_text())

    def on_hint_line_resized(self, event: HintLine.Resized) -> None:
        # The armed hint may take more rows than the unarmed one: the height is shared again
        # (else its last row was cut off under a full dialog).
        event.stop()
        self._fit()

    def _fit(self) -> None:
        """Share the dialog's height among its parts (the subclasses know them)."""

    def _pass_on(self, key: str, text: str, at: float) -> None:
        """Typing, not an answer: it puts arming off and goes on to the prompt."""
        if not self.answered:
            self._typed_at = max(self._typed_at, at)
            self._arm_later()
        if self.forward_typing is not None:
            self.forward_typing(key, text)


async def present_dialog(app: App[Any], screen: ArmedDialog[AnswerT]) -> AnswerT | None:
    """Show ``screen`` and wait for its answer; when the caller is cancelled (the broker's or
    the queue's ``cancel_session``), the dialog is closed."""
    try:
        await app.push_screen(screen)
        return await screen.wait_for_answer()
    finally:
        if not screen.answered:
            screen.close()
