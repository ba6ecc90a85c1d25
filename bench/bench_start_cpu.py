"""An app's start in CPU seconds, in-process: the app made and run headless on the demo agent
until the agent is ready and the prompt focused, timed by this process's CPU clock (the
agent's own CPU is not counted). Its modules are imported before the clock starts.

CPU time moves much less with other work on a shared machine than wall time does, so this
shows what a Textual patch saves at start (``python -m bench.patches startcpu``). Parsed
stylesheets are kept in a cache directory shared by the runs, as a person's launches share
theirs (the ``css-cache`` patch reads it; its first run fills it).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from bench.common import Metric

NAME = "startcpu"
TITLE = "An app's start, in-process (CPU)"
METRICS = [
    Metric(
        "start_cpu_s",
        "app made -> demo agent ready, prompt focused: this process's CPU",
        "s",
        digits=3,
    )
]

CACHE = Path(tempfile.gettempdir()) / "acp-tui-bench-startcpu-cache"


async def _start() -> float:
    from acp_tui.demo_agent import demo_agent_argv
    from acp_tui.session.launch.settings import AppSettings
    from acp_tui.session.launch.spec import AgentSpec
    from acp_tui.ui.app import make_app
    from acp_tui.ui.screens.chat import ChatScreen
    from acp_tui.ui.textual_patches import css_cache
    from acp_tui.ui.widgets.prompt import PromptTextArea

    home = Path(tempfile.mkdtemp(prefix="acp-tui-bench-startcpu-"))
    css_cache.keep_on_disk(CACHE)
    started = time.process_time()
    agent = AgentSpec(
        argv=tuple(demo_agent_argv(state_dir=str(home / "state"), chunk_delay=0)), cwd=str(home)
    )
    app = make_app(AppSettings(agent=agent, data_dir=home / ".data"))
    async with app.run_test(size=(120, 40)) as pilot:
        deadline = time.monotonic() + 60
        while True:
            screen = app.screen
            if (
                isinstance(screen, ChatScreen)
                and screen.agent_alive
                and isinstance(screen.focused, PromptTextArea)
            ):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the demo agent was never ready")
            await pilot.pause(0.01)
        spent = time.process_time() - started
    css_cache.save_to_disk()
    return spent


def measure(smoke: bool = False) -> dict[str, float]:
    os.environ.setdefault("XDG_CACHE_HOME", str(CACHE.parent / "acp-tui-bench-startcpu-xdg"))
    return {"start_cpu_s": asyncio.run(_start())}
