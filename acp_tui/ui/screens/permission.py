"""The permission dialog: what the agent is about to do, and the agent's options.

``PermissionScreen(params, tool_call=..., origin=..., position=k, total=n)`` is built from
the ``session/request_permission`` params plus the store's entry for the tool call, when it has
one (the request's own ``toolCall`` fields are laid over it by the store: see
:meth:`acp_tui.store.ToolCall.with_fields`); what it shows comes from the entry's typed views.
It dismisses with the chosen ``optionId``, or ``None`` for "cancelled".

No key approves by accident (the gate is :class:`acp_tui.ui.screens.armed.ArmedDialog`, shared with
the elicitation form). The dialog *arms* :attr:`PermissionScreen.ARM_DELAY` seconds after
it is drawn, and again that long after the last key typed at it that was not an answer (someone
still typing is not answering). Every answer the person gives (an option's number key 1-9, Enter
or Space on the option highlighted with the arrows, a click) goes through one gate,
:meth:`PermissionScreen._person_answers`, which takes it only if the key or click *happened*
after the dialog armed (by the input event's own time: a key typed before the dialog was drawn
but read after never counts), and a key only once it stands alone (another key within
:attr:`PermissionScreen.BURST_WINDOW` makes it the start of typing: "1 more thing" is a
message, not option 1). Until then, every key that types something is typing: it goes to
``forward_typing`` (the prompt beneath), so nothing typed is lost. A dialog that replaces another
or is uncovered again arms afresh, and the hint line shows when it is armed. No option is ever
pre-selected, and the dialog names the agent and session asking. Escape answers ``reject_once`` when offered, else ``None``, at any time: a "no" is
never an accident. :meth:`PermissionScreen.close` closes it from code (the broker cancelled the
request). :func:`present_permission` is a ready-made presenter body for
:class:`acp_tui.session.asking.permissions.PermissionBroker`.

With a :class:`RuleOffer`, two rows follow the agent's options: "Always allow this for this
project…" and "Always deny…" (keys ``a`` and ``d``), which open the rule editor pre-filled for
this request. They pass the same gate as the options; the dialog stays open under the editor
and closes when the saved rule answers the request (the broker answers it).

The options are an :class:`~textual.widgets.OptionList`, which renders only the rows on screen:
a request with thousands of options opens at once, and the title and key hints stay on screen.

Everything the agent sent is shown literally, through :mod:`acp_tui.ui.agent_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.actions import parse as parse_action
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Label, Static

from acp_tui.session.asking.permissions import (
    REJECT_ONCE,
    PendingPermission,
    PermissionChoice,
)
from acp_tui.session.asking.rules import Decision
from acp_tui.store.entries import ToolCall
from acp_tui.text.titles import plain_title
from acp_tui.ui.agent_text import agent_line, line_of
from acp_tui.ui.keymap import key_label
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedDialog,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
    present_dialog,
)
from acp_tui.ui.screens.permission_view import (
    KIND_CELLS,
    KIND_ICONS,
    TITLE_LIMIT,
    DetailsBody,
    PermissionOptions,
    option_prompt,
    raw_json,
    tool_call_details,
)
from acp_tui.ui.textual_patches import access

_NUMBER_KEYS = frozenset(str(n) for n in range(1, 10))
#: The actions of the dialog's own keys (see PermissionScreen.BINDINGS).
_OWN_ACTIONS = frozenset(
    {"reject", "move", "move_to", "scroll_body", "choose", "toggle_raw", "always"}
)
#: The rows the dialog adds after the agent's options, with an offer of rules.
_RULE_ROWS: tuple[tuple[Decision, str, str], ...] = (
    ("allow", "✓ rule", "Always allow this for this project…"),
    ("deny", "✗ rule", "Always deny…"),
)


@dataclass(frozen=True, slots=True)
class RuleOffer:
    """What the dialog offers besides the agent's options: a permission rule made from this
    request (``make`` opens the editor on one that allows or denies it), and why a rule sent
    the request here, if one did."""

    make: Callable[[Decision], object]
    note: str | None = None


def _parse_action(action: str) -> tuple[str, tuple[Any, ...]]:
    _namespace, name, arguments = parse_action(action)
    return name, arguments


class PermissionScreen(ArmedDialog[str]):
    """A modal asking the person to answer one permission request."""

    CSS_PATH = "permission.tcss"

    #: The dialog's own keys (configurable by id), all handled in :meth:`on_key` with the
    #: answers, so that keys are taken in the order they were typed ("down" then "enter" never
    #: answers the option above). Textual never runs them itself (see :meth:`check_action`).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "reject", "Reject", id="permission-reject"),
        Binding("up", "move(-1)", "Up", show=False, id="permission-up"),
        Binding("down", "move(1)", "Down", show=False, id="permission-down"),
        Binding("home", "move_to(0)", "First", show=False, id="permission-first"),
        Binding("end", "move_to(-1)", "Last", show=False, id="permission-last"),
        Binding("pageup", "scroll_body(-1)", "Scroll up", show=False, id="permission-scroll-up"),
        Binding(
            "pagedown", "scroll_body(1)", "Scroll down", show=False, id="permission-scroll-down"
        ),
        Binding("enter,space", "choose", "Choose the highlighted option", id="permission-choose"),
        Binding("r", "toggle_raw", "Show or hide the raw input", id="permission-raw"),
        Binding("a", "always('allow')", "Always allow…", id="permission-always-allow"),
        Binding("d", "always('deny')", "Always deny…", id="permission-always-deny"),
    ]
    #: Actions that answer or change what is shown: taken only once the dialog is armed.
    GATED_ACTIONS: ClassVar[frozenset[str]] = frozenset({"choose", "toggle_raw", "always"})

    highlighted: reactive[int | None] = reactive(None, init=False)
    show_raw: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        params: Mapping[str, Any],
        *,
        tool_call: ToolCall | None = None,
        origin: DialogOrigin | None = None,
        position: int = 1,
        total: int = 1,
        offer: RuleOffer | None = None,
        arm_delay: float | None = None,
        burst_window: float | None = None,
        forward_typing: TypingForwarder | None = None,
        project: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            origin=origin,
            arm_delay=arm_delay,
            burst_window=burst_window,
            forward_typing=forward_typing,
            name=name,
            id=id,
            classes=classes,
        )
        self.request = PendingPermission.from_params(params)
        #: The tool call as the client knows it, with the request's own fields over it.
        self.tool_call = (
            tool_call.with_fields(self.request.tool_call)
            if tool_call is not None
            else ToolCall.from_fields(self.request.tool_call)
        )
        self.options: list[PermissionChoice] = self.request.options
        #: A permission rule made from this request, offered after the agent's options.
        self.offer = offer if self.options else None
        #: The rows after the agent's options (each opens the rule editor).
        self.rule_rows: tuple[tuple[Decision, str, str], ...] = _RULE_ROWS if self.offer else ()
        #: The session's folder: paths inside it are shown relative to it.
        self.project = project
        self.position = position
        self.total = total
        self._answered = False

    # -- what the request is about --

    @property
    def title_text(self) -> str:
        label = self.tool_call.label
        return line_of(plain_title(label), TITLE_LIMIT) if label else "Tool call"

    @property
    def kind(self) -> str:
        return self.tool_call.tool_kind or "other"

    @property
    def raw_input(self) -> Any:
        return self.tool_call.raw_input

    @property
    def has_raw_input(self) -> bool:
        return self.raw_input is not None

    # -- layout --

    def compose(self) -> ComposeResult:
        icon, word = KIND_ICONS.get(self.kind, ("•", line_of(self.kind, 20)))
        dialog = Vertical(id="dialog")
        dialog.border_title = "Permission requested"
        dialog.border_subtitle = self._position_text()
        with dialog:
            yield self.origin_line()
            with Horizontal(id="header"):
                # A CSS class only for the kinds this client knows: the agent's own kind is
                # text, and as a class name it would be code (and an invalid one kills the app).
                kind_class = f"kind-{self.kind}" if self.kind in KIND_ICONS else "kind-other"
                yield Label(Text(f"{icon} {word}"), id="kind", classes=kind_class)
                yield Static(Text(self.title_text, overflow="fold"), id="title")
            if self.offer is not None and self.offer.note:
                yield Static(agent_line(self.offer.note, 300), id="rule-note")
            with DetailsBody(id="body"):
                yield from self._compose_details()
            if self.options:
                yield PermissionOptions(
                    *(option_prompt(i, choice) for i, choice in enumerate(self.options)),
                    *(self._rule_prompt(i) for i in range(len(self.rule_rows))),
                    id="options",
                )
            else:
                yield Static(
                    Text(f"The agent offered no usable options: {self._key('reject')} cancels."),
                    id="no-options",
                )
            yield HintLine(self._hint_text(), id="hint")

    def _compose_details(self) -> ComposeResult:
        yield from tool_call_details(self.tool_call, self.project)
        if self.has_raw_input:
            yield Static(self._raw_toggle_text(), id="raw-toggle", classes="section muted")
            yield Static(self._raw_json(), id="raw-input", classes="section")

    def _raw_json(self) -> Text:
        return raw_json(self.raw_input)

    def _raw_toggle_text(self) -> Text:
        arrow = "▾" if self.show_raw else "▸"
        action = "hide" if self.show_raw else "show"
        return Text(f"{arrow} Raw input ({self._key('raw')} to {action})")

    def _key(self, name: str) -> str:
        """The key of one of the dialog's actions, as the hints spell it."""
        return key_label(self, f"permission-{name}")

    def _rule_prompt(self, index: int) -> Content:
        """A row offering a rule: its key, what it is, in the options' columns."""
        decision, mark, text = self.rule_rows[index]
        key = line_of(self._key(f"always-{decision}"), 3)
        number = f" {key}  " if len(key) == 1 else "    "
        kind = f" {mark}"
        kind += " " * max(1, KIND_CELLS - cell_len(kind))
        style = "$text-success" if decision == "allow" else "$text-error"
        return Content.assemble((number, "bold $text-accent"), (kind, style), " ", text)

    @property
    def row_count(self) -> int:
        """The rows of the list: the agent's options, then the rule rows."""
        return len(self.options) + len(self.rule_rows)

    def _hint_text(self) -> KeyHints:
        reject = f"{self._key('reject')} reject"
        if not self.armed:
            return KeyHints(["Keys arm in a moment; typing goes to the prompt", reject])
        count = min(len(self.options), 9)
        keys = f"1-{count}" if count > 1 else "1"
        move = f"{self._key('up')}{self._key('down')}"
        choose = self._key("choose")
        parts = [f"{keys} choose", f"{move} + {choose}", reject]
        if len(self.options) > 9:
            first, last = self._key("first"), self._key("last")
            parts[1] = f"{move} {first} {last} + {choose} ({len(self.options):,} options)"
        if self.offer is not None:
            allow, deny = self._key("always-allow"), self._key("always-deny")
            parts.append(f"{allow}/{deny} always allow/deny… (a rule)")
        if self.has_raw_input:
            parts.append(f"{self._key('raw')} raw input")
        parts.append(f"{self._key('scroll-up')}/{self._key('scroll-down')} scroll")
        return KeyHints(parts)

    def _position_text(self) -> str:
        return f"{self.position} of {self.total}" if self.total > 1 else ""

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")
        # The count may have changed between compose and mount (a request queued meanwhile).
        self._show_position()
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Share the height between the details and the options so that the header, the hint
        and some of each always stay on screen."""
        bodies = self.query(DetailsBody)
        if not self.is_mounted or not bodies:
            return  # closed before its first layout (cancelled as it opened)
        dialog = self.query_one("#dialog")
        body = bodies.first()
        options = self.query(PermissionOptions).first() if self.options else None
        fixed = 0
        for child in dialog.children:
            if child is body or child is options or not child.display:
                continue
            margin = child.styles.margin
            fixed += child.outer_size.height + margin.top + margin.bottom
        available = max(6, self.size.height - dialog.styles.gutter.height - fixed)
        if options is None:
            body.styles.max_height = available
            return
        wanted = max(1, options.option_count)
        if options.virtual_size.height:
            wanted = options.virtual_size.height
        details = body.virtual_size.height
        gutter = options.styles.gutter.height
        rows = min(wanted, max(3, available - gutter - min(details, available // 2)))
        options_height = rows + gutter
        options.styles.max_height = options_height
        body.styles.max_height = max(3, available - options_height)

    # -- keys --

    def key_actions(self) -> dict[str, Binding]:
        """The dialog's keys as configured (the app's keymap over :attr:`BINDINGS`)."""
        bindings = access.configured_bindings(self)
        return {key: found[0] for key, found in bindings.key_to_bindings.items() if found}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The dialog's keys go through on_key (ordered, and gated): never as bindings.
        return action not in _OWN_ACTIONS

    def dialog_key(self, event: events.Key) -> None:
        """Every key comes here: the dialog's own keys; an answer, if the dialog is armed, the
        key is one and it stands alone; else typing, for the prompt (never lost). Other keys
        (shortcuts) go on to the bindings."""
        key = event.key
        types = is_typing(event)
        binding = self.key_actions().get(key)
        name, arguments = _parse_action(binding.action) if binding is not None else ("", ())
        if name in _OWN_ACTIONS:
            action = partial(getattr(self, f"_do_{name}"), *arguments, at=event.time)
            if name not in self.GATED_ACTIONS:
                if not types:
                    # Escape (and any key that types nothing) rejects, moves and scrolls at once.
                    event.stop()
                    event.prevent_default()
                    action()
                else:
                    # A letter configured for it is typing until armed, then stands alone.
                    self.answer_key(event, action)
                return
            if self._gated_action_applies(name):
                # Enter or Space on the option highlighted with the arrows: deliberate.
                self.answer_key(event, action, hold=name != "choose")
                return
        if not types:
            return
        if key in _NUMBER_KEYS and int(key) <= len(self.options):
            self.answer_key(event, partial(self._person_answers, int(key) - 1, event.time))
            return
        self.pass_on_key(event)

    def _gated_action_applies(self, name: str) -> bool:
        """Whether a gated action would do something now (else its key is typing: Enter with
        nothing highlighted, ``r`` without a raw input)."""
        if name == "choose":
            return self.highlighted is not None
        if name == "toggle_raw":
            return self.has_raw_input
        if name == "always":
            return self.offer is not None
        return True

    def _do_reject(self, *, at: float) -> None:
        self.action_reject()

    def _do_move(self, delta: int, *, at: float) -> None:
        self.action_move(delta)

    def _do_move_to(self, index: int, *, at: float) -> None:
        self.action_move_to(index)

    def _do_scroll_body(self, direction: int, *, at: float) -> None:
        self.action_scroll_body(direction)

    def _do_choose(self, *, at: float) -> None:
        if self.highlighted is not None:
            self._person_answers(self.highlighted, at)

    def _do_toggle_raw(self, *, at: float) -> None:
        self.action_toggle_raw()

    def _do_always(self, decision: Decision, *, at: float) -> None:
        self._make_rule(decision, at)

    def _make_rule(self, decision: Decision, at: float) -> None:
        """Open the rule editor over the dialog (taken only once armed, like an answer);
        the dialog stays until the rule, once saved, answers the request."""
        if self._answered or self.offer is None or not self.accepts(at):
            return
        self.offer.make(decision)

    # -- reactive state --

    def watch_highlighted(self, value: int | None) -> None:
        for options in self.query(PermissionOptions):
            options.highlighted = value

    def watch_show_raw(self, value: bool) -> None:
        for raw in self.query("#raw-input"):
            raw.display = value
        for toggle in self.query("#raw-toggle").results(Static):
            toggle.update(self._raw_toggle_text())

    def set_position(self, position: int, total: int) -> None:
        """Update the "k of n" count (another request was queued or cancelled)."""
        self.position, self.total = position, total
        self._show_position()

    def _show_position(self) -> None:
        # Before compose (or after the dialog closed) there is no frame to write on; compose
        # and on_mount read the count themselves.
        for dialog in self.query("#dialog"):
            dialog.border_subtitle = self._position_text()

    # -- actions --

    def action_move(self, delta: int) -> None:
        rows = self.row_count
        if not rows:
            return
        if self.highlighted is None:
            self.highlighted = 0 if delta > 0 else rows - 1
        else:
            self.highlighted = max(0, min(rows - 1, self.highlighted + delta))

    def action_move_to(self, index: int) -> None:
        # Home and End go to the agent's first and last option; the rule rows after them
        # are reached with the arrows or their own keys (End then Enter answers the agent).
        count = len(self.options) or self.row_count
        if count:
            self.highlighted = index % count

    def action_reject(self) -> None:
        # Escape is always taken: saying no is never an accident.
        choice = self.request.first_of(REJECT_ONCE)
        self._answer_with(choice.option_id if choice is not None else None)

    def action_toggle_raw(self) -> None:
        if self.has_raw_input:
            self.show_raw = not self.show_raw

    def action_scroll_body(self, direction: int) -> None:
        body = self.query_one(DetailsBody)
        if direction < 0:
            body.scroll_page_up(animate=False)
        else:
            body.scroll_page_down(animate=False)

    # -- answering and closing --

    def choice_clicked(self, index: int, at: float) -> None:
        self._person_answers(index, at)

    def _person_answers(self, index: int, at: float) -> bool:
        """The one way the person's input answers: taken only when the dialog was armed at
        ``at``, the time of the key or click. A rule row opens the rule editor instead."""
        rule_index = index - len(self.options)
        if 0 <= rule_index < len(self.rule_rows):
            self._make_rule(self.rule_rows[rule_index][0], at)
            return False
        if self._answered or not self.accepts(at) or not 0 <= index < len(self.options):
            return False
        self._answer_with(self.options[index].option_id)
        return True

    @property
    def answered(self) -> bool:
        return self._answered

    def _answer_with(self, option_id: str | None) -> None:
        if self._answered:
            return
        self._answered = True
        self._answer = option_id
        self._answer_event.set()
        self._leave()

    def close(self, option_id: str | None = None) -> None:
        """Close from code (the request was cancelled elsewhere); dismisses with ``option_id``
        (``None``: cancelled). Safe to call more than once, and when another screen is on top
        (the dialog then closes as soon as it is uncovered)."""
        self._answer_with(option_id)


async def present_permission(
    app: App[Any],
    pending: PendingPermission,
    position: int,
    total: int,
    *,
    tool_call: ToolCall | None = None,
    origin: DialogOrigin | None = None,
    offer: RuleOffer | None = None,
    forward_typing: TypingForwarder | None = None,
    project: str | None = None,
) -> str | None:
    """Show ``pending`` in a :class:`PermissionScreen` and wait for the answer; when the caller
    is cancelled (the broker's ``cancel_session``), the dialog is closed. Use it as the body of a
    broker presenter::

        async def present(pending, position, total):
            return await present_permission(app, pending, position, total,
                                            tool_call=state.tool_index.get(pending.tool_call_id), ...)
    """
    screen = PermissionScreen(
        pending.params,
        tool_call=tool_call,
        origin=origin,
        position=position,
        total=total,
        offer=offer,
        forward_typing=forward_typing,
        project=project,
    )
    return await present_dialog(app, screen)
