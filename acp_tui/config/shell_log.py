"""The shell-mode commands of each session, kept so that reopening a session shows them again
(they are the person's history, not the agent's: no agent replays them).

One JSON Lines file per session in acp-tui's data folder (``shell/``, 0700; files 0600,
opened without following a link), named by a hash of the agent's identity and the session id;
one record per command that ended: where it goes in the conversation (``after``: how many of
the person's messages came before it), the command, its directory, how it ended and its
output as the terminal drew it (with its colours as SGR sequences). Reading never raises: a
line that is not a record is skipped. Pure Python.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

__all__ = ["ShellLog"]

log = logging.getLogger(__name__)

#: The most commands kept per session (the oldest are read past).
KEEP = 200


class ShellLog:
    """The shell-mode records of one agent's sessions under ``directory``."""

    def __init__(self, directory: Path, agent_key: str) -> None:
        self.directory = directory
        self.agent_key = agent_key

    def _path(self, session_id: str) -> Path:
        digest = hashlib.sha256(f"{self.agent_key}\0{session_id}".encode()).hexdigest()
        return self.directory / f"{digest[:40]}.jsonl"

    def add(self, session_id: str, record: dict[str, Any]) -> bool:
        """Append ``record`` to the session's file; False (and logged) when it cannot."""
        line = json.dumps(record, ensure_ascii=False) + "\n"
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(self._path(session_id), flags, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as file:
                file.write(line)
        except (OSError, ValueError) as error:
            log.warning("could not keep a shell command of %s: %s", session_id, error)
            return False
        return True

    def records(self, session_id: str) -> list[dict[str, Any]]:
        """The session's records, oldest first (the last :data:`KEEP`)."""
        path = self._path(session_id)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
        except OSError:
            return []
        records: list[dict[str, Any]] = []
        with os.fdopen(fd, encoding="utf-8", errors="replace") as file:
            for line in file:
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if isinstance(record, dict) and isinstance(record.get("command"), str):
                        records.append(record)
        return records[-KEEP:]
