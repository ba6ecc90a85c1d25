"""The spend ledger: every cost the agents report, as increments, in one SQLite file.

An agent reports a session's cost as a running total (``usage_update.cost``: cumulative
``{amount, currency}``). The ledger keeps, per agent, session and currency, the last total
it was told (its *baseline*), and records what each new report adds, with the time, the
agent, the session, the project (the session's directory) and the currency. Totals of any
period are sums of those increments, one per currency: amounts in different currencies are
never added together.

The rules (:meth:`SpendLedger.record`):

- a report that raises the total records the rise;
- a report that lowers it (an agent that started counting again, or corrected itself)
  records nothing and becomes the baseline: spend is never negative;
- a report marked ``history`` (a replayed session's) records nothing and becomes the
  baseline: that money was spent before, not now;
- the first report of a session the ledger has no baseline for counts from zero when the
  session started here (``fresh``: made by ``session/new``, or a subagent), else (a session
  reopened here, its past unknown) it only becomes the baseline.

SQLite, as the search index (:mod:`acp_tui.store.search_index`) and the local session index
already are; a file of its own (``spend.sqlite3``), because the ledger is a record that
cannot be rebuilt, while the search index is dropped and rebuilt at will. A file SQLite
cannot read is renamed ``<name>.corrupt-<timestamp>`` and a fresh one made.

The ledger also remembers which agents report usage without a cost, so that a view can say
"not reported" of them instead of a false zero.
"""

from __future__ import annotations

import contextlib
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.text.safety import encodable

__all__ = [
    "AgentSeen",
    "CostReport",
    "SpendLedger",
    "SpendTotal",
    "clean_currency",
]

log = logging.getLogger(__name__)

#: The layout of the file. An older layout is never dropped (it is money): a new version
#: migrates.
VERSION = 1

TABLES = """
CREATE TABLE IF NOT EXISTS spend (
    id          INTEGER PRIMARY KEY,
    at          REAL NOT NULL,
    agent       TEXT NOT NULL,
    name        TEXT NOT NULL,
    label       TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    project     TEXT NOT NULL,
    currency    TEXT NOT NULL,
    amount      REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS spend_at ON spend (at);
CREATE TABLE IF NOT EXISTS spend_baselines (
    agent       TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    currency    TEXT NOT NULL,
    total       REAL NOT NULL,
    PRIMARY KEY (agent, session_id, currency)
);
CREATE TABLE IF NOT EXISTS spend_agents (
    agent        TEXT PRIMARY KEY,
    label        TEXT NOT NULL,
    reports_cost INTEGER NOT NULL DEFAULT 0,
    seen         REAL NOT NULL
);
"""

#: Longest currency (or unit) kept; a longer one is cut.
CURRENCY_CHARS = 24


def clean_currency(value: object) -> str | None:
    """The unit of a reported cost as kept: as the agent wrote it, on one line (spaces
    collapsed), at most :data:`CURRENCY_CHARS` characters; None when it is not a non-empty
    string."""
    if not isinstance(value, str):
        return None
    return " ".join(value.split())[:CURRENCY_CHARS] or None


@dataclass(frozen=True, slots=True)
class CostReport:
    """One reported cost of a session: ``amount`` is the session's total so far (``None``:
    the agent reported usage without a cost)."""

    at: float
    agent: str
    label: str
    #: The agent's configured name (``[agents.NAME]``), or "".
    name: str
    session_id: str
    project: str
    amount: float | None
    currency: str | None
    #: A replay's: only sets the baseline.
    history: bool = False
    #: The session started here: with no baseline yet, it counts from zero.
    fresh: bool = True


@dataclass(frozen=True, slots=True)
class SpendTotal:
    """A sum of increments: of one currency, by one key (an agent's label, a project, or
    ``""`` for all)."""

    key: str
    currency: str
    amount: float


@dataclass(frozen=True, slots=True)
class AgentSeen:
    """An agent the ledger heard from: its label, and whether it ever reported a cost."""

    agent: str
    label: str
    reports_cost: bool


def _connect(path: Path | None) -> sqlite3.Connection:
    target = ":memory:" if path is None else str(path)
    conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=10)
    if path is not None:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(TABLES)
    conn.execute(f"PRAGMA user_version = {VERSION}")
    return conn


