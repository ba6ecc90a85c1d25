"""Rewinding a conversation, honestly: a new session from before a turn (no Textual).

No ACP agent can yet be told "forget everything after message N" of a session it holds.
So a conversation rewind opens a **new** session (the old one is kept, never deleted):

- titled ``<title> (rewound to turn N)``;
- starting with the conversation up to that turn as context, carried by the first prompt
  the person sends in it (an embedded resource when the agent takes ``embeddedContext``,
  else text);
- labelled in its transcript as a reconstruction: the agent reads that conversation, it did
  not live it (its own memory of tool results, files read, reasoning is not there).

:func:`conversation_before` is the conversation up to a user message, as Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acp_tui.session.agent.ops import rename
from acp_tui.session.errors import SessionError
from acp_tui.session.prompts.attachments import PromptCapabilities
from acp_tui.store.entries import AgentMessage, Entry, ToolCall, UserMessage

if TYPE_CHECKING:
    from acp_tui.session.agent.controller import SessionController
    from acp_tui.store.local_index import LocalIndex

__all__ = ["RECONSTRUCTION_NOTE", "conversation_before", "rewind_conversation"]

RECONSTRUCTION_NOTE = (
    "A reconstruction: this new session starts from the conversation of “{title}” up to turn "
    "{turn}, given to the agent as context with your first message. The agent reads that "
    "conversation; it did not live it (what its tools saw then is not in its memory). The "
    "original session is kept."
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
    text = conversation_before(source.transcript, before_entry)
    title = f"{source.display_title} (rewound to turn {turn})"
    new_id = await controller.new_session(source.cwd or None)
    agent = controller.agent
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
        description=RECONSTRUCTION_NOTE.format(title=source.display_title, turn=turn),
    )
    return new_id
