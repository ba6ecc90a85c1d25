"""Choosing how to authenticate, when the agent says it needs it.

https://agentclientprotocol.com/protocol/initialization#authentication: the agent lists its
methods in the initialize response. Each one says what choosing it does (the agent signs you
in, a sign-in runs in this terminal, or a variable to set): the link completes the chosen one
by its type. A terminal method shows exactly what will run, in rows of their own
(:class:`~acp_tui.ui.widgets.detail_rows.DetailRows`): the program and its arguments, the
directory, every variable the method sets (those that change which code runs marked, by the
rule of ``terminal/create``: :func:`acp_tui.services.terminals.risky_env`) and the names of
those the configuration adds.

It arms like the permission dialog (:mod:`acp_tui.ui.screens.armed`): a method is chosen by
its number (alone, once armed), by the arrows and Enter, or by a click; nothing is
pre-selected, so the Enter of a message typed meanwhile goes to the prompt and runs nothing.
The dialog names the agent and session asking.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from acp_tui.services.terminal_commands import risky_env
from acp_tui.session.auth.methods import AuthMethod, TerminalLogin
from acp_tui.text.safety import escaped_line
from acp_tui.ui.agent_text import agent_line, agent_lines
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedDialog,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
)
from acp_tui.ui.widgets.detail_rows import DetailRows

#: How much of a command, a directory or a variable a row shows.
COMMAND_LIMIT = 400
VALUE_LIMIT = 200
#: Variables listed one per row; the rest are counted.
MAX_ENV_ROWS = 12
#: How much of the agent's reason and of a method's description shows.
REASON_LIMIT = 500
DESCRIPTION_LIMIT = 400


def runs_rows(login: TerminalLogin) -> list[tuple[str, str]]:
    """What a terminal method runs, as (label, value) rows; every value the agent's, made one
    line with its control characters visible."""
    rows = [
        ("Runs", escaped_line(shlex.join(login.argv), COMMAND_LIMIT)),
        ("In", escaped_line(login.cwd, VALUE_LIMIT)),
    ]
    method_env = dict(login.method.env)
    risky = set(risky_env(method_env))
    ordered = sorted(method_env.items(), key=lambda item: item[0] not in risky)
    for name, value in ordered[:MAX_ENV_ROWS]:
        label = "Sets (runs)" if name in risky else "Sets"
        rows.append((label, escaped_line(f"{name}={value}", VALUE_LIMIT)))
    if len(ordered) > MAX_ENV_ROWS:
        rows.append(("Sets", f"… and {len(ordered) - MAX_ENV_ROWS} more variables"))
    hidden = login.hidden_env_names()
    if hidden:
        names = ", ".join(escaped_line(name, 40) for name in hidden[:8])
        more = f" and {len(hidden) - 8} more" if len(hidden) > 8 else ""
        rows.append(("Configured", f"{names}{more} (your values, not shown)"))
    return rows


class MethodBlock(Vertical):
    """One method: its number key (1-9), its name, the agent's description, what choosing it
    does, and for a terminal method what runs. A click chooses it, through the gate."""

    def __init__(self, index: int, method: AuthMethod, login: TerminalLogin | None) -> None:
        super().__init__(classes="method", id=f"method-{index}")
        self.index = index
        self.method = method
        self.login = login

    def compose(self) -> ComposeResult:
        number = f"{self.index + 1}  " if self.index < 9 else "   "
        yield Static(
            Text.assemble((number, "bold"), agent_line(self.method.label, 120, style="bold")),
            classes="method-name",
        )
        if self.method.description:
            yield Static(
                agent_lines(self.method.description, DESCRIPTION_LIMIT), classes="method-text"
            )
        yield Static(agent_line(self.method.how(), 200), classes="method-how")
        if self.login is not None:
            rows = runs_rows(self.login)
            risky = any(label == "Sets (runs)" for label, _ in rows)
            yield DetailRows(rows, classes="method-runs -risky" if risky else "method-runs")
            if risky:
                yield Static(
                    Text(
                        "It sets a variable that decides which code runs: you will be asked "
                        "again before it runs."
                    ),
                    classes="method-warning",
                )

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        screen = self.screen
        if isinstance(screen, AuthScreen):
            screen.input_arrived(event.time)
            if screen.accepts(event.time) and not screen.answered:
                screen.choice_clicked(self.index, event.time)


class AuthScreen(ArmedDialog[str]):
    """Lists the agent's auth methods; dismisses with the chosen id, or None."""

    DEFAULT_CSS = """
    AuthScreen { align: center middle; }
    AuthScreen > Vertical {
        width: 96; max-width: 95%; height: auto; max-height: 90%; padding: 0 1;
        background: $panel; border: thick $accent;
    }
    AuthScreen #origin { margin: 0 0 1 0; }
    AuthScreen .title { text-style: bold; }
    AuthScreen .reason { color: $text-muted; max-height: 4; margin: 0 0 1 0; }
    AuthScreen #methods { height: auto; scrollbar-size-vertical: 1; }
    AuthScreen .method { height: auto; padding: 0 0 1 0; }
    AuthScreen .method.-highlighted { background: $accent 30%; }
    AuthScreen .method-text, AuthScreen .method-how { color: $text-muted; padding: 0 0 0 3; }
    AuthScreen .method-how { text-style: italic; }
    AuthScreen .method-runs { padding: 0 0 0 3; max-height: 20; }
    AuthScreen .method-warning { color: $text-warning; padding: 0 0 0 3; }
    AuthScreen.-unarmed #methods { text-opacity: 50%; }
    AuthScreen #hint { color: $text-muted; }
    AuthScreen.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="close-dialog")
    ]
    #: Nothing has the focus: the dialog owns the keys, and no method is pre-selected.
    AUTO_FOCUS = ""

    def __init__(
        self,
        agent_name: str,
        methods: list[AuthMethod],
        reason: str,
        *,
        logins: Mapping[str, TerminalLogin] | None = None,
        origin: DialogOrigin | None = None,
        forward_typing: TypingForwarder | None = None,
        arm_delay: float | None = None,
        burst_window: float | None = None,
    ) -> None:
        super().__init__(
            origin=origin or DialogOrigin(agent_name),
            arm_delay=arm_delay,
            burst_window=burst_window,
            forward_typing=forward_typing,
        )
        self.agent_name = agent_name
        self.methods = methods
        self.reason = reason
        #: What each terminal method runs, by method id.
        self.logins = dict(logins or {})
        #: The method moved to with the arrows (None: none, nothing is pre-selected).
        self.highlighted: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield self.origin_line()
            yield Label(
                Text.assemble(agent_line(self.agent_name, 80), " needs you to sign in"),
                classes="title",
            )
            yield Static(agent_lines(self.reason, REASON_LIMIT), classes="reason")
            with VerticalScroll(id="methods", can_focus=False):
                for index, method in enumerate(self.methods):
                    yield MethodBlock(index, method, self.logins.get(method.id))
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The methods scroll; the names above them and the key hints below stay on screen."""
        boxes = self.query("#box")
        if not self.is_mounted or not boxes:
            return
        box = boxes.first()
        methods = self.query_one("#methods")
        fixed = sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in box.children
            if child is not methods and child.display
        )
        room = int(self.size.height * 0.9) - box.styles.gutter.height - fixed
        methods.styles.max_height = max(3, room)

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return KeyHints(["Keys arm in a moment; typing goes to the prompt", "Esc cancel"])
        count = min(len(self.methods), 9)
        keys = f"1-{count}" if count > 1 else "1"
        return KeyHints([f"{keys} choose", "↑↓ + Enter", "Esc cancel"])

    def _highlight(self, index: int | None) -> None:
        self.highlighted = index
        for block in self.query(MethodBlock):
            block.set_class(block.index == index, "-highlighted")
            if block.index == index:
                block.scroll_visible(animate=False)

    def dialog_key(self, event: events.Key) -> None:
        key = event.key
        if key in ("up", "down", "home", "end"):
            event.stop()
            event.prevent_default()
            if not self.methods:
                return
            last, current = len(self.methods) - 1, self.highlighted
            if key == "home":
                self._highlight(0)
            elif key == "end":
                self._highlight(last)
            elif current is None:
                self._highlight(0 if key == "down" else last)
            else:
                step = 1 if key == "down" else -1
                self._highlight(max(0, min(last, current + step)))
            return
        if key in ("enter", "space") and self.highlighted is not None:
            # On the method the person moved to with the arrows: deliberate, at once.
            self.answer_key(event, partial(self._choose, self.highlighted), hold=False)
            return
        if key.isdigit() and 1 <= int(key) <= min(len(self.methods), 9):
            self.answer_key(event, partial(self._choose, int(key) - 1))
            return
        if is_typing(event):
            self.pass_on_key(event)

    def choice_clicked(self, index: int, at: float) -> None:
        self._choose(index)

    def _choose(self, index: int) -> None:
        if 0 <= index < len(self.methods):
            self.settle(self.methods[index].id)
