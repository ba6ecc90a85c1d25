"""The demo agent's slash commands: ``/name argument`` at the start of a prompt.

Each handler takes the turn's :class:`~acp_tui.demo_agent.turn.TurnContext` and the text
after the name. What they are called and how /help describes them is in ``texts.COMMANDS``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from acp_tui.demo_agent.commands import background, basic, features, files, tools
from acp_tui.demo_agent.turn import TurnContext

Handler = Callable[[TurnContext, str], Awaitable[None]]

HANDLERS: dict[str, Handler] = {
    "help": basic.cmd_help,
    "title": basic.cmd_title,
    "fill": basic.cmd_fill,
    "cost": basic.cmd_cost,
    "edit": tools.cmd_edit,
    "run": tools.cmd_run,
    "change": files.cmd_change,
    "rewrite": files.cmd_rewrite,
    "plan": basic.cmd_plan,
    "think": basic.cmd_think,
    "ask": features.cmd_ask,
    "login": features.cmd_login,
    "signout": features.cmd_signout,
    "compact": features.cmd_compact,
    "notice": features.cmd_notice,
    "image": basic.cmd_image,
    "dirs": basic.cmd_dirs,
    "system": basic.cmd_system,
    "suggest": basic.cmd_suggest,
    "slow": basic.cmd_slow,
    "flood": basic.cmd_flood,
    "crash": basic.cmd_crash,
    "drop": basic.cmd_drop,
    "stall": basic.cmd_stall,
    "subagents": background.cmd_subagents,
    "background": background.cmd_background,
}
