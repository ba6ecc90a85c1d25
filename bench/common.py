"""Shared helpers for the benchmarks: machine info, memory, isolated dirs, the app on an agent.

Every benchmark module exposes ``NAME``, ``TITLE``, ``METRICS`` (what it reports and the
target) and ``measure(smoke: bool = False) -> dict[str, float]``. The runner calls
``measure`` in a fresh interpreter per run, so peak RSS is the benchmark's own.
"""

from __future__ import annotations

import asyncio
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Metric:
    """One reported number: ``key`` in the result dict, a label, its unit, and the target
    (``("<", 5.0)`` = smaller is better and must stay under 5.0), if any.

    ``requires``: keys of 0/1 flags every run must have at 1 for the target to be met (a reply
    shown fast but folded misses it); the table names a flag at 0 (:data:`FLAG_WORDS`). ``toad``: what the closest peer does on the same
    thing, for the table's anchor column (where it was measured, or the figure's source)."""

    key: str
    label: str
    unit: str
    target: tuple[Literal["<", ">"], float] | None = None
    digits: int = 2
    requires: tuple[str, ...] = ()
    toad: str = ""

    def met(self, value: float, margin: float = 1.0) -> bool:
        """Whether ``value`` meets the target, loosened by ``margin`` (3: three times the
        time, a third of the rate)."""
        if self.target is None:
            return True
        op, limit = self.target
        return value < limit * margin if op == "<" else value > limit / margin

    def verdict(self, value: float, margin: float = 1.0) -> str:
        if self.target is None:
            return ""
        return "✓" if self.met(value, margin) else "✗"

    def target_text(self, margin: float = 1.0) -> str:
        if self.target is None:
            return ""
        op, limit = self.target
        shown = limit * margin if op == "<" else limit / margin
        return f"{op} {format_number(shown, self.digits)}"


#: How a flag of ``Metric.requires`` at 0 reads in the table, by the end of its key.
FLAG_WORDS = {
    "_unfolded": "folded",
    "_reached": "start not reached",
    "_refused": "not refused",
    "_streamed": "not streamed",
}


def flag_word(key: str) -> str:
    for suffix, word in FLAG_WORDS.items():
        if key.endswith(suffix):
            return word
    return key


def format_number(value: float, digits: int = 2) -> str:
    if value != value:  # NaN
        return "n/a"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def isolate_dirs() -> Path:
    """A fresh temporary home for config/data/state, so benchmarks never touch real files."""
    home = Path(tempfile.mkdtemp(prefix="acp-tui-bench-"))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(home / name.lower())
    os.environ["ACP_TUI_CONFIG"] = str(home / "config.toml")
    return home


def rss_mb() -> float:
    """Current resident set size of this process, in MB (Linux; falls back to the peak)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return peak_rss_mb()


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak * (1024 if sys.platform != "darwin" else 1) / 1e6


def percentile(values: list[float], pct: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine_info() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import textual

        textual_version = textual.__version__
    except Exception:  # pragma: no cover - textual is a dependency
        textual_version = "?"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": cpu,
        "cores": str(cores),
        "python": platform.python_version(),
        "textual": textual_version,
        "os": f"{platform.system()} {platform.release()}",
    }


async def wait_until(
    condition: Callable[[], bool], limit: float, what: str, poll: float = 0.002
) -> float:
    """Poll ``condition`` on the running loop (without waiting for the app to be idle, which a
    flood may never be); return the time it first held. Raise TimeoutError after ``limit``."""
    deadline = time.perf_counter() + limit
    failure: Exception | None = None
    while True:
        try:
            if condition():
                return time.perf_counter()
        except Exception as error:  # the UI may be mid-change: keep polling, remember why
            failure = error
        if time.perf_counter() > deadline:
            why = f" (last error: {failure!r})" if failure else ""
            raise TimeoutError(f"timed out after {limit:.0f} s waiting for {what}{why}")
        await asyncio.sleep(poll)


def demo_settings(home: Path, **overrides: Any) -> Any:
    """Settings for the real app on the demo agent (no chunk delay), in ``home``. The app is
    built next (:func:`demo_app`): the process is prepared as the command line prepares it
    before ``app.run``."""
    from acp_tui.cli.tui import settle_long_lived_objects
    from acp_tui.demo_agent import demo_agent_argv
    from acp_tui.session.launch.settings import AppSettings
    from acp_tui.session.launch.spec import AgentSpec
    from acp_tui.ui.app import make_app  # noqa: F401  (imported before the objects settle)

    settle_long_lived_objects()

    cwd = home / "project"
    cwd.mkdir(parents=True, exist_ok=True)
    argv = demo_agent_argv(state_dir=str(home / "demo-state"), chunk_delay=0)
    settings = AppSettings(agent=AgentSpec(tuple(argv), cwd=str(cwd)), data_dir=home / "data")
    for name, value in overrides.items():
        setattr(settings, name, value)
    return settings


def demo_app(settings: Any) -> Any:
    """The real app with ``settings`` (:func:`demo_settings`): the dark theme, no bell."""
    from acp_tui.ui.app import make_app
    from acp_tui.ui.preferences import UiSettings

    return make_app(settings, ui=UiSettings(theme="textual-dark", notify_when_unfocused=False))


async def wait_for_session(app: Any, limit: float = 30.0) -> Any:
    """The chat screen, once a session is open and shown."""
    from acp_tui.ui.screens.chat import ChatScreen

    def agent_ready() -> bool:
        screen = app.screen
        return isinstance(screen, ChatScreen) and screen.agent_alive

    def ready() -> bool:
        screen = app.screen
        return isinstance(screen, ChatScreen) and screen.session_id is not None

    await wait_until(agent_ready, limit, "the agent")
    # Sessions are made on demand (the first message, or Ctrl+N): ask for one.
    if app.screen.session_id is None and app.screen.settings.resume is None:
        app.screen.action_new_session()
    await wait_until(ready, limit, "a session")
    return app.screen


def screen_idle(screen: Any) -> bool:
    """The chat screen has no store refresh scheduled or running."""
    return screen.drawing.idle()


def last_reply_drawn(screen: Any, expected: int) -> bool:
    """The session's last entry is an agent reply of at least ``expected`` characters, all of
    it handed to its view and laid out at the view's width, with no screen refresh pending."""
    from acp_tui.store.entries import AgentMessage
    from acp_tui.ui.widgets.markdown_lines import MarkdownLines
    from acp_tui.ui.widgets.transcript import Transcript
    from acp_tui.ui.widgets.transcript_views import AgentMessageView

    state = screen.store.get(screen.session_id)
    entry = state.transcript[-1] if state and state.transcript else None
    if not isinstance(entry, AgentMessage) or len(entry.text) < expected:
        return False
    view = screen.query_one(Transcript)._views.get(entry.id)
    if not isinstance(view, AgentMessageView):
        return False
    live = view.query_one(".live", MarkdownLines)
    return len(live.source) >= expected and live.is_drawn and screen_idle(screen)


def submit(screen: Any, text: str) -> None:
    """Send ``text`` as if typed and submitted in the prompt (no keystrokes involved)."""
    screen.model.send(text)
