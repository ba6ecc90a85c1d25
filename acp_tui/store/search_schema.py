"""The search index's file layout (:mod:`acp_tui.store.search_index`): its tables, the FTS5
index over their text kept by triggers, the statements that drop an older layout, and the
columns a hit is read with. SQL only: no Python reads or writes the file here."""

from __future__ import annotations

__all__ = ["DAY", "DAYS", "DAYS_FROM_ENTRIES", "DROP", "FTS", "SELECT", "TABLES", "VERSION"]

#: Seconds in a day of :data:`DAYS` (days since the epoch, UTC).
DAY = 86_400

TABLES = """
CREATE TABLE IF NOT EXISTS search_sessions (
    id          INTEGER PRIMARY KEY,
    agent       TEXT NOT NULL,
    label       TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    project     TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL DEFAULT '',
    updated     REAL,
    agent_words TEXT NOT NULL DEFAULT '',
    UNIQUE (agent, session_id)
);
CREATE TABLE IF NOT EXISTS search_agents (
    id          INTEGER PRIMARY KEY,
    agent       TEXT NOT NULL UNIQUE,
    words       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS search_projects (
    id          INTEGER PRIMARY KEY,
    project     TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS search_entries (
    id          INTEGER PRIMARY KEY,
    session     INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    at          REAL NOT NULL,
    text        TEXT NOT NULL,
    tags        TEXT NOT NULL DEFAULT '',
    UNIQUE (session, position)
);
"""

#: The row ids said on each day: ``before:`` and ``after:`` become a range of row ids, so a
#: word said often, but not in the days asked for, is not looked for in every entry holding
#: it. The bounds only widen (a deleted entry leaves them), which keeps them right; a
#: query still checks each entry's time. Kept by a trigger; an entry's time never changes.
DAYS = f"""
CREATE TABLE IF NOT EXISTS search_days (
    day         INTEGER PRIMARY KEY,
    first       INTEGER NOT NULL,
    last        INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS search_days_ai AFTER INSERT ON search_entries BEGIN
    INSERT INTO search_days (day, first, last)
        VALUES (CAST(new.at / {DAY} AS INTEGER), new.id, new.id)
        ON CONFLICT (day) DO UPDATE SET first = min(first, excluded.first),
            last = max(last, excluded.last);
END;
"""

#: What an index of layout 3 needs to become 4: its days, from the entries it holds.
DAYS_FROM_ENTRIES = f"""
INSERT OR REPLACE INTO search_days (day, first, last)
    SELECT CAST(at / {DAY} AS INTEGER), min(id), max(id) FROM search_entries GROUP BY 1;
"""

#: The full-text index: the text, and ``tags`` (``a<agent> p<project>``, by the ids of
#: ``search_agents`` and ``search_projects``) so that ``@agent`` and ``in:project`` are
#: intersections of the index's own lists, not a scan of every match. Prefix indexes of 3
#: and 4 characters answer the word being typed without merging the lists of every word
#: that starts so.
FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(
    text, tags, prefix='3 4', content='search_entries', content_rowid='id'
);
CREATE TRIGGER IF NOT EXISTS search_entries_ai AFTER INSERT ON search_entries BEGIN
    INSERT INTO search_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS search_entries_ad AFTER DELETE ON search_entries BEGIN
    INSERT INTO search_fts(search_fts, rowid, text, tags)
        VALUES ('delete', old.id, old.text, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS search_entries_au AFTER UPDATE OF text, tags ON search_entries
BEGIN
    INSERT INTO search_fts(search_fts, rowid, text, tags)
        VALUES ('delete', old.id, old.text, old.tags);
    INSERT INTO search_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
"""

#: The layout of the file; another one (an older acp-tui's) is dropped and made again
#: (``acp-tui search --reindex`` fills it from the agents).
VERSION = 4
DROP = """
DROP TRIGGER IF EXISTS search_days_ai;
DROP TRIGGER IF EXISTS search_entries_ai;
DROP TRIGGER IF EXISTS search_entries_ad;
DROP TRIGGER IF EXISTS search_entries_au;
DROP TABLE IF EXISTS search_fts;
DROP TABLE IF EXISTS search_entries;
DROP TABLE IF EXISTS search_sessions;
DROP TABLE IF EXISTS search_agents;
DROP TABLE IF EXISTS search_projects;
DROP TABLE IF EXISTS search_days;
"""

SELECT = (
    "SELECT e.id, e.position, e.kind, e.at, e.text, s.agent, s.label, s.session_id,"
    " s.project, s.title"
)
