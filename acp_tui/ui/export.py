"""Transcript export as Markdown, written into acp-tui's exports folder (not the project)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from acp_tui.services.path_gate import create_new, private_directory
from acp_tui.session.prompts.attachments import describe_block
from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Compaction,
    Notice,
    PlanSnapshot,
    SessionMessage,
    ShellRun,
    SubagentCard,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.session import SessionState
from acp_tui.text.fences import unfenced
from acp_tui.text.safety import encodable, one_line, sanitize_terminal_text
from acp_tui.text.terminal_screen import exit_words as shell_status
from acp_tui.ui.widgets.diff_view import split_lines

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

# In a line of Markdown, what would turn the agent's words into markup: emphasis, code, links
# and images, raw HTML, strikethrough, tables; and the bare URLs GFM makes links of.
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>~|#])")
_BARE_LINKS = re.compile(r"(?i)(?<=[a-z])(:)(?=//)|(?<=www)(\.)")


def md_line(text: object, limit: int = 500) -> str:
    """Agent text for one line of the exported Markdown: one line, and shown as written by
    any Markdown viewer (no link, image, HTML, emphasis or heading comes of it)."""
    line = one_line(text if isinstance(text, str) else str(text or ""), limit)
    return _BARE_LINKS.sub(r"\\\1\2", _MARKDOWN_SPECIALS.sub(r"\\\1", line))


def fenced(text: str, info: str = "") -> list[str]:
    """``text`` as a fenced code block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, text, fence]


_ATX_HEADING = re.compile(r"( {0,3})(#{1,6})(?=[ \t]|$)")
_FENCE_OPENER = re.compile(r" {0,3}(`{3,}|~{3,})")


