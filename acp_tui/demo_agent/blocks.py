"""What arrived in a prompt: a line per non-text content block, with real measurements.

Images and audio are base64 (``ImageContent``/``AudioContent``): the demo decodes them and
reports the byte size, and a PNG's or GIF's dimensions from its header, so a client can see
that what it attached is what the agent got. Embedded resources report their URI and size.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Any

#: Larger prompt blocks are kept in the transcript as a note, not as data.
MAX_STORED_BLOCK_CHARS = 2 * 1024 * 1024

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
KNOWN_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})


def decode(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def image_size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk or a GIF's logical screen descriptor."""
    if raw.startswith(_PNG_SIGNATURE) and len(raw) >= 24 and raw[12:16] == b"IHDR":
        width, height = struct.unpack(">II", raw[16:24])
        return width, height
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        width, height = struct.unpack("<HH", raw[6:10])
        return width, height
    return None


def _size(count: int) -> str:
    return f"{count:,} byte" + ("" if count == 1 else "s")


def describe(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind in ("image", "audio"):
        mime = block.get("mimeType", "?")
        raw = decode(block.get("data"))
        if raw is None:
            return f"- an {kind} ({mime}) whose data is not valid base64"
        line = f"- an {kind}: `{mime}`, {_size(len(raw))}"
        if kind == "image":
            dimensions = image_size(raw)
            if dimensions is not None:
                line += f", {dimensions[0]}×{dimensions[1]} pixels"
            elif mime == "image/png":
                line += " (not a PNG I can read the size of)"
        if isinstance(block.get("uri"), str):
            line += f", from `{block['uri']}`"
        return line
    if kind == "resource":
        found = block.get("resource")
        resource: dict[str, Any] = found if isinstance(found, dict) else {}
        uri = resource.get("uri", "?")
        mime = resource.get("mimeType")
        if isinstance(resource.get("text"), str):
            size = len(resource["text"].encode("utf-8"))
            what = f"text, {_size(size)}"
        else:
            raw = decode(resource.get("blob"))
            what = "binary, not valid base64" if raw is None else f"binary, {_size(len(raw))}"
        return f"- an embedded resource `{uri}` ({what}" + (f", `{mime}`)" if mime else ")")
    if kind == "resource_link":
        line = f"- a link to `{block.get('uri', '?')}` ({block.get('name', 'unnamed')}"
        if isinstance(block.get("size"), int):
            line += f", {_size(block['size'])}"
        return line + ")"
    return f"- a `{kind}` block"


def describe_all(blocks: list[dict[str, Any]]) -> list[str]:
    return [describe(block) for block in blocks if block.get("type") != "text"]


def stored(block: dict[str, Any]) -> dict[str, Any]:
    """The block as the transcript keeps it: as sent, unless it is too large to replay or
    of a type the demo does not know."""
    if block.get("type") not in KNOWN_TYPES:
        return {"type": "text", "text": f"[{block.get('type', 'unknown')} block]"}
    if len(str(block.get("data") or "")) + len(str(block.get("resource") or "")) > (
        MAX_STORED_BLOCK_CHARS
    ):
        return {
            "type": "text",
            "text": f"[{block.get('type', 'unknown')} block, too large to keep]",
        }
    return block
