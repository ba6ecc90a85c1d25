"""/ask, /login, /signout, /compact and /notice: features a client opts into at ``initialize``.

Each is used only when the client advertised it (``elicitation.form``/``url``,
``session.compaction``, ``session.notices``; v2 needs no capability for the last two);
otherwise the agent says in the transcript what it would have done and why it did not.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from acp_tui.demo_agent import auth, elicit, wire
from acp_tui.demo_agent.turn import TurnCancelled, TurnContext, chunks
from acp_tui.protocol.jsonrpc import RpcError

URL_WAIT_SECONDS = 3.0
SEVERITIES = ("info", "warning", "error")


# ---------------------------------------------------------------------- /ask


async def cmd_ask(ctx: TurnContext, argument: str) -> None:
    words = argument.split()
    if words and words[0].lower() == "url":
        await _ask_url(ctx, words[1:])
        return
    if not ctx.caps.elicitation_form:
        await ctx.say(
            "I would ask you a few questions with a form, but this client did not advertise "
            "`elicitation.form`, so it cannot show one. Nothing was asked."
        )
        return
    await ctx.say("I have a few questions for you; your client should show a form.\n\n")
    params = {
        "sessionId": ctx.session.id,
        "mode": "form",
        "message": "The demo agent would like to know a little about you. Every kind of "
        "field is here: text, numbers, a yes/no, single and multiple choices.",
        "requestedSchema": elicit.FORM_SCHEMA,
    }
    result = await _elicit(ctx, params)
    if result is None:
        return
    action = result.get("action")
    if action == "accept":
        content = result.get("content")
        await ctx.say(elicit.describe_answers(content if isinstance(content, dict) else {}))
    elif action == "decline":
        await ctx.say("You **declined** the form (action `decline`): I will not ask again.")
    elif action == "cancel":
        await ctx.say("You **cancelled** the form (action `cancel`): nothing was answered.")
    else:
        await ctx.say(
            f"The client answered with an action I do not know, `{action}`: I treat it as no "
            "answer at all."
        )


async def _elicit(ctx: TurnContext, params: dict[str, Any]) -> dict[str, Any] | None:
    """Send ``elicitation/create`` and wait for the person; a cancelled turn withdraws it."""
    await ctx.end_message()
    await ctx.state("requires_action")
    try:
        answered, result = await ctx.request_or_cancel("elicitation/create", dict(params), 0.0)
    except RpcError as error:
        await ctx.state("running")
        await ctx.say(f"The client could not ask you: {error.message}")
        return None
    if not answered:
        raise TurnCancelled
    await ctx.state("running")
    if not isinstance(result, dict):
        await ctx.say("The client's answer to the form was not an object.")
        return None
    return result


async def _ask_url(ctx: TurnContext, rest: list[str]) -> None:
    try:
        seconds = min(max(float(rest[0]), 0.0), 60.0) if rest else URL_WAIT_SECONDS
    except ValueError:
        await ctx.say("Usage: `/ask url [SECONDS]`, e.g. `/ask url 5`.")
        return
    if not ctx.caps.elicitation_url:
        await ctx.say(
            "I would send you to a web page to (pretend to) connect an account, but this client "
            "did not advertise `elicitation.url`. Nothing was asked."
        )
        return
    elicitation_id = f"elicit-{uuid.uuid4().hex[:12]}"
    url = f"https://example.com/acp-tui-demo/connect?elicitation={elicitation_id}"
    await ctx.say("I need you to visit a page; your client should show its address.\n\n")
    result = await _elicit(
        ctx,
        {
            "sessionId": ctx.session.id,
            "mode": "url",
            "message": "Connect your (pretend) demo account on this page. Nothing there is "
            "real: the demo agent reports completion by itself.",
            "elicitationId": elicitation_id,
            "url": url,
        },
    )
    if result is None:
        return
    action = result.get("action")
    if action != "accept":
        await ctx.say(f"You did not go to the page (action `{action}`); nothing was connected.")
        return
    await ctx.say(
        f"You agreed to visit {url}. Waiting {seconds:g} seconds for the (pretend) site to "
        "finish…\n\n"
    )
    await ctx.turn.sleep(seconds)
    await ctx.agent.notify("elicitation/complete", {"elicitationId": elicitation_id})
    await ctx.say(
        f"The site reported back, so I sent `elicitation/complete` for `{elicitation_id}`."
    )


# ---------------------------------------------------------------------- /login


async def cmd_login(ctx: TurnContext, argument: str) -> None:
    state = ctx.agent.auth
    word = argument.strip().lower()
    if word == "off":
        state.set_required(False)
        await ctx.agent.status.auth_changed()
        await ctx.say("I no longer require sign-in. `/login` turns it back on.")
        return
    if word == "status":
        who = state.who()
        required = "required" if state.required else "not required"
        signed = f"signed in as **{who}**" if who else "not signed in"
        await ctx.say(f"Sign-in is {required}; you are {signed}.")
        return
    if word not in ("", "on"):
        await ctx.say("Usage: `/login` (require sign-in), `/login off` or `/login status`.")
        return
    state.set_required(True)
    state.sign_out()
    await ctx.agent.status.auth_changed()
    lines = [
        "From now on I require authentication. Your next prompt, and any new, loaded or "
        "resumed session, is answered with `auth_required` (-32000) until your client "
        "authenticates with one of the methods I advertised:\n",
    ]
    for method in auth.methods(ctx.caps, raw=True):
        if method["type"] == "terminal":
            how = (
                f"a terminal method: the client runs my command plus `{' '.join(method['args'])}` "
                "in your terminal, and I see the token it leaves"
            )
        else:
            call = "auth/login" if ctx.caps.v2 else "authenticate"
            how = f"an agent method, done by `{call}`"
        lines.append(f"- **{method['name']}** (`{method['id']}`): {how}")
    if not ctx.caps.terminal_auth:
        lines.append(
            "\nThis client did not advertise `auth.terminal`, so I do not offer my terminal "
            "method to it."
        )
    logout = "auth/logout" if ctx.caps.v2 else "logout"
    lines.append(
        f"\n`{logout}` signs you out again; `/login off` (once signed in) stops requiring it."
    )
    await ctx.say("\n".join(lines))


# ---------------------------------------------------------------------- /signout


async def cmd_signout(ctx: TurnContext, argument: str) -> None:
    """The agent ends the sign-in on its own (a token that expired): it tells the client at
    once with ``auth/status_update`` (unstable), and requires a sign-in from now on."""
    state = ctx.agent.auth
    state.set_required(True)
    state.sign_out()
    await ctx.agent.status.auth_changed()
    await ctx.say(
        "I signed you out, as if your token had expired, and told your client so with "
        "`auth/status_update` (no asking needed). Your next message signs you in again "
        "first; `/login off` stops requiring it."
    )


# ---------------------------------------------------------------------- /compact


def _summary(ctx: TurnContext) -> str:
    history = ctx.record.history
    users = [i for i in history if i.get("kind") == "user"]
    tools = sum(1 for i in history if i.get("kind") == "tool")
    recent = [" ".join(str(i.get("text", "")).split())[:60] for i in users[-3:]]
    lines = [
        f"Summary of “{ctx.record.title or 'this session'}” so far: {len(users)} prompts, "
        f"{tools} tool calls.",
        "The most recent requests were: " + "; ".join(f"“{r}”" for r in recent if r) + ".",
        "Everything before this summary was folded away to free the context window; the "
        "transcript stays on screen and in the saved session.",
    ]
    return "\n\n".join(lines)


async def cmd_compact(ctx: TurnContext, argument: str) -> None:
    fail = argument.strip().lower() == "fail"
    record = ctx.record
    before_tokens = ctx.agent.used_tokens(record)
    summary = _summary(ctx)
    if not ctx.caps.compaction:
        if fail:
            await ctx.say("Nothing to fail: this client did not advertise `session.compaction`.")
            return
        record.compacted_chars = record.history_chars
        record.fill_tokens = 0
        record.history.append(
            {
                "kind": "compaction",
                "compactionId": f"compaction-{uuid.uuid4().hex[:12]}",
                "status": "completed",
                "text": summary,
            }
        )
        await ctx.agent.send_usage(ctx.session)
        after_tokens = ctx.agent.used_tokens(record)
        await ctx.say(
            f"I compacted the context ({before_tokens:,} → {after_tokens:,} tokens), but this "
            "client did not advertise `session.compaction`, so I could not show the compaction "
            "itself. The context gauge shows the smaller context."
        )
        return
    await ctx.end_message()
    compaction_id = f"compaction-{uuid.uuid4().hex[:12]}"
    folded_chars = record.history_chars
    item = {
        "kind": "compaction",
        "compactionId": compaction_id,
        "status": "in_progress",
        "text": "",
    }
    record.history.append(item)
    base = {"sessionUpdate": "compaction_update", "compactionId": compaction_id}
    await ctx.update({**base, "status": "in_progress"})
    pieces = chunks(summary)
    try:
        for index, piece in enumerate(pieces):
            if fail and index >= math.ceil(len(pieces) / 2):
                item["status"] = "failed"
                item["error"] = "The demo agent was asked to fail this compaction (/compact fail)."
                await ctx.update({**base, "status": "failed", "error": item["error"]})
                await ctx.say("The compaction **failed**, as asked; the context is unchanged.")
                return
            item["text"] += piece
            await ctx.update(
                {
                    "sessionUpdate": "compaction_summary_chunk",
                    "compactionId": compaction_id,
                    "content": wire.text_block(piece),
                }
            )
            await ctx.turn.sleep(ctx.agent.chunk_delay)
    except TurnCancelled:
        item["status"] = "cancelled"
        await ctx.agent.update_shielded(ctx.session.id, {**base, "status": "cancelled"})
        raise
    item["status"] = "completed"
    record.compacted_chars = folded_chars
    record.fill_tokens = 0
    await ctx.update({**base, "status": "completed"})
    await ctx.agent.send_usage(ctx.session)
    after_tokens = ctx.agent.used_tokens(record)
    await ctx.say(
        f"Compacted the context from {before_tokens:,} to {after_tokens:,} tokens "
        f"(`compaction_update` `{compaction_id}`, then the summary in chunks)."
    )


# ---------------------------------------------------------------------- /notice


async def cmd_notice(ctx: TurnContext, argument: str) -> None:
    words = argument.split(maxsplit=1)
    severity = "info"
    rest = argument
    if words and (words[0].lower() in SEVERITIES or words[0].startswith("_")):
        severity = words[0] if words[0].startswith("_") else words[0].lower()
        rest = words[1] if len(words) > 1 else ""
    title_part, _, description_part = rest.partition("|")
    title = " ".join(title_part.split()) or "A notice from the demo agent"
    description = description_part.strip() or None
    if not ctx.caps.notices:
        detail = f" — {description}" if description else ""
        await ctx.say(
            "This client did not advertise `session.notices`, so here is the notice as a "
            f"message instead:\n\n**{severity}**: {title}{detail}"
        )
        return
    update: dict[str, Any] = {"sessionUpdate": "notice", "severity": severity, "title": title}
    if description is not None:
        update["description"] = description
    await ctx.update(update)
    await ctx.say(
        f"Sent a **{severity}** notice. Notices are live events, not history: reloading this "
        "session will not show it again."
    )
