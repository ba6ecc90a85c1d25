"""Commands that need nothing of the client beyond session updates."""

from __future__ import annotations

import json
import logging
import math
import os
from typing import Any

from acp_tui.demo_agent import blocks, config, texts
from acp_tui.demo_agent.turn import TurnContext, message_id

log = logging.getLogger(__name__)

CONTEXT_SIZE = 200_000
SLOW_INTERVAL = 0.5
CRASH_EXIT_CODE = 3
MAX_FLOOD_BYTES = 256 * 1024 * 1024
FLOOD_BATCH = 256


async def cmd_help(ctx: TurnContext, argument: str) -> None:
    await ctx.say(texts.help_text())


async def cmd_title(ctx: TurnContext, argument: str) -> None:
    title = " ".join(argument.split())[:100]
    if not title:
        await ctx.say("Usage: `/title NEW TITLE`.")
        if ctx.record.title is None:
            ctx.record.title = "Untitled session"
            ctx.turn.title_changed = True
        return
    ctx.record.title = title
    ctx.turn.title_changed = True
    await ctx.say(f"Renamed this session to “{title}”.")


async def cmd_fill(ctx: TurnContext, argument: str) -> None:
    try:
        percent = float(argument.rstrip("%").strip())
    except ValueError:
        await ctx.say(
            "Usage: `/fill PERCENT`, e.g. `/fill 80` (75, 90 and 95 are the interesting ones)."
        )
        return
    percent = min(100.0, max(0.0, percent))
    ctx.turn.fill_target = round(CONTEXT_SIZE * percent / 100)
    await ctx.say(
        f"Filling the context window to {percent:g}% ({ctx.turn.fill_target:,} of "
        f"{CONTEXT_SIZE:,} tokens). Watch the gauge."
    )


async def cmd_cost(ctx: TurnContext, argument: str) -> None:
    try:
        amount = float(argument.strip())
    except ValueError:
        amount = float("nan")
    if not math.isfinite(amount):
        await ctx.say("Usage: `/cost AMOUNT`, e.g. `/cost 1.25` (negative: the total goes down).")
        return
    ctx.turn.cost = amount
    currency = config.currency()
    await ctx.say(
        f"This turn costs {amount:g} {currency} (the session's total is reported after it). "
        "Try a budget in the config, then Ctrl+P → Spend."
    )


async def cmd_think(ctx: TurnContext, argument: str) -> None:
    level = ctx.option(config.THOUGHT_LEVEL)
    name = config.choice_name(config.THOUGHT_LEVEL, level)
    text = texts.thought_text(argument, config.THOUGHT_PARAGRAPHS.get(level, 2))
    if not text:
        await ctx.say(
            f"Thinking is **{name}** for this session, so here is the answer straight away. "
            "Pick another level in the session's Thinking option to see my reasoning."
        )
        return
    await ctx.think(text)
    await ctx.say(
        f"Done thinking (level: **{name}**). The reasoning above came as "
        "`agent_thought_chunk` updates; this answer is an ordinary message."
    )


async def cmd_plan(ctx: TurnContext, argument: str) -> None:
    if argument.strip().lower() == "clear":
        await _clear_plan(ctx)
        return
    plan_id = f"plan-{message_id()[:8]}"
    item: dict[str, Any] = {
        "kind": "plan",
        "planId": plan_id,
        "entries": texts.plan_entries(0, running=False),
    }
    await ctx.say("Here is my plan; watch it progress.\n\n")
    ctx.record.history.append(item)

    async def send(entries: list[dict[str, Any]]) -> None:
        item["entries"] = entries
        await ctx.update(ctx.agent.plan_update(plan_id, entries))

    await send(texts.plan_entries(0, running=False))
    steps = len(texts.PLAN_STEPS)
    for index in range(steps):
        await send(texts.plan_entries(index, running=True))
        await ctx.say(
            f"- Step {index + 1} of {steps}: {texts.PLAN_STEPS[index][0].lower()}… done.\n"
        )
        await ctx.turn.sleep(ctx.agent.chunk_delay * 10)
    await send(texts.plan_entries(steps, running=False))
    await ctx.say("\nAll steps are completed. `/plan clear` removes the plan.")


async def _clear_plan(ctx: TurnContext) -> None:
    removed = {i.get("planId") for i in ctx.record.history if i.get("kind") == "plan_removed"}
    plans = [
        i
        for i in ctx.record.history
        if i.get("kind") == "plan" and i.get("planId") and i["planId"] not in removed
    ]
    if not plans:
        await ctx.say("There is no plan to remove; `/plan` makes one.")
        return
    plan_id = plans[-1]["planId"]
    ctx.record.history.append({"kind": "plan_removed", "planId": plan_id})
    await ctx.update(ctx.agent.plan_removed(plan_id))
    how = "`plan_removed`" if ctx.caps.plan_updates else "an empty `plan`"
    await ctx.say(f"Removed the plan (sent {how}).")


async def cmd_slow(ctx: TurnContext, argument: str) -> None:
    try:
        seconds = float(argument) if argument else 30.0
    except ValueError:
        seconds = 30.0
    seconds = min(max(seconds, 0.5), 3600.0)
    ticks = max(1, round(seconds / SLOW_INTERVAL))
    await ctx.say(
        f"This turn takes about {seconds:g} seconds. Press Escape to cancel, or queue "
        "another prompt.\n\n"
    )
    for tick in range(1, ticks + 1):
        line = texts.SLOW_LINES[(tick - 1) % len(texts.SLOW_LINES)]
        await ctx.say_chunk(f"{line}… ({tick}/{ticks})\n")
        await ctx.turn.sleep(SLOW_INTERVAL)
    await ctx.say("\nFinished the slow turn.")


