"""A scripted ACP agent for the sessions benchmark: plain JSON lines on stdio, no SDK.

``python bench/sessions_agent.py [--sessions N] [--page-size P] [--cwd DIR]``: answers
``initialize`` (advertising ``session/list``), ``session/list`` with pages of ``P`` (default
100) of ``N`` (default 10,000) sessions, newest first, with opaque cursors, and
``session/new``. Every session belongs to ``--cwd`` (default: this process's cwd).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

BASE_TS = datetime(2025, 6, 18, 15, 30, tzinfo=UTC).timestamp()
TOPICS = (
    "Fix flaky test in the parser",
    "Refactor the config loader",
    "Add dark mode toggle",
    "Investigate memory leak",
    "Write release notes",
)


def session_info(i: int, cwd: str) -> dict[str, Any]:
    updated = datetime.fromtimestamp(BASE_TS - i * 61, UTC).isoformat().replace("+00:00", "Z")
    return {
        "sessionId": f"bench-{i:06d}",
        "cwd": cwd,
        "title": f"{TOPICS[i % len(TOPICS)]} #{i}",
        "updatedAt": updated,
        "_meta": {"messageCount": i % 50},
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--page-size", type=int, default=100)
    parser.add_argument("--cwd", default=os.getcwd())
    args = parser.parse_args()
    out = sys.stdout
    for raw in sys.stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method = message.get("method")
        if "id" not in message or not isinstance(method, str):
            continue
        params = message.get("params") or {}
        result: Any
        if method == "initialize":
            result = {
                "protocolVersion": 1,
                "agentInfo": {"name": "sessions-bench", "version": "1.0"},
                "agentCapabilities": {"loadSession": False, "sessionCapabilities": {"list": {}}},
                "authMethods": [],
            }
        elif method == "session/list":
            start = int(params.get("cursor") or 0)
            end = min(args.sessions, start + args.page_size)
            result = {"sessions": [session_info(i, args.cwd) for i in range(start, end)]}
            if end < args.sessions:
                result["nextCursor"] = str(end)
        elif method == "session/new":
            result = {"sessionId": "bench-new"}
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}) + "\n")
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
