"""The search index of every session of every agent: SQLite, full text through FTS5.

One file in acp-tui's data directory holds what acp-tui has seen of each session (the
person's messages, the agent's replies and thoughts, tool call titles and the first part of
their output, each bounded), one row per transcript entry with its agent, project, session,
time and position in the transcript. :class:`~acp_tui.store.search_writer.SearchWriter`
writes it from a thread of its own; :meth:`SearchIndex.search` reads it.

FTS5 is detected when the file is opened: an SQLite built without it gets a slower search
with ``LIKE`` (:attr:`SearchIndex.fts` is False and :attr:`SearchIndex.note` says so).

Ranking: the newest :data:`WINDOW` entries that match (and pass the filters) are ranked by
FTS5's bm25, best first, so a word found in millions of entries still answers at once.

Never raises to its caller on a broken file: a file SQLite cannot read is renamed
``<name>.corrupt-<timestamp>`` and a fresh one made; if even that fails, the index lives in
memory for this run (said in :attr:`SearchIndex.note`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.store.search_query import PREFIX_CHARS, SearchQuery, fts_expression, words_of
from acp_tui.store.search_schema import (
    DAY,
    DAYS,
    DAYS_FROM_ENTRIES,
    DROP,
    FTS,
    SELECT,
    TABLES,
    VERSION,
)
from acp_tui.text.safety import encodable

__all__ = [
    "EntryRow",
    "IndexStats",
    "SearchHit",
    "SearchIndex",
    "SessionRow",
    "WriteOp",
    "snippet_of",
]

log = logging.getLogger(__name__)

#: How many of the newest matching entries are ranked (bm25) for one query.
WINDOW = 1_000
#: The ranges of the newest row ids a query looks in, one after the other, until the window
#: is full (None: all of them).
RANGES: tuple[int | None, ...] = (100_000, 1_000_000, None)
#: How many results a query returns at most, by default.
LIMIT = 50
#: Characters of context a snippet shows before and after its first match.
BEFORE, AFTER = 40, 110


@dataclass(frozen=True, slots=True)
class SessionRow:
    """What a result says of its session."""

    agent: str
    label: str
    session_id: str
    project: str
    title: str
    updated: float | None = None


@dataclass(frozen=True, slots=True)
class EntryRow:
    """One transcript entry as indexed: its position, kind (``user``, ``agent``,
    ``thought``, ``tool``, ``message``), when it was first seen and its text (bounded)."""

    position: int
    kind: str
    at: float
    text: str


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One entry that matched. :attr:`snippet` is the text around the first match (data:
    shown literally), :attr:`spans` where the query's words are in it."""

    agent: str
    label: str
    session_id: str
    project: str
    title: str
    position: int
    kind: str
    at: float
    snippet: str
    spans: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "label": self.label,
            "session_id": self.session_id,
            "project": self.project,
            "title": self.title,
            "position": self.position,
            "kind": self.kind,
            "at": self.at,
            "snippet": self.snippet,
            "spans": [list(span) for span in self.spans],
        }


#: What the writer hands over: ``("put", SessionRow, entries, keep)`` or
#: ``("forget", agent, session_id)``.
WriteOp = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class IndexStats:
    sessions: int
    entries: int
    bytes: int


def _pattern(query: SearchQuery) -> re.Pattern[str] | None:
    words = [word for term in query.terms for word in words_of(term)]
    if not words:
        return None
    last = len(words) - 1
    parts = [
        re.escape(word)
        + (r"\w*" if query.typing and index == last and len(word) >= PREFIX_CHARS else r"\b")
        for index, word in enumerate(words)
    ]
    return re.compile(r"\b(?:" + "|".join(parts) + ")", re.IGNORECASE)


