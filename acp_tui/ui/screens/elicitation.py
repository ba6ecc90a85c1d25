"""The elicitation dialog: a form built from the agent's schema, or a page to visit.

``ElicitationScreen(pending, ...)`` shows one :class:`~acp_tui.session.asking.elicitation_queue.PendingElicitation`.
A *form* has one field per property (text, number, yes/no, a choice, several choices), its
defaults filled in and required fields marked ``*``; Submit checks every field first
(:func:`acp_tui.session.asking.elicitation.build_content`) and says at each field what does not fit. Submit
answers ``accept``, Decline ``decline``, Escape ``cancel``. A *url* request shows the address
as text, its host apart; it is opened in a browser only when the person presses Open (which
answers ``accept``), or copied; the dialog then waits for ``elicitation/complete`` and closes.

No answer comes by accident, by the gate the permission dialog uses too
(:mod:`acp_tui.ui.screens.armed`): the dialog *arms* :attr:`ElicitationScreen.ARM_DELAY`
seconds after it is drawn and after the last key typed at it before that; until then nothing
in it has the focus and typing goes on to the prompt beneath (``forward_typing``). Every
answer but Escape goes through one gate, :meth:`ElicitationScreen._person_answers`, which
takes it only if the key or click happened after the dialog armed (by the input event's own
time); a page's letter keys (``o``, ``i``, ``c``, ``d``) act only when they stand alone, and
Enter only on a button the person moved to (nothing is pre-selected). The dialog names the
agent and session asking.

Everything the agent sent (message, titles, descriptions, choices, the URL) is shown literally
through :mod:`acp_tui.ui.agent_text`; widget ids are the dialog's own, never the agent's names.
"""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from acp_tui.session.asking.elicitation import (
    ACCEPT,
    BOOLEAN,
    CANCEL,
    CHOICE,
    DECLINE,
    MULTI,
    UNSUPPORTED,
    URL,
    FormField,
    answer,
    build_content,
    initial_values,
)
from acp_tui.session.asking.elicitation_queue import PendingElicitation
from acp_tui.text.safety import escaped_line
from acp_tui.text.url_host import SiteHost
from acp_tui.ui.agent_text import agent_line, agent_lines
from acp_tui.ui.keymap import key_label
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedButton,
    ArmedDialog,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
    present_dialog,
)
from acp_tui.ui.widgets.detail_rows import DetailRows
from acp_tui.ui.widgets.safe_input import SafeInput

MESSAGE_LIMIT = 4_000
DESCRIPTION_LIMIT = 2_000
URL_LIMIT = 8_000

SUBMIT = "submit"
OPEN = "open"
CONTINUE = "continue"
#: The letters that answer a page to visit (each only when it stands alone).
URL_KEYS = {"o": OPEN, "i": CONTINUE, "d": DECLINE}


def site_text(site: SiteHost | None) -> Text:
    """The host a browser would go to, in bold, with what the person should know of it: its
    Unicode spelling (one script per label), the scripts it mixes, or why it would not open."""
    if site is None or not site.host:
        return Text("(no host)", style="italic")
    text = Text(escaped_line(site.host, 300), style="bold")
    if site.mixed_scripts:
        scripts = " and ".join(escaped_line(s, 20) for s in site.mixed_scripts)
        text.append(f"  (a name that mixes {scripts} letters)", style="not bold")
    elif site.unicode:
        text.append(f"  (written {escaped_line(site.unicode, 300)})", style="not bold")
    if site.problem:
        text.append(f"  ({site.problem}: a browser would not open it)", style="not bold")
    return text


class _Body(VerticalScroll, can_focus=False):
    """The message and the fields, scrolled with the mouse wheel or by moving the focus."""


