"""Demo-agent sessions on disk: one JSON file per session, written atomically.

File layout (still one JSON object)::

    {"meta":{...small metadata...},
    "history":[...transcript items...]}

The metadata is serialised with ``ensure_ascii`` on the first line, so ``session/list`` reads
only that line of each file, however long the transcript. Files are replaced with a temporary
file + ``os.replace``, so a crash mid-write never leaves half a session behind.

Transcript items are what a ``session/load`` replays, in order:
``{"kind": "user" | "agent" | "thought", "messageId", "text"}`` (user items also keep their
``blocks``), ``{"kind": "tool", "toolCall": {...final ToolCall, v1 shapes...}}``,
``{"kind": "plan", "planId", "entries"}``, ``{"kind": "plan_removed", "planId"}`` and
``{"kind": "compaction", "compactionId", "status", "text"}`` (``text`` is its summary).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import logging
import os
import re
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
PAGE_SIZE = 20
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
_META_PREFIX = '{"meta":'


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_session_id() -> str:
    return f"demo-{uuid.uuid4().hex[:16]}"


def valid_session_id(session_id: Any) -> bool:
    return isinstance(session_id, str) and bool(_SESSION_ID.match(session_id))


@dataclass(slots=True)
class SessionRecord:
    """Everything the demo agent remembers about one session."""

    session_id: str
    cwd: str
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    title: str | None = None
    mode: str = "code"
    model: str = "demo-swift"
    cost: float = 0.0
    fill_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    turns: int = 0
    permissions: dict[str, str] = field(default_factory=dict)
    #: Config option values other than mode and model (see config.py).
    options: dict[str, Any] = field(default_factory=dict)
    additional_dirs: list[str] = field(default_factory=list)
    archived: bool = False
    #: Set by ``session/set_title``: the agent no longer titles the session by itself.
    title_locked: bool = False
    #: History characters a /compact folded away: they no longer count as context.
    compacted_chars: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def message_count(self) -> int:
        return sum(1 for item in self.history if item.get("kind") in ("user", "agent"))

    @property
    def history_chars(self) -> int:
        total = 0
        for item in self.history:
            text = item.get("text")
            if isinstance(text, str):
                total += len(text)
            elif item.get("kind") == "tool":
                total += len(json.dumps(item.get("toolCall", {})))
            elif item.get("kind") == "plan" and isinstance(item.get("entries"), list):
                total += sum(len(str(e.get("content", ""))) for e in item.get("entries", []))
        return total

    def meta(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "title": self.title,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "mode": self.mode,
            "model": self.model,
            "cost": self.cost,
            "fillTokens": self.fill_tokens,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "turns": self.turns,
            "messageCount": self.message_count,
            "permissions": self.permissions,
            "options": self.options,
            "additionalDirectories": self.additional_dirs,
            "archived": self.archived,
            "titleLocked": self.title_locked,
            "compactedChars": self.compacted_chars,
        }

    @classmethod
    def from_json(cls, meta: dict[str, Any], history: list[Any]) -> SessionRecord:
        def num(key: str, default: float = 0) -> Any:
            value = meta.get(key, default)
            return (
                value if isinstance(value, int | float) and not isinstance(value, bool) else default
            )

        def text(key: str, default: str | None = None) -> Any:
            value = meta.get(key)
            return value if isinstance(value, str) else default

        permissions = meta.get("permissions")
        options = meta.get("options")
        dirs = meta.get("additionalDirectories")
        return cls(
            session_id=str(meta["sessionId"]),
            cwd=text("cwd", "/"),
            created_at=text("createdAt", now_iso()),
            updated_at=text("updatedAt", now_iso()),
            title=text("title"),
            mode=text("mode", "code"),
            model=text("model", "demo-swift"),
            cost=float(num("cost", 0.0)),
            fill_tokens=int(num("fillTokens")),
            input_tokens=int(num("inputTokens")),
            output_tokens=int(num("outputTokens")),
            turns=int(num("turns")),
            permissions={str(k): str(v) for k, v in permissions.items()}
            if isinstance(permissions, dict)
            else {},
            options=dict(options) if isinstance(options, dict) else {},
            additional_dirs=[d for d in dirs if isinstance(d, str)]
            if isinstance(dirs, list)
            else [],
            archived=meta.get("archived") is True,
            title_locked=meta.get("titleLocked") is True,
            compacted_chars=int(num("compactedChars")),
            history=[item for item in history if isinstance(item, dict)],
        )


def info_from_meta(meta: dict[str, Any]) -> dict[str, Any] | None:
    """The ``SessionInfo`` a session file's metadata line describes."""
    if not valid_session_id(meta.get("sessionId")):
        return None
    info: dict[str, Any] = {
        "sessionId": meta["sessionId"],
        "cwd": meta.get("cwd") if isinstance(meta.get("cwd"), str) else "/",
        "updatedAt": meta.get("updatedAt") if isinstance(meta.get("updatedAt"), str) else "",
        "archived": meta.get("archived") is True,
        "_meta": {"messageCount": meta.get("messageCount", 0)},
    }
    dirs = meta.get("additionalDirectories")
    if isinstance(dirs, list) and dirs:
        info["additionalDirectories"] = [d for d in dirs if isinstance(d, str)]
    if isinstance(meta.get("title"), str):
        info["title"] = meta["title"]
    return info


