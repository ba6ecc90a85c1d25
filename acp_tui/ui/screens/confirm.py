"""A yes/no question, for decisions the agent cannot make for the person (run a command
outside the project, delete a session, log out, enter a mode that skips the permission
questions).

It arms like every dialog that acts (:mod:`acp_tui.ui.screens.armed`): ``y`` (alone, once
armed), a click on the confirm button, or Enter on it once the person moved there with Tab
say yes; ``n``, the other button and Escape say no, Escape at any time. Nothing is
pre-selected: an Enter meant for the prompt goes to the prompt. The dialog names the agent
and session it is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from acp_tui.ui.agent_text import agent_line, agent_lines
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedButton,
    ArmedDialog,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
)
from acp_tui.ui.widgets.detail_rows import DetailRows

YES = "yes"
NO = "no"


class ConfirmScreen(ArmedDialog[bool]):
    """Dismisses with True only on a yes; False on ``n`` or the other button; None when left
    with Escape (or closed from code). Anything but True is a no.

    ``details`` are (label, value) rows shown under the question: the label is ours, the
    value the agent's (a path, a command), already made one line
    (:func:`acp_tui.text.safety.escaped_line`), drawn in its own column
    (:class:`~acp_tui.ui.widgets.detail_rows.DetailRows`)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 76; max-width: 95%; height: auto; max-height: 95%; padding: 1 2;
        background: $panel; border: thick $warning;
    }
    ConfirmScreen #origin { margin: 0 0 1 0; }
    ConfirmScreen .title { text-style: bold; margin: 0 0 1 0; }
    ConfirmScreen #details { margin: 1 0 0 0; }
    ConfirmScreen #buttons { height: auto; margin: 1 0 0 0; align-horizontal: right; }
    ConfirmScreen ArmedButton { margin: 0 0 0 2; }
    ConfirmScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    ConfirmScreen.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "No", id="close-dialog")]
    #: Nothing has the focus (no button is pre-selected): Tab moves to the buttons.
    AUTO_FOCUS = ""

    def __init__(
        self,
        title: str,
        message: str,
        confirm_label: str = "Yes",
        cancel_label: str = "No",
        details: Sequence[tuple[str, str]] = (),
        *,
        escape_label: str = "no",
        origin: DialogOrigin | None = None,
        forward_typing: TypingForwarder | None = None,
        arm_delay: float | None = None,
        burst_window: float | None = None,
    ) -> None:
        super().__init__(
            origin=origin,
            arm_delay=arm_delay,
            burst_window=burst_window,
            forward_typing=forward_typing,
        )
        self._title = title
        self._message = message
        self._confirm_label = confirm_label
        self._cancel_label = cancel_label
        self._details = list(details)
        #: What Escape does, for the hint line.
        self._escape_label = escape_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.origin_line()
            yield Label(agent_line(self._title), classes="title")
            yield Static(agent_lines(self._message), id="message")
            if self._details:
                yield DetailRows(self._details, id="details")
            with Horizontal(id="buttons"):
                yield ArmedButton(self._cancel_label, NO, variant="default", id="no")
                yield ArmedButton(self._confirm_label, YES, variant="warning", id="yes")
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")

    def _hint_text(self) -> KeyHints:
        escape = f"Esc {self._escape_label}"
        if not self.armed:
            return KeyHints(["Keys arm in a moment; typing goes to the prompt", escape])
        return KeyHints(
            [f"y {self._confirm_label}", f"n {self._cancel_label}", "Tab buttons", escape]
        )

    def dialog_key(self, event: events.Key) -> None:
        key = event.key
        if key in ("y", "n"):
            self.answer_key(event, partial(self.answer_button, YES if key == "y" else NO, 0.0))
        elif is_typing(event):
            self.pass_on_key(event)

    def answer_button(self, name: str, at: float) -> None:
        # Only reached through the gate (answer_key, ArmedButton): the answer stands.
        self.settle(name == YES)
