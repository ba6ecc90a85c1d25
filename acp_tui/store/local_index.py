"""Local index: the sessions this client created or opened, per agent, in SQLite.

The sidebar uses it for agents without ``session/list`` (and to mark sessions resumable).
The app passes a path (``config.locations.local_index_file()``); this
module does no path discovery of its own.

Never raises to the caller: every method catches ``sqlite3`` / OS errors and records a
human-readable line in :attr:`LocalIndex.warnings` (and returns ``False`` / an empty list).
A corrupt or unreadable file is renamed ``<name>.corrupt-<timestamp>`` and a fresh database is
created in its place; if even that fails, the index runs in memory for this run.

Every write is one transaction (``with conn:``), so a crash never leaves a half-written row.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.text.safety import encodable

__all__ = ["IndexedSession", "LocalIndex"]


def _storable(value: Any) -> Any:
    """A string SQLite can store: sqlite3 encodes to UTF-8 and raises on a lone surrogate
    (valid in JSON, so in a session title), which once made every later refresh fail."""
    return encodable(value) if isinstance(value, str) else value


_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    agent        TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    cwd          TEXT,
    title        TEXT,
    first_prompt TEXT,
    created      REAL NOT NULL,
    updated      REAL NOT NULL,
    mode         TEXT,
    model        TEXT,
    options      TEXT,
    dirs         TEXT,
    PRIMARY KEY (agent, session_id)
);
CREATE INDEX IF NOT EXISTS sessions_by_updated ON sessions (agent, updated DESC);
CREATE TABLE IF NOT EXISTS local_titles (
    agent        TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    title        TEXT NOT NULL,
    updated      REAL NOT NULL,
    PRIMARY KEY (agent, session_id)
);
CREATE TABLE IF NOT EXISTS agent_defaults (
    agent        TEXT PRIMARY KEY,
    defaults     TEXT NOT NULL,
    updated      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS taken_over (
    agent        TEXT NOT NULL,
    legacy       TEXT NOT NULL,
    PRIMARY KEY (agent, legacy)
);
"""

_FIELDS = ("cwd", "title", "first_prompt", "mode", "model")
_COLUMNS = "session_id, cwd, title, first_prompt, created, updated, mode, model, options, dirs"
#: Columns added after the first release, with their type: added to an older file on open.
_LATER_COLUMNS = (("options", "TEXT"), ("dirs", "TEXT"))


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    have = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
    for name, kind in _LATER_COLUMNS:
        if name not in have:
            conn.execute(f"ALTER TABLE sessions ADD COLUMN {name} {kind}")


