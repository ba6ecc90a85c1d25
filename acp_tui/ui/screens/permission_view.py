"""What the permission dialog shows (:mod:`acp_tui.ui.screens.permission`): the tool call's
details (:func:`tool_call_details`: command, diffs, terminals, text, locations; its raw input,
:func:`raw_json`) and the agent's options as rows (:func:`option_prompt` in
:class:`PermissionOptions`). Everything the agent sent is shown literally, through
:mod:`acp_tui.ui.agent_text`."""

from __future__ import annotations

import json
import os
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from acp_tui.session.asking.permissions import (
    KIND_LABELS,
    PermissionChoice,
)
from acp_tui.store.entries import ToolCall
from acp_tui.store.tool_content import ContentPart, FileDiff, TerminalRef
from acp_tui.text.fences import unfenced
from acp_tui.text.titles import project_path
from acp_tui.ui.agent_text import agent_content, agent_line, agent_lines, line_of
from acp_tui.ui.screens.armed import (
    ChoiceList,
)
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
    "delete": ("✗", "delete"),
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
_KIND_STYLES: dict[str, str] = {
    "allow_once": "bold $text-success",
    "allow_always": "bold $text-success on $success 25%",
    "reject_once": "bold $text-error",
    "reject_always": "bold $text-error on $error 25%",
}
#: Cells of an option's kind column.
KIND_CELLS = 20


def literal(text: str, limit: int) -> Text:
    text_block = agent_lines(text, limit)
    text_block.overflow = "fold"
    return text_block


def option_prompt(index: int, choice: PermissionChoice) -> Content:
    """One option as a row: its number key (1-9 only), its kind (mark, word, colour) and the
    agent's name for it, literally."""
    number = f" {index + 1}  " if index < 9 else "    "
    mark = _OPTION_MARKS.get(choice.kind, "?")
    label = KIND_LABELS.get(choice.kind) or line_of(choice.kind or "option", 14)
    kind = f" {mark} {label}"
    kind += " " * max(1, KIND_CELLS - cell_len(kind))
    return Content.assemble(
        (number, "bold $text-accent"),
        (kind, _KIND_STYLES.get(choice.kind, "bold")),
        " ",
        agent_content(choice.name, OPTION_NAME_LIMIT),
    )


class DetailsBody(VerticalScroll, can_focus=False):
    """The scrollable details; scrolled with PageUp/PageDown or the mouse wheel."""


class PermissionOptions(ChoiceList):
    """The agent's options. An option list renders only the rows on screen, so a request with
    thousands of options opens and answers as fast as one with two. Never focused: the dialog
    owns the keys, and a click is an answer only through the gate."""

    DEFAULT_CSS = """
    PermissionOptions {
        height: auto;
        border: none;
        padding: 0;
        background: transparent;
        scrollbar-size-vertical: 1;
        & > .option-list--option-highlighted { background: $accent 30%; color: $text; }
        & > .option-list--option-hover { background: $boost; }
    }
    """


def same_command(text: str, command: str) -> bool:
    """Whether a text content part only repeats the command (``$ npm test``, or the command
    alone, in a fence or not)."""
    shown = text.strip()
    return shown.removeprefix("$").strip() == command.strip() or shown == command.strip()


def tool_call_details(tool_call: ToolCall, project: str | None) -> ComposeResult:
    """What the tool call asking for permission is about: its command and where it runs, its
    diffs, terminals and text, and the files it names (paths inside ``project`` relative to
    it). Everything the agent sent is shown literally."""
    command = tool_call.command
    if command:
        text = Text()
        text.append("$ ", style="bold")
        text.append_text(literal(command, COMMAND_LIMIT))
        yield Static(text, id="command", classes="section")
        cwd = tool_call.command_cwd
        if cwd and os.path.normpath(cwd) != os.path.normpath(project or ""):
            yield Static(
                Text.assemble("in ", agent_line(project_path(cwd, project), 500)),
                classes="section muted",
            )
    diffs = 0
    for output in tool_call.outputs:
        if isinstance(output, FileDiff):
            diffs += 1
            if diffs <= MAX_DIFFS:
                yield DiffView(
                    project_path(output.path, project) if output.path else "(unknown file)",
                    output.old_text,
                    output.new_text,
                    classes="section",
                )
        elif isinstance(output, TerminalRef):
            yield Static(
                Text.assemble("Terminal ", agent_line(output.terminal_id, 100)),
                classes="section muted",
            )
        elif isinstance(output, ContentPart) and output.text is not None:
            inside = unfenced(output.text)  # a fence is Markdown for a renderer, not text
            if command and same_command(inside, command):
                continue  # the command again (Claude's, Codex's "```sh" block): shown above
            yield Static(literal(inside, TEXT_LIMIT), classes="section")
    if diffs > MAX_DIFFS:
        yield Static(Text(f"… {diffs - MAX_DIFFS} more diffs"), classes="section muted")
    lines = [
        project_path(location.path, project)
        + (f":{location.line}" if location.line is not None else "")
        for location in tool_call.file_locations
    ]
    if lines:
        text = Text()
        text.append("Locations: ", style="bold")
        shown = lines[:MAX_LOCATIONS]
        text.append(", ".join(line_of(line, 300) for line in shown))
        if len(lines) > len(shown):
            text.append(f" … {len(lines) - len(shown)} more")
        yield Static(text, id="locations", classes="section")


def raw_json(raw_input: Any) -> Text:
    """The tool call's raw input as indented JSON, literally (cut to :data:`RAW_INPUT_LIMIT`)."""
    try:
        dumped = json.dumps(raw_input, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        dumped = repr(raw_input)
    return literal(dumped, RAW_INPUT_LIMIT)
