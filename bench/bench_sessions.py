"""Sessions: 10,000 sessions in pages of 100, into the sidebar.

A minimal host app holds the real :class:`SessionsSidebar` on a :class:`SessionStore`; its
``LoadMore`` requests go to the scripted agent (``bench/sessions_agent.py``, a subprocess)
through :class:`AcpClient`. Measured: from the first ``session/list`` response arriving to its
rows being painted; then every page is fetched (as scrolling to the end would) and the peak
RSS with all 10,000 loaded and shown is noted, with the median cost of applying one more page.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from bench.common import ROOT, Metric, isolate_dirs, median, peak_rss_mb, rss_mb, wait_until

NAME = "sessions"
TITLE = "Sessions: 10,000 in pages of 100 (sidebar)"
SESSIONS = 10_000
PAGE = 100

METRICS = [
    Metric("first_page_ms", "response -> first page painted", "ms", ("<", 150.0), digits=1),
    Metric("all_pages_seconds", "all pages fetched and shown", "s"),
    Metric("page_apply_ms", "apply + rebuild one page (median)", "ms", digits=1),
    Metric("peak_rss_mb", "peak RSS, all loaded", "MB", ("<", 120.0), digits=0),
    Metric("rss_mb", "RSS after all loaded", "MB", digits=0),
]


async def sessions(total: int, page: int) -> dict[str, float]:
    from textual.app import App, ComposeResult

    from acp_tui.protocol.client import AcpClient
    from acp_tui.store import SessionStore
    from acp_tui.ui.widgets.sidebar import SessionList, SessionsSidebar

    home = isolate_dirs()
    cwd = str(home)
    argv = [
        sys.executable,
        str(ROOT / "bench" / "sessions_agent.py"),
        "--sessions",
        str(total),
        "--page-size",
        str(page),
        "--cwd",
        cwd,
    ]
    store = SessionStore()
    painted = [0.0]
    marks: dict[str, float] = {}
    page_costs: list[float] = []

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield SessionsSidebar(store, cwd, id="sidebar")

        async def on_sessions_sidebar_load_more(self, event: SessionsSidebar.LoadMore) -> None:
            # Served by the benchmark loop below (so it controls timing); just note the ask.
            marks.setdefault("asked", time.perf_counter())

    async with AcpClient.launch(argv, cwd=cwd) as client:
        info = await client.initialize()
        store.set_agent_capabilities(info.capabilities)
        app = Host()
        async with app.run_test(size=(100, 40)) as pilot:
            sidebar = app.query_one(SessionsSidebar)
            lst = sidebar.query_one(SessionList)
            original = lst.render_line

            def render_line(y: int) -> Any:
                painted[0] = time.perf_counter()
                return original(y)

            lst.render_line = render_line  # type: ignore[method-assign]
            await wait_until(lambda: "asked" in marks, 10, "the first LoadMore")
            result = await client.list_sessions(cwd, None)
            received = time.perf_counter()
            store.apply_list_page(result, cwd=cwd, cursor=None)
            sidebar.set_loading(False)
            await wait_until(
                lambda: len(sidebar.rows) >= min(page, total) and painted[0] > received,
                10,
                "the first page painted",
                0.0005,
            )
            first_page_ms = (painted[0] - received) * 1000
            t0 = time.perf_counter()
            while not store.list_state(cwd).complete:
                cursor = store.list_state(cwd).next_cursor
                result = await client.list_sessions(cwd, cursor)
                t_page = time.perf_counter()
                store.apply_list_page(result, cwd=cwd, cursor=cursor)
                sidebar.set_loading(False)
                sidebar.rebuild_now()
                page_costs.append(time.perf_counter() - t_page)
            lst.action_last()
            await pilot.pause()
            all_seconds = time.perf_counter() - t0
            await wait_until(lambda: len(sidebar.rows) >= total, 30, "all rows")
            now_rss = rss_mb()
            peak = peak_rss_mb()
    return {
        "first_page_ms": first_page_ms,
        "all_pages_seconds": all_seconds,
        "page_apply_ms": median(page_costs) * 1000 if page_costs else 0.0,
        "peak_rss_mb": peak,
        "rss_mb": now_rss,
    }


def measure(smoke: bool = False) -> dict[str, float]:
    return asyncio.run(sessions(250 if smoke else SESSIONS, 20 if smoke else PAGE))