def under_a_turn(markdown: str) -> str:
    """A message's Markdown with its headings two levels down (``#`` -> ``###``, at most
    ``######``), so that they nest under the export's ``## You`` / ``## Agent`` instead of
    reading as turns of their own; nothing inside a code fence changes."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
        elif opener := _FENCE_OPENER.match(line):
            fence = opener.group(1)
        elif heading := _ATX_HEADING.match(line):
            indent, hashes = heading.groups()
            line = indent + "#" * min(6, len(hashes) + 2) + line[heading.end() :]
        out.append(line)
    return "\n".join(out)


#: Finds a session by id (a subagent's, for its transcript nested under its card).
Lookup = Callable[[str], SessionState | None]
#: How deep subagents of subagents are nested at most.
_MAX_DEPTH = 8


class _Markdown:
    """The Markdown of each kind of entry (an :class:`~acp_tui.store.entries.EntryVisitor`),
    appended to the context, the lines of the export. A subagent's transcript is nested
    under its card, quoted, when ``lookup`` finds it."""

    def __init__(self, lookup: Lookup | None = None, depth: int = 0) -> None:
        self.lookup = lookup
        self.depth = depth

    def user_message(self, entry: UserMessage, lines: list[str], /) -> None:
        lines += ["## You", "", under_a_turn(sanitize_terminal_text(entry.text)), ""]
        attached = [describe_block(block) for block in entry.content]
        lines += [f"- attached: {md_line(a.label(), 500)}" for a in attached if a is not None]
        if any(attached):
            lines.append("")

    def agent_thought(self, entry: AgentThought, lines: list[str], /) -> None:
        text = sanitize_terminal_text(entry.text)
        quoted = "\n".join("> " + line for line in text.splitlines())
        lines += ["<details><summary>Thinking</summary>", "", quoted, "", "</details>", ""]

    def agent_message(self, entry: AgentMessage, lines: list[str], /) -> None:
        lines += ["## Agent", "", under_a_turn(sanitize_terminal_text(entry.text)), ""]

    def tool_call(self, entry: ToolCall, lines: list[str], /) -> None:
        lines.append(
            f"**Tool** {md_line(entry.tool_kind, 40)}: {md_line(entry.title)}"
            f" — _{md_line((entry.status or 'pending').replace('_', ' '), 40)}_"
        )
        command = entry.command_untitled
        if command:
            lines += ["", *fenced(sanitize_terminal_text(f"$ {command}"), "sh")]
        for diff in entry.diffs:
            old = [f"-{line}" for line in split_lines(diff.old_text)]
            new = [f"+{line}" for line in split_lines(diff.new_text)]
            body = "\n".join([f"# {one_line(diff.path, 1000)}", *old, *new])
            lines += ["", *fenced(sanitize_terminal_text(body), "diff")]
        if entry.text:
            # Output the agent already fenced (claude-agent-acp's ```console) is fenced
            # once, not shown with its own fence lines inside ours.
            lines += ["", *fenced(sanitize_terminal_text(unfenced(entry.text)))]
        lines.append("")

    def plan(self, entry: PlanSnapshot, lines: list[str], /) -> None:
        lines.append("**Plan** (removed)" if entry.removed else "**Plan**")
        if entry.markdown is not None:
            lines += [*fenced(sanitize_terminal_text(entry.markdown), "markdown")]
        elif entry.file_uri is not None:
            lines.append(f"In {md_line(entry.file_uri, 2000)}")
        marks = {"completed": "x", "in_progress": "~"}
        for item in entry.items:
            mark = marks.get(item.status, " ")
            lines.append(f"- [{mark}] {md_line(item.content, 2000)}")
        lines.append("")

    def notice(self, entry: Notice, lines: list[str], /) -> None:
        if entry.source == "agent":
            return  # the agent's notices are live events, not the conversation
        lines += [f"_{md_line(entry.title, 2000)}_", ""]

    def compaction(self, entry: Compaction, lines: list[str], /) -> None:
        lines += [f"_context compaction: {md_line(entry.status, 40)}_", ""]

    def subagent(self, entry: SubagentCard, lines: list[str], /) -> None:
        status = (entry.status or "started").replace("_", " ")
        lines += [f"**Subagent** {md_line(entry.label)} — _{md_line(status, 40)}_"]
        if entry.description and entry.description != entry.label:
            lines.append(f"{md_line(entry.description, 2000)}")
        child = self.lookup(entry.child_id) if self.lookup is not None else None
        if child is not None and self.depth < _MAX_DEPTH:
            nested: list[str] = [""]
            inner = _Markdown(self.lookup, self.depth + 1)
            for child_entry in child.transcript:
                child_entry.accept(inner, nested)
            lines += [("> " + line).rstrip() for line in nested]
        lines.append("")

    def session_message(self, entry: SessionMessage, lines: list[str], /) -> None:
        sender = self.lookup(entry.sender_id) if self.lookup and entry.sender_id else None
        name = sender.card.label if sender is not None and sender.card is not None else None
        who = f"From {md_line(name or entry.sender_id or 'another session', 200)}"
        lines += [f"## {who}", "", under_a_turn(sanitize_terminal_text(entry.text)), ""]

    def shell_run(self, entry: ShellRun, lines: list[str], /) -> None:
        status = shell_status(entry.exit_code)
        lines += [f"**Shell** `$ {md_line(entry.command, 2000)}` — _{status}_"]
        lines += [*fenced(entry.screen.text(), "text"), ""]

    def unknown(self, entry: UnknownUpdate, lines: list[str], /) -> None:
        try:
            raw = json.dumps(entry.raw, default=str, ensure_ascii=False)[:500]
        except (ValueError, RecursionError):
            raw = "(too deeply nested to show)"
        lines += [
            f"_unknown update: {md_line(entry.update_kind or '?', 80)}_",
            *fenced(sanitize_terminal_text(raw), "json"),
            "",
        ]


def transcript_markdown(state: SessionState, lookup: Lookup | None = None) -> str:
    """The whole conversation as Markdown: what a person would paste into an issue. Messages
    are the agent's Markdown (their headings nested under the turn's); every other agent
    string (titles, kinds, paths, plan entries, notices) is escaped so it reads as written,
    and code blocks cannot be broken out of. ``lookup`` finds the session's subagents: each
    one's transcript is nested under its card."""
    lines = [f"# {md_line(state.display_title)}", "", f"- session: {md_line(state.id, 200)}"]
    if state.cwd:
        lines.append(f"- directory: {md_line(state.cwd, 1000)}")
    lines.append("")
    markdown = _Markdown(lookup)
    for entry in state.transcript:
        entry.accept(markdown, lines)
    return "\n".join(lines).rstrip() + "\n"


def write_export(directory: Path, state: SessionState, text: str) -> Path:
    """Write ``text`` to a new ``acp-tui-<title>-<time>.md`` in ``directory`` (acp-tui's
    exports folder, kept at 0700), through the path gate: the file is created new, mode
    0600, never over a file or link already at its name. Returns its path.
    Raises :class:`OSError` or :class:`~acp_tui.services.path_gate.PathRefused`."""
    stem = _UNSAFE.sub("-", state.display_title[:200])[:40].strip("-") or "session"
    name = f"acp-tui-{stem}-{time.strftime('%Y%m%d-%H%M%S')}.md"
    path, file = create_new(private_directory(directory), name)
    try:
        with file:
            file.write(encodable(text).encode("utf-8"))
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path
