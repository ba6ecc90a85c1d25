"""A permission request with a thousand options (issue 17, item 10): from the push of the
dialog to its first frame, a keystroke's paint while it is open, and End + Enter to the answer.

The dialog renders only the option rows on screen (an option list), so none of this should
grow with the number of options.
"""

from __future__ import annotations

import asyncio
import time
from functools import partial
from typing import Any

from bench.common import Metric, percentile, wait_until

NAME = "permission"
TITLE = "Permission dialog with 1,000 options"
OPTIONS = 1_000
SMOKE_OPTIONS = 20
KEYS = 20
SMOKE_KEYS = 2

METRICS = [
    Metric("open_ms", "push -> first frame", "ms", ("<", 500.0), digits=1),
    Metric("key_p95_ms", "arrow key -> painted, p95", "ms", ("<", 50.0), digits=1),
    Metric("answer_ms", "End + Enter -> answered", "ms", ("<", 100.0), digits=1),
]


def painted_since(painted: list[float], before: int) -> bool:
    return len(painted) > before


def params(count: int) -> dict[str, Any]:
    kinds = ("allow_once", "allow_always", "reject_once", "reject_always")
    return {
        "sessionId": "bench",
        "toolCall": {"toolCallId": "bench-1", "title": "Pick one", "kind": "edit"},
        "options": [
            {"optionId": f"opt-{n}", "name": f"Option number {n}", "kind": kinds[n % 4]}
            for n in range(count)
        ],
    }


async def run(count: int, keys: int) -> dict[str, float]:
    from textual import events
    from textual.app import App

    from acp_tui.ui.screens.permission import PermissionOptions, PermissionScreen

    app: App[None] = App()
    answers: list[str | None] = []
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = PermissionScreen(params(count), arm_delay=0.0)
        started = time.perf_counter()
        app.push_screen(dialog, answers.append)
        await wait_until(lambda: dialog._shown_at is not None, 30.0, "the first frame")
        open_ms = (time.perf_counter() - started) * 1000
        options = dialog.query_one(PermissionOptions)
        painted: list[float] = []
        original = options.render_lines

        def render_lines(crop: Any) -> Any:
            painted.append(time.perf_counter())
            return original(crop)

        options.render_lines = render_lines  # type: ignore[method-assign]
        latencies: list[float] = []
        for _ in range(keys):
            before = len(painted)
            sent = time.perf_counter()
            app.post_message(events.Key("down", None))
            await wait_until(partial(painted_since, painted, before), 10.0, "the paint")
            latencies.append((painted[before] - sent) * 1000)
            await pilot.pause(0.02)
        sent = time.perf_counter()
        app.post_message(events.Key("end", None))
        app.post_message(events.Key("enter", "\r"))
        await wait_until(lambda: bool(answers), 10.0, "the answer")
        answer_ms = (time.perf_counter() - sent) * 1000
        assert answers == [f"opt-{count - 1}"], answers
    return {
        "open_ms": open_ms,
        "key_p95_ms": percentile(latencies, 95),
        "answer_ms": answer_ms,
    }


def measure(smoke: bool = False) -> dict[str, float]:
    count, keys = (SMOKE_OPTIONS, SMOKE_KEYS) if smoke else (OPTIONS, KEYS)
    return asyncio.run(run(count, keys))