def _json_object(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _json_strings(text: Any) -> tuple[str, ...]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return ()
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


@dataclass(frozen=True, slots=True)
class IndexedSession:
    """One remembered session. ``created`` / ``updated`` are POSIX seconds."""

    session_id: str
    cwd: str | None
    title: str | None
    first_prompt: str | None
    created: float
    updated: float
    mode: str | None
    model: str | None
    #: The session's option values (option key -> value, see :mod:`acp_tui.store.options`).
    options: dict[str, Any] = field(default_factory=dict)
    #: The session's additional directories.
    additional_dirs: tuple[str, ...] = ()


class LocalIndex:
    """Sessions remembered for one agent (``agent``: its key, its identity; see
    :attr:`acp_tui.session.launch.spec.AgentSpec.key`).

    ``legacy``: the key the same agent had in an index written before keys were identities
    (its command line joined with spaces). What was remembered under it is copied under
    ``agent`` the first time this agent opens the index, and left where it was: another agent
    that ran the same command line (with another env) takes its own copy, and nothing the
    person had is lost."""

    def __init__(
        self, path: str | os.PathLike[str], agent: str, *, legacy: str | None = None
    ) -> None:
        self.path = Path(path)
        self.agent = agent
        self.warnings: list[str] = []
        self._conn: sqlite3.Connection | None = None
        #: True when the file could not be used and the index lives in memory for this run.
        self.in_memory = False
        self._open()
        if legacy is not None and legacy != agent:
            self._take_over(legacy)

    def _take_over(self, legacy: str) -> None:
        """Copy what is remembered under ``legacy`` to this agent's key, once."""
        conn = self._conn
        if conn is None:
            return
        agent = _storable(self.agent)
        legacy = _storable(legacy)
        try:
            with conn:
                done = conn.execute(
                    "SELECT 1 FROM taken_over WHERE agent = ? AND legacy = ?", (agent, legacy)
                ).fetchone()
                if done is not None:
                    return
                conn.execute(
                    f"INSERT OR IGNORE INTO sessions (agent, {_COLUMNS})"
                    f" SELECT ?, {_COLUMNS} FROM sessions WHERE agent = ?",
                    (agent, legacy),
                )
                conn.execute(
                    "INSERT OR IGNORE INTO local_titles (agent, session_id, title, updated)"
                    " SELECT ?, session_id, title, updated FROM local_titles WHERE agent = ?",
                    (agent, legacy),
                )
                conn.execute(
                    "INSERT OR IGNORE INTO agent_defaults (agent, defaults, updated)"
                    " SELECT ?, defaults, updated FROM agent_defaults WHERE agent = ?",
                    (agent, legacy),
                )
                conn.execute(
                    "INSERT INTO taken_over (agent, legacy) VALUES (?, ?)", (agent, legacy)
                )
        except (sqlite3.Error, ValueError) as exc:
            self.warnings.append(f"cannot read the older sessions of this agent: {exc}")

    # -- opening -----------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=5.0)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # Commits without an fsync (the write-ahead log is synced at checkpoints): the
            # chat screen writes here at turn boundaries, on its event loop, and an fsync
            # behind another program's writes takes tens of milliseconds that a key would
            # wait for. In WAL mode the file stays consistent; a power cut may lose the last
            # few remembered titles, which the agent's list gives back.
            conn.execute("PRAGMA synchronous=NORMAL")
            row = conn.execute("PRAGMA quick_check").fetchone()
            if row is None or row[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {row!r}")
            with conn:
                conn.executescript(_SCHEMA)
                _add_missing_columns(conn)
            # Fail now, not later, if an existing table has an unexpected shape.
            conn.execute(f"SELECT {_COLUMNS} FROM sessions LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn

    def _open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.warnings.append(f"cannot create {self.path.parent}: {exc}")
        try:
            self._conn = self._connect()
            return
        except (sqlite3.Error, OSError) as exc:
            self.warnings.append(f"session index {self.path} is unreadable ({exc})")
        if self.path.exists():
            aside = self.path.with_name(
                f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
            )
            try:
                os.replace(self.path, aside)
                for suffix in ("-wal", "-shm", "-journal"):
                    side = self.path.with_name(self.path.name + suffix)
                    if side.exists():
                        os.replace(side, aside.with_name(aside.name + suffix))
                self.warnings.append(f"moved it aside to {aside} and started a fresh index")
            except OSError as exc:
                self.warnings.append(f"cannot move it aside: {exc}")
        try:
            self._conn = self._connect()
            return
        except (sqlite3.Error, OSError) as exc:
            self.warnings.append(f"cannot create a fresh index ({exc}); using memory only")
        self.in_memory = True
        self._conn = sqlite3.connect(":memory:")
        with self._conn:
            self._conn.executescript(_SCHEMA)

    @property
    def ok(self) -> bool:
        """True when the index is backed by its file (not the in-memory fallback)."""
        return self._conn is not None and not self.in_memory

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def __enter__(self) -> LocalIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes ------------------------------------------------------------------------------
    def remember(
        self,
        session_id: str,
        *,
        cwd: str | None = None,
        title: str | None = None,
        first_prompt: str | None = None,
        mode: str | None = None,
        model: str | None = None,
        created: float | None = None,
        updated: float | None = None,
        options: dict[str, Any] | None = None,
        additional_dirs: list[str] | None = None,
    ) -> bool:
        """Insert or update a session. ``None`` arguments leave stored values unchanged;
        ``updated`` defaults to now; ``options`` are merged over the stored ones (an option the
        agent did not report this time keeps its remembered value). Returns ``False`` (and
        adds a warning) on failure."""
        now = time.time()
        session_id = _storable(session_id)
        values: dict[str, Any] = {
            "cwd": cwd,
            "title": title,
            "first_prompt": first_prompt,
            "mode": mode,
            "model": model,
        }
        values = {name: _storable(value) for name, value in values.items()}
        conn = self._conn
        if conn is None:
            self.warnings.append("session index is closed")
            return False
        try:
            options_text = None
            if options:
                known = self.get(session_id)
                merged = {**(known.options if known else {}), **options}
                options_text = _storable(json.dumps(merged, ensure_ascii=False))
            dirs_text = (
                _storable(json.dumps(list(additional_dirs), ensure_ascii=False))
                if additional_dirs is not None
                else None
            )
            with conn:
                conn.execute(
                    "INSERT INTO sessions (agent, session_id, cwd, title, first_prompt, created,"
                    " updated, mode, model, options, dirs)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT(agent, session_id) DO UPDATE SET"
                    " cwd = coalesce(excluded.cwd, cwd),"
                    " title = coalesce(excluded.title, title),"
                    " first_prompt = coalesce(first_prompt, excluded.first_prompt),"
                    " mode = coalesce(excluded.mode, mode),"
                    " model = coalesce(excluded.model, model),"
                    " options = coalesce(excluded.options, options),"
                    " dirs = coalesce(excluded.dirs, dirs),"
                    " updated = max(updated, excluded.updated)",
                    (
                        self.agent,
                        session_id,
                        *(values[f] for f in _FIELDS[:3]),
                        created if created is not None else now,
                        updated if updated is not None else now,
                        values["mode"],
                        values["model"],
                        options_text,
                        dirs_text,
                    ),
                )
            return True
        except (sqlite3.Error, ValueError, OverflowError, TypeError) as exc:
            # ValueError: what sqlite3 cannot bind (a NUL in a string); OverflowError: a
            # number too large for SQLite. The session goes on unindexed, never broken.
            self.warnings.append(f"cannot write session index: {exc}")
            return False

    def remember_session(self, session: Any) -> bool:
        """Remember a :class:`~acp_tui.store.SessionState` (id, cwd, title, first prompt,
        current mode and model, every option's value, its additional directories)."""
        from acp_tui.store.options import remembered_values, session_options

        legacy_model = (session.models or {}).get("currentModelId") if session.models else None
        return self.remember(
            session.id,
            cwd=session.cwd,
            title=session.title,
            first_prompt=session.first_prompt,
            mode=session.current_mode_id,
            model=session.current_model
            or (legacy_model if isinstance(legacy_model, str) else None),
            updated=session.updated_ts,
            options=remembered_values(session_options(session)),
            additional_dirs=session.additional_dirs,
        )

    def forget_unused(self) -> bool:
        """Drop rows that never had a conversation (no title, no first prompt): older versions
        remembered every new session, and the agent may never have kept those."""
        conn = self._conn
        if conn is None:
            return False
        try:
            with conn:
                conn.execute(
                    "DELETE FROM sessions WHERE agent = ? AND title IS NULL"
                    " AND first_prompt IS NULL",
                    (self.agent,),
                )
            return True
        except sqlite3.Error as exc:
            self.warnings.append(f"cannot write session index: {exc}")
            return False

    def forget(self, session_id: str, *, keep_title: bool = False) -> bool:
        """Drop a session (its local title too, unless ``keep_title``: an archived session
        is no longer offered from the index, and keeps its name for when it is back)."""
        conn = self._conn
        if conn is None:
            return False
        tables = ("sessions",) if keep_title else ("sessions", "local_titles")
        try:
            with conn:
                for table in tables:
                    conn.execute(
                        f"DELETE FROM {table} WHERE agent = ? AND session_id = ?",
                        (self.agent, _storable(session_id)),
                    )
            return True
        except (sqlite3.Error, ValueError) as exc:
            self.warnings.append(f"cannot write session index: {exc}")
            return False

    def set_local_title(self, session_id: str, title: str) -> bool:
        """A title the person gave a session of an agent that cannot store one
        (``session/set_title``): it wins over the agent's titles here, across restarts."""
        conn = self._conn
        if conn is None:
            return False
        try:
            with conn:
                conn.execute(
                    "INSERT INTO local_titles (agent, session_id, title, updated)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT(agent, session_id) DO UPDATE SET"
                    " title = excluded.title, updated = excluded.updated",
                    (self.agent, _storable(session_id), _storable(title), time.time()),
                )
            return True
        except (sqlite3.Error, ValueError) as exc:
            self.warnings.append(f"cannot write session index: {exc}")
            return False

    def local_titles(self) -> dict[str, str]:
        """Session id -> the title the person gave it (see :meth:`set_local_title`)."""
        conn = self._conn
        if conn is None:
            return {}
        try:
            rows = conn.execute(
                "SELECT session_id, title FROM local_titles WHERE agent = ?",
                (_storable(self.agent),),
            ).fetchall()
        except (sqlite3.Error, ValueError) as exc:
            self.warnings.append(f"cannot read session index: {exc}")
            return {}
        return {str(sid): str(title) for sid, title in rows if isinstance(title, str)}

    def remember_defaults(self, defaults: dict[str, Any], *, forget: Iterable[str] = ()) -> bool:
        """What this agent's last new session offered (its ``modes``, ``configOptions`` as in
        the session/new answer, and its ``commands``), merged over what was remembered less
        the keys in ``forget``: shown before the next new session exists, which is only made
        by the first message."""
        conn = self._conn
        if conn is None:
            return False
        gone = set(forget)
        merged = {k: v for k, v in self.defaults().items() if k not in gone} | defaults
        try:
            text = json.dumps(merged, ensure_ascii=False)
            with conn:
                conn.execute(
                    "INSERT INTO agent_defaults (agent, defaults, updated) VALUES (?, ?, ?)"
                    " ON CONFLICT(agent) DO UPDATE SET defaults = excluded.defaults,"
                    " updated = excluded.updated",
                    (self.agent, text, time.time()),
                )
            return True
        except (sqlite3.Error, TypeError, ValueError) as exc:
            self.warnings.append(f"cannot write session index: {exc}")
            return False

    def defaults(self) -> dict[str, Any]:
        """See :meth:`remember_defaults`; ``{}`` when nothing is remembered (or unreadable)."""
        conn = self._conn
        if conn is None:
            return {}
        try:
            row = conn.execute(
                "SELECT defaults FROM agent_defaults WHERE agent = ?", (self.agent,)
            ).fetchone()
            value = json.loads(row[0]) if row else {}
        except (sqlite3.Error, TypeError, ValueError) as exc:
            self.warnings.append(f"cannot read session index: {exc}")
            return {}
        return value if isinstance(value, dict) else {}

    # -- reads -------------------------------------------------------------------------------
    def sessions(self, cwd: str | None = None, limit: int | None = None) -> list[IndexedSession]:
        """Remembered sessions for this agent, most recently updated first."""
        conn = self._conn
        if conn is None:
            return []
        where = ""
        args: list[Any] = []
        if cwd is not None:
            where = " AND cwd = ?"
            args.append(cwd)
        return self._query(where, args, limit)

    def _query(self, where: str, args: list[Any], limit: int | None = None) -> list[IndexedSession]:
        conn = self._conn
        if conn is None:
            return []
        sql = f"SELECT {_COLUMNS} FROM sessions WHERE agent = ?" + where + " ORDER BY updated DESC"
        args = [_storable(self.agent), *(_storable(arg) for arg in args)]
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        try:
            rows = conn.execute(sql, args).fetchall()
        except (sqlite3.Error, ValueError) as exc:
            self.warnings.append(f"cannot read session index: {exc}")
            return []
        out: list[IndexedSession] = []
        for row in rows:
            try:
                out.append(
                    IndexedSession(
                        session_id=str(row[0]),
                        cwd=row[1] if isinstance(row[1], str) else None,
                        title=row[2] if isinstance(row[2], str) else None,
                        first_prompt=row[3] if isinstance(row[3], str) else None,
                        created=float(row[4]),
                        updated=float(row[5]),
                        mode=row[6] if isinstance(row[6], str) else None,
                        model=row[7] if isinstance(row[7], str) else None,
                        options=_json_object(row[8]),
                        additional_dirs=_json_strings(row[9]),
                    )
                )
            except (TypeError, ValueError):
                continue
        return out

    def get(self, session_id: str) -> IndexedSession | None:
        session_id = _storable(session_id)
        for s in self._query(" AND session_id = ?", [session_id]):
            return s
        return None
