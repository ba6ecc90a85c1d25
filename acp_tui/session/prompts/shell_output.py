"""A shell-mode command's output, attached to the next prompt (``!!cmd``, or "attach to the
next message" on its block): an embedded resource where the agent takes embedded context,
else text in a fenced block. The command and how it ended go before it, in words."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from acp_tui.session.prompts.attachments import PromptCapabilities

__all__ = ["shell_output_blocks"]

#: The most output attached (characters, its end kept): a prompt stays a prompt.
ATTACH_LIMIT = 100_000


def shell_output_blocks(
    command: str, output: str, status: str, caps: PromptCapabilities, number: int = 1
) -> list[dict[str, Any]]:
    """The blocks that carry one command's output (``status``: ``exit 0``...)."""
    if len(output) > ATTACH_LIMIT:
        output = "…\n" + output[-ATTACH_LIMIT:]
    said = f"I ran `{command}` in my terminal ({status}); its output:"
    if caps.embedded_context:
        uri = f"acp-tui://shell/{number}/{quote(command[:200], safe='')}"
        return [
            {"type": "text", "text": said},
            {
                "type": "resource",
                "resource": {"uri": uri, "mimeType": "text/plain", "text": output},
            },
        ]
    fence = "````" if "```" in output else "```"
    return [{"type": "text", "text": f"{said}\n\n{fence}\n{output}\n{fence}"}]
