"""Replay: ``session/load`` of a 2,000-message history with 200 tool calls, through the app.

The history is written straight into the demo agent's state directory (its on-disk format,
:mod:`acp_tui.demo_agent.sessions`), then the app starts with ``AppSettings(resume=<id>)``,
which loads it. Timed from the app starting the replay (``store.begin_replay``) until the last
entry is drawn, no refresh is pending and the prompt is focused and accepts input.
"""

from __future__ import annotations

import asyncio
import math
import time
from pathlib import Path
from typing import Any

from bench.common import Metric, demo_app, demo_settings, isolate_dirs, peak_rss_mb, wait_until

NAME = "replay"
TITLE = "Replay session/load: 2,000 messages + 200 tool calls"
MESSAGES = 2_000
TOOLS = 200
#: Give up after this long (reported as a timeout).
LIMIT = 120.0
SESSION_ID = "demo-benchreplay0001"

METRICS = [
    Metric("replay_seconds", "load -> last message shown, prompt ready", "s", ("<", 1.5)),
    Metric("start_to_ready_seconds", "app start -> replay shown", "s"),
    Metric("peak_rss_mb", "peak RSS", "MB", digits=0),
]

AGENT_TEXT = (
    "Here is what I found in **{n}**:\n\n"
    "- the parser keeps `state` between calls\n"
    "- the cache is never invalidated\n\n"
    "```python\ndef fix_{n}(x):\n    return x + {n}\n```\n"
)


def write_history(
    state_dir: Path, cwd: str, messages: int, tools: int, closing_text: str | None = None
) -> str:
    """The history of ``messages`` messages (user and agent in turn) with ``tools`` tool calls
    spread among them; with ``closing_text``, the last entry is an agent message of that text
    (the tool calls come before it)."""
    from acp_tui.demo_agent.sessions import SessionRecord, SessionStore

    record = SessionRecord(session_id=SESSION_ID, cwd=cwd, title="Replay benchmark")
    spread = messages - 1 if closing_text is not None else messages
    tool_every = max(1, spread // max(1, tools))
    made_tools = 0
    for n in range(messages):
        if closing_text is not None and n == messages - 1:
            record.history.append({"kind": "agent", "messageId": f"a{n}", "text": closing_text})
        elif n % 2 == 0:
            record.history.append(
                {"kind": "user", "messageId": f"u{n}", "text": f"Question {n}: why is it slow?"}
            )
        else:
            record.history.append(
                {"kind": "agent", "messageId": f"a{n}", "text": AGENT_TEXT.format(n=n)}
            )
        if n < spread and n % tool_every == tool_every - 1 and made_tools < tools:
            made_tools += 1
            record.history.append(
                {
                    "kind": "tool",
                    "toolCall": {
                        "toolCallId": f"call_{made_tools}",
                        "title": f"Read src/module_{made_tools}.py",
                        "kind": "read",
                        "status": "completed",
                        "locations": [{"path": f"{cwd}/src/module_{made_tools}.py"}],
                        "content": [
                            {
                                "type": "content",
                                "content": {"type": "text", "text": f"{made_tools} lines read"},
                            }
                        ],
                    },
                }
            )
    SessionStore(state_dir).save(record)
    return SESSION_ID


async def replay(messages: int, tools: int) -> dict[str, float]:
    from acp_tui.ui.screens.chat import ChatScreen
    from acp_tui.ui.widgets.prompt import PromptTextArea
    from acp_tui.ui.widgets.transcript import Transcript

    home = isolate_dirs()
    settings = demo_settings(home)
    session_id = write_history(home / "demo-state", settings.agent.cwd, messages, tools)
    settings.resume = session_id
    app = demo_app(settings)
    started = time.perf_counter()
    began: list[float] = []
    async with app.run_test(size=(120, 40)):
        await wait_until(lambda: isinstance(app.screen, ChatScreen), 30, "the chat screen", 0.001)
        screen: Any = app.screen
        store = screen.store
        original = store.begin_replay

        def begin_replay(*args: Any, **kwargs: Any) -> Any:
            began.append(time.perf_counter())
            return original(*args, **kwargs)

        store.begin_replay = begin_replay
        transcript = screen.query_one(Transcript)

        def ready() -> bool:
            state = store.get(session_id)
            if state is None or state.replaying or screen.session_id != session_id:
                return False
            if len(state.transcript) < messages + tools:
                return False
            last = state.transcript[-1]
            view = transcript._views.get(last.id)
            return (
                view is not None
                and view.is_mounted
                and view.drawn_version == last.version
                and screen.drawing.idle()
                and isinstance(app.focused, PromptTextArea)
                and not screen.busy
            )

        try:
            done = await wait_until(ready, LIMIT, "the replay to be shown", 0.001)
        except TimeoutError:
            done = math.inf
        peak = peak_rss_mb()
    return {
        "replay_seconds": done - (began[0] if began else started),
        "start_to_ready_seconds": done - started,
        "peak_rss_mb": peak,
    }


def measure(smoke: bool = False) -> dict[str, float]:
    return asyncio.run(replay(10 if smoke else MESSAGES, 2 if smoke else TOOLS))
