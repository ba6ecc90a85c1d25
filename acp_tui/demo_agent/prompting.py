"""A prompt turn, from ``session/prompt`` to the stop reason.

v1 (https://agentclientprotocol.com/protocol/v1/prompt-turn): the response carries the stop
reason and usage once the turn is over. v2 (the draft): the response carries the inserted
message's id as soon as the prompt is inserted; the turn then runs on, reporting
``state_update`` (running, requires_action, idle with the stop reason and usage). A v2 prompt
that arrives while a turn runs is held, and ``session/cancel`` withdraws it (-32800).
"""

from __future__ import annotations

import logging
import math
import os
import re
from typing import Any

import anyio

from acp_tui.demo_agent import blocks, config, texts
from acp_tui.demo_agent.commands import HANDLERS
from acp_tui.demo_agent.params import not_found, str_param
from acp_tui.demo_agent.sessions import now_iso
from acp_tui.demo_agent.turn import (
    LiveSession,
    Serving,
    Turn,
    TurnCancelled,
    TurnContext,
    message_id,
)
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, REQUEST_CANCELLED, RpcError, after_response

log = logging.getLogger(__name__)

_COMMAND = re.compile(r"^/([A-Za-z][\w-]*)(?:\s+(.*))?$", re.DOTALL)


def text_of(prompt: list[dict[str, Any]]) -> str:
    return "".join(
        b.get("text", "")
        for b in prompt
        if b.get("type") == "text" and isinstance(b.get("text"), str)
    )


#: How long ``session/inject`` waits for the turn of a prompt read just before it.
INJECT_GRACE = 1.0

#: The demo's exit code for ``/drop`` (v2: the prompt inserted, its answer never sent).
DROP_EXIT_CODE = 4
#: Written to the state directory by ``/stall``: the process id to kill (a test's handle
#: on "the agent died mid-turn, its answer never sent").
STALL_PID_FILE = "stall.pid"


def _inserted(session: LiveSession, key: str | None) -> dict[str, Any] | None:
    """The user message a prompt with this idempotency key inserted before, if any."""
    if key is None:
        return None
    for item in reversed(session.record.history):
        if item.get("kind") == "user" and item.get("idempotencyKey") == key:
            return item
    return None


def _now(session: LiveSession) -> str:
    return "running" if session.turn is not None else "idle"


