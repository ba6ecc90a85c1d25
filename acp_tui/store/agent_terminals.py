"""Terminals the agent owns (protocol v2): ``terminal_update`` upserts, ``terminal_output_chunk``
appends. https://agentclientprotocol.com/protocol/v2/terminals

A tool call shows one by reference (``{"type": "terminal", "terminalId": ...}``), exactly as
it shows a terminal the client runs for a v1 agent: the view asks for ``command_line``,
``output`` and ``exit_status.describe()``, and gets the same answers from either.
Output is kept to the last :data:`OUTPUT_LIMIT` bytes (a snapshot replaces it whole).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from acp_tui.wire.updates import TerminalUpdate

OUTPUT_LIMIT = 256 * 1024
#: The change part touched when an agent terminal changes (the view redraws its terminals).
PART_TERMINALS = "terminals"


@dataclass(frozen=True, slots=True)
class AgentExitStatus:
    exit_code: int | None
    signal: str | None

    def describe(self) -> str:
        if self.signal is not None:
            return f"killed by {self.signal}"
        if self.exit_code is not None:
            return f"exit {self.exit_code}"
        return "ended"


def _decode(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


class AgentTerminal:
    """The stored state of one agent-owned terminal."""

    __slots__ = (
        "_bytes",
        "can_cancel",
        "command",
        "cwd",
        "exit_status",
        "session_id",
        "started_at",
        "terminal_id",
    )

    def __init__(
        self, terminal_id: str, session_id: str | None = None, started_at: float | None = None
    ) -> None:
        self.terminal_id = terminal_id
        #: The session whose update first named it (``terminal/cancel`` names it too).
        self.session_id = session_id
        #: When it was first heard of (the store's clock).
        self.started_at = started_at
        #: It advertises ``capabilities.cancel`` now (``terminal/cancel``).
        self.can_cancel = False
        self.command: str | None = None
        self.cwd: str | None = None
        self.exit_status: AgentExitStatus | None = None
        self._bytes = bytearray()

    @property
    def command_line(self) -> str:
        return self.command or f"terminal {self.terminal_id}"

    @property
    def output(self) -> str:
        return self._bytes.decode("utf-8", errors="replace")

    def upsert(self, update: TerminalUpdate) -> None:
        """Patch semantics: an omitted field stays, ``null`` clears, a value replaces."""
        if "command" in update:
            command = update["command"]
            self.command = command if isinstance(command, str) else None
        if "cwd" in update:
            cwd = update["cwd"]
            self.cwd = cwd if isinstance(cwd, str) else None
        if "output" in update:
            output = update["output"]
            data = _decode(output.get("data")) if isinstance(output, dict) else None
            self._bytes = bytearray((data or b"")[-OUTPUT_LIMIT:])
        if "capabilities" in update:
            caps = update["capabilities"]
            self.can_cancel = isinstance(caps, dict) and isinstance(caps.get("cancel"), dict)
        if "exitStatus" in update:
            status = update["exitStatus"]
            if isinstance(status, dict):
                code = status.get("exitCode")
                signal = status.get("signal")
                self.exit_status = AgentExitStatus(
                    code if isinstance(code, int) and not isinstance(code, bool) else None,
                    signal if isinstance(signal, str) else None,
                )
            else:
                self.exit_status = None

    def append(self, data: Any) -> bool:
        chunk = _decode(data)
        if chunk is None:
            return False
        self._bytes += chunk
        if len(self._bytes) > OUTPUT_LIMIT:
            del self._bytes[: len(self._bytes) - OUTPUT_LIMIT]
        return True
