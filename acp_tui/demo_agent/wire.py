"""Shapes that differ between protocol versions, kept out of the behaviour.

The transcript is stored in v1 shapes (``ToolCall`` with v1 ``Diff`` content); this module
spells it for the connection at hand: v1 (https://agentclientprotocol.com/protocol/v1) or the
v2 draft (tool calls are ``tool_call_update`` upserts, diffs are structured changes with a git
patch, whole messages are ``user_message``/``agent_message`` upserts, plans are
``plan_update``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from acp_tui.demo_agent.caps import ClientCaps
from acp_tui.demo_agent.sessions import SessionRecord


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def text_content(text: str) -> dict[str, Any]:
    """A ``ToolCallContent`` of plain text."""
    return {"type": "content", "content": text_block(text)}


def git_patch(path: str, old: str | None, new: str) -> str:
    relative = path.lstrip("/")
    header = [f"diff --git a/{relative} b/{relative}\n"]
    if old is None:
        header.append("new file mode 100644\n")
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a/{relative}",
        tofile=f"b/{relative}",
    )
    body = []
    for line in lines:
        body.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(header + body)


def tool_content(items: list[dict[str, Any]], v2: bool) -> list[dict[str, Any]]:
    """Tool call content for the wire: v1 diffs become v2 structured diffs."""
    if not v2:
        return items
    spelled = []
    for item in items:
        if item.get("type") == "diff":
            path, old, new = item["path"], item.get("oldText"), item["newText"]
            spelled.append(
                {
                    "type": "diff",
                    "changes": [
                        {
                            "operation": "add" if old is None else "modify",
                            "path": path,
                            "fileType": "text",
                        }
                    ],
                    "patch": {"format": "git_patch", "text": git_patch(path, old, new)},
                }
            )
        else:
            spelled.append(item)
    return spelled


def tool_fields(fields: dict[str, Any], v2: bool) -> dict[str, Any]:
    if "content" in fields:
        return {**fields, "content": tool_content(fields["content"], v2)}
    return fields


def tool_start(tool_call: dict[str, Any], v2: bool) -> dict[str, Any]:
    """The update announcing a tool call: ``tool_call`` (v1), a first ``tool_call_update``
    (v2, where the first sight of an id creates the call)."""
    kind = "tool_call_update" if v2 else "tool_call"
    return {"sessionUpdate": kind, **tool_fields(tool_call, v2)}


def plan_update(plan_id: str, entries: list[dict[str, Any]], caps: ClientCaps) -> dict[str, Any]:
    if caps.plan_updates:
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": plan_id, "entries": entries},
        }
    return {"sessionUpdate": "plan", "entries": entries}


def plan_removed(plan_id: str, caps: ClientCaps) -> dict[str, Any]:
    if caps.plan_updates:
        return {"sessionUpdate": "plan_removed", "planId": plan_id}
    # v1 without plan updates: a plan is replaced whole, so an empty one clears it.
    return {"sessionUpdate": "plan", "entries": []}


def compaction(item: dict[str, Any]) -> dict[str, Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "compaction_update",
        "compactionId": item["compactionId"],
        "status": item.get("status", "completed"),
    }
    if item.get("text"):
        update["summary"] = [text_block(item["text"])]
    if item.get("error"):
        update["error"] = item["error"]
    return update


def replay(record: SessionRecord, caps: ClientCaps) -> Iterator[dict[str, Any]]:
    """The updates that retell a stored transcript, in order."""
    v2 = caps.v2
    for index, item in enumerate(record.history):
        kind = item.get("kind")
        message_id = item.get("messageId")
        if kind == "user":
            blocks = item.get("blocks") or [text_block(item.get("text", ""))]
            if v2:
                yield {"sessionUpdate": "user_message", "messageId": message_id, "content": blocks}
            else:
                for block in blocks:
                    yield {
                        "sessionUpdate": "user_message_chunk",
                        "messageId": message_id,
                        "content": block,
                    }
        elif kind in ("agent", "thought"):
            text = item.get("text", "")
            if v2:
                whole = "agent_message" if kind == "agent" else "agent_thought"
                yield {
                    "sessionUpdate": whole,
                    "messageId": message_id,
                    "content": [text_block(text)],
                }
            else:
                chunk = "agent_message_chunk" if kind == "agent" else "agent_thought_chunk"
                yield {"sessionUpdate": chunk, "messageId": message_id, "content": text_block(text)}
        elif kind == "tool" and isinstance(item.get("toolCall"), dict):
            yield tool_start(item["toolCall"], v2)
        elif kind == "plan":
            plan_id = item.get("planId") or f"plan-{index}"
            yield plan_update(plan_id, item.get("entries", []), caps)
        elif kind == "plan_removed" and isinstance(item.get("planId"), str):
            yield plan_removed(item["planId"], caps)
        elif kind == "compaction" and caps.compaction and isinstance(item.get("compactionId"), str):
            yield compaction(item)


def background_item(kind: str, item_id: str) -> dict[str, Any]:
    """One item of a v2 ``background`` list (``BackgroundWork``)."""
    key = {"terminal": "terminalId", "tool_call": "toolCallId", "subagent": "sessionId"}[kind]
    return {"type": kind, key: item_id}
