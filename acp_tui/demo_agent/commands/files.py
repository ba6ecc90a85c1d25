"""/change: one turn that changes files both ways, so every path of a rewind can be tried.

``/change [WRITTEN [CREATED [DELETED]]]`` (names relative to the session's directory;
default ``notes.txt``, ``created.txt``, ``delete-me.txt``):

- WRITTEN gets a line appended **through the client** (``fs/write_text_file``, created if
  missing), as a tool call with its diff;
- CREATED is made **directly on disk** by the agent (as its own tools or a shell command
  would: the client is not asked);
- DELETED is deleted **directly on disk** (said when it was not there).

No permission is asked: the command itself is the request. A v2 connection (the agent owns
its files) writes WRITTEN directly too.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

from acp_tui.demo_agent import wire
from acp_tui.demo_agent.turn import TurnContext
from acp_tui.protocol.jsonrpc import RpcError

DEFAULT_NAMES = ("notes.txt", "created.txt", "delete-me.txt")


def _inside(cwd: str, name: str) -> str | None:
    path = os.path.normpath(os.path.join(cwd, os.path.expanduser(name)))
    return path if path == cwd or path.startswith(cwd.rstrip(os.sep) + os.sep) else None


async def cmd_change(ctx: TurnContext, argument: str) -> None:
    names = list(argument.split()) + list(DEFAULT_NAMES[len(argument.split()) :])
    cwd = os.path.normpath(ctx.record.cwd)
    paths = [_inside(cwd, name) for name in names[:3]]
    if any(path is None for path in paths):
        await ctx.say("`/change` only touches files inside the session's directory.")
        return
    written, created, deleted = (str(path) for path in paths)
    stamp = time.strftime("%H:%M:%S")
    lines: list[str] = []
    # 1. Through the client.
    try:
        old = Path(written).read_text(encoding="utf-8") if os.path.isfile(written) else None
    except (OSError, UnicodeDecodeError):
        old = None
    separator = "" if not old or old.endswith("\n") else "\n"
    new = f"{old or ''}{separator}changed by the demo agent at {stamp}\n"
    diff = {"type": "diff", "path": written, "oldText": old, "newText": new}
    stored = await ctx.tool_start(
        {
            "toolCallId": f"change-{uuid.uuid4().hex[:12]}",
            "title": f"Write {names[0]}",
            "kind": "edit",
            "status": "in_progress",
            "content": [diff],
            "locations": [{"path": written}],
        }
    )
    try:
        if ctx.caps.client_files and ctx.caps.write:
            await ctx.request(
                "fs/write_text_file", {"sessionId": ctx.session.id, "path": written, "content": new}
            )
            lines.append(f"- wrote `{names[0]}` through the client")
        else:
            Path(written).write_text(new, encoding="utf-8")
            lines.append(f"- wrote `{names[0]}` myself (no client file writing)")
        await ctx.tool_update(stored, status="completed")
    except (RpcError, OSError) as error:
        message = error.message if isinstance(error, RpcError) else str(error)
        await ctx.tool_failed(stored, f"Write failed: {message}", (diff,))
        lines.append(f"- could not write `{names[0]}`: {message}")
    # 2. and 3. Directly on disk, as a shell command would.
    direct = await ctx.tool_start(
        {
            "toolCallId": f"disk-{uuid.uuid4().hex[:12]}",
            "title": f"Create {names[1]}, delete {names[2]} (on disk)",
            "kind": "execute",
            "status": "in_progress",
            "content": [wire.text_content(f"```sh\n$ echo … > {names[1]}; rm {names[2]}\n```")],
            "locations": [{"path": created}, {"path": deleted}],
        }
    )
    try:
        Path(created).parent.mkdir(parents=True, exist_ok=True)
        Path(created).write_text(f"created on disk by the demo agent at {stamp}\n", "utf-8")
        lines.append(f"- created `{names[1]}` directly on disk")
        if os.path.isfile(deleted):
            os.unlink(deleted)
            lines.append(f"- deleted `{names[2]}` directly on disk")
        else:
            lines.append(f"- `{names[2]}` was not there: nothing deleted")
        await ctx.tool_update(direct, status="completed")
    except OSError as error:
        await ctx.tool_failed(direct, f"Failed: {error}")
        lines.append(f"- failed on disk: {error}")
    await ctx.say("Changed files:\n" + "\n".join(lines) + "\n\nRewind with Esc Esc or Ctrl+P.")


async def cmd_rewrite(ctx: TurnContext, argument: str) -> None:
    """``/rewrite PATH``: one write through the client that changes the file in several
    places (every tenth line, from the first, gets a note), so that a review before the write
    lands has hunks to keep and reject; a missing file is made with 30 numbered lines. What
    the client answered is said as it came."""
    path = _inside(os.path.normpath(ctx.record.cwd), argument.strip() or "notes.txt")
    if path is None:
        await ctx.say("`/rewrite` only writes files inside the session's directory.")
        return
    if not (ctx.caps.client_files and ctx.caps.write):
        await ctx.say("This client does not write files for me (`fs.writeTextFile`).")
        return
    try:
        old: str | None = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        old = None
    if old is None:
        new = "".join(f"line {number}\n" for number in range(1, 31))
    else:
        rows = old.splitlines(keepends=True)
        for index in range(0, len(rows), 10):
            ending = "\n" if rows[index].endswith("\n") else ""
            rows[index] = rows[index].rstrip("\n") + " (revised by the demo agent)" + ending
        new = "".join(rows)
    diff = {"type": "diff", "path": path, "oldText": old, "newText": new}
    stored = await ctx.tool_start(
        {
            "toolCallId": f"rewrite-{uuid.uuid4().hex[:12]}",
            "title": f"Rewrite {os.path.basename(path)}",
            "kind": "edit",
            "status": "in_progress",
            "content": [diff],
            "locations": [{"path": path}],
        }
    )
    try:
        await ctx.request(
            "fs/write_text_file", {"sessionId": ctx.session.id, "path": path, "content": new}
        )
    except RpcError as error:
        await ctx.tool_failed(stored, "The client did not write it as sent.", (diff,))
        await ctx.say(f"The client answered error {error.code}:\n\n```text\n{error.message}\n```")
        return
    await ctx.tool_update(stored, status="completed")
    await ctx.say(f"The client wrote `{argument.strip() or 'notes.txt'}` as I sent it.")
