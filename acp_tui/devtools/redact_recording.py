"""A redacted copy of a ``--record`` file (:mod:`acp_tui.protocol.recording`): every string
of every line (the header's command line and directory, each message, each junk line) passes
through the one redaction engine (:mod:`acp_tui.text.redaction`); the copy is still a
recording that ``acp-tui replay`` plays."""

from __future__ import annotations

import json
from typing import Any

from acp_tui.text.redaction import Redactor

__all__ = ["redact_recording"]

#: Nested deeper than this, a value is kept out of the copy (a recording's messages are
#: shallow; a hostile one is not walked without end).
_MAX_DEPTH = 64


def _walk(value: Any, redactor: Redactor, where: str, depth: int = 0) -> Any:
    if isinstance(value, str):
        return redactor.scrub(value, where)
    if depth > _MAX_DEPTH:
        return "[redacted: nested too deep]"
    if isinstance(value, list):
        return [_walk(item, redactor, where, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _walk(item, redactor, where, depth + 1) for key, item in value.items()}
    return value


def _where(number: int, line: Any) -> str:
    if not isinstance(line, dict):
        return f"line {number}"
    message = line.get("msg")
    method = message.get("method") if isinstance(message, dict) else None
    direction = line.get("dir") or line.get("event") or ("header" if number == 1 else None)
    parts = [str(part) for part in (direction, method) if isinstance(part, str)]
    return f"line {number}" + (f" ({' '.join(parts)})" if parts else "")


def redact_recording(data: bytes, redactor: Redactor) -> bytes:
    """``data``, a recording's bytes, redacted line by line (a line that is not JSON is
    redacted as text). A reply streams in chunks, so a secret the person sent whole comes
    back cut into pieces no rule knows by itself: a first pass finds the secrets, and the
    second also redacts any piece of them (:attr:`Redactor.known`)."""
    _redacted_lines(data, redactor)
    redactor.learn()
    return _redacted_lines(data, redactor)


def _redacted_lines(data: bytes, redactor: Redactor) -> bytes:
    out: list[bytes] = []
    for number, raw in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            out.append(redactor.scrub(raw, f"line {number}").encode("utf-8", "replace"))
            continue
        redacted = _walk(line, redactor, _where(number, line))
        text = json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))
        try:
            out.append(text.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate: only a JSON escape holds it
            out.append(json.dumps(redacted, separators=(",", ":")).encode("ascii"))
    return b"\n".join(out) + b"\n"
