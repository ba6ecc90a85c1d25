"""/edit and /run: tool calls with permission requests.

On a v1 connection the work goes through the client (``fs/*``, ``terminal/*``), only when it
advertised those capabilities. On a v2 connection the agent owns files and terminals: it
writes the file itself, and runs the command in an agent-owned terminal that it reports
with ``terminal_update`` / ``terminal_output_chunk`` (and lets the client cancel with
``terminal/cancel``).
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import anyio

from acp_tui.demo_agent import wire
from acp_tui.demo_agent.turn import TurnCancelled, TurnContext
from acp_tui.protocol.jsonrpc import ConnectionClosed, RpcError

TERMINAL_OUTPUT_LIMIT = 64 * 1024

_HASH_COMMENTS = {".py", ".sh", ".toml", ".yaml", ".yml", ".rb", ".pl", ".r", ".cfg", ".ini"}
_SLASH_COMMENTS = {".js", ".ts", ".tsx", ".jsx", ".c", ".h", ".cc", ".cpp", ".rs", ".go"}
_SLASH_COMMENTS |= {".java", ".kt", ".swift", ".cs"}


def comment_line(path: str, text: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in _HASH_COMMENTS or suffix == ".conf":
        return f"# {text}"
    if suffix in _SLASH_COMMENTS:
        return f"// {text}"
    if suffix in {".css", ".scss"}:
        return f"/* {text} */"
    if suffix in {".html", ".xml", ".svg"}:
        return f"<!-- {text} -->"
    if suffix in {".sql", ".lua", ".hs"}:
        return f"-- {text}"
    return text


async def _read_old_text(ctx: TurnContext, path: str) -> tuple[str | None, str]:
    """The file's text (None: a new file) and a note on how reading went."""
    if ctx.caps.client_files and ctx.caps.read:
        try:
            result = await ctx.request(
                "fs/read_text_file", {"sessionId": ctx.session.id, "path": path}
            )
        except RpcError as error:
            return None, (
                f" (reading it through the client failed: {error.message}; "
                "treating it as a new file)"
            )
        content = result.get("content") if isinstance(result, dict) else None
        return (content if isinstance(content, str) else None), ""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        return Path(path).read_text(encoding="utf-8"), ""
    return None, ""


async def cmd_edit(ctx: TurnContext, argument: str) -> None:
    if not argument:
        await ctx.say("Usage: `/edit PATH` (relative to the session's directory, or absolute).")
        return
    path = os.path.normpath(os.path.join(ctx.record.cwd, os.path.expanduser(argument)))
    if ctx.caps.client_files and not ctx.caps.write:
        await ctx.say(
            f"I would edit `{path}`, but this client did not advertise `fs.writeTextFile`, "
            "so I cannot write files through it. Nothing was changed."
        )
        return
    old_text, read_note = await _read_old_text(ctx, path)
    ctx.turn.check()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    line = comment_line(path, f"Edited by the acp-tui demo agent at {stamp}.")
    if old_text is None:
        new_text = comment_line(path, "Created by the acp-tui demo agent.") + f"\n{line}\n"
        at_line = 1
    else:
        separator = "" if not old_text or old_text.endswith("\n") else "\n"
        new_text = f"{old_text}{separator}{line}\n"
        at_line = old_text.count("\n") + (1 if separator else 0) + 1
    diff = {"type": "diff", "path": path, "oldText": old_text, "newText": new_text}
    tool_call = {
        "toolCallId": f"edit-{uuid.uuid4().hex[:12]}",
        "title": f"Edit {argument}",
        "kind": "edit",
        "status": "pending",
        "content": [diff],
        "locations": [{"path": path, "line": at_line}],
        "rawInput": {"path": path, "newText": new_text},
    }
    verb = "create" if old_text is None else "append a line to"
    await ctx.say(f"I'll {verb} `{argument}`{read_note}.\n")
    stored = await ctx.tool_start(tool_call)
    if not await ctx.permitted(
        stored,
        "edit",
        cancelled="Cancelled before the edit.",
        rejected="Rejected: the file was not changed.",
        reply=f"OK, I left `{argument}` alone.",
        keep=(diff,),
    ):
        return
    await ctx.tool_update(stored, status="in_progress")
    try:
        if ctx.caps.client_files:
            await ctx.request(
                "fs/write_text_file",
                {"sessionId": ctx.session.id, "path": path, "content": new_text},
            )
            how = "through the client"
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(new_text, encoding="utf-8")
            how = "myself (a v2 agent owns its files)"
    except (RpcError, OSError) as error:
        message = error.message if isinstance(error, RpcError) else str(error)
        await ctx.tool_failed(stored, f"Write failed: {message}", (diff,))
        await ctx.say(f"I could not write `{argument}`: {message}")
        return
    await ctx.tool_update(stored, status="completed", rawOutput={"written": len(new_text)})
    await ctx.say(f"Wrote {len(new_text):,} characters to `{argument}` {how}.")


