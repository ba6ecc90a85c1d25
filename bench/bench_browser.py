"""Session browser across agents (issue 19, **in-process**): 5 agents x 2,000 listed
sessions merged into one sidebar.

A minimal host app holds the real :class:`SessionsSidebar` over a real
:class:`~acp_tui.session.workspace.workspace.Workspace` of five controllers (made, not run: no agent
processes), each with its own :class:`SessionStore`, and the real
:class:`~acp_tui.session.workspace.directory.SessionDirectory`. The sidebar asks each agent for its first
page (``LoadMore`` with the agent's key); the answers are ``session/list`` results of 2,000
sessions each (the shape an agent sends, interleaved in time across agents), applied as the
controller applies them (``store.apply_list_page``). Measured: from the last answer applied to
the merged list's first rows painted; the RSS with all 10,000 rows listed; and the median cost
of one merged rebuild after a change in one agent's store (a title).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.common import Metric, isolate_dirs, median, peak_rss_mb, rss_mb, wait_until

NAME = "browser"
TITLE = "Session browser: 5 agents x 2,000 sessions (sidebar, in-process)"
AGENTS = 5
PER_AGENT = 2_000
BASE_TS = 1_767_261_600  # 2026-01-01T10:00:00Z

METRICS = [
    Metric(
        "first_page_ms",
        "answers -> first page of the merged list painted",
        "ms",
        ("<", 200.0),
        digits=1,
    ),
    Metric("rebuild_ms", "one agent's title changed -> merged rebuild (median)", "ms", digits=1),
    Metric("rss_mb", "RSS, all listed and shown", "MB", ("<", 150.0), digits=0),
    Metric("peak_rss_mb", "peak RSS", "MB", digits=0),
]


def _page(agent: int, count: int, cwd: str) -> dict[str, Any]:
    sessions = []
    for i in range(count):
        # The agents' sessions interleave in time (agent a's i-th is i*AGENTS+a steps back).
        ts = BASE_TS - (i * AGENTS + agent) * 37
        sessions.append(
            {
                "sessionId": f"agent{agent}-sess-{i:05d}",
                "cwd": cwd,
                "title": f"#{i} of agent {agent}: refactor the parser and fix the flaky test",
                "updatedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts)),
            }
        )
    return {"sessions": sessions, "nextCursor": None}


async def browse(agents: int, per_agent: int) -> dict[str, float]:
    from textual.app import App, ComposeResult

    from acp_tui.session.launch.factory import AgentParts
    from acp_tui.session.launch.spec import AgentSpec
    from acp_tui.session.workspace.directory import SessionDirectory
    from acp_tui.session.workspace.workspace import Workspace
    from acp_tui.ui.widgets.sidebar import SessionList, SessionsSidebar

    home = isolate_dirs()
    cwd = str(home)
    workspace = Workspace()
    keys = []
    for a in range(agents):
        parts = AgentParts(AgentSpec((f"agent-{a}",), cwd=cwd, name=f"agent-{a}"))
        parts.store.set_agent_capabilities(
            {"sessionCapabilities": {"list": {}}, "loadSession": True}
        )
        workspace.start(parts)
        keys.append(parts.spec.key)
    # Made before the clock starts: what arrives over the wire, already parsed.
    pages = {key: _page(a, per_agent, cwd) for a, key in enumerate(keys)}
    asked: set[str] = set()
    painted = [0.0]

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            sidebar = SessionsSidebar(workspace.get(keys[0]).store, cwd, id="sidebar")  # type: ignore[union-attr]
            sidebar.model.agent_key = keys[0]
            sidebar.model.directory = SessionDirectory(workspace, primary=keys[0])
            yield sidebar

        def on_sessions_sidebar_load_more(self, event: SessionsSidebar.LoadMore) -> None:
            # Answered by the benchmark below (it controls the timing): just note the ask.
            if event.agent_key is not None:
                asked.add(event.agent_key)

    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        sidebar = app.query_one(SessionsSidebar)
        lst = sidebar.query_one(SessionList)
        original = lst.render_line

        def render_line(y: int) -> Any:
            painted[0] = time.perf_counter()
            return original(y)

        lst.render_line = render_line  # type: ignore[method-assign]
        await wait_until(lambda: len(asked) == agents, 10, "every agent's first LoadMore")
        for key in keys:
            controller = workspace.get(key)
            assert controller is not None
            controller.store.apply_list_page(pages[key], cwd=cwd, cursor=None)
            sidebar.set_loading(False, agent_key=key)
        answered = time.perf_counter()
        total = agents * per_agent
        await wait_until(
            lambda: len(sidebar.rows) >= total and painted[0] > answered,
            10,
            "the first page painted",
            0.0005,
        )
        first_page_ms = (painted[0] - answered) * 1000
        costs: list[float] = []
        for n in range(20):
            controller = workspace.get(keys[n % agents])
            assert controller is not None
            controller.store.pin_title(f"agent{n % agents}-sess-00003", f"renamed {n}")
            t0 = time.perf_counter()
            sidebar.rebuild_now()
            costs.append(time.perf_counter() - t0)
        lst.action_last()
        await pilot.pause()
        now_rss = rss_mb()
        peak = peak_rss_mb()
    return {
        "first_page_ms": first_page_ms,
        "rebuild_ms": median(costs) * 1000,
        "rss_mb": now_rss,
        "peak_rss_mb": peak,
    }


def measure(smoke: bool = False) -> dict[str, float]:
    return asyncio.run(browse(2 if smoke else AGENTS, 50 if smoke else PER_AGENT))
