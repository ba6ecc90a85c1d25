"""Input latency during a flood: keystrokes typed into the prompt while ``/flood`` streams.

Each key is posted to the app as the terminal driver would (an ``events.Key``), then we note
when the prompt's text has it (handled) and when the compositor first asked the TextArea for
lines while its text held the key (painted). Keys are typed 50 ms apart while the reply still
streams.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.common import (
    Metric,
    demo_app,
    demo_settings,
    isolate_dirs,
    percentile,
    wait_for_session,
    wait_until,
)

NAME = "input"
TITLE = "Keystroke latency during /flood 50000 20"
CHUNKS = 50_000
#: Keys measured: floods are repeated (at most MAX_FLOODS) until this many were typed
#: while one streamed.
KEYS = 60
MAX_FLOODS = 8
SMOKE_CHUNKS = 1_000
SMOKE_KEYS = 2
KEY_LIMIT = 10.0
GAP = 0.05

METRICS = [
    Metric("paint_p50_ms", "key -> painted, p50", "ms", digits=1),
    Metric("paint_p95_ms", "key -> painted, p95", "ms", ("<", 50.0), digits=1),
    Metric("handled_p95_ms", "key -> in prompt text, p95", "ms", digits=1),
    Metric("keys_during_flood", "keys typed while streaming", "keys", digits=0),
]


async def type_during_flood(chunks: int, keys: int) -> dict[str, float]:
    from textual import events

    from acp_tui.store.entries import AgentMessage
    from acp_tui.ui.widgets.prompt import PromptEditor

    app = demo_app(demo_settings(isolate_dirs()))
    handled: list[float] = []
    painted: list[float] = []
    during = 0
    async with app.run_test(size=(120, 40)):
        screen = await wait_for_session(app)
        area = screen.query_one(PromptEditor).text_area
        area.focus()
        # The text at each paint: a paint can land before this task sees the text change,
        # so "painted" is the first paint after the key whose text differs.
        paints: list[tuple[float, str]] = []
        original = area.render_lines

        def render_lines(crop: Any) -> Any:
            paints.append((time.perf_counter(), area.text))
            return original(crop)

        area.render_lines = render_lines  # type: ignore[method-assign]
        store = screen.store

        def streaming() -> bool:
            state = store.get(screen.session_id)
            return bool(
                state
                and state.activity == "running"
                and state.transcript
                and isinstance(state.transcript[-1], AgentMessage)
            )

        index = 0
        for _flood in range(MAX_FLOODS):
            if during >= keys:
                break
            screen.model.send(f"/flood {chunks} 20")
            await wait_until(streaming, 30, "the flood to start")
            # Type until this flood is over (its turn ended), so every measured key
            # competes with it; the next flood starts if more keys are wanted.
            while during < keys:
                char = "abcdefghijklmnopqrstuvwxyz"[index % 26]
                index += 1
                before = area.text
                if not streaming():
                    break
                t0 = time.perf_counter()
                app.post_message(events.Key(char, char))
                try:
                    t_handled = await wait_until(
                        lambda b=before: area.text != b, KEY_LIMIT, "the key", 0.0005
                    )
                    await wait_until(
                        lambda b=before, t=t0: (
                            bool(paints) and paints[-1][0] > t and paints[-1][1] != b
                        ),
                        KEY_LIMIT,
                        "a paint",
                        0.0005,
                    )
                    t_paint = min(t for t, text in paints if t > t0 and text != before)
                except TimeoutError:
                    t_handled = t_paint = t0 + KEY_LIMIT
                del paints[:-1]
                handled.append((t_handled - t0) * 1000)
                painted.append((t_paint - t0) * 1000)
                during += 1
                await asyncio.sleep(GAP)
            await wait_until(lambda: not streaming(), 60, "the flood to end")
    return {
        "paint_p50_ms": percentile(painted, 50),
        "paint_p95_ms": percentile(painted, 95),
        "handled_p95_ms": percentile(handled, 95),
        "keys_during_flood": float(during),
    }


def measure(smoke: bool = False) -> dict[str, float]:
    return asyncio.run(
        type_during_flood(SMOKE_CHUNKS if smoke else CHUNKS, SMOKE_KEYS if smoke else KEYS)
    )
