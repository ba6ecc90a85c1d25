"""/subagents and /background: work the demo agent hands to child sessions, and work that
goes on after its turn ended.

``/subagents`` starts two children and waits for both (one asks a permission); cancelling
the turn cancels them, and each can be cancelled on its own. ``/background [SECONDS]``
starts, for SECONDS (default 120): a watcher tool call that stays in progress after the
turn, on v2 a terminal that keeps running (both cancellable: ``tool_call/cancel``,
``terminal/cancel``; on v1 the watcher stops at ``session/cancel`` on its session), and a
subagent (``session/cancel`` on it), where the client shows subagents. v2's state updates
list what runs (https://agentclientprotocol.com/rfds/v2/background-work).
"""

from __future__ import annotations

import base64
import contextlib
import subprocess
import sys
import uuid
from typing import Any

import anyio

from acp_tui.demo_agent import wire
from acp_tui.demo_agent.children import ChildScript, announce, new_child, run_child
from acp_tui.demo_agent.turn import LiveSession, TurnContext

__all__ = ["cmd_background", "cmd_subagents"]

DEFAULT_SECONDS = 120
MAX_SECONDS = 3600

RESEARCH = ChildScript(
    title="Research the code",
    description="Reads the sources and sums up what they do",
    task="Find where the parser lives and what it does.",
    steps=(
        "Looking through the sources for the parser…\n",
        "Found it: `src/parser.py` reads one line at a time and hands each to the lexer.\n",
    ),
    tool="Read src/parser.py",
    report="The parser is src/parser.py: it reads one line at a time and hands each to the lexer.",
)
TESTS = ChildScript(
    title="Check the tests",
    description="Reads the test suite and says what it covers",
    task="See what the tests cover, and what they leave out.",
    steps=(
        "I'll read the test suite; I need your permission first.\n",
        "The tests cover the parser's happy path; nothing checks an empty file.\n",
    ),
    tool="Read tests/",
    report="The tests cover the parser's happy path; nothing checks an empty file.",
    asks=True,
)


def _watch(children: list[Any], turn: Any) -> Any:
    async def watch() -> None:
        await turn.cancel_event.wait()
        for child in children:
            child.turn.cancel()

    return watch


async def cmd_subagents(ctx: TurnContext, argument: str) -> None:
    if not ctx.caps.subagents:
        await ctx.say(
            "I would hand this to two subagents, but this client did not advertise "
            "`subagents`, so I cannot show them to it. Nothing was started."
        )
        return
    await ctx.say("I'll hand this to two subagents and wait for both.\n")
    children = [new_child(ctx.session.id, script) for script in (RESEARCH, TESTS)]
    stored = await ctx.tool_start(
        {
            "toolCallId": f"delegate-{uuid.uuid4().hex[:10]}",
            "title": "Delegate to subagents",
            "kind": "other",
            "status": "in_progress",
            "content": [{"type": "session", "sessionId": c.session_id} for c in children],
        }
    )
    reasons: list[str] = []

    async def run(child: Any) -> None:
        reasons.append(await run_child(ctx.agent, child))

    async with anyio.create_task_group() as outer:
        outer.start_soon(_watch(children, ctx.turn))
        async with anyio.create_task_group() as group:
            for child in children:
                group.start_soon(run, child)
        outer.cancel_scope.cancel()
    done = reasons.count("end_turn")
    await ctx.tool_update(stored, status="completed" if done == len(children) else "failed")
    ctx.turn.check()
    await ctx.say(
        f"Both subagents are back: {done} finished, {len(children) - done} cancelled. "
        "Their reports are above."
    )


def _seconds(argument: str) -> float:
    try:
        value = float(argument.split()[0]) if argument.strip() else DEFAULT_SECONDS
    except ValueError:
        value = DEFAULT_SECONDS
    return max(1.0, min(value, MAX_SECONDS))


