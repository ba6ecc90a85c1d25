"""Transcript export as Markdown, written into acp-tui's exports folder (not the project).

Every string of the transcript (the person's, the agent's, a tool's) passes through a
:data:`Scrub` before it is escaped or fenced: redaction (:mod:`acp_tui.text.redaction`) sees
the text as written, and what it puts in is escaped like the rest."""

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
from acp_tui.text.lines import split_lines
from acp_tui.text.redaction import Redactor
from acp_tui.text.safety import encodable, one_line, sanitize_terminal_text
from acp_tui.text.terminal_screen import exit_words as shell_status

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
#: Each string of the transcript on its way into the export: ``(text, where) -> text``, where
#: says which entry it is from (for redaction's review).
Scrub = Callable[[str, str], str]


def as_written(text: str, where: str) -> str:
    """The :data:`Scrub` of an export that is not redacted."""
    return text


#: How deep subagents of subagents are nested at most.
_MAX_DEPTH = 8


class _Markdown:
    """The Markdown of each kind of entry (an :class:`~acp_tui.store.entries.EntryVisitor`),
    appended to the context, the lines of the export. A subagent's transcript is nested
    under its card, quoted, when ``lookup`` finds it."""

    def __init__(
        self,
        lookup: Lookup | None = None,
        depth: int = 0,
        *,
        scrub: Scrub = as_written,
        for_html: bool = False,
        place: str = "",
    ) -> None:
        self.lookup = lookup
        self.depth = depth
        self.scrub = scrub
        #: The page is made HTML of (raw HTML in it would be escaped): no <details>.
        self.for_html = for_html
        #: Where the entry being written is (its number, and its subagent's).
        self.place = place
        self.number = 0

    def at(self, number: int) -> None:
        """The next entry is the transcript's ``number``-th."""
        self.number = number

    def _s(self, text: object, what: str) -> str:
        """``text`` as the export shows it (redacted, if it is), said to be ``what``."""
        where = f"{self.place}entry {self.number} ({what})"
        return self.scrub(text if isinstance(text, str) else str(text or ""), where)

    def user_message(self, entry: UserMessage, lines: list[str], /) -> None:
        text = self._s(entry.text, "your message")
        lines += ["## You", "", under_a_turn(sanitize_terminal_text(text)), ""]
        attached = [describe_block(block) for block in entry.content]
        lines += [
            f"- attached: {md_line(self._s(a.label(), 'attachment'), 500)}"
            for a in attached
            if a is not None
        ]
        if any(attached):
            lines.append("")

    def agent_thought(self, entry: AgentThought, lines: list[str], /) -> None:
        text = sanitize_terminal_text(self._s(entry.text, "thought"))
        quoted = "\n".join("> " + line for line in text.splitlines())
        if self.for_html:
            lines += ["_Thinking_", "", quoted, ""]
            return
        lines += ["<details><summary>Thinking</summary>", "", quoted, "", "</details>", ""]

    def agent_message(self, entry: AgentMessage, lines: list[str], /) -> None:
        text = self._s(entry.text, "agent's reply")
        lines += ["## Agent", "", under_a_turn(sanitize_terminal_text(text)), ""]

    def tool_call(self, entry: ToolCall, lines: list[str], /) -> None:
        lines.append(
            f"**Tool** {md_line(entry.tool_kind, 40)}: {md_line(self._s(entry.title, 'tool'))}"
            f" — _{md_line((entry.status or 'pending').replace('_', ' '), 40)}_"
        )
        command = entry.command_untitled
        if command:
            command = self._s(command, "command")
            lines += ["", *fenced(sanitize_terminal_text(f"$ {command}"), "sh")]
        for diff in entry.diffs:
            old = [f"-{line}" for line in split_lines(diff.old_text)]
            new = [f"+{line}" for line in split_lines(diff.new_text)]
            body = "\n".join([f"# {one_line(diff.path, 1000)}", *old, *new])
            lines += ["", *fenced(sanitize_terminal_text(self._s(body, "diff")), "diff")]
        if entry.text:
            # Output the agent already fenced (claude-agent-acp's ```console) is fenced
            # once, not shown with its own fence lines inside ours.
            output = self._s(unfenced(entry.text), "tool output")
            lines += ["", *fenced(sanitize_terminal_text(output))]
        lines.append("")

    def plan(self, entry: PlanSnapshot, lines: list[str], /) -> None:
        lines.append("**Plan** (removed)" if entry.removed else "**Plan**")
        if entry.markdown is not None:
            plan = self._s(entry.markdown, "plan")
            lines += [*fenced(sanitize_terminal_text(plan), "markdown")]
        elif entry.file_uri is not None:
            lines.append(f"In {md_line(self._s(entry.file_uri, 'plan'), 2000)}")
        marks = {"completed": "x", "in_progress": "~"}
        for item in entry.items:
            mark = marks.get(item.status, " ")
            lines.append(f"- [{mark}] {md_line(self._s(item.content, 'plan'), 2000)}")
        lines.append("")

    def notice(self, entry: Notice, lines: list[str], /) -> None:
        if entry.source == "agent":
            return  # the agent's notices are live events, not the conversation
        lines += [f"_{md_line(self._s(entry.title, 'notice'), 2000)}_", ""]

    def compaction(self, entry: Compaction, lines: list[str], /) -> None:
        lines += [f"_context compaction: {md_line(entry.status, 40)}_", ""]

    def subagent(self, entry: SubagentCard, lines: list[str], /) -> None:
        status = (entry.status or "started").replace("_", " ")
        label = md_line(self._s(entry.label, "subagent"))
        lines += [f"**Subagent** {label} — _{md_line(status, 40)}_"]
        if entry.description and entry.description != entry.label:
            lines.append(f"{md_line(self._s(entry.description, 'subagent'), 2000)}")
        child = self.lookup(entry.child_id) if self.lookup is not None else None
        if child is not None and self.depth < _MAX_DEPTH:
            nested: list[str] = [""]
            inner = _Markdown(
                self.lookup,
                self.depth + 1,
                scrub=self.scrub,
                for_html=self.for_html,
                place=f"{self.place}entry {self.number}, subagent's ",
            )
            for number, child_entry in enumerate(child.transcript, 1):
                inner.at(number)
                child_entry.accept(inner, nested)
            lines += [("> " + line).rstrip() for line in nested]
        lines.append("")

    def session_message(self, entry: SessionMessage, lines: list[str], /) -> None:
        sender = self.lookup(entry.sender_id) if self.lookup and entry.sender_id else None
        name = sender.card.label if sender is not None and sender.card is not None else None
        who = (
            f"From {md_line(self._s(name or entry.sender_id or 'another session', 'sender'), 200)}"
        )
        text = self._s(entry.text, "message from a session")
        lines += [f"## {who}", "", under_a_turn(sanitize_terminal_text(text)), ""]

    def shell_run(self, entry: ShellRun, lines: list[str], /) -> None:
        status = shell_status(entry.exit_code)
        command = md_line(self._s(entry.command, "shell command"), 2000)
        lines += [f"**Shell** `$ {command}` — _{status}_"]
        lines += [*fenced(self._s(entry.screen.text(), "shell output"), "text"), ""]

    def unknown(self, entry: UnknownUpdate, lines: list[str], /) -> None:
        try:
            raw = json.dumps(entry.raw, default=str, ensure_ascii=False)[:500]
        except (ValueError, RecursionError):
            raw = "(too deeply nested to show)"
        lines += [
            f"_unknown update: {md_line(entry.update_kind or '?', 80)}_",
            *fenced(sanitize_terminal_text(self._s(raw, "unknown update")), "json"),
            "",
        ]


