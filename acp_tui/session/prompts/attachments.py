"""What a prompt carries besides its text: files and images named with ``@path``.

ACP's baseline is ``text`` and ``resource_link`` blocks; an agent opts in to more in
``agentCapabilities.promptCapabilities`` (https://agentclientprotocol.com/protocol/v1/content):
``embeddedContext`` allows ``resource`` blocks (the file's contents travel with the prompt),
``image`` allows ``image`` blocks (base64 data and a MIME type). So an ``@file`` is embedded when
the agent takes embedded context and the file is text of at most :data:`MAX_EMBED_BYTES`, else
linked; an ``@image`` is sent as an image when the agent takes images, and refused (the message
stays in the prompt) when it does not.

Prompts built before the agent said what it takes (typed while it starts) are built rich, and
:func:`fit_to_capabilities` makes them fit once it has: what the agent cannot take goes as a
link, and the person is told. Nothing here imports Textual.
"""

from __future__ import annotations

import base64
import mimetypes
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO
from urllib.parse import unquote, urlparse

from acp_tui.services.path_gate import PathRefused, open_to_read, resolve_path
from acp_tui.text.numbers import wire_number
from acp_tui.text.safety import escaped_line

__all__ = [
    "MAX_EMBED_BYTES",
    "MAX_IMAGE_BYTES",
    "Attachment",
    "BuiltPrompt",
    "PromptCapabilities",
    "build_prompt",
    "describe_block",
    "find_mentions",
    "fit_to_capabilities",
    "format_size",
    "image_paths_in_paste",
    "mention_for",
    "resolve_mention",
    "unescape_mention",
]

#: Files up to this size are embedded (as ``resource`` blocks); larger ones are linked.
MAX_EMBED_BYTES = 256 * 1024
#: Images up to this size are attached; larger ones are linked (agents' model APIs cap an
#: image at about 5 MB).
MAX_IMAGE_BYTES = 5 * 1024 * 1024

#: The image formats a prompt attaches (by extension, confirmed by the file's first bytes).
IMAGE_SUFFIXES: Mapping[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}

#: ``@path``, or ``@"path"`` (which may hold spaces, and backslash escapes: see
#: :func:`mention_for`).
_MENTION = re.compile(r'(?<!\S)@(?:"((?:[^"\\\n]|\\.)+)"|(\S+))')
#: The escapes of a quoted mention: ``\\``, ``\"``, ``\n`` ``\r`` ``\t``, ``\xNN``, ``\uNNNN``,
#: ``\UNNNNNNNN`` (what :func:`acp_tui.text.safety.escaped_line` shows for a character that is
#: not printable).
_MENTION_ESCAPE = re.compile(
    r'\\(?:(["\\])|([nrt])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))'
)
_NAMED = {"n": "\n", "r": "\r", "t": "\t"}
_TRAILING_PUNCTUATION = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class PromptCapabilities:
    """What the agent takes in a prompt besides text and links. ``known`` is False until it
    answered ``initialize``: prompts are then built rich and fitted when sent."""

    image: bool = True
    embedded_context: bool = True
    audio: bool = False
    known: bool = False

    @classmethod
    def from_agent(cls, agent_capabilities: Any) -> PromptCapabilities:
        caps = agent_capabilities if isinstance(agent_capabilities, Mapping) else {}
        prompt = caps.get("promptCapabilities")
        prompt = prompt if isinstance(prompt, Mapping) else {}
        return cls(
            image=prompt.get("image") is True,
            embedded_context=prompt.get("embeddedContext") is True,
            audio=prompt.get("audio") is True,
            known=True,
        )

    @classmethod
    def baseline(cls) -> PromptCapabilities:
        """An agent that takes only what every agent must: text and links."""
        return cls(image=False, embedded_context=False, known=True)


@dataclass(slots=True)
class BuiltPrompt:
    """The blocks of a prompt, what to tell the person about them, and why it cannot be sent
    as it is (``refused``: nothing is sent, the text stays in the prompt)."""

    blocks: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    refused: str | None = None


# -------------------------------------------------------------------------------- mentions


def find_mentions(text: str) -> list[str]:
    """The paths written as ``@path`` or ``@"path with spaces"`` in ``text``, in order (a
    quoted one with its escapes read: see :func:`mention_for`)."""
    return [unescape_mention(quoted) if quoted else bare for quoted, bare in _mentions(text)]


