"""The catalog: every session heard of (live, listed by ``session/list``, remembered by the
local index) in order, searchable; the list's pagination; what the agent can do with sessions
(its capabilities); the person's titles and archive marks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from acp_tui.store.changes import PART_INFO, PART_META, PART_TITLE, ChangeTracker
from acp_tui.store.reducer import Reducer
from acp_tui.store.registry import SessionRegistry, now_iso
from acp_tui.store.session import SessionState, parse_iso

__all__ = ["MAX_STALE_PAGES", "Catalog", "ListState"]

#: Pages in a row that bring no session not already listed before paging stops: an agent
#: that hands out fresh cursors forever over the same rows must not be paged forever.
MAX_STALE_PAGES = 3


class ListState:
    """Pagination state of ``session/list`` for one scope (a cwd, or ``None`` for all).

    ``stopped`` says why paging ended early when the agent's cursors would never end it (a
    cursor sent before, so a cycle; or pages that bring nothing new)."""

    __slots__ = (
        "_seen_cursors",
        "_seen_ids",
        "_stale",
        "complete",
        "next_cursor",
        "pages",
        "stopped",
    )

    def __init__(self) -> None:
        self.next_cursor: str | None = None
        self.complete = False
        self.pages = 0
        self.stopped: str | None = None
        self._seen_cursors: set[str] = set()
        self._seen_ids: set[str] = set()
        self._stale = 0

    def __repr__(self) -> str:
        return f"ListState(next_cursor={self.next_cursor!r}, complete={self.complete}, pages={self.pages})"


class Catalog:
    """The sessions of a :class:`SessionRegistry` as a list: merged from ``session/list``
    pages and the local index, ordered, filtered, searched."""

    __slots__ = ("_list_states", "_reducer", "_registry", "_tracker")

    def __init__(self, registry: SessionRegistry, reducer: Reducer) -> None:
        self._registry = registry
        self._tracker: ChangeTracker = registry.tracker
        self._reducer = reducer
        #: Keyed by scope (a cwd or None), or ("archived", scope) for the archived view.
        self._list_states: dict[Any, ListState] = {}

    # -- the agent's capabilities ------------------------------------------------------------
    def set_agent_capabilities(self, agent_capabilities: Any) -> None:
        """From the ``initialize`` response's ``agentCapabilities``: load / resume / list."""
        caps = agent_capabilities if isinstance(agent_capabilities, dict) else {}
        sess = caps.get("sessionCapabilities")
        sess = sess if isinstance(sess, dict) else {}
        self._registry.can_load = caps.get("loadSession") is True
        self._registry.can_resume = sess.get("resume") is not None
        self._registry.can_list = sess.get("list") is not None
        # Unstable: session/fork, session/set_title, session/archive + unarchive.
        self._registry.can_fork = sess.get("fork") is not None
        self._registry.can_set_title = sess.get("title") is not None
        self._registry.can_archive = sess.get("archive") is not None
        self._registry.capabilities_known = True
        resumable = self._registry.can_load or self._registry.can_resume
        for s in self._registry.sessions.values():
            s.resumable = resumable
        self._tracker.touch_catalog()

    def open_method(self, session_id: str) -> str | None:
        """How the client should open a session: ``"live"`` (already open), ``"resume"``,
        ``"load"``, or ``None`` (the agent supports neither)."""
        s = self._registry.sessions.get(session_id)
        if s is not None and s.live:
            return "live"
        if self._registry.can_resume:
            return "resume"
        if self._registry.can_load:
            return "load"
        return None

    def pin_title(self, session_id: str, title: str) -> None:
        """The person named the session: ``title`` wins over every title the agent reports
        (listed or live) from now on, also for a session only heard of later."""
        self._registry.pinned_titles[session_id] = title
        s = self._registry.sessions.get(session_id)
        if s is None:
            return
        s.title_pinned = True
        if s.title != title:
            s.title = title
            s._search_key = None
            self._tracker.touch(s, PART_TITLE)
            self._tracker.touch_catalog()

    def set_archived(self, session_id: str, archived: bool) -> None:
        """The session was archived (or unarchived) here."""
        s = self._registry.sessions.get(session_id)
        if s is not None and s.archived != archived:
            s.archived = archived
            self._tracker.touch(s, PART_INFO)
            self._tracker.touch_catalog()

    # -- session/list and the local index ------------------------------------------------------
    def list_state(self, cwd: str | None = None, *, archived: bool = False) -> ListState:
        """Pagination state of ``session/list`` for a scope (``cwd`` or ``None`` = all), of
        the archived sessions with ``archived``."""
        key: Any = ("archived", cwd) if archived else cwd
        st = self._list_states.get(key)
        if st is None:
            st = self._list_states[key] = ListState()
        return st

    def apply_list_page(
        self,
        result: Any,
        *,
        cwd: str | None = None,
        cursor: str | None = None,
        archived: bool = False,
    ) -> list[str]:
        """Merge one ``session/list`` result page. ``cwd`` is the scope the request used and
        ``cursor`` the cursor it sent (``None`` = first page, i.e. a refresh). Returns warnings
        about skipped items; never raises.

        A listed title / ``_meta`` does not override one set live by ``session_info_update``
        unless the listed ``updatedAt`` is newer than that live update."""
        warnings: list[str] = []
        st = self.list_state(cwd, archived=archived)
        if cursor is None:
            st.pages = 0
            st.complete = False
            st.stopped = None
            st._seen_cursors.clear()
            st._seen_ids.clear()
            st._stale = 0
        else:
            st._seen_cursors.add(cursor)
        if not isinstance(result, dict):
            return [f"session/list result: expected an object, got {type(result).__name__}"]
        items = result.get("sessions")
        if not isinstance(items, list):
            warnings.append("session/list result: 'sessions' is not an array")
            items = []
        new_rows = 0
        for i, item in enumerate(items):
            problem = self._merge_listed(item)
            if problem:
                warnings.append(f"sessions[{i}]: {problem}")
                continue
            if archived and not isinstance(item.get("archived"), bool):
                # Listed with the filter "only": archived, whether or not the agent says so.
                self._registry.sessions[item["sessionId"]].archived = True
            if item["sessionId"] not in st._seen_ids:
                st._seen_ids.add(item["sessionId"])
                new_rows += 1
        nxt = result.get("nextCursor")
        st.pages += 1
        st.next_cursor = nxt if isinstance(nxt, str) and nxt else None
        st._stale = 0 if new_rows else st._stale + 1
        if st.next_cursor is not None and (
            st.next_cursor in st._seen_cursors or st.next_cursor == cursor
        ):
            # Short: it is the sidebar's last row.
            st.stopped = "stopped: agent's list loops"
            st.next_cursor = None
        elif st.next_cursor is not None and st._stale >= MAX_STALE_PAGES:
            st.stopped = "stopped: no new sessions"
            st.next_cursor = None
        st.complete = st.next_cursor is None
        self._tracker.touch_catalog()
        if warnings:
            # The good rows are taken; what was left out is said once, in the log.
            left_out = self._registry.left_out
            left_out.items.extend(warnings)
            left_out.report("session/list")
        return warnings

    def _merge_listed(self, item: Any) -> str | None:
        if not isinstance(item, dict):
            return "not an object"
        sid = item.get("sessionId")
        if not isinstance(sid, str):
            return "sessionId is not a string"
        s = self._registry.ensure(sid)
        s.listed = True
        cwd = item.get("cwd")
        if isinstance(cwd, str) and cwd != s.cwd and not s.live:
            s.cwd = cwd
            s._search_key = None
        created = item.get("createdAt")
        if isinstance(created, str):
            s.created_at = created
        dirs = item.get("additionalDirectories")
        if isinstance(dirs, list) and not s.live:
            # The agent's complete list for the session: what a reopen sends again.
            s.additional_dirs = [d for d in dirs if isinstance(d, str) and d]
        listed_ts: float | None = None
        if "updatedAt" in item:
            raw = item["updatedAt"]
            raw = raw if isinstance(raw, str) else None
            listed_ts = parse_iso(raw)
            if s.updated_ts is None or (listed_ts is not None and listed_ts >= s.updated_ts):
                if raw != s.updated_at or listed_ts != s.updated_ts:
                    self._registry.set_updated(s, raw, listed_ts)

        def listed_wins(field: str) -> bool:
            live_at = s._live_at.get(field)
            return live_at is None or (listed_ts is not None and listed_ts > live_at)

        archived = item.get("archived")
        if isinstance(archived, bool):
            s.archived = archived
        if "title" in item and listed_wins("title") and not s.title_pinned:
            title = item["title"]
            title = title if isinstance(title, str) else None
            if title != s.title:
                s.title = title
                s._search_key = None
                self._tracker.touch(s, PART_TITLE)
            s._live_at.pop("title", None)
        if "_meta" in item and listed_wins("meta"):
            meta = item["_meta"]
            meta = meta if isinstance(meta, dict) else None
            if meta != s.meta:
                s.meta = meta
                self._tracker.touch(s, PART_META)
            s._live_at.pop("meta", None)
        return None

    def apply_index_records(self, records: Iterable[Any]) -> None:
        """Merge sessions remembered by the local index (:class:`LocalIndex` ``sessions()``
        rows). They fill gaps only: agent-provided and live data win. A row with neither a
        title nor a first prompt never had a conversation (older versions remembered every
        new session): the agent may not know it, so it is left out."""
        for r in records:
            if not r.title and not r.first_prompt:
                continue
            s = self._registry.ensure(r.session_id)
            s.indexed = True
            if s.cwd is None and r.cwd:
                s.cwd = r.cwd
                s._search_key = None
            if s.title is None and r.title and not s.listed and "title" not in s._live_at:
                s.title = r.title
                s._search_key = None
            if s.first_prompt is None and r.first_prompt:
                s.first_prompt = r.first_prompt
                s._search_key = None
            if s.updated_ts is None and r.updated is not None:
                self._registry.set_updated(s, now_iso(r.updated), r.updated)
            if s.current_mode_id is None and r.mode:
                s.current_mode_id = r.mode
            dirs = getattr(r, "additional_dirs", None)
            if s.additional_dirs is None and dirs:
                s.additional_dirs = list(dirs)
        self._tracker.touch_catalog()

    def forget(self, session_id: str) -> None:
        """Drop a session entirely (it was deleted): from the catalog and any held updates."""
        if self._registry.sessions.pop(session_id, None) is not None:
            self._registry.ordered = None
            self._reducer.drop_held(session_id)
            self._tracker.touch_catalog()

    def catalog(self, cwd: str | None = None, *, archived: bool = False) -> list[SessionState]:
        """All known sessions (live, listed, indexed) but drafts and subagents (shown under
        their parent), newest ``updatedAt`` first, those without one last (ties: first heard
        of first). ``cwd`` filters to one directory; ``archived`` gives the archived sessions
        instead of the others."""
        ordered = self._registry.ordered
        if ordered is None:
            ordered = self._registry.ordered = sorted(
                self._registry.sessions.values(), key=SessionState.order_key
            )
        return [
            s
            for s in ordered
            if not s.draft
            and s.parent_id is None
            and (cwd is None or s.cwd == cwd)
            and bool(s.archived) == archived
        ]

    def search(
        self, text: str, cwd: str | None = None, *, archived: bool = False
    ) -> list[SessionState]:
        """Case-insensitive substring filter over what a row shows (its title, else its first
        prompt), its cwd and id, in catalog order."""
        needle = text.casefold().strip()
        sessions = self.catalog(cwd, archived=archived)
        if not needle:
            return sessions
        return [s for s in sessions if needle in s.search_key()]
