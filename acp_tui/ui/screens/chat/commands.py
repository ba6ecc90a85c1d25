"""acp-tui's own slash commands in the chat view: ``/help``, ``/new``, ``/resume``…, run here
and never sent to the agent (an agent command of the same name wins ``/name``; acp-tui's is
then ``//name``: see :mod:`acp_tui.ui.models.commands`).

:class:`ChatCommands` is a plain object the screen owns. Its table, :meth:`ChatCommands.table`,
is the one place a command is declared: its name, what the ``/`` list and the help say of it,
and what it does. Adding one is one entry there (and, if it needs a part of the view the table
cannot reach yet, a field of :class:`CommandHooks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.screen import Screen

from acp_tui.store.options import by_category
from acp_tui.text.safety import one_line
from acp_tui.ui.models.chat import ChatModel
from acp_tui.ui.models.commands import (
    ClientCommand,
    SlashCommand,
    parse_client_command,
    pick_by_name,
    slash_list,
    unknown_client_command,
)
from acp_tui.ui.screens.chat.options import SessionOptions
from acp_tui.ui.screens.chat.session_actions import SessionActions
from acp_tui.ui.screens.chat.tools import ChatTools
from acp_tui.ui.widgets.prompt import PromptEditor

__all__ = ["ChatCommands", "Command", "CommandHooks"]

#: What a command does with what follows its name ("" when nothing does).
Run = Callable[[str], object]


@dataclass(frozen=True, slots=True)
class Command:
    info: ClientCommand
    run: Run


@dataclass(frozen=True, slots=True)
class CommandHooks:
    """The view's parts the commands use: its actions, options, tools, session actions, the
    prompt, the sidebar's "show me these sessions", and ways to show a screen and quit."""

    new_session: Callable[[], object]
    show_sessions: Callable[[str], object]
    options: SessionOptions
    tools: ChatTools
    sessions: SessionActions
    prompt: Callable[[], PromptEditor]
    push: Callable[[Screen[Any]], object]
    quit: Callable[[], object]


class ChatCommands:
    """Run acp-tui's commands typed in the prompt; list them for the ``/`` list and the
    help."""

    def __init__(self, model: ChatModel, hooks: CommandHooks) -> None:
        self.model = model
        self.hooks = hooks
        self.commands: dict[str, Command] = {c.info.name: c for c in self.table()}

    def table(self) -> tuple[Command, ...]:
        """Every acp-tui command, in the order the list shows them."""
        h = self.hooks
        return (
            Command(ClientCommand("help", "keys and commands"), lambda _: self.show_help()),
            Command(ClientCommand("new", "start a new session"), lambda _: h.new_session()),
            Command(
                ClientCommand("resume", "pick a past session in the sidebar", "[filter]"),
                h.show_sessions,
            ),
            Command(
                ClientCommand("model", "choose the model", "[name]"),
                lambda name: self.choose("model", "model", name),
            ),
            Command(
                ClientCommand("mode", "choose the agent's mode", "[name]"),
                lambda name: self.choose("mode", "mode", name),
            ),
            Command(
                ClientCommand("rename", "give this session a title", "[title]"),
                lambda title: h.sessions.rename(None, title or None),
            ),
            Command(
                ClientCommand(
                    "export", "save this session to share (secrets redacted)", "[md|html]"
                ),
                lambda fmt: h.tools.export_transcript(
                    "html" if (fmt or "").strip().lower() == "html" else "md"
                ),
            ),
            Command(
                ClientCommand("copy", "copy the agent's last reply"),
                lambda _: h.tools.copy_last_reply(),
            ),
            Command(ClientCommand("quit", "quit acp-tui"), lambda _: h.quit()),
        )

    def infos(self) -> list[ClientCommand]:
        return [command.info for command in self.commands.values()]

    def rows(self) -> list[SlashCommand]:
        """The ``/`` list as the prompt shows it now: the agent's commands, then acp-tui's."""
        return slash_list(self.hooks.prompt().commands, self.infos())

    def run(self, text: str) -> bool:
        """Run ``text`` when it is an acp-tui command (True), else leave it to be sent. A
        ``//name`` acp-tui does not have is said, and put back in the prompt."""
        model = self.model
        if model.prompts.editing(model.queue_key()) is not None:
            return False  # an edit of a queued message is that message's new text
        infos = self.infos()
        found = parse_client_command(text, self.hooks.prompt().commands, infos)
        if found is None:
            unknown = unknown_client_command(text, infos)
            if unknown is None:
                return False
            names = ", ".join(f"//{info.name}" for info in infos)
            model.notify(f"acp-tui has no command //{one_line(unknown, 40)}: {names}.")
            self.hooks.prompt().set_draft(text)
            return True
        info, rest = found
        self.commands[info.name].run(rest)
        return True

    def show_help(self, typed: str = "") -> None:
        """The key sheet with the ``/`` commands; opened by typing ``typed`` (``?``), what is
        typed at it goes back to the prompt."""
        from acp_tui.ui.screens.help import HelpScreen

        prompt = self.hooks.prompt()
        # What is typed at the sheet lands in the (empty) prompt, which has the focus again.
        type_back = partial(prompt.take_typing, "") if typed else None
        self.hooks.push(HelpScreen(self.rows(), typed=typed, type_back=type_back))

    def choose(self, category: str, word: str, name: str) -> None:
        """``/model NAME``: that value of the session's option of ``category``; with no name
        (or one that names none), every option of the session to choose from."""
        options = self.hooks.options
        option = by_category(options.current(), category)
        if option is None or option.kind == "boolean":
            self.model.notify(f"This agent offers no {word} to choose.")
            return
        if not name:
            options.open_popup()
            return
        value = pick_by_name([(choice.value, choice.name) for choice in option.choices], name)
        if value is None:
            names = ", ".join(one_line(choice.name, 30) for choice in option.choices[:12])
            self.model.notify(
                f"No single {word} is named “{one_line(name, 40)}”. The {word}s: {names}.",
                severity="warning",
            )
            return
        options.choose(option.key, value)
        self.model.notify(f"{one_line(option.name, 30)}: {one_line(option.value_name(value), 40)}")