async def cmd_background(ctx: TurnContext, argument: str) -> None:
    seconds = _seconds(argument)
    agent = ctx.agent
    session = ctx.session
    started: list[str] = []
    watcher_id = f"watch-{uuid.uuid4().hex[:10]}"
    watcher: dict[str, Any] = {
        "toolCallId": watcher_id,
        "title": "Watch for file changes",
        "kind": "other",
        "status": "in_progress",
    }
    if ctx.caps.v2:
        watcher["capabilities"] = {"cancel": {}}
    await ctx.tool_start(watcher)
    _keep(
        agent, session, ("tool_call", watcher_id), _watch_tool(agent, session, watcher_id, seconds)
    )
    started.append("a watcher (a tool call that stays in progress)")
    if ctx.caps.v2:
        terminal_id = f"term-{uuid.uuid4().hex[:10]}"
        await _start_terminal(ctx, terminal_id, seconds)
        started.append("a dev server (a terminal that keeps running)")
    if ctx.caps.subagents:
        script = ChildScript(
            title="Keep an eye on CI",
            description="Polls the build until it is green",
            task="Tell me when the build is green.",
            steps=(
                "Polling the build…\n",
                "Still waiting on the build…\n",
                "The build is green.\n",
            ),
            tool="Read the CI status",
            report="The build is green.",
            pause=seconds / 3,
        )
        child = new_child(session.id, script)
        await announce(agent, child)  # before any state lists it
        _keep(agent, session, ("subagent", child.session_id), _run_background_child(agent, child))
        started.append("a subagent (a child session)")
    await ctx.say(
        f"Started {len(started)} things that keep running for {seconds:g} s after this turn: "
        + "; ".join(started)
        + ". Ctrl+P → Background work lists them, with a way to cancel each."
    )
    if agent.caps.v2:
        await agent.state(session, "running")  # the list as it is now


def _keep(agent: Any, session: LiveSession, key: tuple[str, str], job: Any) -> None:
    """Run ``job`` beyond the turn, listed under ``key`` until it ends; cancelling its scope
    (the client's cancel) stops it."""
    scope = anyio.CancelScope()
    session.background[key] = scope

    async def run() -> None:
        try:
            await job(scope)
        finally:
            session.background.pop(key, None)
            with anyio.CancelScope(shield=True):
                await agent.state(session, "running" if session.turn is not None else "idle")

    agent.spawn(run)


def _watch_tool(agent: Any, session: LiveSession, tool_call_id: str, seconds: float) -> Any:
    async def job(scope: anyio.CancelScope) -> None:
        with scope:
            await anyio.sleep(seconds)
        cancelled = scope.cancel_called
        update: dict[str, Any] = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_call_id,
            "status": "failed" if cancelled else "completed",
            "content": [wire.text_content("Cancelled." if cancelled else "No changes seen.")],
        }
        if agent.caps.v2:
            update["capabilities"] = None
        with anyio.CancelScope(shield=True):
            await agent.update(session.id, update)

    return job


def _run_background_child(agent: Any, child: Any) -> Any:
    """A child is stopped by ``session/cancel`` on it (its turn), never by its scope."""

    async def job(scope: anyio.CancelScope) -> None:
        await run_child(agent, child, announced=True)

    return job


async def _start_terminal(ctx: TurnContext, terminal_id: str, seconds: float) -> None:
    """v2: a tool call that starts a terminal in the background and returns at once."""
    agent = ctx.agent
    session = ctx.session
    ticks = int(seconds)
    code = (
        "import sys, time\n"
        f"for i in range({ticks}):\n"
        "    print(f'dev server: served request {i}', flush=True)\n"
        "    time.sleep(1)\n"
    )
    process = await anyio.open_process(
        [sys.executable, "-c", code],
        cwd=session.record.cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    await ctx.update(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": terminal_id,
            "command": "dev server",
            "cwd": session.record.cwd,
            "capabilities": {"cancel": {}},
        }
    )
    await ctx.tool_start(
        {
            "toolCallId": f"serve-{uuid.uuid4().hex[:10]}",
            "title": "Start the dev server",
            "kind": "execute",
            "status": "completed",
            "content": [{"type": "terminal", "terminalId": terminal_id}],
        }
    )

    async def job(scope: anyio.CancelScope) -> None:
        session.terminals[terminal_id] = scope
        try:
            async with process:
                with scope:
                    assert process.stdout is not None
                    async for data in process.stdout:
                        await agent.update(
                            session.id,
                            {
                                "sessionUpdate": "terminal_output_chunk",
                                "terminalId": terminal_id,
                                "data": base64.b64encode(data).decode("ascii"),
                            },
                        )
                with anyio.CancelScope(shield=True):
                    if process.returncode is None:
                        with contextlib.suppress(ProcessLookupError):
                            process.terminate()
                    await process.wait()
        finally:
            session.terminals.pop(terminal_id, None)
        code = process.returncode
        status = {"exitCode": code} if code is not None and code >= 0 else {"signal": "SIGTERM"}
        with anyio.CancelScope(shield=True):
            await agent.update(
                session.id,
                {
                    "sessionUpdate": "terminal_update",
                    "terminalId": terminal_id,
                    "exitStatus": status,
                    "capabilities": None,
                },
            )

    _keep(agent, session, ("terminal", terminal_id), job)