def _shell(argument: str) -> tuple[str, list[str]]:
    if os.name == "nt":
        return "cmd.exe", ["/c", argument]
    return "/bin/sh", ["-c", argument]


async def cmd_run(ctx: TurnContext, argument: str) -> None:
    if not argument:
        await ctx.say("Usage: `/run COMMAND`, e.g. `/run ls -la`.")
        return
    if not ctx.caps.v2 and not ctx.caps.terminal:
        await ctx.say(
            f"I would run `{argument}`, but this client did not advertise the `terminal` "
            "capability, so I cannot run commands through it. Nothing was run."
        )
        return
    cwd = ctx.record.cwd
    tool_call_id = f"run-{uuid.uuid4().hex[:12]}"
    tool_call = {
        "toolCallId": tool_call_id,
        "title": f"Run `{argument}`",
        "kind": "execute",
        "status": "pending",
        "content": [wire.text_content(f"```sh\n$ {argument}\n```")],
        "locations": [],
        "rawInput": {"command": argument, "cwd": cwd},
    }
    stored = await ctx.tool_start(tool_call)
    subject = {"type": "command", "command": argument, "cwd": cwd, "toolCallId": tool_call_id}
    if not await ctx.permitted(
        stored,
        "execute",
        cancelled="Cancelled before running.",
        rejected="Rejected: the command was not run.",
        reply="OK, I did not run it.",
        subject=subject,
    ):
        return
    if ctx.caps.v2:
        result = await _run_own_terminal(ctx, stored, argument)
    else:
        result = await _run_client_terminal(ctx, stored, argument)
    if result is None:
        return
    output, summary = result
    ctx.turn.check()
    tail = "\n".join(output.rstrip("\n").splitlines()[-10:])
    await ctx.say(
        f"`{argument}` {summary}."
        + (f" The last lines:\n\n```\n{tail}\n```" if tail else " It printed nothing.")
    )


async def _finish_tool(
    ctx: TurnContext,
    stored: dict[str, Any],
    argument: str,
    output: str,
    truncated: bool,
    exit_code: int | None,
    signal_name: str | None,
    killed: bool,
) -> str:
    ok = exit_code == 0 and not killed
    if killed:
        summary = "cancelled and killed"
    elif exit_code is not None:
        summary = f"exited with code {exit_code}"
    else:
        summary = f"killed by {signal_name or 'a signal'}"
    shown = (("…" if truncated else "") + output).rstrip("\n")
    persisted = [wire.text_content(f"```\n$ {argument}\n{shown}\n```\n{summary}")]
    await ctx.tool_update(
        stored,
        persist_content=persisted,
        status="completed" if ok else "failed",
        rawOutput={"exitCode": exit_code, "signal": signal_name, "truncated": truncated},
    )
    return summary


