"""An image pasted into the prompt from the system clipboard (Ctrl+V, or the terminal's own
paste when it brings no text, as terminals do when the clipboard holds only an image).

The clipboard is read off the UI thread (:mod:`acp_tui.services.clipboard`); an image is
saved in acp-tui's own folder for pasted images (a new 0600 file in a 0700 folder of its
data, never the project) and mentioned in the prompt (``@"…/pasted/clipboard-….png"``), so
it is attached as any image is: the chip under the message, and the agent's capability
checked when it is sent. No image (or no tool to read one): Ctrl+V pastes text as it always
did, silently; an empty terminal paste says why no image came.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.widget import Widget

from acp_tui.services.clipboard import ClipboardImage, clipboard_image, clipboard_tools
from acp_tui.services.path_gate import PathRefused, create_new, private_directory
from acp_tui.session.prompts.attachments import mention_for

__all__ = ["ImagePaste"]


def save_image(directory: Path, image: ClipboardImage) -> Path:
    """``image`` in a new file of ``directory`` (made 0700 if missing); its path."""
    name = f"clipboard-{time.strftime('%Y%m%d-%H%M%S')}{image.suffix}"
    path, file = create_new(private_directory(directory), name)
    with file:
        file.write(image.data)
    return path


class ImagePaste:
    """Reads the clipboard for the prompt ``owner`` and inserts what it found."""

    def __init__(
        self,
        owner: Widget,
        *,
        insert: Callable[[str], None],
        paste_text: Callable[[], None],
        notify: Callable[[str], None],
    ) -> None:
        self.owner = owner
        self.insert = insert
        self.paste_text = paste_text
        self.notify = notify
        #: Where pasted images are saved (set by the screen; None: no image paste).
        self.directory: Path | None = None

    def paste(self, expected: bool) -> bool:
        """Look for an image; ``expected``: the terminal pasted nothing, so an image was
        meant. False when there is nowhere to save one (the caller pastes text)."""
        directory = self.directory
        if directory is None:
            return False
        if expected and not clipboard_tools():
            self.notify(
                "No image pasted: reading one from the clipboard needs wl-paste (Wayland), "
                "xclip (X) or osascript (macOS)."
            )
            return True
        self.owner.run_worker(
            lambda: self._read(directory),
            name="clipboard-image",
            group="clipboard-image",
            thread=True,
            exit_on_error=False,
        )
        return True

    def _read(self, directory: Path) -> None:
        image = clipboard_image()
        if image is None:
            self.owner.app.call_from_thread(self.paste_text)
            return
        try:
            path = save_image(directory, image)
        except (OSError, PathRefused) as error:
            self.owner.app.call_from_thread(self.notify, f"The pasted image was not kept: {error}")
            return
        self.owner.app.call_from_thread(self.insert, mention_for(str(path)) + " ")