@dataclass(slots=True)
class _Cached:
    stamp: tuple[int, int]
    info: dict[str, Any]


class SessionStore:
    """The state directory: ``<dir>/<sessionId>.json`` per session."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._listing: dict[str, _Cached] = {}

    def ensure(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)

    def path(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise ValueError(f"invalid session id: {session_id!r}")
        return self.directory / f"{session_id}.json"

    def exists(self, session_id: str) -> bool:
        return valid_session_id(session_id) and self.path(session_id).is_file()

    def save(self, record: SessionRecord) -> None:
        self.ensure()
        text = (
            _META_PREFIX
            + json.dumps(record.meta(), ensure_ascii=True, separators=(",", ":"))
            + ',\n"history":'
            + json.dumps(record.history, ensure_ascii=False, separators=(",", ":"))
            + "}\n"
        )
        target = self.path(record.session_id)
        fd, temp = tempfile.mkstemp(
            prefix=f".{record.session_id}.", suffix=".tmp", dir=self.directory
        )
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def load(self, session_id: str) -> SessionRecord | None:
        if not valid_session_id(session_id):
            return None
        try:
            data = json.loads(self.path(session_id).read_text(encoding="utf-8"))
            return SessionRecord.from_json(data["meta"], data.get("history") or [])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("cannot read session %s: %s", session_id, error)
            return None

    def delete(self, session_id: str) -> bool:
        if not valid_session_id(session_id):
            return False
        self._listing.pop(session_id, None)
        try:
            self.path(session_id).unlink()
        except FileNotFoundError:
            return False
        return True

    # ------------------------------------------------------------------ listing

    def _read_info(self, path: Path) -> dict[str, Any] | None:
        try:
            with path.open("r", encoding="utf-8") as handle:
                first = handle.readline()
                meta: Any = None
                if first.startswith(_META_PREFIX) and first.rstrip().endswith(","):
                    with contextlib.suppress(ValueError):
                        meta = json.loads(first.rstrip()[len(_META_PREFIX) : -1])
                if not isinstance(meta, dict):
                    handle.seek(0)
                    meta = json.load(handle).get("meta")
        except (OSError, ValueError, AttributeError) as error:
            log.warning("skipping unreadable session file %s: %s", path.name, error)
            return None
        if not isinstance(meta, dict):
            return None
        return info_from_meta(meta)

    def all_infos(self) -> list[dict[str, Any]]:
        """Every session's ``SessionInfo``, newest ``updatedAt`` first."""
        infos: list[dict[str, Any]] = []
        seen: set[str] = set()
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            entries = []
        for entry in entries:
            name = entry.name
            if not name.endswith(".json") or name.startswith("."):
                continue
            session_id = name[: -len(".json")]
            if not valid_session_id(session_id):
                continue
            try:
                st = entry.stat()
            except OSError:
                continue
            stamp = (st.st_mtime_ns, st.st_size)
            cached = self._listing.get(session_id)
            if cached is None or cached.stamp != stamp:
                info = self._read_info(Path(entry.path))
                if info is None:
                    continue
                cached = _Cached(stamp, info)
                self._listing[session_id] = cached
            seen.add(session_id)
            infos.append(cached.info)
        for stale in set(self._listing) - seen:
            del self._listing[stale]
        infos.sort(key=_sort_key, reverse=True)
        return infos

    def list_page(
        self, cwd: str | None, cursor: str | None, archived: str = "exclude"
    ) -> dict[str, Any]:
        """One page of ``session/list``: keyset pagination on (updatedAt, sessionId), so a
        session touched between two pages never makes another one appear twice.
        ``archived`` is the unstable filter: exclude (the default), include or only."""
        infos = self.all_infos()
        if archived == "exclude":
            infos = [info for info in infos if not info["archived"]]
        elif archived == "only":
            infos = [info for info in infos if info["archived"]]
        if cwd is not None:
            wanted = normalise_dir(cwd)
            infos = [info for info in infos if normalise_dir(info["cwd"]) == wanted]
        if cursor is not None:
            after = decode_cursor(cursor)
            infos = [info for info in infos if _sort_key(info) < after]
        page = infos[:PAGE_SIZE]
        result: dict[str, Any] = {"sessions": [dict(info) for info in page]}
        if len(infos) > PAGE_SIZE:
            result["nextCursor"] = encode_cursor(_sort_key(page[-1]))
        return result


def _sort_key(info: dict[str, Any]) -> tuple[str, str]:
    return (str(info.get("updatedAt") or ""), str(info["sessionId"]))


def normalise_dir(path: str) -> str:
    return os.path.normpath(path) if path else path


def encode_cursor(key: tuple[str, str]) -> str:
    raw = json.dumps(list(key), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class CursorError(ValueError):
    pass


def decode_cursor(cursor: str) -> tuple[str, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, binascii.Error, UnicodeDecodeError) as error:
        raise CursorError(f"invalid cursor: {cursor!r}") from error
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise CursorError(f"invalid cursor: {cursor!r}")
    return (value[0], value[1])


def default_state_dir() -> Path:
    from acp_tui.config import locations

    return locations.demo_agent_state_dir()
