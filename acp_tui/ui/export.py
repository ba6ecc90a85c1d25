"""Transcript export as Markdown, written atomically beside the project."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path

from acp_tui.store.entries import (
    AgentMessage,
    AgentThought,
    Notice,
    PlanSnapshot,
    ToolCall,
    UnknownUpdate,
    UserMessage,
)
from acp_tui.store.session import SessionState
from acp_tui.text_safety import encodable, sanitize_terminal_text

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def transcript_markdown(state: SessionState) -> str:
    """The whole conversation as Markdown: what a person would paste into an issue."""
    title = sanitize_terminal_text(state.display_title)
    lines = [f"# {title}", "", f"- session: `{state.id}`"]
    if state.cwd:
        lines.append(f"- directory: `{state.cwd}`")
    lines.append("")
    for entry in state.transcript:
        if isinstance(entry, UserMessage):
            lines += ["## You", "", entry.text, ""]
        elif isinstance(entry, AgentThought):
            quoted = "\n".join("> " + line for line in entry.text.splitlines())
            lines += ["<details><summary>Thinking</summary>", "", quoted, "", "</details>", ""]
        elif isinstance(entry, AgentMessage):
            lines += ["## Agent", "", entry.text, ""]
        elif isinstance(entry, ToolCall):
            lines.append(f"**Tool** `{entry.tool_kind}`: {entry.title} — _{entry.status}_")
            for diff in entry.diffs:
                lines += ["", f"```diff\n# {diff.get('path', '')}"]
                old = (diff.get("oldText") or "").splitlines()
                new = (diff.get("newText") or "").splitlines()
                lines += [f"-{line}" for line in old] + [f"+{line}" for line in new] + ["```"]
            if entry.text:
                lines += ["", "```", entry.text, "```"]
            lines.append("")
        elif isinstance(entry, PlanSnapshot):
            lines.append("**Plan**")
            marks = {"completed": "x", "in_progress": "~"}
            for item in entry.entries or []:
                if isinstance(item, dict):
                    lines.append(
                        f"- [{marks.get(str(item.get('status')), ' ')}] {item.get('content', '')}"
                    )
            lines.append("")
        elif isinstance(entry, Notice):
            lines += [f"_{entry.title}_", ""]
        elif isinstance(entry, UnknownUpdate):
            try:
                raw = json.dumps(entry.raw, default=str)[:500]
            except (ValueError, RecursionError):
                raw = "(too deeply nested to show)"
            lines += [f"<!-- unknown update: {raw} -->", ""]
    return "\n".join(lines).rstrip() + "\n"


def write_export(directory: Path, state: SessionState, text: str) -> Path:
    """Write ``text`` to ``acp-tui-<title>-<time>.md`` in ``directory`` atomically."""
    stem = _UNSAFE.sub("-", state.display_title)[:40].strip("-") or "session"
    path = directory / f"acp-tui-{stem}-{time.strftime('%Y%m%d-%H%M%S')}.md"
    handle, temp = tempfile.mkstemp(dir=directory, prefix=".acp-tui-export-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(encodable(text))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path
