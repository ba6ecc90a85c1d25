"""What a tool call carries, read once: typed views of its ``content`` items, ``locations`` and
``rawInput``, for everything that shows a tool call (the transcript, the permission dialog,
the export, headless).

The store keeps a tool call's wire lists as received (``ToolCall.content``, ``.locations``,
``.raw_input``); these functions turn them into small frozen values, skipping what is not
well-formed, and never raise, whatever the agent sent. Spec:
https://agentclientprotocol.com/protocol/v1/tool-calls
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

__all__ = [
    "TOOL_ALLOWED",
    "TOOL_CANCELLED",
    "TOOL_INTERRUPTED",
    "TOOL_NOT_RUN",
    "TOOL_REJECTED",
    "ContentPart",
    "FileDiff",
    "FileLocation",
    "SessionRef",
    "TerminalRef",
    "ToolOutput",
    "command_line",
    "file_locations",
    "tool_call_fields",
    "tool_outputs",
]


#: Statuses the client gives a tool call the agent left unfinished: ``cancelled`` as the person
#: cancels its turn (the spec's advice to clients), ``interrupted`` when the turn failed (the
#: agent exited, or answered the prompt with an error). The agent's later updates replace them.
TOOL_CANCELLED = "cancelled"
TOOL_INTERRUPTED = "interrupted"
#: The person rejected the tool call's permission request (until the agent says otherwise).
TOOL_REJECTED = "rejected"
#: The person allowed the permission request of a tool call not started yet, and the agent
#: has said nothing of it since (OpenHands asks for a made-up tool call it never updates: it
#: read "not run" at the turn's end though it ran).
TOOL_ALLOWED = "allowed"
#: The turn ended (the agent answered the prompt) with the tool call not finished: it was
#: never run, or never reported (Qwen Code sends no update after a rejection).
TOOL_NOT_RUN = "not_run"


class FileDiff(NamedTuple):
    """A ``diff`` item: a file's text before (``None`` for a new file) and after. ``path`` is
    ``""`` when the agent sent none. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#content"""

    path: str
    old_text: str | None
    new_text: str

    @property
    def is_new_file(self) -> bool:
        return self.old_text is None


class TerminalRef(NamedTuple):
    """A ``terminal`` item: a terminal (``terminal/create``) shown in the tool call. Spec:
    https://agentclientprotocol.com/protocol/v1/terminals"""

    terminal_id: str


class SessionRef(NamedTuple):
    """A ``session`` item: the tool call's work is a child session (a subagent), shown on its
    own. Spec: https://agentclientprotocol.com/protocol/v1/subagents"""

    session_id: str


class ContentPart(NamedTuple):
    """A ``content`` item: a content block the tool produced. ``block_type`` is the block's
    ``type`` (``""`` when missing or not a string); ``text`` its text, for a text block. Spec:
    https://agentclientprotocol.com/protocol/v1/tool-calls#content"""

    block_type: str
    text: str | None


ToolOutput = FileDiff | TerminalRef | SessionRef | ContentPart


class FileLocation(NamedTuple):
    """A file a tool call reads or changes (``line`` is 1-based, ``None`` when not given).
    Spec: https://agentclientprotocol.com/protocol/v1/tool-calls#following-the-agent"""

    path: str
    line: int | None = None

    @property
    def label(self) -> str:
        """``path:line``, or the path alone."""
        return self.path if self.line is None else f"{self.path}:{self.line}"


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def tool_outputs(content: Any) -> Iterator[ToolOutput]:
    """The items of a tool call's ``content`` list in order, typed; items of an unknown type or
    of the wrong shape (not an object, a terminal or session without an id) are left out."""
    if not isinstance(content, list):
        return
    for item in content:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "diff":
            yield FileDiff(
                path=_str(item.get("path")) or "",
                old_text=_str(item.get("oldText")),
                new_text=_str(item.get("newText")) or "",
            )
        elif kind == "terminal":
            terminal_id = _str(item.get("terminalId"))
            if terminal_id is not None:
                yield TerminalRef(terminal_id)
        elif kind == "session":
            session_id = _str(item.get("sessionId"))
            if session_id:
                yield SessionRef(session_id)
        elif kind == "content":
            block = item.get("content")
            if isinstance(block, Mapping):
                yield ContentPart(_str(block.get("type")) or "", _str(block.get("text")))


def file_locations(locations: Any) -> list[FileLocation]:
    """A tool call's ``locations``, typed; entries without a path are left out."""
    if not isinstance(locations, list):
        return []
    out: list[FileLocation] = []
    for location in locations:
        if isinstance(location, Mapping):
            path = _str(location.get("path"))
            if path:
                out.append(FileLocation(path, _int(location.get("line"))))
    return out


def _words(value: object) -> str | None:
    """A non-empty list of strings, joined as a shell would read it back."""
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return shlex.join(value)
    return None


def command_line(raw_input: Any, *, executes: bool = False) -> str | None:
    """The whole command line a tool call's ``rawInput`` describes: ``command`` or ``cmd`` (a
    string or a list of words), then ``args``, ``argv`` or ``arguments`` (a list of words).
    ``rawInput`` is free-form in the spec; these are the spellings agents use. ``executes``:
    the tool call is of kind ``execute``, where a bare string input is the command itself."""
    if isinstance(raw_input, str):
        return raw_input if executes and raw_input else None
    if not isinstance(raw_input, Mapping):
        return None
    parts: list[str] = []
    for key in ("command", "cmd"):
        value = raw_input.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value)
            break
        if (words := _words(value)) is not None:
            parts.append(words)
            break
    for key in ("args", "argv", "arguments"):
        if (words := _words(raw_input.get(key))) is not None:
            parts.append(words)
            break
    return " ".join(parts) if parts else None


def tool_call_fields(fields: object) -> dict[str, Any]:
    """The attributes of a :class:`~acp_tui.store.entries.ToolCall` that the wire
    ``ToolCallUpdate`` ``fields`` set: those present, not ``null`` and of the right type;
    others are ignored."""
    out: dict[str, Any] = {}
    if not isinstance(fields, Mapping):
        return out
    for key, attribute in (
        ("title", "title"),
        ("name", "name"),
        ("kind", "tool_kind"),
        ("status", "status"),
    ):
        value = fields.get(key)
        if isinstance(value, str):
            out[attribute] = value
    for key, attribute in (("content", "content"), ("locations", "locations")):
        value = fields.get(key)
        if isinstance(value, list):
            out[attribute] = [item for item in value if isinstance(item, dict)]
    for key, attribute in (("rawInput", "raw_input"), ("rawOutput", "raw_output")):
        if fields.get(key) is not None:
            out[attribute] = fields[key]
    return out
