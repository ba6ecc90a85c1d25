"""The arming gate: every dialog that acts for the person (answers the agent, runs a command,
changes a session) passes its answers through :class:`ArmedDialog`. The permission dialog,
the agent's forms and pages to visit, the sign-in picker, confirmations and rename use it;
a new dialog subclasses it and gets the same rules.

No answer comes by accident:

- **Arming.** A dialog *arms* :attr:`ArmedDialog.ARM_DELAY` seconds after it is drawn, and
  again that long after the last key typed at it that was not an answer (someone still typing
  is not answering). An answer is taken only if its key or click *happened* after the dialog
  armed (:meth:`ArmedDialog.accepts`, by the input event's own time: a key typed before the
  dialog was drawn but read after never counts). A dialog covered and uncovered again arms
  afresh; ``armed`` (the ``-unarmed`` class and the hint line) shows where it stands, and
  until it arms the hint line starts with a meter that fills as it arms (and empties again
  while the person types), so a person sees it arming.
- **A key stands alone** (:mod:`acp_tui.ui.key_burst`). An answer key that types (a digit,
  a letter) waits :attr:`ArmedDialog.BURST_WINDOW` (:meth:`ArmedDialog.answer_key`): another
  key or a paste within that time makes it the first key of a burst of typing, and it goes to
  the prompt with the rest; alone, it acts. Enter or Space on what the person highlighted or
  focused in the dialog acts at once: choosing it there was the deliberate step.
- **Typing is not lost.** Whatever is not an answer (:meth:`ArmedDialog.pass_on`) goes on to
  the prompt beneath (``forward_typing``).
- **Who asks.** Every dialog names the agent and the session it comes from
  (:class:`DialogOrigin`, drawn by :meth:`ArmedDialog.origin_line`), also over another agent's
  view.

A new dialog subclasses :class:`ArmedDialog`: it handles keys in
:meth:`ArmedDialog.dialog_key` (not ``on_key``, which keeps the burst rule first), sends each
answer key through :meth:`ArmedDialog.answer_key` and typing through
:meth:`ArmedDialog.pass_on_key`, answers with :meth:`ArmedDialog.settle`, gives its buttons as
:class:`ArmedButton` (:meth:`ArmedDialog.answer_button` says what each one answers) and its
hint line in :meth:`_hint_text`. A dialog answered while another screen covers it closes as
soon as it is uncovered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import events
from textual.app import App
from textual.content import Content
from textual.message import Message
from textual.message_pump import MessagePump
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, OptionList, Static
from textual.widgets.button import ButtonVariant

from acp_tui.ui.agent_text import agent_line
from acp_tui.ui.key_burst import BURST_WINDOW, HeldKey, KeyHold
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.textual_patches import access

#: The clock of Textual's event times: a key's or click's time is compared with it.
_event_time = access.event_clock()

#: Where typing that is not an answer goes: ``(key, text)``, ``text`` being what the key types
#: ("" for Enter and Backspace; the whole text for a paste, whose key is ``"paste"``).
TypingForwarder = Callable[[str, str], None]

AnswerT = TypeVar("AnswerT")

#: Seconds added to a timer's wait, so it fires after the moment it waits for, not just before.
_TIMER_SLACK = 0.01
#: Cells of the arming meter (each fills after ``ARM_DELAY / ARMING_CELLS`` seconds).
ARMING_CELLS = 5


def arming_meter(progress: float) -> str:
    """The meter the hint line starts with while a dialog arms: ``▰▰▱▱▱`` at 40%."""
    filled = min(ARMING_CELLS, max(0, int(progress * ARMING_CELLS)))
    return "▰" * filled + "▱" * (ARMING_CELLS - filled)


@dataclass(frozen=True, slots=True)
class DialogOrigin:
    """Who a dialog is from: the agent (its name as the person knows it) and the session
    (its title; None when the request belongs to no session)."""

    agent: str
    session: str | None = None
    #: A subagent's request: the session it works for (its parent's title).
    parent: str | None = None

    def text(self) -> Text:
        """``Agent: NAME · Session: TITLE`` (a subagent's: ``Subagent: TITLE · of: PARENT``),
        each shown literally, on one line."""
        line = Text("Agent: ", style="dim", end="")
        line.append_text(agent_line(self.agent, 60, style="bold"))
        line.append("  ·  Subagent: " if self.parent is not None else "  ·  Session: ", style="dim")
        if self.session is None:
            line.append("none", style="italic")
        else:
            line.append_text(agent_line(self.session or "untitled", 120, style="bold"))
        if self.parent is not None:
            line.append("  ·  of: ", style="dim")
            line.append_text(agent_line(self.parent or "untitled", 120, style="bold"))
        return line


class ArmedButton(Button):
    """A button that answers its dialog: a click or Enter counts only through the gate
    (:meth:`ArmedDialog.answer_button`), by the time it happened."""

    def __init__(
        self,
        label: str,
        answer_name: str,
        *,
        variant: ButtonVariant = "default",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            label, variant=variant, id=id or f"answer-{answer_name}", classes=classes, compact=True
        )
        self.answer_name = answer_name

    async def on_click(self, event: events.Click) -> None:
        # Instead of Button's own handler (prevent_default stops it), which would press
        # whatever the arming says.
        event.stop()
        event.prevent_default()
        screen = self.screen
        if isinstance(screen, ArmedDialog):
            screen.input_arrived(event.time)
            if screen.accepts(event.time) and not screen.answered:
                screen.answer_button(self.answer_name, event.time)


class ChoiceList(OptionList, can_focus=False):
    """A dialog's list of choices: nothing highlighted until the person moves there (no
    choice is pre-selected), never focused (the dialog owns the keys), and a click chooses
    only through the gate (:meth:`ArmedDialog.choice_clicked`, by when it happened)."""

    def __init__(self, *options: Content | Text, id: str | None = None) -> None:
        super().__init__(*options, id=id)
        # OptionList highlights its first option; here nothing is ever pre-selected.
        self.set_reactive(OptionList.highlighted, None)

    def on_resize(self, event: events.Resize) -> None:
        # Made shorter (the hint grew as the dialog armed, maybe right after End), the list
        # keeps its highlighted option in view.
        if self.highlighted is not None:
            self.scroll_to_highlight()

    async def on_click(self, event: events.Click) -> None:
        # Instead of OptionList's own handler (the dispatcher walks the MRO: prevent_default
        # stops it), which would select the option whatever the arming says.
        event.stop()
        event.prevent_default()
        index = event.style.meta.get("option")
        screen = self.screen
        if isinstance(index, int) and isinstance(screen, ArmedDialog):
            screen.input_arrived(event.time)
            if screen.accepts(event.time) and not screen.answered:
                screen.choice_clicked(index, event.time)


class OriginLine(Static):
    """The line naming the agent and session a dialog comes from."""

    DEFAULT_CSS = """
    OriginLine { height: auto; color: $text-muted; }
    """


class HintLine(Static):
    """The dialog's line of key hints: says when its height changed (it wraps to its width,
    and arming changes what it says), so the dialog shares its height again."""

    class Resized(Message):
        """The hint line's size changed."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())


