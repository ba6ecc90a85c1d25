"""The session's state as the status line sees it: one JSON object (what the status command
reads on stdin; the README lists its fields), and the built-in items drawn from that same
object, so the two never disagree.

Pure Python: the UI draws :func:`status_items`; the tests read both without an app.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acp_tui import __version__
from acp_tui.store.options import option_of_category
from acp_tui.store.session import ACTIVITY_REQUIRES_ACTION, ACTIVITY_RUNNING, SessionState
from acp_tui.text.relative_time import elapsed_text
from acp_tui.text.safety import one_line
from acp_tui.text.usage import context_percent, format_cost, format_percent, format_tokens

__all__ = ["STATE_VERSION", "StatusSource", "state_json", "status_items", "status_state"]

#: The version of the JSON's shape: a field is only ever added within one version.
STATE_VERSION = 1
#: The most characters of a title sent (a title can be a whole first prompt).
TITLE_CHARS = 200
#: A working directory longer than this shows as its last folders.
CWD_CHARS = 40
#: The turn's token counts, as the JSON names them, from the store's.
TOKEN_FIELDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("total", "total_tokens"),
    ("thought", "thought_tokens"),
    ("cached_read", "cached_read_tokens"),
    ("cached_write", "cached_write_tokens"),
)


@dataclass(frozen=True, slots=True)
class StatusSource:
    """What the state is made of besides the session: the view's agent, its directory, the
    branch there, and the clock (the store's: ``turn_started`` is of the same)."""

    agent_name: str | None
    agent_label: str
    cwd: str
    git_branch: str | None = None
    now: float = 0.0


def _choice(state: SessionState | None, category: str) -> dict[str, str] | None:
    option = option_of_category(state, category) if state is not None else None
    if option is None or option.current is None:
        return None
    return {"id": str(option.current), "name": option.value_name()}


def _tokens(state: SessionState | None) -> dict[str, int | None] | None:
    usage = state.last_turn_usage if state is not None else None
    if usage is None:
        return None
    return {name: getattr(usage, field) for name, field in TOKEN_FIELDS}


def status_state(
    session: SessionState | None, source: StatusSource, options: SessionState | None = None
) -> dict[str, Any]:
    """The JSON object of ``session`` (None: the new session, before it exists; its mode and
    model are those of ``options``, the preview of what it will be made with)."""
    live = session
    picked = session if session is not None else options
    context = live.context if live is not None else None
    running = live is not None and live.activity in (ACTIVITY_RUNNING, ACTIVITY_REQUIRES_ACTION)
    started = live.turn_started if live is not None else None
    elapsed = int(max(0.0, source.now - started)) if running and started is not None else None
    last = live.last_turn_seconds if live is not None else None
    cost = None
    if context is not None and context.cost_amount is not None:
        cost = {"amount": context.cost_amount, "currency": context.cost_currency}
    percent = context_percent(context.used, context.size) if context is not None else None
    return {
        "version": STATE_VERSION,
        "acp_tui_version": __version__,
        "agent": {"name": source.agent_name, "label": source.agent_label},
        "session": {
            "id": live.id if live is not None else None,
            "title": one_line(live.display_title, TITLE_CHARS) if live is not None else None,
        },
        "cwd": (live.cwd if live is not None and live.cwd else None) or source.cwd,
        "model": _choice(picked, "model"),
        "mode": _choice(picked, "mode"),
        "context": None
        if context is None
        else {
            "used": context.used,
            "size": context.size,
            "percent": None if percent is None else round(percent, 1),
        },
        "cost": cost,
        "git_branch": source.git_branch,
        "turn": {
            "count": live.turn if live is not None else 0,
            "running": running,
            "elapsed_seconds": elapsed,
            "last_seconds": None if last is None else int(last),
        },
        "turn_tokens": _tokens(live),
    }


def state_json(state: dict[str, Any]) -> bytes:
    """The bytes the command reads: one line of JSON (UTF-8), keys sorted, ending in a
    newline; two equal states give equal bytes."""
    return (json.dumps(state, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def _cwd_text(path: str) -> str:
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home) :]
    if len(path) > CWD_CHARS:
        parts = path.split(os.sep)
        tail = os.sep.join(parts[-2:])
        path = "…" + os.sep + tail if len(tail) < CWD_CHARS else "…" + tail[-(CWD_CHARS - 1) :]
    return path


def _item(name: str, state: dict[str, Any]) -> str:
    turn = state["turn"]
    if name == "agent":
        return state["agent"]["label"] or ""
    if name in ("model", "mode"):
        chosen = state[name]
        return chosen["name"] if chosen else ""
    if name == "context":
        context = state["context"]
        if context is None or context["percent"] is None:
            return ""
        return f"ctx {format_percent(context['used'], context['size'])}"
    if name == "cost":
        cost = state["cost"]
        return format_cost(cost["amount"], cost["currency"]) if cost else ""
    if name == "cwd":
        return _cwd_text(state["cwd"])
    if name == "git_branch":
        return f"⎇ {state['git_branch']}" if state["git_branch"] else ""
    if name == "elapsed":
        if turn["elapsed_seconds"] is not None:
            return f"turn {elapsed_text(turn['elapsed_seconds'])}"
        if turn["last_seconds"] is not None:
            return f"last turn {elapsed_text(turn['last_seconds'])}"
        return ""
    if name == "turn_tokens":
        tokens = state["turn_tokens"]
        if not tokens:
            return ""
        if tokens["input"] is not None and tokens["output"] is not None:
            return f"↑{format_tokens(tokens['input'])} ↓{format_tokens(tokens['output'])}"
        if tokens["total"] is not None:
            return f"{format_tokens(tokens['total'])} tokens"
        return ""
    return ""


def status_items(state: dict[str, Any], items: Sequence[str]) -> list[str]:
    """The texts of ``items`` (in that order) from ``state`` (:func:`status_state`), each a
    label safe to draw; an item with nothing to say (no cost reported, no branch) is left
    out."""
    texts = (one_line(_item(name, state), 80) for name in items)
    return [text for text in texts if text]