def snippet_of(text: str, query: SearchQuery) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The part of ``text`` around the first of ``query``'s words, on one line, and where
    each of its words is in that part."""
    pattern = _pattern(query)
    first = pattern.search(text) if pattern is not None else None
    start = max(0, first.start() - BEFORE) if first is not None else 0
    end = min(len(text), (first.end() if first is not None else 0) + AFTER)
    if start > 0:  # begin at a word
        space = text.find(" ", start, start + 15)
        start = space + 1 if space != -1 else start
    piece = " ".join(text[start:end].split())
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    snippet = prefix + piece + suffix
    spans = (
        tuple((m.start(), m.end()) for m in pattern.finditer(snippet))
        if pattern is not None
        else ()
    )
    return snippet, spans


def _rank(texts: dict[int, str], query: SearchQuery) -> list[int]:
    """The ids of ``texts`` best first: BM25 (k1 1.2, b 0.75) over the words of ``query``,
    each word weighed by how few of these texts hold it; newest first among equals."""
    pattern = _pattern(query)
    if pattern is None or not texts:
        return sorted(texts, reverse=True)
    counts: dict[int, dict[str, int]] = {}
    lengths: dict[int, int] = {}
    holding: dict[str, int] = {}
    for rowid, text in texts.items():
        found: dict[str, int] = {}
        for match in pattern.finditer(text):
            word = match.group(0).casefold()
            found[word] = found.get(word, 0) + 1
        counts[rowid] = found
        lengths[rowid] = max(1, text.count(" ") + 1)
        for word in found:
            holding[word] = holding.get(word, 0) + 1
    total = len(texts)
    average = sum(lengths.values()) / total
    weight = {w: math.log(1 + (total - n + 0.5) / (n + 0.5)) for w, n in holding.items()}

    def score(rowid: int) -> float:
        norm = 1.2 * (0.25 + 0.75 * lengths[rowid] / average)
        return sum(weight[w] * tf * 2.2 / (tf + norm) for w, tf in counts[rowid].items())

    return sorted(texts, key=lambda rowid: (-score(rowid), -rowid))


def _connect(path: Path | None) -> sqlite3.Connection:
    target = ":memory:" if path is None else str(path)
    conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=10)
    conn.execute("PRAGMA cache_size = -8000")  # at most 8 MB of pages per connection
    if path is not None:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def fts5_available() -> bool:
    """Whether this Python's SQLite has FTS5."""
    try:
        conn = sqlite3.connect(":memory:")
        try:
            conn.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return True


