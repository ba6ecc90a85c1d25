"""The banner above the transcript when the agent is gone or silent: why, what it printed,
and how to restart it. The screen says what happened (:meth:`AgentBanner.show_not_responding`,
:meth:`AgentBanner.show_exit`); the banner words it. The agent's lines are data: each one goes
through :func:`~acp_tui.ui.agent_text.agent_line`, cut to one row."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from acp_tui.session.agent.controller import AgentExit, NotResponding
from acp_tui.ui.agent_text import agent_line, line_of

__all__ = ["STDERR_BANNER_LINES", "STDERR_LINE_CHARS", "AgentBanner"]

#: The agent's last stderr lines shown in the banner, each cut to one row.
STDERR_BANNER_LINES = 8
STDERR_LINE_CHARS = 300


class AgentBanner(Static):
    """Shown when the agent is gone: why, its last stderr lines, and how to restart."""

    DEFAULT_CSS = """
    AgentBanner {
        display: none; height: auto; max-height: 14; padding: 0 1;
        background: $error 20%; border-left: thick $error;
    }
    AgentBanner.-visible { display: block; }
    """

    def hide(self) -> None:
        self.remove_class("-visible")

    def _show(self, text: Text) -> None:
        self.update(text)
        self.add_class("-visible")

    def show_not_responding(
        self, report: NotResponding, command: str, restart_key: str, quit_key: str
    ) -> None:
        """initialize took too long: quote what the command printed if it was not ACP, and
        offer a restart or quit (a late answer hides the banner again)."""
        text = Text(
            f"The agent is not responding (no answer to initialize after {report.seconds:g} s)\n",
            style="bold",
        )
        text.append("  command: ")
        text.append_text(agent_line(command, 2000))
        text.append("\n")
        if report.printed:
            more = report.printed_count - len(report.printed)
            text.append(
                "  It printed this on stdout, which is not ACP"
                + (f" ({report.printed_count} lines in all)" if more > 0 else "")
                + ":\n"
            )
            for line in report.printed:
                text.append("    ")
                text.append_text(agent_line(line, 200, style="dim"))
                text.append("\n")
        for line in report.stderr_tail[-6:]:
            text.append("  ")
            text.append_text(agent_line(line, STDERR_LINE_CHARS, style="dim"))
            text.append("\n")
        text.append(
            f"Is this an ACP agent? Press {restart_key} to restart it or {quit_key} to quit; "
            "an answer that comes later is still taken."
        )
        self._show(text)

    def show_exit(
        self, info: AgentExit, command: str, restart_key: str, quit_key: str, row: int
    ) -> None:
        """The agent could not start, or exited. What to do comes first and the agent's stderr
        after, each line cut to ``row`` cells: however long its lines, the way out stays on
        screen."""
        if info.start_failed:
            text = Text("The agent could not be started\n", style="bold")
            text.append("  command: ")
            text.append_text(agent_line(command, 2000))
            text.append("\n  reason: ")
            text.append_text(agent_line(info.description, 2000))
            text.append("\n")
            if info.printed:
                text.append("  It printed this on stdout, which is not ACP:\n")
                for line in info.printed:
                    text.append("    ")
                    text.append_text(agent_line(line, 200, style="dim"))
                    text.append("\n")
            text.append(
                f"Check the command, then press {restart_key} to try again or {quit_key} to quit.",
                style="dim",
            )
        else:
            text = Text(f"The agent exited ({line_of(info.description, 500)})\n", style="bold")
            text.append(
                "Your transcript and draft are kept. "
                f"Press {restart_key} to restart the agent and reopen this session."
            )
            if info.log_path:
                text.append(f"\n  log: {line_of(info.log_path, 500)}", style="dim")
        for line in info.stderr_tail[-STDERR_BANNER_LINES:]:
            cut = agent_line(line, STDERR_LINE_CHARS, style="dim")
            cut.truncate(row, overflow="ellipsis")
            text.append("\n  ")
            text.append_text(cut)
        self._show(text)