def _mentions(text: str) -> list[tuple[str, str]]:
    """(quoted, bare) for each mention of ``text``: one of the two is empty."""
    return _MENTION.findall(text)


def unescape_mention(quoted: str) -> str:
    """The path a quoted mention's text names: its escapes read (others left as written)."""

    def one(match: re.Match[str]) -> str:
        literal, named, *codes = match.groups()
        if literal:
            return literal
        if named:
            return _NAMED[named]
        return chr(int(next(code for code in codes if code), 16))

    return _MENTION_ESCAPE.sub(one, quoted)


def resolve_mention(mention: str, cwd: Path, *, quoted: bool = False) -> Path | None:
    """The file a mention names (its real path), trying it as written and then without
    trailing punctuation (``see @notes.md, then``); None when it names no file or folder.
    A ``quoted`` mention (the text between the quotes) is tried with its escapes read, then
    as written (a path of backslashes typed by hand).

    Through the path gate: a mention written inside ``cwd`` that leads outside it through a
    link, and a FIFO, socket or device, are :class:`PathRefused` (a path written outside is
    the person's own choice)."""
    if quoted:
        candidates = list(dict.fromkeys([unescape_mention(mention), mention]))
    else:
        candidates = [mention]
        stripped = mention.rstrip(_TRAILING_PUNCTUATION)
        if stripped and stripped != mention:
            candidates.append(stripped)
    for candidate in candidates:
        try:
            path = resolve_path(candidate, base=cwd, roots=(cwd,))
        except ValueError:
            continue
        if path.kind in ("missing", "directory") and not path.escapes:
            continue
        return path.require_file().real
    return None


def _open_file(path: Path) -> BinaryIO:
    """A mentioned file (a real path, judged by :func:`resolve_mention`), open to read through
    the path gate: never a FIFO or device, never through a link put there since."""
    return open_to_read(resolve_path(path), inside=False)


def mention_for(path: str) -> str:
    """How a path is written as a mention: ``@path``, or quoted when it holds whitespace or
    a character that is not printable. Quoted, ``\\`` and ``"`` are escaped and every
    character that is not printable is written as its escape (``\\x1b``, ``\\n``,
    ``\\u202e``), so the prompt holds only visible text (a file named with an escape
    sequence is mentioned by what the completion list shows) and :func:`find_mentions`
    reads back the same path."""
    if path and not path.startswith('"') and all(c.isprintable() and not c.isspace() for c in path):
        return f"@{path}"
    doubled = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'@"{escaped_line(doubled, 8 * len(doubled) + 8)}"'