class PromptTurns:
    """``session/prompt`` for one agent: insertion, the turn, and its ending."""

    def __init__(self, agent: Serving) -> None:
        self.agent = agent

    def _prompt_blocks(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        prompt = params.get("prompt")
        if not isinstance(prompt, list):
            raise RpcError(INVALID_PARAMS, "`prompt` must be an array of content blocks")
        found = [b for b in prompt if isinstance(b, dict)]
        if self.agent.caps.v2 and not found:
            raise RpcError(INVALID_PARAMS, "`prompt` must not be empty")
        return found

    def _insert_user(
        self, session: LiveSession, prompt: list[dict[str, Any]], key: str | None = None
    ) -> dict[str, Any]:
        record = session.record
        item = {
            "kind": "user",
            "messageId": message_id(),
            "text": text_of(prompt),
            "blocks": [blocks.stored(b) for b in prompt],
        }
        if key is not None:
            item["idempotencyKey"] = key
        record.history.append(item)
        record.turns += 1
        record.updated_at = now_iso()
        return item

    async def prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        self.agent.auth.check(self.agent.caps)
        session = self.agent.live(str_param(params, "sessionId"))
        prompt = self._prompt_blocks(params)
        if self.agent.caps.v2:
            key = params.get("idempotencyKey")
            key = key if isinstance(key, str) and key else None
            done = _inserted(session, key)
            if done is not None:
                # A retry of a prompt inserted before (its answer was lost): at most once.
                # Counted in the state, so a test sees it arrived and ran nothing.
                done["retries"] = int(done.get("retries") or 0) + 1
                self.agent.save(session)
                after_response(lambda: self.agent.state(session, _now(session)))
                return {"messageId": done["messageId"]}
            return await self._accept_prompt(session, prompt, key)
        async with session.lock:
            turn = Turn()
            session.begin(turn)
            try:
                self._insert_user(session, prompt)
                return await self._run_turn(session, turn, prompt)
            finally:
                session.end_turn()
                turn.done.set()

    async def inject(self, params: dict[str, Any]) -> dict[str, Any]:
        """``session/inject`` (the mid-turn input RFD), ``steer`` only: the message waits for
        the running turn's next chunk, where it is taken in (``TurnContext.take_injected``).
        Accepted, its id is answered at once."""
        self.agent.auth.check(self.agent.caps)
        session = self.agent.live(str_param(params, "sessionId"))
        if params.get("mode") != "steer":
            raise RpcError(INVALID_PARAMS, "this agent takes `steer` injects only")
        content = params.get("content")
        if not isinstance(content, list) or not any(isinstance(b, dict) for b in content):
            raise RpcError(INVALID_PARAMS, "`content` must be a non-empty array of blocks")
        # The prompt read just before this request may not have started its turn yet (each
        # request runs in a task of its own): a moment for it.
        if session.turn is None:
            with anyio.move_on_after(INJECT_GRACE):
                await session.turn_begun.wait()
        turn = session.turn
        if turn is None or turn.cancelled:
            raise RpcError(INVALID_PARAMS, "no turn is running to steer: send a prompt")
        found = [b for b in content if isinstance(b, dict)]
        item = {
            "kind": "user",
            "messageId": message_id(),
            "text": text_of(found),
            "blocks": [blocks.stored(b) for b in found],
        }
        turn.injected.append(item)
        return {"messageId": item["messageId"]}

    async def _accept_prompt(
        self, session: LiveSession, prompt: list[dict[str, Any]], key: str | None = None
    ) -> dict[str, Any]:
        """v2: answer once the prompt is inserted; the turn runs on after the answer. A
        prompt still waiting for the previous turn is withdrawn by session/cancel."""
        held = anyio.CancelScope()
        session.held.add(held)
        acquired = False
        try:
            with held:
                await session.lock.acquire()
                acquired = True
        finally:
            session.held.discard(held)
        if not acquired:
            raise RpcError(REQUEST_CANCELLED, "the prompt was cancelled before it was inserted")
        try:
            if session.deleted or self.agent.sessions.get(session.id) is not session:
                raise not_found(session.id)
            turn = Turn()
            session.begin(turn)
            user = self._insert_user(session, prompt, key)
        except BaseException:
            session.lock.release()
            raise
        if text_of(prompt).strip() == "/drop":
            # Inserted and kept, then gone before the answer: the client cannot know.
            self.agent.save(session)
            log.error("/drop: exiting after inserting the prompt, before answering it")
            os._exit(DROP_EXIT_CODE)
        if text_of(prompt).strip() == "/stall":
            # Inserted and kept, then no answer until the process is killed.
            self.agent.save(session)
            (self.agent.store.directory / STALL_PID_FILE).write_text(f"{os.getpid()}\n")
            log.error("/stall: the prompt is inserted; it is never answered")
            await anyio.sleep_forever()

        async def run() -> None:
            try:
                await self.agent.update(
                    session.id,
                    {
                        "sessionUpdate": "user_message",
                        "messageId": user["messageId"],
                        "content": user["blocks"],
                    },
                )
                await self._run_turn(session, turn, prompt)
            finally:
                session.end_turn()
                turn.done.set()
                session.lock.release()

        after_response(run)
        return {"messageId": user["messageId"]}

    async def _run_turn(
        self, session: LiveSession, turn: Turn, prompt: list[dict[str, Any]]
    ) -> dict[str, Any]:
        record = session.record
        text = text_of(prompt)
        match = _COMMAND.match(text.strip())
        command = match.group(1).lower() if match else None
        argument = (match.group(2) or "").strip() if match else ""
        if record.title is None and not record.title_locked and command != "title":
            record.title = texts.title_from_prompt(text)
            turn.title_changed = True
        self.agent.save(session)
        input_tokens = self.agent.used_tokens(record)
        prompt_tokens = math.ceil(len(text) / 4)
        await self.agent.state(session, "running")
        ctx = TurnContext(self.agent, session, turn, prompt)
        stop_reason = "end_turn"
        error: dict[str, Any] | None = None
        try:
            await self._dispatch(ctx, command, argument, text)
            turn.check()
            if turn.injected:  # accepted after the turn's last word: delivered now
                await ctx.take_injected()
        except TurnCancelled:
            stop_reason = "cancelled"
            # Accepted, never delivered: history all the same (an inject is never dropped).
            record.history.extend(turn.injected)
            turn.injected = []
        except Exception as failure:
            if not self.agent.caps.v2:
                record.updated_at = now_iso()
                self.agent.save(session)
                raise
            # v2: the prompt was answered long ago; the failure ends the turn instead.
            log.exception("turn failed")
            stop_reason = "error"
            error = {"code": -32603, "message": f"{type(failure).__name__}: {failure}"}
        except BaseException:
            record.updated_at = now_iso()
            self.agent.save(session)
            raise
        await ctx.end_message()
        if stop_reason == "end_turn":
            await self._suggest(session, turn, command)
        return await self._finish_turn(
            session, turn, stop_reason, input_tokens, prompt_tokens, error
        )

    async def _suggest(self, session: LiveSession, turn: Turn, command: str | None) -> None:
        """After a reply, the prompts the person might send next (to a client that offers
        them): the turn's own (``/suggest``), else a few of the demo's commands."""
        if not self.agent.caps.prompt_suggestions or session.deleted:
            return
        chosen = turn.suggestions
        if chosen is None:
            chosen = texts.next_prompts(command, session.record.turns)
        await self.agent.update(
            session.id,
            {
                "sessionUpdate": "prompt_suggestions_update",
                "suggestions": [
                    {"prompt": [{"type": "text", "text": text}]} for text in chosen if text.strip()
                ],
            },
        )

    async def _finish_turn(
        self,
        session: LiveSession,
        turn: Turn,
        stop_reason: str,
        input_tokens: int,
        prompt_tokens: int,
        error: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        record = session.record
        output_tokens = math.ceil(turn.output_chars / 4)
        thought_tokens = math.ceil(turn.thought_chars / 4)
        if turn.fill_target is not None:
            base = math.ceil(max(0, record.history_chars - record.compacted_chars) / 4)
            record.fill_tokens = max(0, turn.fill_target - base)
        price_in, price_out = config.model_prices(record.model)
        if turn.cost is not None:
            record.cost = max(0.0, record.cost + turn.cost)
        else:
            record.cost += (
                input_tokens * price_in + (output_tokens + thought_tokens) * price_out
            ) / 1_000_000
        record.input_tokens += input_tokens
        record.output_tokens += output_tokens + thought_tokens
        record.updated_at = now_iso()
        self.agent.save(session)
        usage = {
            "totalTokens": input_tokens + output_tokens + thought_tokens,
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "thoughtTokens": thought_tokens,
            "cachedReadTokens": max(0, input_tokens - prompt_tokens),
            "cachedWriteTokens": prompt_tokens,
        }
        idle: dict[str, Any] = {"stopReason": stop_reason, "usage": usage}
        if error is not None:
            idle["error"] = error
        with anyio.CancelScope(shield=True):
            if not session.deleted:
                await self.agent.send_usage(session)
                await self.agent.send_info(session, full=False)
            await self.agent.state(session, "idle", **idle)
        return {"stopReason": stop_reason, "usage": usage}

    async def _dispatch(
        self, ctx: TurnContext, command: str | None, argument: str, text: str
    ) -> None:
        handler = HANDLERS.get(command) if command is not None else None
        if handler is not None:
            await handler(ctx, argument)
            return
        record = ctx.record
        if ctx.option(config.THOUGHT_LEVEL) == "high":
            await ctx.think(texts.brief_thought(text))
            await ctx.end_message()
        reply = texts.echo_reply(
            text,
            blocks.describe_all(ctx.blocks),
            mode=record.mode,
            model_name=config.choice_name(config.MODEL, record.model),
            fast=ctx.option(config.SPEED) == "fast",
            turn=record.turns,
            verbosity=ctx.option(config.VERBOSITY),
            plain=ctx.option(config.FORMAT) == "plain",
        )
        if command is not None:
            reply = (
                f"I don't know the command `/{command}`; `/help` lists the ones I do.\n\n" + reply
            )
        await ctx.say(reply)
