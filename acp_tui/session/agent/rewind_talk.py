"""Rewinding a conversation, honestly: a new session from before a turn (no Textual).

A conversation rewind opens a **new** session (the old one is kept, never deleted), titled
``<title> (rewound to turn N)``:

- **an exact fork** where the agent forks at a message (``session/fork`` with a
  ``messageId``, the fork-at-message RFD) and the conversation before the turn ends with a
  message the agent named: the branch is the agent's own conversation up to that message;
- otherwise (or when that fork fails, said in the transcript) **a reconstruction**: the
  conversation up to that turn is carried as context by the first prompt the person sends in
  it (an embedded resource when the agent takes ``embeddedContext``, else text), labelled as
  such: the agent reads that conversation, it did not live it (its own memory of tool
  results, files read, reasoning is not there).

:func:`conversation_before` is the conversation up to a user message, as Markdown;
:func:`fork_point` the message an exact fork stops at.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acp_tui.session.agent.ops import fork, rename
from acp_tui.session.errors import SessionError
from acp_tui.session.prompts.attachments import PromptCapabilities
from acp_tui.store.entries import AgentMessage, Entry, MessageEntry, ToolCall, UserMessage

if TYPE_CHECKING:
    from acp_tui.session.agent.controller import SessionController
    from acp_tui.store.local_index import LocalIndex

__all__ = [
    "EXACT_NOTE",
    "RECONSTRUCTION_NOTE",
    "conversation_before",
    "fork_point",
    "rewind_conversation",
]

RECONSTRUCTION_NOTE = (
    "A reconstruction: this new session starts from the conversation of “{title}” up to turn "
    "{turn}, given to the agent as context with your first message. The agent reads that "
    "conversation; it did not live it (what its tools saw then is not in its memory). The "
    "original session is kept."
)
EXACT_NOTE = (
    "An exact fork: the agent branched “{title}” at its last message before turn {turn} "
    "(session/fork at that message). This session is the agent's own conversation up to "
    "there; the original session is kept."
)


def conversation_before(entries: Sequence[Entry], before_entry: int | None) -> str:
    """The messages (and tool calls, one line each) before the entry ``before_entry`` (None:
    all of them), as Markdown."""
    parts: list[str] = []
    for entry in entries:
        if before_entry is not None and entry.id == before_entry:
            break
        if isinstance(entry, UserMessage) and entry.text.strip():
            parts.append(f"## User\n\n{entry.text.strip()}")
        elif isinstance(entry, AgentMessage) and entry.text.strip():
            parts.append(f"## Agent\n\n{entry.text.strip()}")
        elif isinstance(entry, ToolCall):
            parts.append(f"- tool call: {entry.title or entry.tool_kind} ({entry.status})")
    return "\n\n".join(parts)


def fork_point(entries: Sequence[Entry], before_entry: int | None) -> tuple[str, int] | None:
    """Where an exact fork before the user message ``before_entry`` stops: the agent's id of
    the last message before it, and ``before_entry``. None when there is no such message,
    the agent gave it no id, or a tool call follows it (a fork at that message would lose
    the call)."""
    if before_entry is None:
        return None
    last: MessageEntry | None = None
    for entry in entries:
        if entry.id == before_entry:
            return (last.message_id, before_entry) if last and last.message_id else None
        if entry.__class__ in (UserMessage, AgentMessage):
            assert isinstance(entry, MessageEntry)
            last = entry
        elif isinstance(entry, ToolCall):
            last = None
    return None


def _context_blocks(text: str, caps: PromptCapabilities, uri: str) -> list[dict[str, Any]]:
    preface = (
        "The conversation so far, reconstructed by the client (acp-tui) after a rewind: "
        "continue from it."
    )
    if caps.embedded_context:
        return [
            {"type": "text", "text": preface},
            {
                "type": "resource",
                "resource": {"uri": uri, "mimeType": "text/markdown", "text": text},
            },
        ]
    return [{"type": "text", "text": f"{preface}\n\n{text}\n\n---\n"}]


async def rewind_conversation(
    controller: SessionController,
    source_id: str,
    turn: int,
    before_entry: int | None,
    *,
    index: LocalIndex | None = None,
) -> str:
    """A new session from before turn ``turn`` of ``source_id`` (the user message
    ``before_entry``; see the module docstring). Returns its id; it is shown."""
    source = controller.store.get(source_id)
    if source is None:
        raise SessionError("that session is not open here")
    title = f"{source.display_title} (rewound to turn {turn})"
    agent = controller.agent
    point = fork_point(source.transcript, before_entry)
    failed = ""
    if point is not None and agent is not None and agent.can_fork_at_message:
        try:
            new_id = await fork(controller, source_id, index=index, at=point, title=title)
        except SessionError as error:
            failed = f"The agent could not fork at that message ({error}).\n\n"
        else:
            controller.store.add_notice(
                new_id,
                "Rewound conversation (an exact fork)",
                severity="info",
                description=EXACT_NOTE.format(title=source.display_title, turn=turn),
            )
            return new_id
    text = conversation_before(source.transcript, before_entry)
    new_id = await controller.new_session(source.cwd or None)
    caps = PromptCapabilities.from_agent(agent.capabilities) if agent else PromptCapabilities()
    if text:
        controller.turns.carry_context(
            new_id, _context_blocks(text, caps, f"acp-tui://rewind/turn-{turn}.md")
        )
    try:
        await rename(controller.store, controller, new_id, title, index=index)
    except (SessionError, ValueError):
        controller.store.pin_title(new_id, title)
    controller.store.add_notice(
        new_id,
        "Rewound conversation (a reconstruction)",
        severity="info",
        description=failed + RECONSTRUCTION_NOTE.format(title=source.display_title, turn=turn),
    )
    return new_id
