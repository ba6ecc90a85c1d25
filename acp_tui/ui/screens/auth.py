"""Choosing how to authenticate, when the agent says it needs it.

https://agentclientprotocol.com/protocol/initialization#authentication: the agent lists its
methods in the initialize response. Each row says what choosing it does (the agent signs you
in, a sign-in runs in this terminal, or a variable to set): the link completes the chosen one
by its type. A terminal method shows exactly what will run: the program and its arguments,
the directory, every variable the method sets (those that change which code runs marked, as
``terminal/create`` marks them: :func:`acp_tui.services.terminals.risky_env`) and the names of
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
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, Static

from acp_tui.services.terminals import risky_env
from acp_tui.session.auth.methods import AuthMethod, TerminalLogin
from acp_tui.text.safety import escaped_line, sanitize_terminal_text
from acp_tui.ui.agent_text import agent_content, agent_line, agent_lines
from acp_tui.ui.render.hints import KeyHints
from acp_tui.ui.screens.armed import (
    ArmedDialog,
    ChoiceList,
    DialogOrigin,
    HintLine,
    TypingForwarder,
    is_typing,
)

#: How much of a command, a directory or a variable a row shows.
COMMAND_LIMIT = 400
VALUE_LIMIT = 200
#: Variables listed one per line; the rest are counted.
MAX_ENV_LINES = 12
#: Lines of a method's description shown.
MAX_DESCRIPTION_LINES = 6


def runs_lines(login: TerminalLogin) -> list[Content]:
    """What a terminal method runs, every value the agent's made one line with its control
    characters visible: ``$ program args``, ``in DIR``, one ``sets NAME=value`` line each."""
    lines = [
        Content.assemble(
            ("$ ", "bold"), (escaped_line(shlex.join(login.argv), COMMAND_LIMIT), "bold")
        ),
        Content.assemble("in ", escaped_line(login.cwd, VALUE_LIMIT)),
    ]
    method_env = dict(login.method.env)
    risky = set(risky_env(method_env))
    ordered = sorted(method_env.items(), key=lambda item: item[0] not in risky)
    for name, value in ordered[:MAX_ENV_LINES]:
        line = Content.assemble("sets ", escaped_line(f"{name}={value}", VALUE_LIMIT))
        if name in risky:
            line = Content.assemble(
                line, ("  ⚠ changes which code runs: asked again", "bold $text-warning")
            )
        lines.append(line)
    if len(ordered) > MAX_ENV_LINES:
        lines.append(Content(f"… and {len(ordered) - MAX_ENV_LINES} more variables"))
    hidden = login.hidden_env_names()
    if hidden:
        names = ", ".join(escaped_line(name, 40) for name in hidden[:8])
        more = f" and {len(hidden) - 8} more" if len(hidden) > 8 else ""
        lines.append(
            Content.styled(f"with your configured {names}{more} (values not shown)", "dim")
        )
    return lines


def method_prompt(index: int, method: AuthMethod, login: TerminalLogin | None) -> Content:
    """One method as a row: its number key (1-9), its name, the agent's description, what
    choosing it does, and for a terminal method what runs."""
    number = f" {index + 1}  " if index < 9 else "    "
    lines = [
        Content.assemble(
            (number, "bold $text-accent"), agent_content(method.label, 120, style="bold")
        )
    ]
    if method.description:
        description = sanitize_terminal_text(method.description)
        lines += [
            agent_content(line, 200, style="$text-muted")
            for line in description.splitlines()[:MAX_DESCRIPTION_LINES]
            if line.strip()
        ]
    lines.append(agent_content(method.how(), 200, style="italic"))
    if login is not None:
        lines += runs_lines(login)
    return Content("\n    ").join(lines)


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
    AuthScreen .reason { color: $text-muted; margin: 0 0 1 0; }
    AuthScreen ChoiceList {
        height: auto; border: none; padding: 0; background: transparent;
        & > .option-list--option-highlighted { background: $accent 30%; color: $text; }
    }
    AuthScreen.-unarmed ChoiceList { text-opacity: 50%; }
    AuthScreen #hint { color: $text-muted; }
    AuthScreen.-unarmed #hint { color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="close-dialog")
    ]

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

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.origin_line()
            yield Label(
                Text.assemble(agent_line(self.agent_name, 80), " needs you to sign in"),
                classes="title",
            )
            yield Static(agent_lines(self.reason, 500), classes="reason")
            yield ChoiceList(
                *(
                    method_prompt(index, method, self.logins.get(method.id))
                    for index, method in enumerate(self.methods)
                )
            )
            yield HintLine(self._hint_text(), id="hint")

    def on_mount(self) -> None:
        self.set_class(not self.armed, "-unarmed")
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The methods scroll; the names above them and the key hints below stay on screen."""
        if not self.is_mounted or not self.query(ChoiceList):
            return
        box = self.query_one(Vertical)
        choices = self.query_one(ChoiceList)
        fixed = sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in box.children
            if child is not choices and child.display
        )
        room = int(self.size.height * 0.9) - box.styles.gutter.height - fixed
        choices.styles.max_height = max(3, room)

    def _hint_text(self) -> KeyHints:
        if not self.armed:
            return KeyHints(["Keys arm in a moment; typing goes to the prompt", "Esc cancel"])
        count = min(len(self.methods), 9)
        keys = f"1-{count}" if count > 1 else "1"
        return KeyHints([f"{keys} choose", "↑↓ + Enter", "Esc cancel"])

    @property
    def highlighted(self) -> int | None:
        return self.query_one(ChoiceList).highlighted

    def dialog_key(self, event: events.Key) -> None:
        key = event.key
        choices = self.query_one(ChoiceList)
        if key in ("up", "down", "home", "end"):
            event.stop()
            event.prevent_default()
            if not self.methods:
                return
            last = len(self.methods) - 1
            current = choices.highlighted
            if key == "home":
                choices.highlighted = 0
            elif key == "end":
                choices.highlighted = last
            elif current is None:
                choices.highlighted = 0 if key == "down" else last
            else:
                step = 1 if key == "down" else -1
                choices.highlighted = max(0, min(last, current + step))
            return
        if key in ("enter", "space") and choices.highlighted is not None:
            index = choices.highlighted
            # On the method the person moved to with the arrows: deliberate, at once.
            self.answer_key(event, partial(self._choose, index), hold=False)
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

    def action_cancel(self) -> None:
        self.settle(None)