class ElicitationScreen(ArmedDialog[dict[str, Any]]):
    """A modal asking the person one elicitation."""

    CSS_PATH = "elicitation.tcss"
    #: Nothing has the focus until the dialog arms: keys typed before go to the prompt.
    AUTO_FOCUS = ""
    #: Tab moves between the fields as the app reads it (a priority binding), not once it
    #: bubbled up unused from the field: by then the keys typed right after it ("Ada", Tab,
    #: "bob", typed fast) were already handed to the field it left.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "tab", "next_field(1)", "Next field", show=False, priority=True, id="form-next-field"
        ),
        Binding(
            "shift+tab",
            "next_field(-1)",
            "Previous field",
            show=False,
            priority=True,
            id="form-previous-field",
        ),
    ]

    #: A url request the person agreed to: waiting for ``elicitation/complete``.
    waiting: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        pending: PendingElicitation,
        *,
        origin: DialogOrigin | None = None,
        position: int = 1,
        total: int = 1,
        arm_delay: float | None = None,
        burst_window: float | None = None,
        forward_typing: TypingForwarder | None = None,
        open_url: Callable[[str], Any] | None = None,
        cancel_turn: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(
            origin=origin,
            arm_delay=arm_delay,
            burst_window=burst_window,
            forward_typing=forward_typing,
        )
        self.pending = pending
        self.request = pending.request
        self.position = position
        self.total = total
        self.open_url = open_url or webbrowser.open
        #: Escape's: cancel the turn the question is part of, and all its questions (this
        #: one too: the dialog closes when the queue answers it). None: this question only.
        self.cancel_turn = cancel_turn
        self._fields: list[FormField] = list(self.request.fields)
        self._watch_task: asyncio.Task[None] | None = None
        self._leaving = False

    # -- layout --

    def compose(self) -> ComposeResult:
        url_mode = self.request.mode == URL
        dialog = Vertical(id="dialog")
        dialog.border_title = "The agent asks you to visit a page" if url_mode else "The agent asks"
        dialog.border_subtitle = self._position_text()
        with dialog:
            yield self.origin_line()
            with _Body(id="body"):
                if self.request.message:
                    yield Static(agent_lines(self.request.message, MESSAGE_LIMIT), id="message")
                if url_mode:
                    yield from self._compose_url()
                else:
                    yield from self._compose_form()
            with Horizontal(id="buttons"):
                if url_mode:
                    if self.request.openable:
                        yield ArmedButton("Open in browser", OPEN, variant="primary")
                    yield ArmedButton("I'll open it myself", CONTINUE)
                    yield Button("Copy address", id="copy", compact=True)
                    yield ArmedButton("Decline", DECLINE)
                    yield Button("Close", id="close", classes="waiting-only", compact=True)
                else:
                    yield ArmedButton("Submit", SUBMIT, variant="primary")
                    yield ArmedButton("Decline", DECLINE)
            yield Static(id="problems")
            yield HintLine(self._hint_text(), id="hint")

    def _compose_url(self) -> ComposeResult:
        # The site as a browser resolves it, and the address on one line with its control
        # characters visible, each in the value column: a line break in the URL cannot draw
        # a "Site: … (verified)" line of its own.
        yield DetailRows(
            [
                ("Site", site_text(self.request.site)),
                ("Address", escaped_line(self.request.url or "", URL_LIMIT)),
            ],
            value_ids={"Site": "host", "Address": "url"},
            id="page",
        )
        if not self.request.openable:
            scheme = self.request.url_scheme or "no"
            yield Static(
                Text(
                    f"acp-tui opens only http and https addresses in a browser; this one has "
                    f"{'the scheme ' + repr(scheme) if scheme != 'no' else 'no scheme'}. "
                    "Copy it if you trust it."
                ),
                classes="note",
            )
        yield Static(
            Text("Waiting for the agent to hear back from the page… Esc closes this."),
            id="waiting",
        )

    def _compose_form(self) -> ComposeResult:
        if self.request.title:
            yield Static(agent_line(self.request.title, 300), id="form-title")
        if self.request.description:
            yield Static(agent_lines(self.request.description, DESCRIPTION_LIMIT), classes="note")
        values = initial_values(self._fields)
        for index, form_field in enumerate(self._fields):
            with Vertical(classes="field", id=f"field-{index}"):
                if form_field.kind != BOOLEAN:
                    yield Static(agent_line(form_field.label, 300), classes="label")
                if form_field.description:
                    yield Static(
                        agent_lines(form_field.description, DESCRIPTION_LIMIT),
                        classes="description",
                    )
                yield self._input_for(index, form_field, values.get(form_field.name))
                hint = form_field.hint()
                if hint:
                    yield Static(agent_line(hint, 300), classes="hint")
                yield Static(classes="error")
        if not self._fields:
            yield Static(Text("The form has no fields: Submit answers with nothing."))

    def _input_for(self, index: int, form_field: FormField, value: Any) -> Widget:
        widget_id = f"input-{index}"
        if form_field.kind == BOOLEAN:
            return Checkbox(
                agent_line(form_field.label, 300), bool(value), id=widget_id, compact=True
            )
        if form_field.kind == CHOICE:
            return Select(
                [(agent_line(c.title, 200), c.value) for c in form_field.choices],
                prompt="Choose…",
                allow_blank=not form_field.required or value is None,
                value=value if isinstance(value, str) else Select.NULL,
                id=widget_id,
                compact=True,
            )
        if form_field.kind == MULTI:
            chosen = set(value or [])
            return SelectionList[str](
                *(
                    (agent_line(c.title, 200), c.value, c.value in chosen)
                    for c in form_field.choices
                ),
                id=widget_id,
                compact=True,
            )
        if form_field.kind == UNSUPPORTED:
            what = form_field.type_name or "unknown"
            note = f"acp-tui cannot ask for a value of type {what!r}"
            note += ": decline the form instead." if form_field.required else "; it is left out."
            return Static(Text(note), classes="note", id=widget_id)
        return SafeInput(value=value if isinstance(value, str) else "", id=widget_id, compact=True)

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return KeyHints(
                ["Keys arm in a moment; typing goes to the prompt", self._escape_hint()]
            )
        if self.request.mode == URL:
            if self.waiting:
                return KeyHints(["c copy the address", "Esc close"])
            keys = ["o open"] if self.request.openable else []
            keys += ["i I'll open it myself", "c copy", "d decline", self._escape_hint()]
            return KeyHints(keys)
        return KeyHints(
            [
                f"{key_label(self, 'form-next-field')} next field",
                "Ctrl+S submit",
                self._escape_hint(),
            ]
        )

    def _escape_hint(self) -> str:
        return "Esc cancel" if self.cancel_turn is None else "Esc cancel the turn"

    def _position_text(self) -> str:
        return f"{self.position} of {self.total}" if self.total > 1 else ""

    def set_position(self, position: int, total: int) -> None:
        self.position, self.total = position, total
        for dialog in self.query("#dialog"):
            dialog.border_subtitle = self._position_text()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The fields scroll; the message on top and the buttons and keys below stay."""
        if not self.is_mounted:
            return
        dialog = self.query_one("#dialog")
        body = self.query_one("#body")
        fixed = sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in dialog.children
            if child is not body and child.display
        )
        body.styles.max_height = max(3, self.size.height - dialog.styles.gutter.height - fixed)

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)
        self.set_class(not self.armed, "-unarmed")
        self.set_class(self.request.mode == URL, "-url")
        self._watch_task = asyncio.create_task(self._close_when_finished())

    async def _close_when_finished(self) -> None:
        """The request was completed or cancelled elsewhere: the dialog goes."""
        await self.pending.finished.wait()
        self.close()

    # -- arming (the gate is ArmedDialog's) --

    def _mark_shown(self) -> None:
        super()._mark_shown()
        if self.is_active and self.armed:
            self._focus_first()

    def _focus_first(self) -> None:
        """Once armed, the first field takes the keys (unless the person chose one)."""
        if self.focused is not None or self.request.mode == URL:
            return
        fields = self.query(".field Input, .field Checkbox, .field Select, .field SelectionList")
        if fields:
            fields.first().focus()

    def watch_armed(self, armed: bool) -> None:
        super().watch_armed(armed)
        if armed:
            self._focus_first()

    def watch_waiting(self, waiting: bool) -> None:
        self.set_class(waiting, "-waiting")
        self.call_after_refresh(self._fit)
        self.refresh_hint()

    # -- keys --

    def dialog_key(self, event: events.Key) -> None:
        key = event.key
        focused = self.focused
        if key == "escape":
            if focused is not None and any(
                isinstance(node, Select) and node.expanded for node in focused.ancestors_with_self
            ):
                return  # the open list of choices closes itself
            self._stop(event)
            self.action_dismiss_dialog()
            return
        if not self.armed and not isinstance(focused, Input):
            if is_typing(event):
                self.pass_on_key(event)
            return
        if self.waiting:
            if key == "c":
                self.answer_key(event, self.action_copy)
            return
        if self.request.mode == URL:
            self._url_key(event, focused)
            return
        if key == "ctrl+s":
            self.answer_key(event, partial(self._person_answers, SUBMIT, event.time))
        elif key == "enter" and isinstance(focused, Input):
            self._stop(event)
            self.focus_next()
        elif event.is_printable and (focused is None or isinstance(focused, Button)):
            self.pass_on_key(event)  # nothing here takes text: it was meant for the prompt

    def _url_key(self, event: events.Key, focused: Widget | None) -> None:
        """The keys of a page to visit: each letter stands alone (a message typed at the
        dialog is a message); Enter presses the button the person moved to, else it types."""
        key = event.key
        if key == "c":
            self.answer_key(event, self.action_copy)
        elif key in URL_KEYS:
            self.answer_key(event, partial(self._person_answers, URL_KEYS[key], event.time))
        elif key == "enter" and isinstance(focused, Button):
            return  # the button's own Enter (copy, close)
        elif is_typing(event):
            self.pass_on_key(event)

    def action_next_field(self, step: int) -> None:
        """Tab / Shift+Tab. Before the dialog arms, nothing unless a field has the focus
        (typing goes on to the prompt then, and Tab with it would be lost either way)."""
        # A priority key: it never reaches on_key, yet it ends a held key's burst window.
        self.input_arrived(self.event_now())
        focused = self.focused
        if not self.armed and not isinstance(focused, Input):
            return
        if step > 0:
            self.focus_next()
        else:
            self.focus_previous()

    def dialog_paste(self, event: events.Paste) -> None:
        if self.focused is None:
            super().dialog_paste(event)

    @staticmethod
    def _stop(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "copy":
            self.action_copy()
        elif event.button.id == "close":
            self.action_dismiss_dialog()

    # -- actions --

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.request.url or "")
        self.notify("Copied the address (if your terminal lets acp-tui use the clipboard)")

    def action_dismiss_dialog(self) -> None:
        """Escape: a form or a url request not yet answered is cancelled, with the turn it is
        part of and every other question of it (:attr:`cancel_turn`); a url request being
        waited for is only closed (its answer was given)."""
        if (
            self._answer is None
            and self.cancel_turn is not None
            and not self.pending.finished.is_set()
        ):
            self.cancel_turn()
            return
        if self._answer is None:
            self._give(answer(CANCEL))
        self.close()

    def answer_button(self, name: str, at: float) -> None:
        self._person_answers(name, at)

    def _person_answers(self, name: str, at: float) -> bool:
        """The one way the person's input answers: taken only when the dialog was armed at
        ``at``, the time of the key or click."""
        if self._answer is not None or not self.accepts(at):
            return False
        if name == DECLINE:
            self._give(answer(DECLINE))
            self.close()
        elif name == SUBMIT:
            self.submit()
        elif name in (OPEN, CONTINUE):
            if name == OPEN:
                if not self.request.openable:
                    return False
                self._open()
            self._give(answer(ACCEPT))
            self.waiting = True
        return True

    def _open(self) -> None:
        try:
            self.open_url(self.request.url or "")
        except Exception as error:  # no browser here: the address is still on screen to copy
            self.notify(f"Could not open a browser: {error}", severity="warning")

    def entered(self) -> dict[str, Any]:
        """What each field holds now, by property name."""
        values: dict[str, Any] = {}
        for index, form_field in enumerate(self._fields):
            widget = self.query_one(f"#input-{index}")
            if isinstance(widget, Input):
                values[form_field.name] = widget.value
            elif isinstance(widget, Checkbox):
                values[form_field.name] = widget.value
            elif isinstance(widget, Select):
                value = widget.value
                values[form_field.name] = value if isinstance(value, str) else None
            elif isinstance(widget, SelectionList):
                values[form_field.name] = list(widget.selected)
        return values

    def submit(self) -> bool:
        """Check every field; answer ``accept`` when all fit, else show what does not."""
        content, problems = build_content(self._fields, self.entered())
        first: int | None = None
        for index, form_field in enumerate(self._fields):
            box = self.query_one(f"#field-{index}")
            problem = problems.get(form_field.name)
            box.set_class(problem is not None, "-invalid")
            box.query_one(".error", Static).update(Text(f"✗ {problem}" if problem else ""))
            if problem is not None and first is None:
                first = index
        summary = self.query_one("#problems", Static)
        if problems:
            count = len(problems)
            summary.update(
                Text(f"{count} field{'s' if count > 1 else ''} to fix before submitting")
            )
            if first is not None:
                target = self.query_one(f"#input-{first}")
                if target.focusable:
                    target.focus()
                self.query_one(f"#field-{first}").scroll_visible(animate=False)
            return False
        summary.update("")
        self._give(answer(ACCEPT, content))
        self.close()
        return True

    # -- answering and closing --

    def _give(self, result: dict[str, Any]) -> None:
        if self._answer is not None:
            return
        self._answer = result
        self._answer_event.set()

    @property
    def answered(self) -> bool:
        return self._answer is not None

    def close(self) -> None:
        """Close from code or by the person; an unanswered request counts as ``cancel``.
        Safe to call more than once."""
        if self._answer is None:
            self._give(answer(CANCEL))
        if self._leaving:
            return
        self._leaving = True
        if self._watch_task is not None and self._watch_task is not asyncio.current_task():
            self._watch_task.cancel()
        self.pending.mark_closed()
        self._leave()

    def on_unmount(self) -> None:
        if self._watch_task is not None:
            self._watch_task.cancel()


async def present_elicitation(
    app: App[Any],
    pending: PendingElicitation,
    position: int,
    total: int,
    *,
    origin: DialogOrigin | None = None,
    forward_typing: TypingForwarder | None = None,
    cancel_turn: Callable[[], object] | None = None,
) -> dict[str, Any] | None:
    """Show ``pending`` and wait for the answer; when the caller is cancelled (the queue's
    ``cancel_session``), the dialog closes. The body of an elicitation presenter."""
    screen = ElicitationScreen(
        pending,
        origin=origin,
        position=position,
        total=total,
        forward_typing=forward_typing,
        cancel_turn=cancel_turn,
    )
    return await present_dialog(app, screen)
