"""Long session memory: RSS with 5,000 turns of one session on screen.

The real app runs on the demo agent; the turns are fed into the screen's store directly (a
prompt, a short Markdown reply, the turn's end), 500 turns per frame batch, and the chat screen
draws them as it would from the wire. Reported: RSS with everything drawn, and the time taken.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from bench.common import (
    Metric,
    demo_app,
    demo_settings,
    isolate_dirs,
    peak_rss_mb,
    rss_mb,
    wait_until,
)

NAME = "memory"
TITLE = "Long session: 5,000 turns on screen"
TURNS = 5_000
BATCH = 500
#: Stop feeding after this long and extrapolate (a slow transcript would take many minutes).
DEADLINE = 150.0

METRICS = [
    Metric("rss_mb", "RSS after 5,000 turns", "MB", ("<", 300.0), digits=0),
    Metric("peak_rss_mb", "peak RSS", "MB", digits=0),
    Metric("rss_per_turn_kb", "RSS per turn", "KB", digits=1),
    Metric("draw_seconds", "time to draw the turns", "s"),
    Metric("turns_drawn", "turns drawn (< 5,000: RSS extrapolated)", "turns", digits=0),
]

REPLY = "Done with step {n}: the **tests** pass and `ruff` is clean.\n\n- one\n- two\n"


async def long_session(turns: int) -> dict[str, float]:

    app = demo_app(demo_settings(isolate_dirs()))
    async with app.run_test(size=(120, 40)) as pilot:
        from bench.common import wait_for_session

        screen: Any = await wait_for_session(app)
        await pilot.pause()
        gc.collect()
        base = rss_mb()
        store = screen.store
        sid = screen.session_id

        def idle() -> bool:
            return screen.drawing.idle()

        t0 = time.perf_counter()
        fed = 0
        for start in range(0, turns, BATCH):
            if time.perf_counter() - t0 > DEADLINE:
                break
            for n in range(start, min(turns, start + BATCH)):
                store.prompt_sent(sid, f"Step {n}: please continue")
                store.apply(
                    {
                        "sessionId": sid,
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "messageId": f"m{n}",
                            "content": {"type": "text", "text": REPLY.format(n=n)},
                        },
                    }
                )
                store.prompt_finished(sid, {"stopReason": "end_turn"})
                fed += 1
            try:
                await wait_until(idle, DEADLINE, "the batch to be drawn")
            except TimeoutError:
                break
        await pilot.pause()
        draw = time.perf_counter() - t0
        gc.collect()
        now = rss_mb()
        peak = peak_rss_mb()
    per_turn = (now - base) / max(1, fed)
    return {
        "rss_mb": now if fed >= turns else now + per_turn * (turns - fed),
        "peak_rss_mb": peak,
        "rss_per_turn_kb": per_turn * 1000,
        "draw_seconds": draw,
        "turns_drawn": float(fed),
    }


def measure(smoke: bool = False) -> dict[str, float]:
    return asyncio.run(long_session(10 if smoke else TURNS))