class SpendLedger:
    """The ledger in ``path`` (None: in memory, for tests). Safe to share between threads
    (one lock); never raises to its caller on a broken file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        #: Said to the person: the ledger could not be kept on disk.
        self.note: str | None = None
        self._lock = threading.Lock()
        self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        path = self.path
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                return _connect(path)
            except (sqlite3.Error, OSError) as error:
                log.warning("spend ledger %s unreadable: %s", path, error)
                with contextlib.suppress(OSError):
                    path.rename(path.with_name(f"{path.name}.corrupt-{int(time.time())}"))
                try:
                    return _connect(path)
                except (sqlite3.Error, OSError) as again:
                    self.note = f"spend ledger kept in memory only: {again}"
        return _connect(None)

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._conn.close()

    # -- writing ---------------------------------------------------------------------------------
    def record(self, reports: Iterable[CostReport]) -> float:
        """Record ``reports`` in one transaction, in order; returns the sum of what they
        added (of any currency: for tests and logs only)."""
        added = 0.0
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                for report in reports:
                    added += self._record(cur, report)
                cur.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    cur.execute("ROLLBACK")
                raise
        return added

    def _record(self, cur: sqlite3.Cursor, report: CostReport) -> float:
        agent, label = encodable(report.agent), encodable(report.label)
        amount, currency = report.amount, clean_currency(report.currency)
        valid = (
            isinstance(amount, int | float)
            and not isinstance(amount, bool)
            and math.isfinite(amount)
            and currency is not None
        )
        cur.execute(
            "INSERT INTO spend_agents (agent, label, reports_cost, seen) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (agent) DO UPDATE SET label = excluded.label,"
            " reports_cost = MAX(reports_cost, excluded.reports_cost), seen = excluded.seen",
            (agent, label, int(valid), report.at),
        )
        if not valid:
            return 0.0
        assert amount is not None and currency is not None
        session = encodable(report.session_id)
        row = cur.execute(
            "SELECT total FROM spend_baselines WHERE agent = ? AND session_id = ? AND currency = ?",
            (agent, session, currency),
        ).fetchone()
        cur.execute(
            "INSERT INTO spend_baselines (agent, session_id, currency, total) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (agent, session_id, currency) DO UPDATE SET total = excluded.total",
            (agent, session, currency, float(amount)),
        )
        if report.history or (row is None and not report.fresh):
            return 0.0
        before = 0.0 if row is None else float(row[0])
        rise = float(amount) - before
        if rise <= 0:
            return 0.0
        cur.execute(
            "INSERT INTO spend (at, agent, name, label, session_id, project, currency, amount)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                report.at,
                agent,
                encodable(report.name),
                label,
                session,
                encodable(report.project),
                currency,
                rise,
            ),
        )
        return rise

    # -- reading ---------------------------------------------------------------------------------
    def total(
        self,
        currency: str,
        since: float,
        *,
        agents: Sequence[str] = (),
        project: str | None = None,
    ) -> float:
        """What was spent in ``currency`` from ``since`` (epoch seconds) on: by the agents
        whose configured name or label is in ``agents`` (none: every agent), in ``project`` or a folder
        below it (None: everywhere)."""
        sql = "SELECT COALESCE(SUM(amount), 0) FROM spend WHERE at >= ? AND currency = ?"
        currency = clean_currency(currency) or currency
        args: list[object] = [since, currency]
        if agents:
            names = [name.casefold() for name in agents]
            marks = ", ".join("?" * len(names))
            sql += f" AND (lower(name) IN ({marks}) OR lower(label) IN ({marks}))"
            args += names + names
        if project is not None:
            root = project.rstrip("/") or "/"
            sql += " AND (project = ? OR substr(project, 1, ?) = ?)"
            prefix = root if root.endswith("/") else root + "/"
            args += [root, len(prefix), prefix]
        with self._lock:
            return float(self._conn.execute(sql, args).fetchone()[0])

    def totals(self, since: float, by: str = "") -> list[SpendTotal]:
        """What was spent from ``since`` on, per currency, and per ``by`` (``"label"``: the
        agent as shown, ``"project"``, ``""``: all together), largest first."""
        if by not in ("", "label", "project"):
            raise ValueError(by)
        key = by or "''"
        sql = (
            f"SELECT {key}, currency, SUM(amount) FROM spend WHERE at >= ?"
            f" GROUP BY {key}, currency ORDER BY currency, SUM(amount) DESC, {key}"
        )
        with self._lock:
            rows = self._conn.execute(sql, (since,)).fetchall()
        return [SpendTotal(str(k), str(c), float(a)) for k, c, a in rows]

    def currencies(self) -> dict[str, frozenset[str]]:
        """The currencies each agent reported a cost in, by its configured name and by its
        label (case-folded)."""
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT name, label, currency FROM spend").fetchall()
        found: dict[str, set[str]] = {}
        for name, label, currency in rows:
            for key in {str(name).casefold(), str(label).casefold()} - {""}:
                found.setdefault(key, set()).add(str(currency))
        return {key: frozenset(value) for key, value in found.items()}

    def agents(self) -> list[AgentSeen]:
        """Every agent the ledger heard from, by label."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT agent, label, reports_cost FROM spend_agents ORDER BY label"
            ).fetchall()
        return [AgentSeen(str(a), str(lbl), bool(r)) for a, lbl, r in rows]

    def increments(self) -> list[tuple[float, str, str, str, float]]:
        """Every recorded increment: (at, label, session, currency, amount), oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT at, label, session_id, currency, amount FROM spend ORDER BY id"
            ).fetchall()
        return [(float(t), str(lbl), str(s), str(c), float(a)) for t, lbl, s, c, a in rows]
