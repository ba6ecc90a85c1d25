"""What an agent reports of a terminal of its own, in a tool call's ``_meta``.

codex-acp (and claude-agent-acp) run commands in terminals of their own and, for a client
that says ``_meta.terminal_output`` at ``initialize`` (Zed's convention), put a ``terminal``
content item naming that terminal in the tool call, then report it in the ``_meta`` of the
call's updates: ``terminal_info`` (``terminal_id``, ``cwd``) once, ``terminal_output``
(``terminal_id``, ``data``) for each piece of output, ``terminal_exit`` (``terminal_id``,
``exit_code``, ``signal``) at the end. The client never created such a terminal, so nothing
else shows its output: :func:`take_terminal_meta` keeps what the updates report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["OUTPUT_LIMIT", "AgentTerminalReport", "take_terminal_meta"]

#: The most of a terminal's output kept (its end).
OUTPUT_LIMIT = 1_000_000


@dataclass(slots=True)
class AgentTerminalReport:
    """One terminal of the agent's, as its tool call's updates reported it."""

    terminal_id: str = ""
    cwd: str | None = None
    output: str = ""
    exit_code: int | None = None
    signal: str | None = None
    #: Whether an exit was reported.
    exited: bool = False
    #: Output reported in all, in characters (more than :attr:`output` keeps when cut).
    reported: int = field(default=0)

    def describe_exit(self) -> str:
        if self.signal:
            return f"killed by {self.signal}"
        return f"exit {self.exit_code}" if self.exit_code is not None else "exited"


def take_terminal_meta(report: AgentTerminalReport | None, meta: Any) -> AgentTerminalReport | None:
    """``report`` with what ``meta`` (one update's ``_meta``) says of the agent's terminal;
    ``report`` as it was when it says nothing. Malformed parts are left out."""
    if not isinstance(meta, dict):
        return report
    info, output, end = (
        meta.get(key) for key in ("terminal_info", "terminal_output", "terminal_exit")
    )
    if not any(isinstance(part, dict) for part in (info, output, end)):
        return report
    report = report if report is not None else AgentTerminalReport()
    for part in (info, output, end):
        if isinstance(part, dict) and isinstance(part.get("terminal_id"), str):
            report.terminal_id = part["terminal_id"]
    if isinstance(info, dict) and isinstance(info.get("cwd"), str):
        report.cwd = info["cwd"]
    if isinstance(output, dict) and isinstance(output.get("data"), str):
        data = output["data"]
        report.reported += len(data)
        report.output = (report.output + data)[-OUTPUT_LIMIT:]
    if isinstance(end, dict):
        report.exited = True
        code = end.get("exit_code")
        report.exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
        signal = end.get("signal")
        report.signal = signal if isinstance(signal, str) and signal else None
    return report
