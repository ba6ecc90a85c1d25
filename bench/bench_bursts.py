"""Bursts: the workloads of DESIGN.md's "Speed" section, where the closest peer took seconds to
minutes, each streamed into the chat screen of the real app and compared with showing the
finished reply once.

- ``paragraphs``: 400 updates of one Markdown paragraph each (one reply of 400 paragraphs);
- ``long``: one 3,000-token paragraph, a token per update;
- ``tokens``: 1,000 short tokens (a few sentences, a list and a code block).

The updates go into the screen's store as the wire layer hands them over (``store.apply``), and
the CPU time of those calls is left out, so the numbers are the UI's cost alone. Each workload is measured twice:

- **burst**: all updates at once, wall time until the reply is drawn (target < 2 s), and the
  CPU seconds that took over the CPU seconds of showing the finished reply once in a fresh view
  (DESIGN.md: streaming costs at most twice what rendering the finished Markdown once costs;
  target < 2);
- **paced**: a few updates every 2 ms, like a fast agent: the CPU seconds the process spent
  until the reply was drawn, over the CPU seconds of showing it once. No target: a paced
  stream is drawn as it arrives (up to 30 frames a second), and each frame draws the reply's
  open block again, so this grows with the stream's duration; the number shows how much.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from bench.common import (
    Metric,
    demo_app,
    demo_settings,
    isolate_dirs,
    last_reply_drawn,
    screen_idle,
    wait_until,
)

NAME = "bursts"
TITLE = "Bursts of DESIGN.md (UI only)"
LIMIT = 120.0
PACE_UPDATES = 5
PACE_SECONDS = 0.002
SETTLE = 0.5
SMOKE_SETTLE = 0.05

WORKLOADS = ("paragraphs", "long", "tokens")
METRICS = [
    metric
    for workload in WORKLOADS
    for metric in (
        Metric(f"{workload}_burst_s", f"{workload}: burst -> drawn", "s", ("<", 2.0)),
        Metric(
            f"{workload}_burst_ratio", f"{workload}: burst CPU / render-once CPU", "x", ("<", 2.0)
        ),
        Metric(f"{workload}_paced_cpu_ratio", f"{workload}: paced CPU / render-once CPU", "x"),
    )
]

WORDS = (
    "the agent reads `app.py` and finds **two** problems in the greeting code while the tests "
    "keep running and the plan moves on to the next step of the refactoring"
).split()


def paragraph_updates(count: int) -> list[str]:
    return [
        " ".join(WORDS[(n + k) % len(WORDS)] for k in range(60)).capitalize() + ".\n\n"
        for n in range(count)
    ]


def long_paragraph_updates(count: int) -> list[str]:
    return [WORDS[n % len(WORDS)] + " " for n in range(count)]


def token_updates(count: int) -> list[str]:
    text = (
        "Here is what I changed, step by step.\n\n"
        + "".join(f"- step {n}: updated `module_{n}.py` and its tests\n" for n in range(12))
        + "\n```python\ndef greet(name: str) -> str:\n    return f'Hello, {name}!'\n```\n\n"
    )
    text += " ".join(WORDS[n % len(WORDS)] for n in range(count))
    size = max(1, len(text) // count)
    return [text[start : start + size] for start in range(0, len(text), size)]


MAKERS: dict[str, Callable[[int], list[str]]] = {
    "paragraphs": paragraph_updates,
    "long": long_paragraph_updates,
    "tokens": token_updates,
}
SIZES = {"paragraphs": 400, "long": 3_000, "tokens": 1_000}


async def run_workloads(smoke: bool) -> dict[str, float]:
    from acp_tui.ui.widgets.markdown_lines import MarkdownLines
    from acp_tui.ui.widgets.transcript import Transcript
    from acp_tui.ui.widgets.transcript_views import view_for
    from bench.common import wait_for_session

    results: dict[str, float] = {}
    app = demo_app(demo_settings(isolate_dirs()))
    async with app.run_test(size=(120, 40)) as pilot:
        screen: Any = await wait_for_session(app)
        store = screen.store
        sid = screen.session_id
        transcript = screen.query_one(Transcript)
        turn = 0

        async def stream(updates: list[str], paced: bool) -> tuple[float, float]:
            nonlocal turn
            turn += 1
            store.prompt_sent(sid, f"workload {turn}")
            await wait_until(lambda: screen_idle(screen), LIMIT, "the prompt to be drawn")
            expected = sum(len(update) for update in updates)
            wall, cpu = time.perf_counter(), time.process_time()
            # The store's own work is the wire layer's cost, not the UI's: left out.
            store_cpu = 0.0
            for index, text in enumerate(updates):
                before = time.process_time()
                store.apply(
                    {
                        "sessionId": sid,
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "messageId": f"burst-{turn}",
                            "content": {"type": "text", "text": text},
                        },
                    }
                )
                store_cpu += time.process_time() - before
                if paced and index % PACE_UPDATES == PACE_UPDATES - 1:
                    await asyncio.sleep(PACE_SECONDS)
            done = await wait_until(
                lambda: last_reply_drawn(screen, expected), LIMIT, "the reply to be drawn"
            )
            await settle(wall)
            cpu_used = time.process_time() - cpu - store_cpu
            store.prompt_finished(sid, {"stopReason": "end_turn"})
            await pilot.pause()
            return done - wall, cpu_used

        async def settle(started: float) -> None:
            # CPU is counted over the same stretch of time for both sides (at least SETTLE
            # seconds): the paint after "drawn" and the idle app's own ticks count alike.
            await pilot.pause()
            # A smoke run only checks that numbers come out: no need to even out the CPU.
            stretch = SMOKE_SETTLE if smoke else SETTLE
            await asyncio.sleep(max(0.0, started + stretch - time.perf_counter()))

        async def render_once() -> tuple[float, float]:
            state = store.get(sid)
            assert state is not None
            entry = state.transcript[-1]
            wall, cpu = time.perf_counter(), time.process_time()
            view = view_for(entry)
            await transcript.mount(view)
            await view.sync(entry)
            await wait_until(
                lambda: view.query_one(".live", MarkdownLines).is_drawn, LIMIT, "the view"
            )
            await settle(wall)
            used = time.process_time() - cpu, time.perf_counter() - wall
            await view.remove()
            return used

        for workload in WORKLOADS:
            count = 20 if smoke else SIZES[workload]
            updates = MAKERS[workload](count)
            burst_wall, burst_cpu = await stream(updates, paced=False)
            _, paced_cpu = await stream(updates, paced=True)
            once = [await render_once() for _ in range(3)]
            once_cpu = min(cpu for cpu, _ in once)
            results[f"{workload}_burst_s"] = burst_wall
            results[f"{workload}_burst_ratio"] = burst_cpu / max(once_cpu, 1e-4)
            results[f"{workload}_paced_cpu_ratio"] = paced_cpu / max(once_cpu, 1e-4)
    return results


def measure(smoke: bool = False) -> dict[str, float]:
    return asyncio.run(run_workloads(smoke))
