"""The prompts an agent predicts the person will send next (``prompt_suggestions_update``,
unstable: https://agentclientprotocol.com/rfds/prompt-suggestions).

The most recent update is the session's list until the next one; an empty list withdraws
them. They are not history: a replay's are not taken, and the list is dropped when the
person sends a message (it predicted that message). A suggestion is sent only when the
person takes one, and then as the agent wrote it: its blocks go out unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_tui.text.safety import one_line

__all__ = ["LABEL_LIMIT", "PromptSuggestion", "suggestions_of"]

#: A chip shows at most this many characters of a suggestion.
LABEL_LIMIT = 60


@dataclass(frozen=True, slots=True)
class PromptSuggestion:
    """One suggested prompt: the blocks to send, and its text for a person."""

    blocks: tuple[dict[str, Any], ...]
    #: The prompt's text (its text blocks; a link by its name), as the agent wrote it.
    text: str

    @property
    def label(self) -> str:
        """One line, cut: what a chip says (the byte gate still applies where it is drawn)."""
        return one_line(self.text, LABEL_LIMIT)


def _text(blocks: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind == "resource_link":
            name = block.get("name") or block.get("uri")
            if isinstance(name, str):
                parts.append(f"@{name}")
    return " ".join(part for part in parts if part)


def suggestions_of(items: list[dict[str, Any]]) -> tuple[PromptSuggestion, ...]:
    """The suggestions of an update's (checked) list, in its order; one with no text to show
    (only blank text, or blocks a person cannot read) is left out: a chip must say what it
    sends."""
    found: list[PromptSuggestion] = []
    for item in items:
        blocks = [dict(b) for b in item.get("prompt", []) if isinstance(b, dict)]
        text = _text(blocks)
        if text.strip():
            found.append(PromptSuggestion(tuple(blocks), text))
    return tuple(found)
