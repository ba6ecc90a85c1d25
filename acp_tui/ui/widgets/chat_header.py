"""The chat screen's top row: the agent's name and version, the session title, the session's
additional directories, a mark while the session's mode skips the permission questions, a
mark when the agent had the session open already (``session/status``), who is signed in to
the agent (``auth/status``), and the permission policy badge. The screen sets each part; the header
never reads the store or the controller itself."""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from acp_tui.text.safety import one_line
from acp_tui.ui.agent_text import agent_line, agent_lines, line_of

__all__ = ["ChatHeader", "additional_dirs_label"]


def additional_dirs_label(dirs: list[str]) -> str:
    """``+ lib, docs``: the names of a session's additional directories, for the header."""
    names = [os.path.basename(path.rstrip(os.sep)) or path for path in dirs]
    return ("+ " + ", ".join(one_line(name, 40) for name in names)) if names else ""


class ChatHeader(Horizontal):
    """Agent name and version (with several agents: which one of how many), the session title,
    and the permission policy badge."""

    DEFAULT_CSS = """
    ChatHeader { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    ChatHeader > #agent { width: auto; text-style: bold; color: $accent; }
    ChatHeader > #title { width: 1fr; padding: 0 2; text-overflow: ellipsis; text-wrap: nowrap; }
    ChatHeader > #dirs { width: auto; max-width: 40; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    ChatHeader > #agents { width: auto; color: $text-muted; padding: 0 0 0 1; display: none; }
    ChatHeader > #agents.-several { display: block; }
    ChatHeader > #elsewhere { width: auto; display: none; color: $text-warning; padding: 0 0 0 1; }
    ChatHeader > #elsewhere.-on { display: block; }
    ChatHeader > #account {
        width: auto; max-width: 32; display: none; color: $text-muted; padding: 0 0 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    ChatHeader > #account.-on { display: block; }
    ChatHeader > #account.-signed-out { color: $text-warning; text-style: bold; }
    ChatHeader > #badge { width: auto; }
    ChatHeader > #reviews { width: auto; display: none; color: $text-accent; padding: 0 1; }
    ChatHeader > #reviews.-on { display: block; }
    ChatHeader > #badge.-yolo { background: $error; color: $text; text-style: bold; padding: 0 1; }
    ChatHeader > #badge.-deny { background: $warning; color: $text; padding: 0 1; }
    ChatHeader > #mode-warning { width: auto; max-width: 40; display: none; text-wrap: nowrap; text-overflow: ellipsis; }
    ChatHeader > #mode-warning.-on {
        display: block; background: $error; color: $text; text-style: bold; padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        yield Label("starting…", id="agent")
        yield Label("", id="agents")
        yield Label("", id="title")
        yield Label("", id="dirs")
        yield Label("", id="mode-warning")
        yield Label("✎ review writes", id="reviews")
        yield Label("⇄ open elsewhere", id="elsewhere")
        yield Label("", id="account")
        yield Label("", id="badge")

    def set_agent(self, text: str) -> None:
        self.query_one("#agent", Label).update(agent_line(text))

    def set_agents(self, position: int, total: int, switch_key: str) -> None:
        """Which of the app's running agents this view shows ("(2/3, Ctrl+G next)"); nothing
        when it runs one."""
        label = self.query_one("#agents", Label)
        label.set_class(total > 1, "-several")
        label.update(Text(f"({position}/{total}, {switch_key} next)" if total > 1 else ""))

    def set_title(self, text: str) -> None:
        self.query_one("#title", Label).update(agent_line(text, 500))

    def set_dirs(self, dirs: list[str]) -> None:
        """The session's additional directories: their names here, the paths in the tooltip."""
        label = self.query_one("#dirs", Label)
        label.update(agent_line(additional_dirs_label(dirs), 500))
        shown = [line_of(path, 500) for path in dirs]
        label.tooltip = Text("\n".join(["Also works in:", *shown])) if dirs else None

    def set_review_writes(self, on: bool) -> None:
        """The session's writes are reviewed before they land (shown while on)."""
        self.query_one("#reviews", Label).set_class(on, "-on")

    def set_mode_warning(self, mode_name: str | None) -> None:
        """The session's mode skips the permission questions (its name), or not (None): marked
        in the error colour while it is in force."""
        label = self.query_one("#mode-warning", Label)
        label.set_class(mode_name is not None, "-on")
        label.update(Text(f"▲ {one_line(mode_name, 30)}: no asking" if mode_name else ""))

    def set_elsewhere(self, on: bool) -> None:
        """The agent had the session in memory when it was opened here: another client may
        be working in it too (shown while that is what it said)."""
        label = self.query_one("#elsewhere", Label)
        label.set_class(on, "-on")
        label.tooltip = (
            "The agent already had this session open when it was opened here "
            "(session/status): another client may be working in it too."
            if on
            else None
        )

    def set_account(self, text: str, details: str, *, signed_out: bool) -> None:
        """Who is signed in to the agent, as it says (``text``; empty: nothing shown), every
        account in the tooltip; ``signed_out``: the agent wants a sign-in (in the warning
        colour)."""
        label = self.query_one("#account", Label)
        label.set_class(bool(text), "-on")
        label.set_class(signed_out, "-signed-out")
        label.update(agent_line(("○ " if signed_out else "● ") + text if text else "", 80))
        label.tooltip = agent_lines(details, 2000) if text and details else None

    def set_policy(self, policy: str) -> None:
        badge = self.query_one("#badge", Label)
        badge.set_class(policy == "yolo", "-yolo")
        badge.set_class(policy == "deny", "-deny")
        labels = {"yolo": "YOLO: auto-allow", "deny": "auto-deny", "ask": ""}
        badge.update(labels.get(policy, ""))