def sniff_image(head: bytes) -> str | None:
    """The MIME type of an image from its first bytes (PNG, JPEG, GIF, WebP), else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _image_mime(path: Path) -> str | None:
    """The image type of a file named like an image whose bytes say it is one."""
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        return None
    try:
        with _open_file(path) as handle:
            return sniff_image(handle.read(16))
    except (OSError, PathRefused):
        return None


def image_paths_in_paste(text: str, cwd: Path) -> list[Path] | None:
    """The image files a paste names, when it is nothing but paths of existing images (what
    a terminal pastes for files dropped on it: plain, quoted, backslash-escaped or
    ``file://`` URIs); None for any other paste."""
    stripped = text.strip()
    if not stripped or len(stripped) > 16_384:
        return None
    try:
        words = shlex.split(stripped)
    except ValueError:
        return None
    if not words or len(words) > 20:
        return None
    found: list[Path] = []
    for word in words:
        if word.startswith("file://"):
            word = unquote(urlparse(word).path)
        try:
            resolved = resolve_path(word, base=cwd, roots=(cwd,)).require_file()
        except (ValueError, PathRefused):
            return None
        if _image_mime(resolved.real) is None:
            return None
        found.append(resolved.given)
    return found


# -------------------------------------------------------------------------------- building


def _display_name(path: Path, base: Path, mention: str) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return mention.rstrip(_TRAILING_PUNCTUATION) or mention


def _size_of(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _link(path: Path, name: str, mime: str | None, size: int | None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "resource_link", "uri": path.as_uri(), "name": name}
    if mime:
        block["mimeType"] = mime
    if size is not None:
        block["size"] = size
    return block


def _read_text(path: Path, size: int | None) -> str | None:
    """The file's text when it is UTF-8 text within the embedding cap, else None."""
    if size is None or size > MAX_EMBED_BYTES:
        return None
    try:
        with _open_file(path) as file:
            raw = file.read(MAX_EMBED_BYTES + 1)
    except (OSError, PathRefused):
        return None
    if len(raw) > MAX_EMBED_BYTES or b"\x00" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def build_prompt(text: str, cwd: Path, caps: PromptCapabilities | None = None) -> BuiltPrompt:
    """The blocks of a prompt: the whole text first, then one block per distinct existing
    file mentioned with ``@`` (in order). Names are paths relative to ``cwd`` (as written
    when the file is outside it)."""
    caps = caps or PromptCapabilities()
    built = BuiltPrompt([{"type": "text", "text": text}])
    seen: set[Path] = set()
    try:
        base = cwd.resolve()
    except OSError:
        base = cwd
    for quoted, bare in _mentions(text):
        mention = quoted or bare
        try:
            path = resolve_mention(mention, cwd, quoted=bool(quoted))
        except PathRefused as refused:
            if built.refused is None:
                built.refused = _not_sent(mention, refused)
            continue
        if path is None or path in seen:
            continue
        seen.add(path)
        name = _display_name(path, base, mention)
        size = _size_of(path)
        image = _image_mime(path)
        if image is not None:
            _attach_image(built, path, name, image, size, caps)
            continue
        mime = mimetypes.guess_type(path.name)[0]
        if not caps.embedded_context:
            built.blocks.append(_link(path, name, mime, size))
            continue
        contents = _read_text(path, size)
        if contents is None:
            if size is not None and size > MAX_EMBED_BYTES:
                built.notes.append(
                    f"{name} is {format_size(size)}, over the {format_size(MAX_EMBED_BYTES)} "
                    "that are embedded: it was sent as a link (the agent reads it itself)."
                )
            built.blocks.append(_link(path, name, mime, size))
            continue
        resource: dict[str, Any] = {"uri": path.as_uri(), "text": contents}
        resource["mimeType"] = mime or "text/plain"
        built.blocks.append({"type": "resource", "resource": resource})
    return built


def _not_sent(mention: str, refused: PathRefused) -> str:
    """Why a message was not sent, short enough for a toast: the mention as typed first."""
    name = mention_for(mention.rstrip(_TRAILING_PUNCTUATION) or mention)
    if refused.reason == "escapes":
        return (
            f"Not sent: {name} leads to {refused.target}, outside the project "
            "(type that path to send it)."
        )
    return f"Not sent: {name} {refused.what}."


def _attach_image(
    built: BuiltPrompt,
    path: Path,
    name: str,
    mime: str,
    size: int | None,
    caps: PromptCapabilities,
) -> None:
    if caps.known and not caps.image:
        if built.refused is None:
            built.refused = (
                f"Not sent: {name} is an image, and this agent does not take images "
                "(its promptCapabilities.image is off). Remove the @ before it to send the "
                "message without it."
            )
        return
    if size is not None and size > MAX_IMAGE_BYTES:
        built.notes.append(
            f"{name} is {format_size(size)}, over the {format_size(MAX_IMAGE_BYTES)} an image "
            "may be: it was sent as a link."
        )
        built.blocks.append(_link(path, name, mime, size))
        return
    try:
        with _open_file(path) as file:
            raw = file.read(MAX_IMAGE_BYTES + 1)
    except PathRefused as refused:
        built.notes.append(f"{name} could not be read ({refused.message}): it was sent as a link.")
        built.blocks.append(_link(path, name, mime, size))
        return
    except OSError as error:
        built.notes.append(f"{name} could not be read ({error.strerror}): it was sent as a link.")
        built.blocks.append(_link(path, name, mime, size))
        return
    if len(raw) > MAX_IMAGE_BYTES:  # it grew since its size was read
        built.blocks.append(_link(path, name, mime, len(raw)))
        return
    built.blocks.append(
        {
            "type": "image",
            "mimeType": mime,
            "data": base64.b64encode(raw).decode("ascii"),
            "uri": path.as_uri(),
        }
    )


def fit_to_capabilities(
    blocks: list[dict[str, Any]], caps: PromptCapabilities
) -> tuple[list[dict[str, Any]], list[str]]:
    """``blocks`` as this agent may take them: an image or audio block it does not take, or
    an embedded resource without embedded context, becomes a link to where it came from (or
    a line of text saying what was left out). Returns the blocks and what to tell the
    person. Blocks that fit are returned as they are (the same objects)."""
    fitted: list[dict[str, Any]] = []
    notes: list[str] = []
    for block in blocks:
        kind = block.get("type")
        allowed = (
            kind in ("text", "resource_link")
            or (kind == "image" and caps.image)
            or (kind == "audio" and caps.audio)
            or (kind == "resource" and caps.embedded_context)
        )
        if allowed or kind not in ("image", "audio", "resource"):
            fitted.append(block)
            continue
        attachment = describe_block(block)
        label = attachment.name if attachment else str(kind)
        uri = _uri_of(block)
        what = {"image": "images", "audio": "audio", "resource": "embedded files"}[str(kind)]
        if uri is not None:
            link: dict[str, Any] = {"type": "resource_link", "uri": uri, "name": label}
            mime = attachment.mime if attachment else None
            if mime:
                link["mimeType"] = mime
            fitted.append(link)
            notes.append(f"{label} was sent as a link: this agent does not take {what}.")
        else:
            fitted.append({"type": "text", "text": f"\n[{label}: left out]"})
            notes.append(f"{label} was left out: this agent does not take {what}.")
    return fitted, notes


def _uri_of(block: Mapping[str, Any]) -> str | None:
    uri = block.get("uri")
    if not isinstance(uri, str):
        resource = block.get("resource")
        uri = resource.get("uri") if isinstance(resource, Mapping) else None
    return uri if isinstance(uri, str) and uri else None


# -------------------------------------------------------------------------------- describing


@dataclass(frozen=True, slots=True)
class Attachment:
    """What a transcript chip shows for a non-text block: never its data."""

    name: str
    kind: str
    mime: str | None
    size: int | None

    def label(self) -> str:
        parts = [self.name, self.mime or self.kind]
        if self.size is not None:
            parts.append(format_size(self.size))
        return " · ".join(parts)


def _base64_size(data: Any) -> int | None:
    """The decoded size of base64 text, without decoding it."""
    if not isinstance(data, str):
        return None
    length = len(data.rstrip("\r\n"))
    padding = len(data) - len(data.rstrip("="))
    return max(0, length * 3 // 4 - padding)


def _name_from_uri(uri: Any) -> str | None:
    if not isinstance(uri, str) or not uri:
        return None
    parsed = urlparse(uri)
    tail = PurePosixPath(unquote(parsed.path)).name if parsed.path else ""
    return tail or uri


def describe_block(block: Mapping[str, Any]) -> Attachment | None:
    """The chip of a non-text content block (image, audio, embedded resource, link);
    None for text."""
    kind = block.get("type")
    if kind in ("image", "audio"):
        mime = block.get("mimeType")
        name = _name_from_uri(block.get("uri")) or str(kind)
        return Attachment(
            name,
            str(kind),
            mime if isinstance(mime, str) else None,
            _base64_size(block.get("data")),
        )
    if kind == "resource":
        found = block.get("resource")
        resource: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        mime = resource.get("mimeType")
        text = resource.get("text")
        size = (
            len(text.encode("utf-8", "replace"))
            if isinstance(text, str)
            else _base64_size(resource.get("blob"))
        )
        name = _name_from_uri(resource.get("uri")) or "file"
        return Attachment(name, "file", mime if isinstance(mime, str) else None, size)
    if kind == "resource_link":
        given = block.get("name")
        link_mime = block.get("mimeType")
        link_size = block.get("size")
        return Attachment(
            given
            if isinstance(given, str) and given
            else _name_from_uri(block.get("uri")) or "link",
            "link",
            link_mime if isinstance(link_mime, str) else None,
            link_size if isinstance(wire_number(link_size, low=0), int) else None,
        )
    if kind == "text":
        return None
    return Attachment(str(kind) if isinstance(kind, str) else "block", "block", None, None)


def format_size(size: int) -> str:
    """``812 B``, ``12.5 KB``, ``3.1 MB`` (binary multiples, as file sizes are read)."""
    if size < 1024:
        return f"{size} B"
    if wire_number(size) is None:
        return "size unknown"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{size} B"  # pragma: no cover - the loop always returns
