"""``acp-tui sessions``: every page of ``session/list`` through the controller, as a table
or JSON. An agent that cannot list but can reopen sessions (Gemini CLI) gets what the TUI's
sidebar shows for it: the sessions acp-tui started with it (its local index), said so on
stderr."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from acp_tui.cli.headless_base import Headless, _run
from acp_tui.cli.headless_output import EXIT_OK, EXIT_UNSUPPORTED, Output, _label, format_table
from acp_tui.cli.headless_render import scrub_surrogates
from acp_tui.config import locations
from acp_tui.session.errors import SessionError

#: Pages of session/list read at most (each page must bring new sessions, see the store).
MAX_LIST_PAGES = 1000
#: Why the store stopped following the agent's cursors, said in full.
STOPS = {
    "stopped: agent's list loops": "the agent sent a page cursor it had sent before: "
    "stopped listing",
    "stopped: no new sessions": "several pages in a row brought no new session: stopped listing",
}


# ---------------------------------------------------------------------------------- sessions


def run_sessions(invocation: Any, output: Output | None = None) -> int:
    """``acp-tui sessions``: every page of session/list, as a table or JSON."""
    output = output or Output()
    sessions = HeadlessSessions(invocation, output)
    return _run(sessions.run, output)


class HeadlessSessions(Headless):
    """``acp-tui sessions``: the controller lists every page (the store stops a list that
    loops or brings nothing new); the rows are printed in the agent's order, each once."""

    def __init__(self, invocation: Any, output: Output) -> None:
        super().__init__(invocation, output)
        options = invocation.options
        self.all = bool(getattr(options, "all", False))
        self.json = bool(getattr(options, "json", False))
        self.rows: list[dict[str, Any]] = []

    async def collect(self) -> int:
        """List every page into :attr:`rows`; the exit code (errors said on stderr)."""
        await self.controller.run(lambda controller: self._list())
        self._apply_local_titles()
        return self.exit_code()

    def _apply_local_titles(self) -> None:
        """A title the person gave a session here (Rename, for an agent that cannot store
        one) wins over the agent's, as in the TUI; JSON keeps the agent's as ``agentTitle``."""
        if not locations.local_index_file().exists():
            return  # nothing renamed here yet (and a listing makes no file)
        with self.local_index() as index:
            titles = index.local_titles() if index.ok else {}
        if not titles:
            return
        for index_of_row, row in enumerate(self.rows):
            title = titles.get(row["sessionId"])
            if title is not None and title != row.get("title"):
                self.rows[index_of_row] = {**row, "title": title, "agentTitle": row.get("title")}

    async def run(self) -> int:
        code = await self.collect()
        if code != EXIT_OK:
            return code
        if self.json:
            self.output.write_raw(sessions_json(self.rows))
            return EXIT_OK
        self.output.write_raw(format_table(self.rows))
        if not self.rows:
            where = "any directory" if self.all else self.cwd
            self.output.note(f"no sessions for {_label(where, 200)}")
        return EXIT_OK

    async def _list(self) -> None:
        agent = self.controller.agent
        assert agent is not None
        if not agent.can_list:
            if agent.can_load or agent.can_resume:
                self._list_remembered()
                return
            self.finish(
                EXIT_UNSUPPORTED,
                f"{self.agent_name} does not support listing sessions "
                "(it does not advertise sessionCapabilities.list)",
            )
            return
        scope = None if self.all else self.cwd
        pages: list[Any] = []
        seen: set[str] = set()
        cursor: str | None = None
        try:
            for _ in range(MAX_LIST_PAGES):
                cursor = await self.controller.list_sessions(scope, cursor, pages=pages)
                for row in _rows(pages.pop()):
                    if row["sessionId"] not in seen:
                        seen.add(row["sessionId"])
                        self.rows.append(row)
                if cursor is None:
                    break
            else:
                self.output.error(f"stopped listing after {MAX_LIST_PAGES} pages")
        except SessionError as error:
            self.open_failed(error, "list sessions")
            return
        stopped = self.store.list_state(scope).stopped
        if stopped:
            self.output.error(STOPS.get(stopped, f"{_label(stopped, 100)}: stopped listing"))
        self.finish(EXIT_OK)

    def _list_remembered(self) -> None:
        """The sessions acp-tui started with this agent (here, or anywhere with ``--all``),
        most recent first, as the TUI's sidebar offers them for an agent that cannot list."""
        remembered = []
        if locations.local_index_file().exists():  # a listing makes no file
            with self.local_index() as index:
                remembered = index.sessions(None if self.all else self.cwd) if index.ok else []
        self.rows = [
            {
                "sessionId": session.session_id,
                "cwd": session.cwd,
                "title": session.title or _first_line(session.first_prompt),
                "updatedAt": datetime.fromtimestamp(session.updated, UTC).isoformat(),
            }
            for session in remembered
        ]
        self.output.note(
            f"{self.agent_name} cannot list its sessions: these are the ones acp-tui started "
            f"with it{'' if self.all else ' here'} (its own record)"
        )
        self.finish(EXIT_OK)


def _first_line(text: str | None) -> str | None:
    return text.strip().split("\n", 1)[0] if text else None


def _rows(page: Any) -> list[dict[str, Any]]:
    """The well-formed sessions of one session/list page, as the agent sent them."""
    items = page.get("sessions") if isinstance(page, dict) else None
    return [
        item
        for item in items or []
        if isinstance(item, dict) and isinstance(item.get("sessionId"), str)
    ]


def sessions_json(rows: list[dict[str, Any]]) -> str:
    """``sessions --json``: the rows as ASCII JSON, a lone surrogate as U+FFFD (as ``ask
    --json`` writes it: escaped, a surrogate still is no Unicode, and strict parsers refuse
    it)."""
    return json.dumps(scrub_surrogates(rows), indent=2, ensure_ascii=True) + "\n"
