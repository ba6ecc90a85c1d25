"""What a terminal shows the agent: its output, kept to the last ``outputByteLimit`` bytes and
cut at a UTF-8 character boundary (:class:`OutputBuffer`), its exit status
(:class:`ExitStatus`) and the state ``terminal/output`` reports (:class:`TerminalState`)."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

# -- output buffer -----------------------------------------------------------------------------


class OutputBuffer:
    """The tail of a byte stream, at most ``limit`` bytes, starting on a UTF-8 boundary."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.truncated = False
        self.total_bytes = 0
        self.peak_bytes = 0
        self._data = bytearray()

    def __len__(self) -> int:
        return len(self._data)

    def append(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        if len(chunk) >= self.limit:
            # Only the end of this chunk can survive: never hold more than the limit.
            if self._data or len(chunk) > self.limit:
                self.truncated = True
            self._data = bytearray(chunk[len(chunk) - self.limit :] if self.limit else b"")
        else:
            self._data += chunk
            excess = len(self._data) - self.limit
            if excess > 0:
                self.truncated = True
                del self._data[:excess]
        if self.truncated:
            self._skip_continuation_bytes()
        self.peak_bytes = max(self.peak_bytes, len(self._data))

    def _skip_continuation_bytes(self) -> None:
        # A cut may land inside a multi-byte character: drop its remaining (10xxxxxx) bytes.
        data = self._data
        start = 0
        while start < len(data) and start < 3 and (data[start] & 0xC0) == 0x80:
            start += 1
        if start:
            del data[:start]

    def text(self, final: bool = False) -> str:
        """The kept output as text.

        An incomplete character at the end (the rest has not been read yet) is left out
        unless ``final``; bytes that are not UTF-8 become U+FFFD, and if those replacements
        make the text longer than the limit in UTF-8, its start is cut again.
        """
        data = bytes(self._data)
        if not final:
            data = data[: _complete_prefix_length(data)]
        text = data.decode("utf-8", errors="replace")
        if "\ufffd" in text:
            encoded = text.encode("utf-8")
            if len(encoded) > self.limit:
                text = encoded[len(encoded) - self.limit :].decode("utf-8", errors="ignore")
        return text


def _complete_prefix_length(data: bytes) -> int:
    """Length of ``data`` without a trailing, still incomplete UTF-8 sequence."""
    end = len(data)
    for back in range(1, min(4, end) + 1):
        byte = data[end - back]
        if byte & 0xC0 == 0x80:
            continue  # continuation byte: keep looking for the lead byte
        if byte >= 0xF8:
            needed = 1  # never valid in UTF-8: nothing to wait for
        elif byte >= 0xF0:
            needed = 4
        elif byte >= 0xE0:
            needed = 3
        elif byte >= 0xC0:
            needed = 2
        else:
            needed = 1
        return end - back if back < needed else end
    return end


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a process ended: an exit code, or the name of the signal that killed it."""

    exit_code: int | None
    signal: str | None

    @classmethod
    def from_returncode(cls, returncode: int) -> ExitStatus:
        if returncode < 0:
            try:
                name = signal.Signals(-returncode).name
            except ValueError:
                name = f"SIG{-returncode}"
            return cls(None, name)
        return cls(returncode, None)

    def to_json(self) -> dict[str, Any]:
        return {"exitCode": self.exit_code, "signal": self.signal}

    def describe(self) -> str:
        """For a person: ``exit 0``, ``exit 3``, ``killed by SIGTERM``."""
        if self.signal is not None:
            return f"killed by {self.signal}"
        if self.exit_code is not None:
            return f"exit {self.exit_code}"
        return "ended"

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True, slots=True)
class TerminalState:
    """A snapshot of one terminal, for display."""

    terminal_id: str
    session_id: str | None
    command_line: str
    cwd: str
    output: str
    truncated: bool
    exit_status: ExitStatus | None
    running: bool
    output_byte_limit: int
