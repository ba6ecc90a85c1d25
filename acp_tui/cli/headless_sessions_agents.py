"""``acp-tui sessions --agent A --agent B`` (or ``--all-agents``): the sessions of several
configured agents in one table (an AGENT column) or one JSON array (an ``agent`` field).

The agents are started at once, each listed as ``acp-tui sessions --agent NAME`` would
(:class:`~acp_tui.cli.headless_sessions.HeadlessSessions`), and merged newest first. One that
cannot start or list says why on stderr, on a line naming it (``acp-tui: NAME: ...``); the
others still print. The exit code is 0 when every agent listed; else that of the first agent
(in the order given) that failed, as ``acp-tui sessions`` alone would have exited for it, so a
script sees that the list is partial and why.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio

from acp_tui.cli.headless_base import _run
from acp_tui.cli.headless_output import EXIT_OK, PROG, Output, _label, format_table
from acp_tui.cli.headless_sessions import HeadlessSessions, sessions_json

__all__ = ["AgentToList", "run_sessions_of_agents"]


@dataclass(slots=True)
class AgentToList:
    """One agent to list: the name shown in the agent column, and the invocation that
    ``acp-tui sessions --agent NAME`` would run (its argv, env, MCP servers, cwd)."""

    name: str
    invocation: Any


class _AgentOutput(Output):
    """One agent's messages on the shared stderr, each line naming the agent."""

    def __init__(self, name: str, shared: Output) -> None:
        super().__init__(io.StringIO(), shared.err)
        self.agent = _label(name, 40)

    def error(self, message: str) -> None:
        self.note(f"{PROG}: {self.agent}: {message}")


def run_sessions_of_agents(
    agents: list[AgentToList],
    output: Output | None = None,
    *,
    json_output: bool = False,
    all_dirs: bool = False,
) -> int:
    """List every agent's sessions at once, print them merged; see the module's doc."""
    output = output or Output()
    listers = [
        HeadlessSessions(agent.invocation, _AgentOutput(agent.name, output)) for agent in agents
    ]
    codes: list[int] = [EXIT_OK] * len(listers)

    async def main() -> int:
        async def one(index: int) -> None:
            codes[index] = await listers[index].collect()

        async with anyio.create_task_group() as group:
            for index in range(len(listers)):
                group.start_soon(one, index)
        rows = merge_rows(
            [(a.name, lister.rows) for a, lister in zip(agents, listers, strict=True)]
        )
        if json_output:
            output.write_raw(sessions_json(rows))
        else:
            output.write_raw(format_table(rows, agent_column=True))
            if not rows:
                where = "any directory" if all_dirs else "this directory"
                output.note(f"no sessions for {where}")
        return next((code for code in codes if code != EXIT_OK), EXIT_OK)

    return _run(main, output)


def merge_rows(per_agent: list[tuple[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """Every agent's rows (as the agent sent them) with an ``agent`` field first, newest
    ``updatedAt`` first; rows without a readable time last; ties keep the agents' order."""
    keyed: list[tuple[tuple[bool, float], int, int, dict[str, Any]]] = []
    for agent_index, (name, rows) in enumerate(per_agent):
        for row_index, row in enumerate(rows):
            ts = _timestamp(row.get("updatedAt"))
            merged = {"agent": name, **{k: v for k, v in row.items() if k != "agent"}}
            keyed.append(((ts is None, -(ts or 0.0)), agent_index, row_index, merged))
    keyed.sort(key=lambda item: (item[0], item[1], item[2]))
    return [item[3] for item in keyed]


def _timestamp(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
