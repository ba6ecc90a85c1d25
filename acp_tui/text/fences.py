"""Tool output that comes as one fenced Markdown code block.

claude-agent-acp sends a command's output as a tool call's text content wrapped in a fence
(```` ```console ```` ... ```` ``` ````), meant for a Markdown view; shown as plain text, the
fence lines read as part of the output. Pure text: no Textual.
"""

from __future__ import annotations

import re

__all__ = ["unfenced"]

_OPENING = re.compile(r"(`{3,}|~{3,})[^`]*")


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(marker) and set(stripped) == {marker[0]}


def unfenced(text: str) -> str:
    """The inside of ``text`` when it is exactly one fenced code block, else ``text``."""
    if not text.lstrip("\n").startswith(("```", "~~~")):
        return text  # most output: no line is split
    lines = text.strip("\n").split("\n")
    if len(lines) < 2:
        return text
    opening = _OPENING.fullmatch(lines[0].rstrip())
    if opening is None:
        return text
    marker = opening.group(1)
    inside = lines[1:-1]
    if not _closes(lines[-1], marker) or any(_closes(line, marker) for line in inside):
        return text  # not closed where the text ends, or more than one block
    return "\n".join(inside)