async def cmd_flood(ctx: TurnContext, argument: str) -> None:
    parts = argument.split()
    try:
        count = int(parts[0]) if parts else 1000
        size = int(parts[1]) if len(parts) > 1 else 20
    except ValueError:
        await ctx.say(
            "Usage: `/flood N [CHUNK_BYTES]`, e.g. `/flood 50000` (1 MB in 20-byte chunks)."
        )
        return
    count = max(1, count)
    size = max(1, size)
    if count * size > MAX_FLOOD_BYTES:
        await ctx.say(
            f"That is more than {MAX_FLOOD_BYTES // (1024 * 1024)} MB; try a smaller flood."
        )
        return
    await flood(ctx, texts.flood_text(count * size), size)


async def flood(ctx: TurnContext, text: str, size: int) -> None:
    """A tight loop: pre-built text, one notification per chunk, serialised from a
    template and written in batches (cancel is checked between batches)."""
    await ctx.end_message()
    item = ctx.current_message()
    dumps = json.dumps
    head = (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":'
        + dumps(ctx.session.id)
        + ',"update":{"sessionUpdate":"agent_message_chunk","messageId":'
        + dumps(item["messageId"])
        + ',"content":{"type":"text","text":'
    )
    tail = "}}}}"
    sent = 0
    try:
        for batch_start in range(0, len(text), size * FLOOD_BATCH):
            ctx.turn.check()
            batch_end = min(len(text), batch_start + size * FLOOD_BATCH)
            lines = [
                head + dumps(text[start : start + size], ensure_ascii=False) + tail
                for start in range(batch_start, batch_end, size)
            ]
            await ctx.agent.send_serialized(lines)
            sent = batch_end
    finally:
        item["text"] = text[:sent]
        ctx.turn.output_chars += sent
    ctx.turn.check()


async def cmd_crash(ctx: TurnContext, argument: str) -> None:
    await ctx.say("Crashing in the middle of this turn, as requested")
    for _ in range(3):
        await ctx.say_chunk("…")
        await ctx.turn.sleep(ctx.agent.chunk_delay)
    log.error("/crash: exiting with code %d mid-turn", CRASH_EXIT_CODE)
    os._exit(CRASH_EXIT_CODE)


async def cmd_drop(ctx: TurnContext, argument: str) -> None:
    """v2 drops the answer before a turn runs (acp_tui.demo_agent.prompting); a v1 prompt's
    answer is the turn's end, so there is nothing to drop."""
    await ctx.say("/drop loses a prompt's answer on protocol v2 only; this session speaks v1.")


async def cmd_stall(ctx: TurnContext, argument: str) -> None:
    """v2 holds the answer of ``/stall`` for good (acp_tui.demo_agent.prompting); v1 has no
    answer apart from the turn's end."""
    await ctx.say("/stall holds a prompt's answer on protocol v2 only; this session speaks v1.")


async def cmd_image(ctx: TurnContext, argument: str) -> None:
    described = blocks.describe_all(ctx.blocks)
    if not described:
        await ctx.say(
            "Nothing is attached to this prompt. Attach an image (or a file) to a prompt and I "
            "tell you what arrived: the MIME type, the size in bytes and, for PNG and GIF, the "
            "dimensions; for an embedded file its URI and size. (I advertise the `image`, "
            "`audio` and `embeddedContext` prompt capabilities.)"
        )
        return
    await ctx.say("This prompt carried:\n\n" + "\n".join(described))


async def cmd_dirs(ctx: TurnContext, argument: str) -> None:
    record = ctx.record

    def line(path: str, role: str) -> str:
        state = "exists" if os.path.isdir(path) else "missing"
        return f"- `{path}` ({role}, {state})"

    lines = [line(record.cwd, "working directory")]
    lines += [line(path, "additional directory") for path in record.additional_dirs]
    if record.additional_dirs:
        intro = f"This session works in {len(lines)} directories:\n\n"
    else:
        intro = (
            "This session has no additional directories (the client sends them as "
            "`additionalDirectories` on session/new, load, resume or fork):\n\n"
        )
    await ctx.say(intro + "\n".join(lines))


async def cmd_system(ctx: TurnContext, argument: str) -> None:
    """What the client sent as ``systemPrompt`` when this session was opened here."""
    received = ctx.session.system_prompt
    if received is None:
        await ctx.say(
            "No system prompt came with this session (a client sends one as `systemPrompt` "
            "on session/new, load, resume or fork; acp-tui: `--system-prompt` or "
            "`system_prompt` in the config)."
        )
        return
    mode, text = received
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])
    await ctx.say(
        f"The client's system prompt for this session ({mode}, {len(text)} characters):\n\n"
        + quoted
    )


async def cmd_suggest(ctx: TurnContext, argument: str) -> None:
    """``/suggest A | B``: those prompts are suggested after this reply; none withdraws."""
    prompts = [part.strip() for part in argument.split("|") if part.strip()]
    ctx.turn.suggestions = prompts
    if not ctx.caps.prompt_suggestions:
        await ctx.say("This client does not offer prompt suggestions, so I send none.")
    elif prompts:
        await ctx.say(f"I suggest {len(prompts)} prompts for your next message.")
    else:
        await ctx.say("No suggestions this time: the ones offered are withdrawn.")