def is_typing(event: events.Key) -> bool:
    """Whether ``event`` is a key that changes the prompt's text (printable, Enter, Backspace)."""
    return event.is_printable or event.key in ("enter", "backspace")


def typed_text(event: events.Key) -> str:
    """What ``event`` types into the prompt ("" for Enter, Backspace and other keys)."""
    return (event.character or "") if event.is_printable else ""


class ArmedDialog(ModalScreen[AnswerT | None], Generic[AnswerT]):
    """A modal whose answers pass the arming gate (see the module docstring)."""

    ARM_DELAY: ClassVar[float] = 0.5
    #: How long an answer key waits for a next key (see acp_tui.ui.key_burst).
    BURST_WINDOW: ClassVar[float] = BURST_WINDOW

    #: Whether an answer would be taken now (shown in the hint line; ``-unarmed`` when not).
    armed: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        *,
        origin: DialogOrigin | None = None,
        arm_delay: float | None = None,
        burst_window: float | None = None,
        forward_typing: TypingForwarder | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        #: The agent and session asking (None: the dialog does not say).
        self.origin = origin
        self.arm_delay = self.ARM_DELAY if arm_delay is None else arm_delay
        if burst_window is None:
            # A dialog without an arm delay (built by code and tests) holds no key either.
            burst_window = self.BURST_WINDOW if self.arm_delay > 0 else 0.0
        self._hold = KeyHold(burst_window)
        self._hold_timer: Timer | None = None
        #: Where typing that is not an answer goes (the prompt beneath).
        self.forward_typing = forward_typing
        self.set_reactive(ArmedDialog.armed, self.arm_delay <= 0)
        #: When the dialog was last drawn on screen (None while it is not).
        self._shown_at: float | None = None
        #: When the last key typed at the dialog that was not an answer came.
        self._typed_at = float("-inf")
        self._arm_timer: Timer | None = None
        self._answer: AnswerT | None = None
        self._settled = False
        self._answer_event = asyncio.Event()
        self._close_when_active = False

    @property
    def burst_window(self) -> float:
        return self._hold.window

    @staticmethod
    def event_now() -> float:
        """Now, on the clock of input events' times."""
        return _event_time()

    @property
    def answered(self) -> bool:
        """Whether the dialog has its answer (from the person or from code)."""
        return self._settled

    def settle(self, answer: AnswerT | None) -> None:
        """The dialog's answer (``None``: cancelled): it goes. Only the first one counts."""
        if self._settled:
            return
        self._settled = True
        self._answer = answer
        self._answer_event.set()
        self._leave()

    def close(self) -> None:
        """Close from code: cancelled, unless answered already. Safe to call more than once."""
        self.settle(None)

    async def action_dismiss(self, result: object = None) -> None:
        """Escape (``close-dialog``): cancelled, at any time (leaving is never an accident),
        through :meth:`close` so that whoever waits for the answer hears it."""
        self.close()

    def _hint_text(self) -> Any:
        raise NotImplementedError

    def answer_button(self, name: str, at: float) -> None:
        """An :class:`ArmedButton` named ``name`` was clicked, or Enter pressed on it, at
        ``at``, once armed (the dialogs that have such buttons say what each one answers)."""

    def choice_clicked(self, index: int, at: float) -> None:
        """Choice ``index`` of a :class:`ChoiceList` was clicked at ``at``, once armed."""

    def origin_line(self) -> OriginLine:
        """The widget naming the agent and session asking (empty when nobody was named)."""
        line = OriginLine(self.origin.text() if self.origin else "", id="origin")
        line.display = self.origin is not None
        return line

    async def wait_for_answer(self) -> AnswerT | None:
        """The answer (``None``: cancelled), once the person (or code) gave it."""
        await self._answer_event.wait()
        return self._answer

    def _leave(self) -> None:
        """Answered: the dialog goes now, or as soon as it is uncovered."""
        if self._arm_timer is not None:
            self._arm_timer.stop()
        self._release_held()
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
        # Covered by another screen: what the person sees is not this dialog any more, and a
        # key waiting to see whether it stood alone did not (a palette opened over it).
        self._shown_at = None
        self._release_held()
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
        armed = armed_from is not None and now >= armed_from
        if armed != self.armed:
            self.armed = armed  # watch_armed shows it
        elif not armed:
            self.refresh_hint()  # the meter, a step further (or back to empty)
        if armed_from is not None and not armed:
            # Woken at each step of the meter, and when it arms.
            step = self.arm_delay / ARMING_CELLS
            wait = min(armed_from - now, step - (now - armed_from + self.arm_delay) % step)
            self._arm_timer = self.set_timer(max(wait, 0.0) + _TIMER_SLACK, self._arm_later)

    def watch_armed(self, armed: bool) -> None:
        self.set_class(not armed, "-unarmed")
        self.refresh_hint()

    def arming_progress(self) -> float | None:
        """How far the dialog is on its way to arming, 0 to 1 (0 while not on screen); None
        once armed."""
        if self.armed:
            return None
        armed_from = self._armed_from()
        if armed_from is None or self.arm_delay <= 0:
            return 0.0
        return 1.0 - max(0.0, armed_from - _event_time()) / self.arm_delay

    def shown_hint(self) -> Any:
        """The hint line as shown: :meth:`_hint_text`, led by the arming meter until armed."""
        hint = self._hint_text()
        progress = self.arming_progress()
        if progress is None or not isinstance(hint, KeyHints) or not hint.hints:
            return hint
        first, *rest = hint.hints
        return KeyHints([f"{arming_meter(progress)} {first}", *rest], hint.separator)

    def refresh_hint(self) -> None:
        """Show :meth:`shown_hint` in the hint line (``#hint``)."""
        shown = self.shown_hint()
        for hint in self.query("#hint").results(Static):
            hint.update(shown)

    def on_hint_line_resized(self, event: HintLine.Resized) -> None:
        # The armed hint may take more rows than the unarmed one: the height is shared again
        # (else its last row was cut off under a full dialog).
        event.stop()
        self._fit()

    def _fit(self) -> None:
        """Share the dialog's height among its parts (the subclasses know them)."""

    # -- keys: typing, and answers that stand alone --

    def on_key(self, event: events.Key) -> None:
        """Every key the dialog gets: first the burst rule (a held answer key followed at once
        by this one was typing), Enter on an answer button the person moved to, then the
        dialog's own handling."""
        self.input_arrived(event.time)
        focused = self.focused
        if event.key == "enter" and isinstance(focused, ArmedButton):
            name = focused.answer_name
            self.answer_key(event, partial(self.answer_button, name, event.time), hold=False)
            return
        self.dialog_key(event)

    def on_paste(self, event: events.Paste) -> None:
        self.input_arrived(event.time)
        self.dialog_paste(event)

    def dialog_key(self, event: events.Key) -> None:
        """The dialog's keys (subclasses); a key not stopped here goes on to the bindings."""

    def dialog_paste(self, event: events.Paste) -> None:
        """A paste is typing, never an answer: it goes on to the prompt."""
        event.stop()
        self.pass_on("paste", event.text, event.time)

    def pass_on(self, key: str, text: str, at: float) -> None:
        """Typing, not an answer: it puts arming off and goes on to the prompt."""
        if not self.answered:
            self._typed_at = max(self._typed_at, at)
            self._arm_later()
        if self.forward_typing is not None:
            self.forward_typing(key, text)

    def pass_on_key(self, event: events.Key) -> None:
        """``event`` is typing (see :meth:`pass_on`); it goes no further here."""
        event.stop()
        event.prevent_default()
        self.pass_on(event.key, typed_text(event), event.time)

    def answer_key(
        self, event: events.Key, act: Callable[[], object], *, hold: bool | None = None
    ) -> None:
        """``event`` would act (answer, or change what the dialog shows). Taken only if the
        dialog was armed when it was typed; else it is typing. A key that types (a digit, a
        letter: ``hold`` defaults to whether it is printable) acts only once it stands alone:
        it waits :attr:`burst_window` for another key, and is typing if one comes. A key that
        answers what the person highlighted or focused in the dialog (Enter, Space after the
        arrows or Tab) is deliberate already: ``hold=False``, it acts at once."""
        event.stop()
        event.prevent_default()
        if self.answered or not self.accepts(event.time):
            self.pass_on(event.key, typed_text(event), event.time)
            return
        if hold is None:
            hold = event.is_printable
        if not hold or self.burst_window <= 0:
            act()
            return
        earlier = self._hold.hold(HeldKey(event.key, typed_text(event), event.time, act))
        if earlier is not None:  # cannot happen (a key arriving decides the held one): typing
            self.pass_on(earlier.key, earlier.text, earlier.at)
        self._wait_for_held()

    def input_arrived(self, at: float) -> None:
        """A key, paste or click came at ``at``: a held answer key before it is decided (one
        within the burst window was typing; one before it stood alone)."""
        held, alone = self._hold.next_input(at)
        if held is None:
            return
        self._stop_hold_timer()
        if alone:
            held.act()
        else:
            self.pass_on(held.key, held.text, held.at)

    def _wait_for_held(self) -> None:
        self._stop_hold_timer()
        deadline = self._hold.deadline()
        if deadline is not None:
            wait = max(0.0, deadline - _event_time()) + _TIMER_SLACK
            self._hold_timer = self.set_timer(wait, self._held_may_be_due)

    def _stop_hold_timer(self) -> None:
        if self._hold_timer is not None:
            self._hold_timer.stop()
            self._hold_timer = None

    def _held_may_be_due(self) -> None:
        # Keys typed before now may still be on their way here (in the app's queue, then in
        # each queue a key bubbles through): the decision waits behind them, so a key that
        # came in time makes the held one typing, however busy the loop was.
        self._hold_timer = None
        behind_input_in_flight(self, self._decide_held)

    def _decide_held(self) -> None:
        held = self._hold.due(_event_time())
        if held is not None:
            held.act()
        elif self._hold.held is not None:
            self._wait_for_held()  # woken early (a clock's rounding): wait on

    def _release_held(self) -> None:
        """The dialog went or was covered: a held key is typing (nothing typed is lost)."""
        self._stop_hold_timer()
        held = self._hold.release()
        if held is not None and self.forward_typing is not None:
            self.forward_typing(held.key, held.text)


def behind_input_in_flight(screen: ModalScreen[Any], callback: Callable[[], object]) -> None:
    """Run ``callback`` once every key and paste read so far has reached ``screen``: behind
    them in the app's queue, then in the queue of each node a key passes on its way up from
    the focused widget (Textual forwards a key to the focused widget, which bubbles it)."""
    focused = screen.focused
    hops: list[MessagePump] = [screen.app]
    if focused is not None:
        for node in focused.ancestors_with_self:
            if node is screen:
                break
            hops.append(node)
    hops.append(screen)

    def hop(index: int) -> None:
        if index == len(hops):
            callback()
            return
        if not hops[index].call_later(hop, index + 1):
            callback()  # that node is gone (closing): decide now

    hop(0)


async def present_dialog(app: App[Any], screen: ArmedDialog[AnswerT]) -> AnswerT | None:
    """Show ``screen`` and wait for its answer; when the caller is cancelled (the broker's or
    the queue's ``cancel_session``), the dialog is closed."""
    try:
        await app.push_screen(screen)
        return await screen.wait_for_answer()
    finally:
        if not screen.answered:
            screen.close()
