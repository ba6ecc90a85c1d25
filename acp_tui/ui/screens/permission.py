"""The permission dialog: what the agent is about to do, and the agent's options.

``PermissionScreen(params, tool_call=..., session_label=..., position=k, total=n)`` is built from
the ``session/request_permission`` params plus what the client knows of the tool call (a plain
dict with the wire ``ToolCall`` camelCase keys; the request's own ``toolCall`` fields are merged
over it). It dismisses with the chosen ``optionId``, or ``None`` for "cancelled".

Answering is deliberate: an option's number key (1-9), or arrows then Enter/Space. For the
first :attr:`PermissionScreen.ARM_DELAY` seconds Enter, Space and clicks do nothing, and no option
is ever pre-selected, so a keypress meant for the prompt cannot approve anything. Escape answers
``reject_once`` when offered, else ``None``. :meth:`PermissionScreen.close` closes it from code
(the broker cancelled the request). :func:`present_permission` is a ready-made presenter body
for :class:`acp_tui.permissions.PermissionBroker`.

Everything the agent sent is shown literally: ``rich.text.Text`` (never markup) after
:func:`acp_tui.text_safety.sanitize_terminal_text`.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from acp_tui.permissions import (
    KIND_LABELS,
    REJECT_ONCE,
    PendingPermission,
    PermissionChoice,
)
from acp_tui.text_safety import one_line, sanitize_terminal_text, truncate
from acp_tui.ui.widgets.diff_view import DiffView

TITLE_LIMIT = 500
OPTION_NAME_LIMIT = 200
COMMAND_LIMIT = 100_000
TEXT_LIMIT = 10_000
RAW_INPUT_LIMIT = 50_000
MAX_DIFFS = 20
MAX_LOCATIONS = 20

#: Icon and word shown for each ToolKind.
KIND_ICONS: dict[str, tuple[str, str]] = {
    "read": ("◉", "read"),
    "edit": ("✎", "edit"),
    "delete": ("✖", "delete"),
    "move": ("⇄", "move"),
    "search": ("⌕", "search"),
    "execute": ("❯", "execute"),
    "think": ("∴", "think"),
    "fetch": ("⇣", "fetch"),
    "switch_mode": ("⇆", "switch mode"),
    "other": ("•", "tool"),
}
_OPTION_MARKS: dict[str, str] = {
    "allow_once": "✓",
    "allow_always": "✓✓",
    "reject_once": "✗",
    "reject_always": "✗✗",
}


def merge_tool_call(
    known: Mapping[str, Any] | None, update: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The tool call as the client knows it, with the request's own fields (not null) over it."""
    merged: dict[str, Any] = dict(known) if isinstance(known, Mapping) else {}
    if isinstance(update, Mapping):
        for key, value in update.items():
            if value is not None:
                merged[key] = value
    return merged


def command_of(raw_input: Any) -> str | None:
    """The full command line a raw input describes (``command``, ``cmd``, ``args``/``argv``)."""
    if not isinstance(raw_input, Mapping):
        return None
    parts: list[str] = []
    for key in ("command", "cmd"):
        value = raw_input.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value)
            break
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            parts.append(shlex.join(value))
            break
    for key in ("args", "argv", "arguments"):
        value = raw_input.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            parts.append(shlex.join(value))
            break
    return " ".join(parts) if parts else None


def _literal(text: str, limit: int) -> Text:
    return Text(truncate(sanitize_terminal_text(text), limit), overflow="fold")


def _location_line(location: Any) -> str | None:
    if not isinstance(location, Mapping):
        return None
    path = location.get("path")
    if not isinstance(path, str) or not path:
        return None
    line = location.get("line")
    return f"{path}:{line}" if isinstance(line, int) and not isinstance(line, bool) else path


class _Body(VerticalScroll, can_focus=False):
    """The scrollable details; scrolled with PageUp/PageDown or the mouse wheel."""


