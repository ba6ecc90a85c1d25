"""Command palette entries made of the agent's words: its modes and models.

Textual's system commands take their title and help as markup strings, so a mode named ``[/]``
would break the palette and one named ``[@click=app.quit]x`` would carry a live action. The
entries here are :class:`textual.content.Content` built from the plain text (never parsed), with
the fuzzy match highlighted on that same plain text.

A screen offers such entries by listing :class:`AgentCommands` in its ``COMMANDS`` and having an
``agent_commands()`` method that returns :class:`AgentCommand` items.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import SystemCommand
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.style import Style

from acp_tui.ui.agent_text import LINE_LIMIT, line_of

HELP_STYLE = "$text-muted"


@dataclass(frozen=True, slots=True)
class AgentCommand:
    """One palette entry. ``title`` and ``help`` may hold agent text: they are shown literally,
    on one line each."""

    title: str
    help: str
    callback: Callable[[], Any]


def literal_markup(text: str) -> str:
    """``text`` as markup that reads back as exactly ``text``, with no style or action:
    every ``[`` escaped (Textual's own ``escape`` leaves ``[$var]`` and some backslashes)."""
    return text.replace("[", "\\[")


def literal_command(command: SystemCommand) -> SystemCommand:
    """``command`` with its title and help shown literally. Textual reads a system command's
    title and help as markup: the app passes its own through this, so an entry that
    carries outside text (a configured name, a path) by mistake still shows it as text."""
    return command._replace(title=literal_markup(command.title), help=literal_markup(command.help))


def highlighted(matcher: Matcher, title: str) -> Content:
    """``title`` as literal content with the characters the query matched highlighted."""
    content = Content(title)
    score, offsets = matcher.fuzzy_search.match(matcher.query, title)
    if not score:
        return content
    for offset in offsets:
        if not title[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def entry(title: Content, help_text: str, help_style: Style | str = HELP_STYLE) -> Content:
    """What the palette shows for an entry: its title, and its help line below (in
    ``help_style``: the palette's own help style, so it reads as Textual's commands' help)."""
    if not help_text:
        return title
    return Content.assemble(title, "\n", Content(help_text).stylize_before(help_style))


class AgentCommands(Provider):
    """The palette's entries from the current screen's ``agent_commands()``."""

    def _help_style(self) -> Style | str:
        """The open palette's style for help lines (muted, not bold). Textual gives it to the
        help of a ``Hit``, which it parses as markup: agent words cannot go there."""
        palette = self.app.screen
        if isinstance(palette, CommandPalette):
            return Style.from_styles(palette.get_component_styles("command-palette--help-text"))
        return HELP_STYLE

    def _commands(self) -> list[AgentCommand]:
        source = getattr(self.screen, "agent_commands", None)
        if not callable(source):
            return []
        return [
            AgentCommand(line_of(c.title, LINE_LIMIT), line_of(c.help, LINE_LIMIT), c.callback)
            for c in source()
        ]

    async def discover(self) -> Hits:
        help_style = self._help_style()
        for command in self._commands():
            yield DiscoveryHit(
                entry(Content(command.title), command.help, help_style),
                command.callback,
                text=command.title,
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        help_style = self._help_style()
        for command in self._commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(
                    score,
                    entry(highlighted(matcher, command.title), command.help, help_style),
                    command.callback,
                    text=command.title,
                )