async def _run_client_terminal(
    ctx: TurnContext, stored: dict[str, Any], argument: str
) -> tuple[str, str] | None:
    command, args = _shell(argument)
    try:
        created = await ctx.request(
            "terminal/create",
            {
                "sessionId": ctx.session.id,
                "command": command,
                "args": args,
                "cwd": ctx.record.cwd,
                "outputByteLimit": TERMINAL_OUTPUT_LIMIT,
            },
        )
    except RpcError as error:
        await ctx.tool_failed(stored, f"Could not start: {error.message}")
        await ctx.say(f"The client could not start the command: {error.message}")
        return None
    terminal_id = created.get("terminalId") if isinstance(created, dict) else None
    if not isinstance(terminal_id, str):
        await ctx.tool_failed(stored, "The client returned no terminalId.")
        return None
    ids = {"sessionId": ctx.session.id, "terminalId": terminal_id}
    await ctx.tool_update(
        stored, status="in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
    )
    output, truncated, exit_code, signal_name, killed = "", False, None, None, False
    try:
        exited, status = await ctx.request_or_cancel("terminal/wait_for_exit", ids, 0.0)
        if not exited:
            killed = True
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await ctx.request("terminal/kill", ids)
        elif isinstance(status, dict):
            exit_code, signal_name = status.get("exitCode"), status.get("signal")
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            result = await ctx.request("terminal/output", ids)
            if isinstance(result, dict):
                output = str(result.get("output") or "")
                truncated = bool(result.get("truncated"))
                exit_status = result.get("exitStatus")
                if isinstance(exit_status, dict) and exit_code is None and signal_name is None:
                    exit_code, signal_name = exit_status.get("exitCode"), exit_status.get("signal")
        summary = await _finish_tool(
            ctx, stored, argument, output, truncated, exit_code, signal_name, killed
        )
    except RpcError as error:
        await ctx.tool_failed(stored, f"Terminal error: {error.message}")
        await ctx.say(f"Something went wrong with the terminal: {error.message}")
        return None
    finally:
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(5),
            contextlib.suppress(RpcError, ConnectionClosed),
        ):
            await ctx.request("terminal/release", ids)
    return output, summary


async def _run_own_terminal(
    ctx: TurnContext, stored: dict[str, Any], argument: str
) -> tuple[str, str] | None:
    """v2: run the command here, streaming its output as an agent-owned terminal."""
    command, args = _shell(argument)
    terminal_id = f"term-{uuid.uuid4().hex[:12]}"
    try:
        process = await anyio.open_process(
            [command, *args],
            cwd=ctx.record.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    except OSError as error:
        await ctx.tool_failed(stored, f"Could not start: {error}")
        await ctx.say(f"I could not start the command: {error}")
        return None
    await ctx.tool_update(
        stored, status="in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
    )
    await ctx.update(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": terminal_id,
            "command": argument,
            "cwd": ctx.record.cwd,
            "capabilities": {"cancel": {}},
        }
    )
    kept = bytearray()
    truncated = False
    stop = anyio.CancelScope()
    ctx.session.terminals[terminal_id] = stop

    async def stop_on_cancel() -> None:
        await ctx.turn.cancel_event.wait()
        stop.cancel()

    async with process, anyio.create_task_group() as group:
        group.start_soon(stop_on_cancel)
        with stop:
            assert process.stdout is not None
            async for data in process.stdout:
                await ctx.update(
                    {
                        "sessionUpdate": "terminal_output_chunk",
                        "terminalId": terminal_id,
                        "data": base64.b64encode(data).decode("ascii"),
                    }
                )
                kept += data
                if len(kept) > TERMINAL_OUTPUT_LIMIT:
                    del kept[: len(kept) - TERMINAL_OUTPUT_LIMIT]
                    truncated = True
        killed = stop.cancel_called
        with anyio.CancelScope(shield=True):
            if killed and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
            with anyio.move_on_after(5):
                await process.wait()
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
            group.cancel_scope.cancel()
    ctx.session.terminals.pop(terminal_id, None)
    code = process.returncode
    exit_code = code if code is not None and code >= 0 else None
    signal_name: str | None = None
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            signal_name = signal.Signals(-code).name
    exit_status: dict[str, Any] = (
        {"exitCode": exit_code} if exit_code is not None else {"signal": signal_name}
    )
    with anyio.CancelScope(shield=True):
        await ctx.update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": terminal_id,
                "exitStatus": exit_status,
                "capabilities": None,
            }
        )
        output = kept.decode("utf-8", errors="replace")
        summary = await _finish_tool(
            ctx,
            stored,
            argument,
            output,
            truncated,
            exit_code,
            signal_name,
            killed and ctx.turn.cancelled,
        )
    if killed and ctx.turn.cancelled:
        raise TurnCancelled
    return output, summary
