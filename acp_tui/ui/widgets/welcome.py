"""The welcome of a view with nothing to show yet: which agent, its version and the folder it
works in, three tips, and where every key is. It gives way to the conversation as its first
entry shows (the screen decides: :meth:`acp_tui.ui.models.chat.ChatModel.shows_welcome`).

The agent's name and version are agent text: shown literally, on one line. The keys are
those of the keymap in force.
"""

from __future__ import annotations

import os

from textual.content import Content
from textual.widgets import Static

from acp_tui.ui.agent_text import line_of
from acp_tui.ui.keymap import key_label
from acp_tui.ui.widgets.prompt import PromptEditor
from acp_tui.ui.widgets.session_list import shorten_path

__all__ = ["Welcome"]

#: The longest folder shown (cut from the left, ``…/tail``).
FOLDER_CELLS = 100


class Welcome(Static):
    """Agent, version, folder, tips, keys. The screen sets the agent (:meth:`set_agent`) and
    the folder (:meth:`set_folder`), and shows or hides it (the ``-visible`` class).

    It takes at most half the column it sits in and scrolls beyond that, so in a short
    terminal the prompt, the bar and the footer stay on screen."""

    DEFAULT_CSS = """
    Welcome {
        display: none;
        height: auto;
        max-height: 50%;
        overflow-y: auto;
        margin: 1 1 0 1;
        padding: 0 1;
        border-left: thick $accent;
        color: $text-muted;
    }
    Welcome.-visible { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._agent = ""
        self._version = ""
        self._folder = ""

    def set_agent(self, name: str, version: str = "") -> None:
        """The agent's name and version (as it said them at ``initialize``)."""
        self._agent, self._version = name, version
        self._draw()

    def set_folder(self, path: str) -> None:
        self._folder = path
        self._draw()

    def on_mount(self) -> None:
        self._draw()

    def text(self) -> Content:
        """What it says."""
        key = lambda action_id, fallback: key_label(self, action_id, fallback)  # noqa: E731
        send = key_label(self, "prompt-send", "Enter", owner=PromptEditor)
        newline = key_label(self, "prompt-newline", "Ctrl+J", owner=PromptEditor)
        parts: list[str | tuple[str, str]] = []
        if self._agent:
            parts.append((line_of(self._agent, 80), "bold $accent"))
            if self._version:
                parts.append(f" {line_of(self._version, 40)}")
        if self._folder:
            folder = shorten_path(self._folder, os.path.expanduser("~"), FOLDER_CELLS)
            parts.append(f"  in {folder}")
        parts.append("\n\n")
        tips = (
            f"{send} sends; / lists the commands (acp-tui's and the agent's).",
            f"@ and a file's name attaches the file; {newline}: a new line.",
            f"{key('sessions-sidebar', 'the palette')}: past sessions · "
            f"{key('command-palette', 'Ctrl+P')}: everything else.",
        )
        for tip in tips:
            parts.append(f"  • {tip}\n")
        parts.append("\n")
        parts.append((f"{key('keys-help', 'F1')} or ? (on an empty prompt)", "bold"))
        parts.append(": every key, by place.")
        return Content.assemble(*parts)

    def _draw(self) -> None:
        if self.is_mounted:
            self.update(self.text())
