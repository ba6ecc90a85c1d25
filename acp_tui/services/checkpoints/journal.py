"""The checkpoint journal: what was snapshotted for each turn of a session, kept on disk.

One JSON file per session in acp-tui's data directory (``checkpoints/sessions/``), written
whole and atomically at each change, read by the TUI and by the headless ``acp-tui
checkpoints`` / ``acp-tui rewind``. A turn (:class:`TurnRecord`) has the snapshot taken
before its prompt went out and the one taken when it ended (commits of the shadow
repositories, by work tree), the files it changed, the files left out (over the size cap),
and every write the client served for the agent during it (:class:`WriteRecord`: its tool
call and the content before, so one tool call can be undone, and so that without git the
client's own writes can still be taken back). A rewind is a record too (``kind="rewind"``),
so it can itself be undone.

Without git (``engine="writes"``) the before-contents are files in ``checkpoints/blobs/``,
named by their SHA-256.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp_tui.services.path_gate import (
    PathRefused,
    open_to_read,
    private_directory,
    remove_file,
    replace_file,
    resolve_path,
)

__all__ = [
    "BlobFiles",
    "FileRecord",
    "JournalStore",
    "SessionJournal",
    "TurnRecord",
    "WriteRecord",
]

Engine = Literal["git", "writes"]
TurnKind = Literal["turn", "rewind"]
Change = Literal["created", "deleted", "modified"]

_VERSION = 1


@dataclass(slots=True)
class WriteRecord:
    """A write the client served (``fs/write_text_file``): the absolute path, the tool call
    it belonged to (when known), and the content before and after it (blob ids; ``before``
    None: the file did not exist)."""

    path: str
    before: str | None
    after: str
    tool_call_id: str | None = None
    at: float = 0.0


@dataclass(slots=True)
class FileRecord:
    """A file a turn changed: its absolute path and how."""

    path: str
    change: Change


@dataclass(slots=True)
class TurnRecord:
    """One turn's checkpoints (see the module docstring)."""

    number: int
    prompt: str
    started: float
    kind: TurnKind = "turn"
    #: Work tree -> commit, taken before the prompt went out.
    before: dict[str, str] = field(default_factory=dict)
    #: Work tree -> commit, taken when the turn ended (None: it has not, or it could not be).
    after: dict[str, str] | None = None
    ended: float | None = None
    files: list[FileRecord] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    writes: list[WriteRecord] = field(default_factory=list)
    #: The agent's id of the user message, when it gave one (for an exact fork).
    message_id: str | None = None
    #: For a rewind: the turn it went back to.
    target: int | None = None

    def first_line(self) -> str:
        return self.prompt.strip().splitlines()[0] if self.prompt.strip() else ""


@dataclass(slots=True)
class SessionJournal:
    """Every checkpointed turn of one session, oldest first."""

    session_id: str
    cwd: str
    roots: list[str]
    engine: Engine
    agent: str = ""
    title: str | None = None
    turns: list[TurnRecord] = field(default_factory=list)
    updated: float = 0.0

    def turn(self, number: int) -> TurnRecord | None:
        for record in self.turns:
            if record.number == number:
                return record
        return None

    def next_number(self) -> int:
        return max((record.number for record in self.turns), default=0) + 1

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["version"] = _VERSION
        return data

    @classmethod
    def from_json(cls, data: Any) -> SessionJournal:
        """A journal read back; ValueError when ``data`` is not one."""
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError("not a checkpoint journal of this version")
        try:
            turns = [
                TurnRecord(
                    **{
                        **turn,
                        "files": [FileRecord(**item) for item in turn.get("files", [])],
                        "writes": [WriteRecord(**item) for item in turn.get("writes", [])],
                    }
                )
                for turn in data.get("turns", [])
            ]
            return cls(
                session_id=str(data["session_id"]),
                cwd=str(data["cwd"]),
                roots=[str(root) for root in data.get("roots", [])],
                engine="writes" if data.get("engine") == "writes" else "git",
                agent=str(data.get("agent", "")),
                title=data.get("title") if isinstance(data.get("title"), str) else None,
                turns=turns,
                updated=float(data.get("updated", 0.0)),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"a malformed checkpoint journal: {error}") from None


def _name(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".json"


class JournalStore:
    """The journals of every session, in ``base/sessions/`` (folders 0700)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.folder = base / "sessions"

    def path_of(self, session_id: str) -> Path:
        return self.folder / _name(session_id)

    def load(self, session_id: str) -> SessionJournal | None:
        """The session's journal, or None (none kept, or unreadable)."""
        return _read(self.path_of(session_id))

    def save(self, journal: SessionJournal) -> None:
        journal.updated = time.time()
        private_directory(self.base)
        private_directory(self.folder)
        data = json.dumps(journal.to_json(), ensure_ascii=True, indent=1).encode()
        replace_file(resolve_path(self.path_of(journal.session_id)), data)

    def delete(self, session_id: str) -> None:
        with contextlib.suppress(OSError, PathRefused):
            remove_file(resolve_path(self.path_of(session_id), roots=[self.folder]))

    def all(self) -> list[SessionJournal]:
        """Every readable journal, the most recently changed first."""
        journals: list[SessionJournal] = []
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.folder):
                if entry.name.endswith(".json"):
                    journal = _read(Path(entry.path))
                    if journal is not None:
                        journals.append(journal)
        journals.sort(key=lambda journal: journal.updated, reverse=True)
        return journals


def _read(path: Path) -> SessionJournal | None:
    try:
        with open_to_read(resolve_path(path)) as file:
            data = json.loads(file.read(64 * 1024 * 1024))
        return SessionJournal.from_json(data)
    except (OSError, PathRefused, ValueError):
        return None


class BlobFiles:
    """Contents kept by their SHA-256 in ``base/blobs/`` (the no-git fallback's store)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.folder = base / "blobs"

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        target = resolve_path(self.folder / digest)
        if target.kind != "file":
            private_directory(self.base)
            private_directory(self.folder)
            replace_file(target, data)
        return digest

    def get(self, digest: str) -> bytes:
        with open_to_read(resolve_path(self.folder / digest)) as file:
            data = file.read()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"the kept content {digest[:12]} is damaged")
        return data

    def drop(self, digests: set[str]) -> None:
        for digest in digests:
            with contextlib.suppress(OSError, PathRefused):
                remove_file(resolve_path(self.folder / digest, roots=[self.folder]))
