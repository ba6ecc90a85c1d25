"""Benchmark: apply 100,000 ``agent_message_chunk`` updates to a SessionStore, and 30,000 of the
other kinds a turn streams (thoughts, tool calls and their updates, usage, plans: each takes
the full way, through its kind's coercion and handler, not the short way of a reply's chunk).

Run: ``python bench/bench_store.py [N]``. Prints updates/s (timing run, no tracing) and the peak
traced memory of a second run (tracemalloc slows that run down, so it is not timed), plus the
process's max RSS. Target: >= 200,000 updates/s on one core.
"""

from __future__ import annotations

import gc
import resource
import sys
import time
import tracemalloc
from typing import Any

from acp_tui.store import SessionStore

# For the runner (``python -m bench store``); ``python bench/bench_store.py [N]`` is unchanged.
NAME = "store"
TITLE = "Store: 100,000 agent_message_chunk updates"
try:
    from bench.common import Metric

    METRICS = [
        Metric("updates_per_s", "updates/s (best of 3, one core)", "upd/s", (">", 200_000)),
        Metric("wakes", "store wakes during the burst", "wakes", digits=0),
        Metric("mixed_per_s", "updates/s of other kinds (thoughts, tools...)", "upd/s", digits=0),
    ]
except ImportError:  # run as a script from elsewhere: the runner's helpers are not needed
    METRICS = []


def make_updates(n: int, session_id: str = "sess_bench") -> list[dict[str, Any]]:
    words = ["lorem ", "ipsum ", "dolor ", "sit ", "amet, ", "consectetur\n"]
    return [
        {
            "sessionId": session_id,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": words[i % len(words)]},
            },
        }
        for i in range(n)
    ]


def make_mixed(n: int, session_id: str = "sess_bench") -> list[dict[str, Any]]:
    """Thought chunks, tool calls and updates (with output), usage and plan updates, and
    reply chunks each starting a message of their own (a new ``messageId``)."""
    out = []
    for i in range(n):
        tool = f"tool-{i // 6}"
        update: dict[str, Any] = [
            {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hm "}},
            {"sessionUpdate": "tool_call", "toolCallId": tool, "title": "Read", "kind": "read"},
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool,
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": "out"}}],
            },
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "word "},
                "messageId": f"m{i}",
            },
            {"sessionUpdate": "usage_update", "used": i, "size": 200_000},
            {"sessionUpdate": "plan", "entries": [{"content": "a step", "status": "pending"}]},
        ][i % 6]
        out.append({"sessionId": session_id, "update": update})
    return out


def run(updates: list[dict[str, Any]]) -> tuple[float, SessionStore, int]:
    store = SessionStore()
    wakes = 0

    def wake() -> None:
        nonlocal wakes
        wakes += 1

    store.subscribe(wake)
    store.register_session("sess_bench", cwd="/tmp")
    store.take_changes()
    wakes = 0
    apply = store.apply
    t0 = time.perf_counter()
    for params in updates:
        apply(params)
    elapsed = time.perf_counter() - t0
    return elapsed, store, wakes


def measure(smoke: bool = False) -> dict[str, float]:
    n = 2_000 if smoke else 100_000
    updates = make_updates(n)
    gc.collect()
    best = float("inf")
    wakes = 0
    for _ in range(3):
        elapsed, _store, wakes = run(updates)
        best = min(best, elapsed)
    n_mixed = 600 if smoke else 30_000
    mixed = make_mixed(n_mixed)
    best_mixed = min(run(mixed)[0] for _ in range(3))
    return {"updates_per_s": n / best, "wakes": float(wakes), "mixed_per_s": n_mixed / best_mixed}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    updates = make_updates(n)

    gc.collect()
    best = float("inf")
    for _ in range(3):
        elapsed, store, wakes = run(updates)
        best = min(best, elapsed)
    session = store.get("sess_bench")
    assert session is not None
    text_len = len(session.transcript[-1].text)  # type: ignore[attr-defined]
    changes = store.take_changes()

    tracemalloc.start()
    _, store2, _ = run(updates)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del store2

    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"updates:            {n:,}")
    print(f"best time:          {best:.3f} s")
    print(f"updates/s:          {n / best:,.0f}  (target >= 200,000)")
    print(f"wakes during burst: {wakes}  (changed entries reported: {len(changes.entries)})")
    print(f"final text length:  {text_len:,} chars in {len(session.transcript)} entry")
    print(
        f"store memory:       {current / 1e6:.2f} MB retained, {peak / 1e6:.2f} MB peak (tracemalloc)"
    )
    print(f"process max RSS:    {rss_kib / 1024:.1f} MiB (includes the input updates)")


if __name__ == "__main__":
    main()