def transcript_markdown(
    state: SessionState,
    lookup: Lookup | None = None,
    *,
    redactor: Redactor | None = None,
    for_html: bool = False,
) -> str:
    """The whole conversation as Markdown: what a person would paste into an issue. Messages
    are the agent's Markdown (their headings nested under the turn's); every other agent
    string (titles, kinds, paths, plan entries, notices) is escaped so it reads as written,
    and code blocks cannot be broken out of. ``lookup`` finds the session's subagents: each
    one's transcript is nested under its card.

    With a ``redactor``, every string is redacted (its findings collected in it, those it
    was told are undone left as written) and the export says so at its top, with the rules."""
    scrub: Scrub = redactor.scrub if redactor is not None else as_written
    title = md_line(scrub(state.display_title, "title"))
    body = ["", f"- session: {md_line(state.id, 200)}"]
    if state.cwd:
        body.append(f"- directory: {md_line(scrub(state.cwd, 'directory'), 1000)}")
    body.append("")
    markdown = _Markdown(lookup, scrub=scrub, for_html=for_html)
    for number, entry in enumerate(state.transcript, 1):
        markdown.at(number)
        entry.accept(markdown, body)
    head = [f"# {title}"]
    if redactor is not None:
        head += ["", *redaction_note(redactor)]
    return "\n".join(head + body).rstrip() + "\n"


def redaction_note(redactor: Redactor) -> list[str]:
    """The note at the top of a redacted export: how much was redacted, what the person left
    as written, and by which rules."""
    undone = sum(1 for finding in redactor.findings if redactor.is_undone(finding))
    kinds: dict[str, int] = {}
    for finding in redactor.findings:
        if not redactor.is_undone(finding):
            kinds[finding.kind] = kinds.get(finding.kind, 0) + 1
    what = ", ".join(f"{count} × {kind}" for kind, count in kinds.items()) or "nothing found"
    kept = f"; {undone} left as written by the person" if undone else ""
    rules = "; ".join(redactor.rules)
    return [
        f"> **Redacted by acp-tui** before sharing: {md_line(what, 2000)}{kept}.",
        ">",
        f"> Rules: {md_line(rules, 4000)}.",
    ]


def write_export(
    directory: Path,
    state: SessionState,
    text: str,
    suffix: str = ".md",
    *,
    title: str | None = None,
) -> Path:
    """Write ``text`` to a new ``acp-tui-<title>-<time><suffix>`` in ``directory`` (acp-tui's
    exports folder, kept at 0700), through the path gate: the file is created new, mode
    0600, never over a file or link already at its name. Returns its path.
    ``title`` names the file instead of the session's title (a redacted export's, which may
    have lost a secret). Raises :class:`OSError` or
    :class:`~acp_tui.services.path_gate.PathRefused`."""
    named = state.display_title if title is None else title
    stem = _UNSAFE.sub("-", named[:200])[:40].strip("-") or "session"
    name = f"acp-tui-{stem}-{time.strftime('%Y%m%d-%H%M%S')}{suffix}"
    path, file = create_new(private_directory(directory), name)
    try:
        with file:
            file.write(encodable(text).encode("utf-8"))
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path
