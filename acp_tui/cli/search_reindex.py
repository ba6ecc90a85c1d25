"""``acp-tui search --reindex``: build the search index again from the agents themselves.

Each configured agent (or each ``--agent NAME``) is started headless, as ``acp-tui sessions
--agent NAME --all`` would be, its sessions listed (every directory; an agent that cannot
list gets the sessions acp-tui started with it), and each one loaded: its replayed history
goes into the index as the TUI's would (the store's feed, the writer's thread). A session the
agent cannot load (or only resume, which replays nothing) keeps what the index had of it. An
agent with ``index = false`` is not started: its sessions are taken out of the index.
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

from acp_tui.cli.agents import resolve_command_line
from acp_tui.cli.headless_base import _run
from acp_tui.cli.headless_output import EXIT_OK, Output, _label
from acp_tui.cli.headless_sessions import HeadlessSessions
from acp_tui.cli.parse import parse, unknown_agent_message
from acp_tui.cli.say import say
from acp_tui.config import locations
from acp_tui.session.errors import SessionError
from acp_tui.session.launch.resolve import UnknownAgent
from acp_tui.store.search_feed import SearchFeed
from acp_tui.store.search_writer import SearchWriter

__all__ = ["Reindexer", "reindex"]


class Reindexer(HeadlessSessions):
    """One agent: list every session, load each into the index."""

    def __init__(self, invocation: Any, output: Output, writer: SearchWriter) -> None:
        super().__init__(invocation, output)
        self.all = True
        self.feed = SearchFeed(
            self.store, writer, agent=self.spec.key, label=self.parts.search_label
        )
        self.loaded = 0
        self.failed = 0
        self._listing = False

    async def collect(self) -> int:
        await self.controller.run(lambda controller: self._reindex())
        return self.exit_code()

    def finish(self, code: int, error: str | None = None) -> None:
        if self._listing and code == EXIT_OK and error is None:
            return  # listed: the loading comes next
        super().finish(code, error)

    async def _reindex(self) -> None:
        self._listing = True
        try:
            await self._list()
        finally:
            self._listing = False
        if self.code is not None:
            return  # the listing failed, and said so
        for row in self.rows:
            session_id = row["sessionId"]
            cwd = row.get("cwd") if isinstance(row.get("cwd"), str) else None
            try:
                await self.controller.open_session(session_id, cwd, history=True)
            except SessionError as error:
                self.failed += 1
                self.output.note(f"{_label(session_id, 80)}: not loaded: {_label(error, 200)}")
                continue
            self.loaded += 1
            self.feed.scan()
        super().finish(EXIT_OK)


def reindex(names: list[str], *, json_output: bool = False) -> int:
    """Reindex the agents named (none: every configured agent); the exit code."""
    from acp_tui.config.load import load_config

    config, problems = load_config()
    for problem in problems:
        say(f"acp-tui: config: {problem}", file=sys.stderr)
    names = list(dict.fromkeys(names)) or list(config.agents)
    if not names:
        say("acp-tui search --reindex: no agents in the config file", file=sys.stderr)
        return 2
    writer = SearchWriter(locations.search_index_file())
    report: list[dict[str, Any]] = []
    code = EXIT_OK
    try:
        for name in names:
            agent = config.agents.get(name)
            if agent is None:
                say(unknown_agent_message(name, config), file=sys.stderr)
                return 2
            invocation = parse(["sessions", "--agent", name, "--all"])
            invocation.options.agent = name  # as acp-tui sessions --agent NAME has it
            try:
                resolved = resolve_command_line(invocation.options, [], config)
            except UnknownAgent:
                say(unknown_agent_message(name, config), file=sys.stderr)
                return 2
            assert resolved is not None
            invocation.spec = resolved.spec
            if not resolved.spec.index:
                forgotten = _forget_agent(writer, resolved.spec.key)
                report.append({"agent": name, "skipped": "index = false", "forgotten": forgotten})
                continue
            reindexer = Reindexer(copy.copy(invocation), Output(), writer)
            one = _run(reindexer.collect, reindexer.output)
            code = code or one
            report.append(
                {
                    "agent": name,
                    "sessions": len(reindexer.rows),
                    "loaded": reindexer.loaded,
                    "not_loaded": reindexer.failed,
                    "exit": one,
                }
            )
    finally:
        writer.close()
    if json_output:
        say(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for item in report:
            if "skipped" in item:
                say(f"{item['agent']}: index = false: {item['forgotten']} sessions taken out")
            else:
                say(
                    f"{item['agent']}: {item['loaded']} of {item['sessions']} sessions indexed"
                    + (f" ({item['not_loaded']} could not be loaded)" if item["not_loaded"] else "")
                )
    return code


def _forget_agent(writer: SearchWriter, agent: str) -> int:
    sessions = writer.index.sessions_of(agent)
    for session_id in sessions:
        writer.forget(agent, session_id)
    return len(sessions)
