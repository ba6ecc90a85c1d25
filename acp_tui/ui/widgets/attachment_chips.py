"""Attachment chips: what a message carries besides its text, one line per block.

An image, an embedded file, audio or a link shows as its name, type and size (from
:func:`acp_tui.session.prompts.attachments.describe_block`), never as its data: a base64 payload is never drawn.
Names come from the agent or the disk and are shown literally, on one line, a character
that is not printable as its escape (as the ``@`` list shows a file name).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from textual.content import Content

from acp_tui.session.prompts.attachments import describe_block, format_size
from acp_tui.text.safety import escaped_line
from acp_tui.ui.agent_text import line_of

__all__ = ["KIND_LABELS", "attachment_chips"]

#: The tag a chip starts with, by what the block is.
KIND_LABELS = {
    "image": "image",
    "audio": "audio",
    "file": "file",
    "link": "link",
}
NAME_LIMIT = 120


def attachment_chips(blocks: Iterable[Any]) -> Content:
    """One chip a line for every non-text block; empty content when there is none."""
    lines: list[Content] = []
    for block in blocks:
        if not isinstance(block, Mapping):
            continue
        attachment = describe_block(block)
        if attachment is None:
            continue
        details = [attachment.mime or KIND_LABELS.get(attachment.kind, attachment.kind)]
        if attachment.size is not None:
            details.append(format_size(attachment.size))
        lines.append(
            Content.assemble(
                (
                    f" {KIND_LABELS.get(attachment.kind, 'block')} ",
                    "bold $text-accent on $accent-muted",
                ),
                " ",
                (escaped_line(attachment.name, NAME_LIMIT), "$foreground"),
                (" · " + " · ".join(line_of(d, 60) for d in details), "$foreground-muted"),
            )
        )
    return Content("\n").join(lines) if lines else Content("")
