"""An image on the system clipboard, read with the tool the system has: ``wl-paste``
(Wayland), ``xclip`` (X; ``xsel`` reads only text, so an X clipboard without ``xclip`` has no
image for us), ``osascript`` (macOS; ``pbpaste`` reads only text). Each tool is asked which
types the clipboard holds first, and only an image type is read. A tool that hangs is given
:data:`TIMEOUT` seconds. Pure Python: no Textual.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from acp_tui.services import children

__all__ = ["ClipboardImage", "clipboard_image", "clipboard_tools"]

TIMEOUT = 3.0
#: The image types read, preferred first, and the file suffix each is saved with.
IMAGE_TYPES = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
}
#: The most an image read from the clipboard may be (what a prompt attaches is capped lower).
MAX_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ClipboardImage:
    data: bytes
    mime: str

    @property
    def suffix(self) -> str:
        return IMAGE_TYPES.get(self.mime, ".png")


def clipboard_tools(environ: Mapping[str, str] | None = None) -> list[str]:
    """The tools that can read an image here, in the order they are tried."""
    env = os.environ if environ is None else environ
    tools: list[str] = []
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        tools.append("wl-paste")
    if env.get("DISPLAY") and shutil.which("xclip"):
        tools.append("xclip")
    if sys.platform == "darwin" and shutil.which("osascript"):
        tools.append("osascript")
    return tools


def _run(argv: list[str]) -> bytes | None:
    try:
        done = children.run(
            argv, capture_output=True, timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or len(done.stdout) > MAX_BYTES:
        return None
    return done.stdout


def _pick(types: bytes | None) -> str | None:
    offered = {line.strip() for line in (types or b"").decode("utf-8", "replace").splitlines()}
    return next((mime for mime in IMAGE_TYPES if mime in offered), None)


def _wayland() -> ClipboardImage | None:
    mime = _pick(_run(["wl-paste", "--list-types"]))
    data = _run(["wl-paste", "--no-newline", "--type", mime]) if mime else None
    return ClipboardImage(data, mime) if data and mime else None


def _x11() -> ClipboardImage | None:
    mime = _pick(_run(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"]))
    data = _run(["xclip", "-selection", "clipboard", "-t", mime, "-o"]) if mime else None
    return ClipboardImage(data, mime) if data and mime else None


def _macos() -> ClipboardImage | None:
    info = _run(["osascript", "-e", "clipboard info"]) or b""
    if b"PNGf" not in info:
        return None
    with tempfile.TemporaryDirectory(prefix="acp-tui-clip-") as folder:
        path = Path(folder) / "clip.png"
        script = (
            f'set f to open for access POSIX file "{path}" with write permission\n'
            "write (the clipboard as «class PNGf») to f\nclose access f"
        )
        if _run(["osascript", "-e", script]) is None or not path.is_file():
            return None
        data = path.read_bytes()
    return ClipboardImage(data, "image/png") if data else None


def clipboard_image(environ: Mapping[str, str] | None = None) -> ClipboardImage | None:
    """The image on the clipboard, or None (no tool, no image, or a tool that failed)."""
    readers = {"wl-paste": _wayland, "xclip": _x11, "osascript": _macos}
    for tool in clipboard_tools(environ):
        image = readers[tool]()
        if image is not None:
            return image
    return None