class OptionRow(Horizontal):
    """One of the agent's options: its number, its kind (visibly) and its name."""

    def __init__(self, index: int, choice: PermissionChoice) -> None:
        kind_class = "-" + choice.kind.replace("_", "-") if choice.kind in KIND_LABELS else ""
        super().__init__(classes=f"option-row {kind_class}".strip())
        self.index = index
        self.choice = choice

    def compose(self) -> ComposeResult:
        number = f"{self.index + 1}" if self.index < 9 else " "
        yield Label(number, classes="option-number")
        mark = _OPTION_MARKS.get(self.choice.kind, "?")
        label = KIND_LABELS.get(self.choice.kind, self.choice.kind or "option")
        yield Label(Text(f"{mark} {one_line(label, 20)}"), classes="option-kind")
        yield Static(
            Text(one_line(self.choice.name, OPTION_NAME_LIMIT), overflow="fold"),
            classes="option-name",
        )

    def on_click(self, event: events.Click) -> None:
        event.stop()
        screen = self.screen
        if isinstance(screen, PermissionScreen):
            screen.choose_by_click(self.index)


class PermissionScreen(ModalScreen[str | None]):
    """A modal asking the person to answer one permission request."""

    CSS_PATH = "permission.tcss"
    ARM_DELAY: ClassVar[float] = 0.5

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "reject", "Reject", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
        Binding("down", "move(1)", "Next", show=False),
        Binding("enter", "confirm", "Confirm", show=False),
        Binding("space", "confirm", "Confirm", show=False),
        Binding("r", "toggle_raw", "Raw input", show=False),
        Binding("pageup", "scroll_body(-1)", "Scroll up", show=False),
        Binding("pagedown", "scroll_body(1)", "Scroll down", show=False),
        *(Binding(str(n), f"choose({n - 1})", f"Option {n}", show=False) for n in range(1, 10)),
    ]

    highlighted: reactive[int | None] = reactive(None, init=False)
    show_raw: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        params: Mapping[str, Any],
        *,
        tool_call: Mapping[str, Any] | None = None,
        session_label: str | None = None,
        position: int = 1,
        total: int = 1,
        arm_delay: float | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.request = PendingPermission.from_params(params)
        self.tool_call = merge_tool_call(tool_call, self.request.tool_call)
        self.options: list[PermissionChoice] = self.request.options
        self.session_label = session_label
        self.position = position
        self.total = total
        self.arm_delay = self.ARM_DELAY if arm_delay is None else arm_delay
        self.armed = self.arm_delay <= 0
        self._answered = False
        self._answer: str | None = None
        self._answer_event = asyncio.Event()
        self._close_when_active = False

    # -- what the request is about --

    @property
    def title_text(self) -> str:
        for key in ("title", "name", "toolCallId"):
            value = self.tool_call.get(key)
            if isinstance(value, str) and value.strip():
                return one_line(value, TITLE_LIMIT)
        return "Tool call"

    @property
    def kind(self) -> str:
        kind = self.tool_call.get("kind")
        return kind if isinstance(kind, str) and kind else "other"

    @property
    def raw_input(self) -> Any:
        return self.tool_call.get("rawInput")

    @property
    def has_raw_input(self) -> bool:
        return self.raw_input is not None

    def _content_items(self) -> list[Mapping[str, Any]]:
        content = self.tool_call.get("content")
        if not isinstance(content, list):
            return []
        return [c for c in content if isinstance(c, Mapping)]

    # -- layout --

    def compose(self) -> ComposeResult:
        icon, word = KIND_ICONS.get(self.kind, ("•", one_line(self.kind, 20)))
        dialog = Vertical(id="dialog")
        dialog.border_title = "Permission requested"
        dialog.border_subtitle = self._position_text()
        with dialog:
            with Horizontal(id="header"):
                yield Label(Text(f"{icon} {word}"), id="kind", classes=f"kind-{self.kind}")
                yield Static(Text(self.title_text, overflow="fold"), id="title")
            if self.session_label:
                yield Static(
                    Text.assemble("For session: ", one_line(self.session_label, 200)),
                    id="session",
                )
            with _Body(id="body"):
                yield from self._compose_details()
            with Vertical(id="options"):
                for index, choice in enumerate(self.options):
                    yield OptionRow(index, choice)
                if not self.options:
                    yield Static(
                        Text("The agent offered no usable options: Esc cancels."),
                        id="no-options",
                    )
            yield Static(self._hint_text(), id="hint")

    def _compose_details(self) -> ComposeResult:
        command = command_of(self.raw_input)
        if command is None and self.kind == "execute" and isinstance(self.raw_input, str):
            command = self.raw_input
        if command:
            text = Text()
            text.append("$ ", style="bold")
            text.append_text(_literal(command, COMMAND_LIMIT))
            yield Static(text, id="command", classes="section")
            cwd = self.raw_input.get("cwd") if isinstance(self.raw_input, Mapping) else None
            if isinstance(cwd, str) and cwd:
                yield Static(Text.assemble("in ", one_line(cwd, 500)), classes="section muted")
        diffs = 0
        for item in self._content_items():
            kind = item.get("type")
            if kind == "diff":
                diffs += 1
                if diffs <= MAX_DIFFS:
                    yield DiffView.from_content(item, classes="section")
            elif kind == "terminal":
                terminal_id = item.get("terminalId")
                if isinstance(terminal_id, str):
                    yield Static(
                        Text.assemble("Terminal ", one_line(terminal_id, 100)),
                        classes="section muted",
                    )
            elif kind == "content":
                block = item.get("content")
                if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                    yield Static(_literal(block["text"], TEXT_LIMIT), classes="section")
        if diffs > MAX_DIFFS:
            yield Static(Text(f"… {diffs - MAX_DIFFS} more diffs"), classes="section muted")
        locations = self.tool_call.get("locations")
        lines = (
            [line for line in (_location_line(loc) for loc in locations or []) if line is not None]
            if isinstance(locations, list)
            else []
        )
        if lines:
            text = Text()
            text.append("Locations: ", style="bold")
            shown = lines[:MAX_LOCATIONS]
            text.append(", ".join(one_line(line, 300) for line in shown))
            if len(lines) > len(shown):
                text.append(f" … {len(lines) - len(shown)} more")
            yield Static(text, id="locations", classes="section")
        if self.has_raw_input:
            yield Static(self._raw_toggle_text(), id="raw-toggle", classes="section muted")
            yield Static(self._raw_json(), id="raw-input", classes="section")

    def _raw_json(self) -> Text:
        try:
            dumped = json.dumps(self.raw_input, indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            dumped = repr(self.raw_input)
        return _literal(dumped, RAW_INPUT_LIMIT)

    def _raw_toggle_text(self) -> Text:
        arrow = "▼" if self.show_raw else "▶"
        action = "hide" if self.show_raw else "show"
        return Text(f"{arrow} Raw input (r to {action})")

    def _hint_text(self) -> Text:
        count = min(len(self.options), 9)
        keys = f"1-{count}" if count > 1 else "1"
        parts = [f"{keys} choose", "↑↓ + Enter", "Esc reject"]
        if self.has_raw_input:
            parts.append("r raw input")
        parts.append("PgUp/PgDn scroll")
        return Text("  ·  ".join(parts))

    def _position_text(self) -> str:
        return f"{self.position} of {self.total}" if self.total > 1 else ""

    def on_mount(self) -> None:
        if not self.armed:
            self.set_timer(self.arm_delay, self._arm)
        self.call_after_refresh(self._fit_body)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """Cap the scrollable details so the header, options and hint always stay on screen."""
        bodies = self.query(_Body)
        if not self.is_mounted or not bodies:
            return  # closed before its first layout (cancelled as it opened)
        dialog = self.query_one("#dialog")
        body = bodies.first()
        others = 0
        for child in dialog.children:
            if child is body or not child.display:
                continue
            margin = child.styles.margin
            others += child.outer_size.height + margin.top + margin.bottom
        available = self.size.height - dialog.styles.gutter.height - others
        body.styles.max_height = max(3, available)

    def _arm(self) -> None:
        self.armed = True

    def on_screen_resume(self) -> None:
        if self._close_when_active:
            self._close_when_active = False
            self.dismiss(self._answer)

    # -- reactive state --

    def watch_highlighted(self, value: int | None) -> None:
        for row in self.query(OptionRow):
            row.set_class(row.index == value, "-highlighted")
        if value is not None:
            rows = list(self.query(OptionRow))
            if 0 <= value < len(rows):
                rows[value].scroll_visible(animate=False)

    def watch_show_raw(self, value: bool) -> None:
        for raw in self.query("#raw-input"):
            raw.display = value
        for toggle in self.query("#raw-toggle").results(Static):
            toggle.update(self._raw_toggle_text())

    def set_position(self, position: int, total: int) -> None:
        """Update the "k of n" count (another request was queued or cancelled)."""
        self.position, self.total = position, total
        if self.is_mounted:
            self.query_one("#dialog").border_subtitle = self._position_text()

    # -- actions --

    def action_move(self, delta: int) -> None:
        if not self.options:
            return
        if self.highlighted is None:
            self.highlighted = 0 if delta > 0 else len(self.options) - 1
        else:
            self.highlighted = max(0, min(len(self.options) - 1, self.highlighted + delta))

    def action_confirm(self) -> None:
        if not self.armed or self.highlighted is None:
            return
        self._answer_with(self.options[self.highlighted].option_id)

    def action_choose(self, index: int) -> None:
        if 0 <= index < len(self.options):
            self._answer_with(self.options[index].option_id)

    def choose_by_click(self, index: int) -> None:
        if self.armed and 0 <= index < len(self.options):
            self._answer_with(self.options[index].option_id)

    def action_reject(self) -> None:
        choice = self.request.first_of(REJECT_ONCE)
        self._answer_with(choice.option_id if choice is not None else None)

    def action_toggle_raw(self) -> None:
        if self.has_raw_input:
            self.show_raw = not self.show_raw

    def action_scroll_body(self, direction: int) -> None:
        body = self.query_one(_Body)
        if direction < 0:
            body.scroll_page_up(animate=False)
        else:
            body.scroll_page_down(animate=False)

    # -- answering and closing --

    @property
    def answered(self) -> bool:
        return self._answered

    def _answer_with(self, option_id: str | None) -> None:
        if self._answered:
            return
        self._answered = True
        self._answer = option_id
        self._answer_event.set()
        if self.is_active:
            self.dismiss(option_id)
        else:
            self._close_when_active = True

    def close(self, option_id: str | None = None) -> None:
        """Close from code (the request was cancelled elsewhere); dismisses with ``option_id``
        (``None``: cancelled). Safe to call more than once, and when another screen is on top
        (the dialog then closes as soon as it is uncovered)."""
        self._answer_with(option_id)

    async def wait_for_answer(self) -> str | None:
        """The chosen ``optionId`` (``None``: cancelled), once the person (or code) answered."""
        await self._answer_event.wait()
        return self._answer


async def present_permission(
    app: App[Any],
    pending: PendingPermission,
    position: int,
    total: int,
    *,
    tool_call: Mapping[str, Any] | None = None,
    session_label: str | None = None,
) -> str | None:
    """Show ``pending`` in a :class:`PermissionScreen` and wait for the answer; when the caller
    is cancelled (the broker's ``cancel_session``), the dialog is closed. Use it as the body of a
    broker presenter::

        async def present(pending, position, total):
            return await present_permission(app, pending, position, total,
                                            tool_call=known_tool_call(pending), ...)
    """
    screen = PermissionScreen(
        pending.params,
        tool_call=tool_call,
        session_label=session_label,
        position=position,
        total=total,
    )
    try:
        await app.push_screen(screen)
        return await screen.wait_for_answer()
    finally:
        if not screen.answered:
            screen.close(None)
