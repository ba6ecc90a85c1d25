"""The ``/`` list: the agent's slash commands and acp-tui's own, in one list, and what Enter
does with a command typed there.

An agent command wins its name: acp-tui's command of the same name is listed, and run, as
``//name`` (the agent's ``/help`` stays the agent's; acp-tui's is ``//help``). Every acp-tui
command can be typed as ``//name``; those whose name no agent command takes as ``/name`` too.

Enter on a command sends it when what is typed is a command's whole name, or the start of one
command's name only (``/pl`` sends ``/plan`` when nothing else starts with ``pl``); with
several candidates it completes the highlighted one (Tab always completes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_COMPLETIONS",
    "ClientCommand",
    "SlashCommand",
    "agent_commands",
    "enter_sends",
    "match_commands",
    "parse_client_command",
    "slash_list",
]

MAX_COMPLETIONS = 50
#: How an acp-tui command is typed when an agent command has its name (after the first "/").
CLIENT_MARK = "/"


@dataclass(frozen=True, slots=True)
class ClientCommand:
    """One of acp-tui's own commands, as the ``/`` list and the help show it."""

    name: str
    description: str
    #: What may follow the name ("" when nothing does).
    hint: str = ""


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One row of the ``/`` list. ``name`` is what follows the first ``/``: ``plan``, or
    ``/help`` for acp-tui's ``//help``."""

    name: str
    description: str = ""
    hint: str = ""
    #: acp-tui's own command (not sent to the agent).
    client: bool = False


def _agent_name(command: Mapping[str, Any]) -> str:
    name = command.get("name")
    return name.lstrip("/") if isinstance(name, str) else ""


def _agent_hint(command: Mapping[str, Any]) -> str:
    spec = command.get("input")
    if isinstance(spec, Mapping):
        hint = spec.get("hint")
        if isinstance(hint, str):
            return hint
    return ""


def agent_commands(commands: Iterable[Mapping[str, Any]]) -> list[SlashCommand]:
    """The agent's ``available_commands`` as rows (those without a name left out)."""
    rows: list[SlashCommand] = []
    for command in commands:
        name = _agent_name(command)
        if not name:
            continue
        description = command.get("description")
        rows.append(
            SlashCommand(
                name,
                description if isinstance(description, str) else "",
                _agent_hint(command),
            )
        )
    return rows


def slash_list(
    agent: Iterable[Mapping[str, Any]], client: Sequence[ClientCommand]
) -> list[SlashCommand]:
    """The agent's commands in its order, then acp-tui's: as ``/name`` where no agent
    command has that name, else as ``//name`` (never hiding the agent's)."""
    rows = agent_commands(agent)
    taken = {row.name.lower() for row in rows}
    for command in client:
        shadowed = command.name.lower() in taken
        name = CLIENT_MARK + command.name if shadowed else command.name
        rows.append(SlashCommand(name, command.description, command.hint, client=True))
    return rows


def match_commands(query: str, rows: Sequence[SlashCommand]) -> list[SlashCommand]:
    """Rows whose name starts with ``query`` (in the list's order), then those whose name
    contains it; case-insensitive. ``query`` starting with ``/`` (``//`` typed) lists only
    acp-tui's commands, each as ``//name``."""
    if query.startswith(CLIENT_MARK):
        rows = [
            SlashCommand(
                CLIENT_MARK + row.name.lstrip(CLIENT_MARK), row.description, row.hint, True
            )
            for row in rows
            if row.client
        ]
    needle = query.lower()
    starts: list[SlashCommand] = []
    contains: list[SlashCommand] = []
    for row in rows:
        name = row.name.lower()
        if name.startswith(needle):
            starts.append(row)
        elif needle in name:
            contains.append(row)
    return (starts + contains)[:MAX_COMPLETIONS]


def enter_sends(query: str, matches: Sequence[SlashCommand]) -> SlashCommand | None:
    """The command Enter sends for ``query`` (what follows the ``/``) given the list's
    ``matches``: the one named exactly so, else the only one whose name starts so; None when
    it is not decided (Enter then completes the highlighted row)."""
    needle = query.lower()
    exact = [row for row in matches if row.name.lower() == needle]
    if exact:
        return exact[0]
    starting = [row for row in matches if row.name.lower().startswith(needle)]
    if needle and len(starting) == 1:
        return starting[0]
    return None


def parse_client_command(
    text: str, agent: Iterable[Mapping[str, Any]], client: Iterable[ClientCommand]
) -> tuple[ClientCommand, str] | None:
    """The acp-tui command ``text`` runs, with what follows its name, or None when it is a
    message for the agent: ``//name ...`` is always acp-tui's, ``/name ...`` only when no
    agent command has that name."""
    if not text.startswith("/"):
        return None
    doubled = text.startswith("//")
    body = text[2:] if doubled else text[1:]
    name, _, rest = body.partition(" ")
    if "\n" in name:
        name, _, more = name.partition("\n")
        rest = more + (" " + rest if rest else "")
    wanted = name.lower()
    if not wanted:
        return None
    found = next((command for command in client if command.name.lower() == wanted), None)
    if found is None:
        return None
    if not doubled and any(row.name.lower() == wanted for row in agent_commands(agent)):
        return None
    return found, rest.strip()


def unknown_client_command(text: str, client: Iterable[ClientCommand]) -> str | None:
    """The name in ``//name`` when acp-tui has no command of that name (said to the person,
    not sent), else None."""
    if not text.startswith("//"):
        return None
    name = text[2:].split(None, 1)[0] if text[2:].strip() else ""
    if not name or text[2:3].isspace():
        return None
    known = {command.name.lower() for command in client}
    return None if name.lower() in known else name


def pick_by_name(choices: Sequence[tuple[str, str]], wanted: str) -> str | None:
    """The value among ``choices`` (value, name) that ``wanted`` names: its value or name
    whole, else the only one whose value or name starts with it (case-insensitive)."""
    needle = wanted.strip().lower()
    if not needle:
        return None
    for value, name in choices:
        if needle in (value.lower(), name.lower()):
            return value
    starting = [
        value
        for value, name in choices
        if value.lower().startswith(needle) or name.lower().startswith(needle)
    ]
    return starting[0] if len(starting) == 1 else None