class SearchIndex:
    """One connection to the index file (``path``; None: in memory). Thread-safe: calls are
    serialised by a lock; the writer and the readers each open their own."""

    def __init__(self, path: Path | None, *, fts: bool | None = None) -> None:
        self.path = path
        #: Full text through FTS5 (else LIKE); None: detected.
        self.fts = fts5_available() if fts is None else fts
        #: Said to the person once: the index is slower, or in memory only.
        self.note: str | None = None if self.fts else "full-text search unavailable: slower"
        self._lock = threading.Lock()
        self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        path = self.path
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                return self._made(_connect(path))
            except (sqlite3.Error, OSError) as error:
                log.warning("search index %s unreadable: %s", path, error)
                with contextlib.suppress(OSError):
                    path.rename(path.with_name(f"{path.name}.corrupt-{int(time.time())}"))
                try:
                    return self._made(_connect(path))
                except (sqlite3.Error, OSError) as again:
                    self.note = f"search index kept in memory only: {again}"
        return self._made(_connect(None))

    def _made(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version not in (3, VERSION):  # 3: the layout before the days, kept
                conn.executescript(DROP)
            conn.executescript(TABLES + DAYS)
            if version == 3:  # its days are read from the entries it holds
                conn.executescript(DAYS_FROM_ENTRIES)
            if version != VERSION:
                conn.execute(f"PRAGMA user_version = {VERSION}")
            if self.fts:
                conn.executescript(FTS)
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._conn.close()

    # -- writing (the writer's thread) -----------------------------------------------------------
    def _session_id(self, cur: sqlite3.Cursor, row: SessionRow) -> tuple[int, str]:
        """The session's row id, and the tags of its entries."""
        words = f"{row.label}\n{row.agent}".casefold()
        cur.execute(
            "INSERT INTO search_agents (agent, words) VALUES (?, ?) ON CONFLICT (agent)"
            " DO UPDATE SET words = excluded.words WHERE words != excluded.words",
            (encodable(row.agent), encodable(words)),
        )
        agent_id = cur.execute(
            "SELECT id FROM search_agents WHERE agent = ?", (encodable(row.agent),)
        ).fetchone()[0]
        cur.execute(
            "INSERT OR IGNORE INTO search_projects (project) VALUES (?)", (encodable(row.project),)
        )
        project_id = cur.execute(
            "SELECT id FROM search_projects WHERE project = ?", (encodable(row.project),)
        ).fetchone()[0]
        cur.execute(
            "INSERT INTO search_sessions (agent, label, session_id, project, title, updated,"
            " agent_words) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (agent, session_id) DO UPDATE SET label = excluded.label,"
            " project = excluded.project, title = excluded.title,"
            " updated = excluded.updated, agent_words = excluded.agent_words",
            (
                encodable(row.agent),
                encodable(row.label),
                encodable(row.session_id),
                encodable(row.project),
                encodable(row.title),
                row.updated,
                encodable(words),
            ),
        )
        found = cur.execute(
            "SELECT id FROM search_sessions WHERE agent = ? AND session_id = ?",
            (encodable(row.agent), encodable(row.session_id)),
        ).fetchone()
        return int(found[0]), f"a{agent_id} p{project_id}"

    def write(self, ops: Iterable[WriteOp]) -> None:
        """One transaction, in order: ``("put", session, entries, keep)`` writes a session's
        row and entries (an entry at a position already indexed is replaced, keeping when it
        was first seen; ``keep`` not None: entries at that position and after are dropped,
        the transcript is shorter now); ``("forget", agent, session_id)`` removes one."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN")
            try:
                for op in ops:
                    if op[0] == "forget":
                        self._forget(cur, op[1], op[2])
                    else:
                        self._put(cur, op[1], op[2], op[3])
                cur.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    cur.execute("ROLLBACK")
                raise

    def _put(
        self,
        cur: sqlite3.Cursor,
        session: SessionRow,
        entries: Sequence[EntryRow],
        keep: int | None,
    ) -> None:
        key, tags = self._session_id(cur, session)
        cur.executemany(
            "INSERT INTO search_entries (session, position, kind, at, text, tags)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session, position) DO UPDATE"
            " SET kind = excluded.kind, text = excluded.text, tags = excluded.tags"
            " WHERE text != excluded.text OR kind != excluded.kind OR tags != excluded.tags",
            [(key, e.position, e.kind, e.at, encodable(e.text), tags) for e in entries],
        )
        if keep is not None:
            cur.execute(
                "DELETE FROM search_entries WHERE session = ? AND position >= ?", (key, keep)
            )

    def _forget(self, cur: sqlite3.Cursor, agent: str, session_id: str) -> None:
        found = cur.execute(
            "SELECT id FROM search_sessions WHERE agent = ? AND session_id = ?",
            (encodable(agent), encodable(session_id)),
        ).fetchone()
        if found is None:
            return
        cur.execute("DELETE FROM search_entries WHERE session = ?", (found[0],))
        cur.execute("DELETE FROM search_sessions WHERE id = ?", (found[0],))

    def forget_session(self, session_id: str, agents: Sequence[str] = ()) -> list[str]:
        """Take ``session_id`` out of the index (of the agents whose name or command
        contains one of ``agents``, casefolded; empty: of any agent). Returns the labels of
        the agents whose session it was."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, label, agent_words FROM search_sessions WHERE session_id = ?",
                (encodable(session_id),),
            ).fetchall()
            rows = [row for row in rows if not agents or any(a in row[2] for a in agents)]
            cur = self._conn.cursor()
            cur.execute("BEGIN")
            for row in rows:
                cur.execute("DELETE FROM search_entries WHERE session = ?", (row[0],))
                cur.execute("DELETE FROM search_sessions WHERE id = ?", (row[0],))
            cur.execute("COMMIT")
        return [str(row[1]) for row in rows]

    def clear(self) -> None:
        """Everything out (a reindex starts here)."""
        with self._lock:
            self._conn.execute("BEGIN")
            self._conn.execute("DELETE FROM search_entries")
            self._conn.execute("DELETE FROM search_sessions")
            self._conn.execute("DELETE FROM search_days")
            self._conn.execute("COMMIT")
            if self.fts:
                self._conn.execute("INSERT INTO search_fts(search_fts) VALUES ('rebuild')")

    # -- reading ---------------------------------------------------------------------------------
    def search(self, query: SearchQuery, *, limit: int = LIMIT) -> list[SearchHit]:
        """The entries that hold every word of ``query`` and pass its filters, best first
        (with no words: the newest entries that pass the filters)."""
        if query.empty:
            return []
        expression = fts_expression(query) if self.fts else None
        if expression is not None:
            with self._lock:
                tags = self._tags(query)
            if tags is None:
                return []  # no agent or project is called that
            match = f"text : ({expression}){tags}"
            with self._lock:
                try:
                    rows = self._ranked(match, query, limit)
                except sqlite3.Error as error:
                    log.warning("search %r failed: %s", query, error)
                    return []
            return self._hits(rows, query)
        else:
            filters, values = self._filters(query)
            likes = ""
            words = [w for term in query.terms for w in words_of(term)]
            for word in words:
                likes += " AND e.text LIKE ? ESCAPE '\\'"
                values.append("%" + re.sub(r"([%_\\])", r"\\\1", word) + "%")
            if not words and query.terms:
                return []
            sql = (
                f"{SELECT}, 0 FROM search_entries e JOIN search_sessions s ON s.id = e.session"
                f" WHERE e.id > ? AND e.id <= ?{filters}{likes} ORDER BY e.id DESC LIMIT ?"
            )
            params = [*values, limit]
        with self._lock:
            try:
                bounds = self._bounds(query)
                if bounds is None:
                    return []  # nothing was said in the days asked for
                rows = self._conn.execute(sql, [*bounds, *params]).fetchall()
            except sqlite3.Error as error:
                log.warning("search %r failed: %s", query, error)
                return []
        return self._hits(rows, query)

    def _ranked(self, match: str, query: SearchQuery, limit: int) -> list[Any]:
        """The rows of the best ``limit`` of the newest :data:`WINDOW` entries that match.

        The newest entries are looked at first, in growing ranges of row ids
        (:data:`RANGES`): a word in most entries fills the window from the newest few
        hundred thousand without FTS5 walking its whole list; a rare word's list is short,
        and the last range is all of them. The window is ranked here (:func:`_rank`):
        FTS5's bm25 counts every entry holding each word to weigh it, which for a word in
        millions of entries took longer than the search itself."""
        bounds = self._bounds(query)
        if bounds is None:
            return []  # nothing was said in the days asked for
        lowest, newest = bounds
        days, values = self._days(query)
        inner = (
            "SELECT f.rowid FROM search_fts f"
            + (" JOIN search_entries e ON e.id = f.rowid" if days else "")
            + " WHERE search_fts MATCH ? AND f.rowid > ? AND f.rowid <= ?"
            + f"{days} ORDER BY f.rowid DESC LIMIT ?"
        )
        found: list[int] = []
        for span in RANGES:
            floor = max(lowest, newest - span) if span is not None else lowest
            found = [
                row[0] for row in self._conn.execute(inner, [match, floor, newest, *values, WINDOW])
            ]
            if len(found) >= WINDOW or floor == lowest:
                break
        texts = dict(self._by_id("SELECT e.id, e.text FROM search_entries e", found))
        best = _rank(texts, query)[:limit]
        order = {rowid: place for place, rowid in enumerate(best)}
        rows = self._by_id(
            f"{SELECT}, 0 FROM search_entries e JOIN search_sessions s ON s.id = e.session",
            best,
        )
        return sorted(rows, key=lambda row: order[row[0]])

    def _by_id(self, select: str, ids: Sequence[int]) -> list[Any]:
        """``select`` of the entries ``ids`` (``e``), a few hundred ids a statement (an older
        SQLite takes 999 parameters at most)."""
        rows: list[Any] = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows += self._conn.execute(f"{select} WHERE e.id IN ({marks})", chunk).fetchall()
        return rows

    @staticmethod
    def _hits(rows: list[Any], query: SearchQuery) -> list[SearchHit]:
        hits = []
        for _id, position, kind, at, text, agent, label, sid, project, title, _score in rows:
            snippet, spans = snippet_of(text, query)
            hits.append(
                SearchHit(agent, label, sid, project, title, position, kind, at, snippet, spans)
            )
        return hits

    def _tags(self, query: SearchQuery) -> str | None:
        """The FTS5 expression that keeps ``query``'s agents and projects ("" with no such
        filter), or None when none is called that."""
        parts = ""
        for names, table, column, letter in (
            (query.agents, "search_agents", "words", "a"),
            (query.projects, "search_projects", "lower(project)", "p"),
        ):
            if not names:
                continue
            test = " OR ".join(f"instr({column}, ?) > 0" for _ in names)
            ids = [
                row[0] for row in self._conn.execute(f"SELECT id FROM {table} WHERE {test}", names)
            ]
            if not ids:
                return None
            parts += " AND tags : (" + " OR ".join(f"{letter}{i}" for i in ids) + ")"
        return parts

    def _bounds(self, query: SearchQuery) -> tuple[int, int] | None:
        """The row ids a query looks between (above the first, up to the second): all of
        them, or those of the days ``after:`` and ``before:`` ask for (None: no entry was
        said then). A day's ids are a range (:data:`~acp_tui.store.search_schema.DAYS`):
        without it, a word said often but not in those days was looked for in every entry
        holding it (23 s at 11 million entries)."""
        newest = self._conn.execute("SELECT max(id) FROM search_entries").fetchone()[0] or 0
        lowest = 0
        if query.after is not None:
            first = self._conn.execute(
                "SELECT min(first) FROM search_days WHERE day >= ?", (int(query.after // DAY),)
            ).fetchone()[0]
            if first is None:
                return None
            lowest = max(lowest, int(first) - 1)
        if query.before is not None:
            last = self._conn.execute(
                "SELECT max(last) FROM search_days WHERE day <= ?", (int(query.before // DAY),)
            ).fetchone()[0]
            if last is None:
                return None
            newest = min(newest, int(last))
        return (lowest, newest) if newest > lowest else None

    @staticmethod
    def _days(query: SearchQuery) -> tuple[str, list[object]]:
        sql = ""
        values: list[object] = []
        if query.before is not None:
            sql += " AND e.at < ?"
            values.append(query.before)
        if query.after is not None:
            sql += " AND e.at >= ?"
            values.append(query.after)
        return sql, values

    @staticmethod
    def _filters(query: SearchQuery) -> tuple[str, list[object]]:
        sql = ""
        values: list[object] = []
        if query.agents:
            sql += " AND (" + " OR ".join("instr(s.agent_words, ?) > 0" for _ in query.agents)
            sql += ")"
            values += query.agents
        if query.projects:
            sql += " AND (" + " OR ".join("instr(lower(s.project), ?) > 0" for _ in query.projects)
            sql += ")"
            values += query.projects
        days, more = SearchIndex._days(query)
        return sql + days, values + more

    def sessions_of(self, agent: str) -> list[str]:
        """The ids of ``agent``'s sessions in the index."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT session_id FROM search_sessions WHERE agent = ?", (agent,)
            ).fetchall()
        return [row[0] for row in rows]

    def stats(self) -> IndexStats:
        with self._lock:
            sessions = self._conn.execute("SELECT count(*) FROM search_sessions").fetchone()[0]
            entries = self._conn.execute("SELECT count(*) FROM search_entries").fetchone()[0]
        size = 0
        if self.path is not None:
            for suffix in ("", "-wal"):
                with contextlib.suppress(OSError):
                    size += self.path.with_name(self.path.name + suffix).stat().st_size
        return IndexStats(int(sessions), int(entries), size)
