"""Recently used agents, most recent first, for the launcher.

A small JSON file in the user state dir, written atomically. It holds each agent's launcher
key, label and command line, never its environment: secrets from the config's ``env``
tables stay in the config file.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.config import locations
from acp_tui.config.load import atomic_write_text

__all__ = ["RecentAgent", "RecentAgents", "default_recent_path"]

log = logging.getLogger(__name__)

LIMIT = 20
VERSION = 1


def default_recent_path() -> Path:
    return locations.recent_agents_file()


@dataclass(frozen=True, slots=True)
class RecentAgent:
    key: str
    label: str
    command: tuple[str, ...]


class RecentAgents:
    """Read once, updated with :meth:`record`. A missing or damaged file is an empty list."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_recent_path()
        self.entries: list[RecentAgent] = self._read()

    def _read(self) -> list[RecentAgent]:
        try:
            data: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as error:
            log.warning("recent agents: ignoring %s: %s", self.path, error)
            return []
        items = data.get("agents") if isinstance(data, dict) else None
        entries: list[RecentAgent] = []
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                continue
            command = item.get("command")
            entries.append(
                RecentAgent(
                    item["key"],
                    str(item.get("label") or item["key"]),
                    tuple(str(part) for part in command) if isinstance(command, list) else (),
                )
            )
        return entries[:LIMIT]

    def keys(self) -> list[str]:
        return [entry.key for entry in self.entries]

    def record(self, key: str, label: str, command: list[str] | tuple[str, ...]) -> None:
        """Move ``key`` to the front and save. Failing to save only logs: it is a nicety."""
        entry = RecentAgent(key, label, tuple(command))
        self.entries = [entry, *(e for e in self.entries if e.key != key)][:LIMIT]
        payload = {
            "version": VERSION,
            "agents": [
                {"key": e.key, "label": e.label, "command": list(e.command)} for e in self.entries
            ],
        }
        try:
            atomic_write_text(self.path, json.dumps(payload, indent=2) + "\n")
        except OSError as error:
            log.warning("recent agents: cannot save %s: %s", self.path, error)
