"""Search all sessions, from the app: the search screen, and opening what was chosen.

A result names its agent by key. Its session opens in that agent's view: the view on screen
when the agent runs, else the agent is started (its configured settings, or the command line
it was run with) with the session to reopen; then the transcript is scrolled to the entry
found, once the session is shown and its history replayed (:meth:`Transcript.reveal`).

:class:`SessionSearch` is a plain object the app owns.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Iterable

from textual.app import SystemCommand
from textual.css.query import NoMatches

from acp_tui.session.launch.resolve import UnknownAgent, resolve_agent
from acp_tui.session.launch.spec import CONFIG_PREFIX, AgentSource, AgentSpec, words_of_key
from acp_tui.store.search_feed import locate
from acp_tui.store.search_index import SearchHit, SearchIndex
from acp_tui.text.safety import one_line
from acp_tui.ui.agent_views import AgentViews
from acp_tui.ui.screens.search import SearchScreen
from acp_tui.ui.widgets.transcript import Transcript

__all__ = ["SessionSearch"]

log = logging.getLogger(__name__)

#: How long a session that is opening may take to show the entry found (a start and a
#: replay), in seconds.
REVEAL_WAIT = 60.0
#: How long a search waits for what was said to be written, at most (seconds).
WRITTEN_WAIT = 2.0
#: How long a shown transcript may go on growing without the entry (a replay that arrives
#: after the answer), in seconds.
SETTLE_WAIT = 3.0


class SessionSearch:
    """The app's search of every session: ``open`` shows the screen."""

    def __init__(self, app: AgentViews) -> None:
        self.app = app
        self._reader: SearchIndex | None = None

    def reader(self) -> SearchIndex | None:
        """The app's connection for searching (opened once), or None without an index."""
        writer = self.app.workspace.search
        if writer is None:
            return None
        if self._reader is None:
            self._reader = writer.reader()
        return self._reader

    def close(self) -> None:
        if self._reader is not None and self._reader is not self._writer_index():
            self._reader.close()
        self._reader = None

    def _writer_index(self) -> SearchIndex | None:
        writer = self.app.workspace.search
        return writer.index if writer is not None else None

    def commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Search all sessions",
            "Every word of every session of every agent; Enter opens the session there",
            self.open,
        )

    def open(self, query: str = "") -> None:
        reader = self.reader()
        if reader is None:
            self.app.notify("There is no search index in this run.", severity="warning")
            return
        # What was said in the last second is handed over now, and each search waits (in
        # its thread) until it is written: a word just said is found.
        for view in self.app.agent_views.values():
            if view.parts.search is not None:
                view.parts.search.scan()
        writer = self.app.workspace.search
        self.app.push_screen(
            SearchScreen(
                reader,
                query=query,
                forget=self.forget,
                written=(lambda: writer.flush(WRITTEN_WAIT)) if writer is not None else None,
            ),
            self.chosen,
        )

    def forget(self, hit: SearchHit) -> None:
        """Take ``hit``'s session out of the index: through its agent's feed when it runs
        (what it said before is not indexed again), else through the writer."""
        view = self.app.agent_views.get(hit.agent)
        feed = view.parts.search if view is not None else None
        if feed is not None:
            feed.forget(hit.session_id)
        elif self.app.workspace.search is not None:
            self.app.workspace.search.forget(hit.agent, hit.session_id)

    def chosen(self, hit: SearchHit | None) -> None:
        """Open ``hit``'s session in its agent's view, scrolled to the entry."""
        if hit is None:
            return
        app = self.app
        key = hit.agent
        controller = app.workspace.get(key)
        if key in app.agent_views or (controller is not None and not controller.finished.is_set()):
            app.show_session(key, hit.session_id)
        else:
            spec = self._spec(hit)
            if spec is None:
                return
            settings = dataclasses.replace(
                app.settings,
                agent=spec,
                resume=hit.session_id,
                continue_latest=False,
                process_factory=None,
                replay=None,
            )
            key = spec.key
            app.open_agent(settings)
        app.run_worker(self.reveal(key, hit), name="reveal a search result", exit_on_error=False)

    def _spec(self, hit: SearchHit) -> AgentSpec | None:
        """How to start the agent of ``hit``, which does not run: as configured (its
        name), else with the command line it ran with."""
        app = self.app
        key = hit.agent
        spec = app.workspace.spec_of(key)
        if spec is not None:
            return spec
        options = app.settings.options
        if key.startswith(CONFIG_PREFIX):
            from acp_tui.config.load import load_config

            name = key.removeprefix(CONFIG_PREFIX)
            config = app.config
            if config is None or name not in config.agents:
                config, _ = load_config()
            try:
                return resolve_agent(AgentSource.configured(name), config, options).spec
            except UnknownAgent:
                app.notify(
                    f"The agent {one_line(name, 60)} is not in the config any more.",
                    title="Search",
                    severity="warning",
                )
                return None
        source = AgentSource.command(words_of_key(key), label=hit.label)
        return resolve_agent(source, app.config, options).spec

    async def reveal(self, key: str, hit: SearchHit) -> None:
        """Wait for ``hit``'s session to be shown in ``key``'s view, then scroll to it."""
        words = [hit.snippet[start:end] for start, end in hit.spans]
        started = time.monotonic()
        seen_at: float | None = None
        while time.monotonic() - started < REVEAL_WAIT:
            await asyncio.sleep(0.1)
            transcript = self._transcript(key, hit.session_id)
            if transcript is None or not transcript.entries:
                continue
            position = locate(transcript.entries, hit.position, words)
            if position is not None and await transcript.reveal(position):
                if await self._stays(key, hit.session_id, transcript.shown_count):
                    return
                continue  # shown afresh (at its bottom) after the scroll: scroll again
            seen_at = seen_at or time.monotonic()
            if time.monotonic() - seen_at > SETTLE_WAIT:
                break
        self.app.notify(
            "The session is open, but what was found is not in what the agent replayed.",
            title="Search",
            severity="warning",
        )

    async def _stays(self, key: str, session_id: str, shown: int) -> bool:
        """Whether the transcript scrolled to a hit is not shown afresh within
        :data:`SETTLE_WAIT` (a showing of the session scheduled as it opened can come after
        its replay, and starts at the bottom). True too when the person left the session."""
        settled = time.monotonic() + SETTLE_WAIT
        while time.monotonic() < settled:
            await asyncio.sleep(0.1)
            transcript = self._transcript(key, session_id)
            if transcript is None:
                return True  # another session, or the view gone: nothing to keep
            if transcript.shown_count != shown:
                return False
        return True

    def _transcript(self, key: str, session_id: str) -> Transcript | None:
        """The transcript of ``key``'s view when it shows ``session_id``, replayed."""
        view = self.app.agent_views.get(key)
        if view is None or not view.is_mounted or view.session_id != session_id:
            return None
        state = view.store.get(session_id)
        if state is None or state.replaying:
            return None
        try:
            transcript = view.query_one(Transcript)
        except NoMatches:
            return None
        return transcript if transcript.session_id == session_id else None
