"""A raw ACP agent (plain JSON lines over stdio, no SDK) with many past sessions, for the sidebar.

Run as ``python tests/agents/paged_agent.py [options]``:

- ``--sessions N`` past sessions (default 250), listed newest first by ``session/list`` in pages
  of ``--page-size`` (default 20) with opaque cursors; ``cwd`` filters to one directory.
- ``--cwd DIR``: the directory most sessions belong to (default: the process's cwd); every
  fourth session belongs to one of :data:`OTHER_CWDS`.
- capabilities: list + load + resume by default; ``--no-list`` drops session/list;
  ``--resume-only`` / ``--load-only`` / ``--neither`` choose how sessions can be reopened.
- ``session/load`` replays a short transcript (:func:`transcript`: user and agent message
  chunks with ``messageId``\\ s) before answering; ``session/resume`` just answers
  (``--replay-on-resume``: it replays the same before answering, as fast-agent 0.10 does).
- ``session/prompt`` with the text ``retitle <id> <title>`` sends a ``session_info_update``
  retitling session ``<id>`` (any session, not only the prompted one); any other text gets an
  ``ok: <text>`` reply. Both end the turn with ``end_turn``.
- ``--hold-lists PATH``: every session/list answer after the first waits until the file PATH
  exists, so a test can look at the client between its first and second page for as long as
  it needs (it creates PATH when done).
- ``--oldest-first``: ``session/list`` gives the oldest sessions first (the spec leaves the
  order to the agent).
- ``--stale-titles``: a retitle changes only what the client is told live; session/list keeps
  answering the old title (an agent whose index lags behind), so a client that lets a list
  refresh overwrite a live title shows the old one again.
- ``--modes``: sessions have modes (:data:`MODES`) and a model config option (:data:`MODELS`).
  ``session/new`` reports the current mode and model; ``session/load`` and ``session/resume``
  list the modes and models but report a current one only if it was set in this process (the
  agent does not remember choices across restarts). ``session/set_mode`` and
  ``session/set_config_option`` set them.
  They also have a thinking level (``effort``: low / high) and a boolean ``fast``, as config
  options, forgotten the same way (``current`` only when set in this process).
- ``--defaults-on-reopen`` (with ``--modes``): ``session/load`` and ``session/resume`` report
  the first mode, model and thinking level and ``fast`` off for what was not set in this
  process, as Gemini CLI does (it forgets a choice and says its default), instead of nothing.
- prompt ``whoami`` replies ``mode=<mode> model=<model>`` (``-`` when unset); ``options``
  replies ``effort=<effort> fast=<fast>``; prompt ``exit``
  makes the agent exit at once with status 3 (without answering), to test restarts.

The data is plain functions (:func:`make_sessions`, :func:`list_page`), so tests can import this
module and generate exactly the pages the agent sends.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import sys
import time
from datetime import UTC, datetime
from typing import Any

PROTOCOL_VERSION = 1
#: The newest listed session was updated at this instant; each older one 37 minutes earlier.
BASE_TS = datetime(2025, 6, 18, 15, 30, tzinfo=UTC).timestamp()
STEP_SECONDS = 37 * 60
OTHER_CWDS = ("/srv/other-project", "/opt/elsewhere")
TOPICS = (
    "Fix flaky test in the parser",
    "Refactor the config loader",
    "Add dark mode toggle",
    "Investigate memory leak",
    "Write release notes",
    "Speed up the sidebar",
    "Upgrade dependencies",
)

MODES = (
    {"id": "ask", "name": "Ask", "description": "Ask before editing"},
    {"id": "code", "name": "Code", "description": "Edit freely"},
    {"id": "architect", "name": "Architect", "description": "Plan only"},
)
MODELS = (("small", "Small model"), ("large", "Large model"))
EFFORTS = (("low", "Low"), ("high", "High"))
DEFAULT_MODE = "ask"
DEFAULT_MODEL = "small"

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002


def session_id(i: int) -> str:
    return f"sess-{i:05d}"


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def make_sessions(n: int = 250, cwd: str = "/work/proj") -> list[dict[str, Any]]:
    """``n`` SessionInfo objects, newest first. Every seventh has no title (the client falls
    back to the first prompt); every fourth is in another directory."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        info: dict[str, Any] = {
            "sessionId": session_id(i),
            "cwd": OTHER_CWDS[(i // 4) % 2] if i % 4 == 3 else cwd,
            "updatedAt": iso(BASE_TS - i * STEP_SECONDS),
        }
        if i % 7 != 6:
            info["title"] = f"#{i} {TOPICS[i % len(TOPICS)]}"
        out.append(info)
    return out


def encode_cursor(offset: int, cwd: str | None) -> str:
    raw = json.dumps({"o": offset, "c": cwd}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, str | None]:
    """Raises ``ValueError`` for a cursor this agent did not issue."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        offset, cwd = data["o"], data["c"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"invalid cursor {cursor!r}") from exc
    if not isinstance(offset, int) or offset < 0 or not (cwd is None or isinstance(cwd, str)):
        raise ValueError(f"invalid cursor {cursor!r}")
    return offset, cwd


def list_page(
    sessions: list[dict[str, Any]],
    cwd: str | None = None,
    cursor: str | None = None,
    page_size: int = 20,
) -> dict[str, Any]:
    """One ``session/list`` result: ``{"sessions": [...], "nextCursor"?: str}``."""
    offset = 0
    if cursor is not None:
        offset, cursor_cwd = decode_cursor(cursor)
        if cursor_cwd != cwd:
            raise ValueError("cursor was issued for another cwd")
    matching = [s for s in sessions if cwd is None or s.get("cwd") == cwd]
    page = [dict(s) for s in matching[offset : offset + page_size]]
    result: dict[str, Any] = {"sessions": page}
    if offset + page_size < len(matching):
        result["nextCursor"] = encode_cursor(offset + page_size, cwd)
    return result


def transcript(sid: str) -> list[dict[str, Any]]:
    """The updates ``session/load`` replays for ``sid`` (the ``update`` objects)."""
    return [
        {
            "sessionUpdate": "user_message_chunk",
            "messageId": f"u-{sid}-1",
            "content": {"type": "text", "text": f"What happened in {sid}?"},
        },
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"a-{sid}-1",
            "content": {"type": "text", "text": "We fixed the parser "},
        },
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"a-{sid}-1",
            "content": {"type": "text", "text": "and added a test."},
        },
    ]


class RpcFailure(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class PagedAgent:
    @staticmethod
    def _wait_for_file(path: str) -> None:
        # The deadline only ends an agent whose test has gone.
        deadline = time.monotonic() + 600
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.01)

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.cwd: str = args.cwd or os.getcwd()
        self.sessions = make_sessions(args.sessions, self.cwd)
        if args.oldest_first:
            self.sessions.reverse()
        self.by_id = {s["sessionId"]: s for s in self.sessions}
        self.can_list = not args.no_list
        self.can_load = not (args.resume_only or args.neither)
        self.can_resume = not (args.load_only or args.neither)
        self.new_count = 0
        self.lists_asked = 0
        #: Mode and model per session, as set in this process (the agent forgets on exit).
        self.mode: dict[str, str] = {}
        self.model: dict[str, str] = {}
        #: The thinking level and the boolean, per session, likewise.
        self.extra: dict[str, dict[str, Any]] = {}

    # -- wire ------------------------------------------------------------------------------
    @staticmethod
    def send(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def notify_update(self, sid: str, update: dict[str, Any]) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": sid, "update": update},
            }
        )

    def run(self) -> None:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or "method" not in message:
                continue
            method = message["method"]
            params = message.get("params") or {}
            if "id" not in message:
                continue  # notifications (session/cancel): nothing to do
            try:
                result = self.handle(method, params if isinstance(params, dict) else {})
            except RpcFailure as failure:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": failure.code, "message": failure.message},
                    }
                )
            else:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # -- methods ---------------------------------------------------------------------------
    def handle(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            session_caps: dict[str, Any] = {}
            if self.can_list:
                session_caps["list"] = {}
            if self.can_resume:
                session_caps["resume"] = {}
            return {
                "protocolVersion": PROTOCOL_VERSION,
                "agentInfo": {"name": "paged-agent", "title": "Paged agent", "version": "1.0"},
                "agentCapabilities": {
                    "loadSession": self.can_load,
                    "sessionCapabilities": session_caps,
                },
                "authMethods": [],
            }
        if method == "session/new":
            self.new_count += 1
            sid = f"new-{self.new_count}"
            info = {
                "sessionId": sid,
                "cwd": params.get("cwd") or self.cwd,
                "updatedAt": iso(time.time()),
            }
            self.sessions.insert(0, info)
            self.by_id[sid] = info
            if self.args.modes:
                self.mode[sid] = DEFAULT_MODE
                self.model[sid] = DEFAULT_MODEL
                self.extra[sid] = {"effort": "low", "fast": False}
            return {"sessionId": sid, **self._session_state(sid)}
        if method == "session/list":
            if not self.can_list:
                raise RpcFailure(METHOD_NOT_FOUND, "method not found: session/list")
            self.lists_asked += 1
            if self.args.hold_lists and self.lists_asked > 1:
                self._wait_for_file(self.args.hold_lists)
            cwd = params.get("cwd")
            cursor = params.get("cursor")
            try:
                return list_page(
                    self.sessions,
                    cwd if isinstance(cwd, str) else None,
                    cursor if isinstance(cursor, str) else None,
                    self.args.page_size,
                )
            except ValueError as exc:
                raise RpcFailure(INVALID_PARAMS, str(exc)) from exc
        if method == "session/load":
            if not self.can_load:
                raise RpcFailure(METHOD_NOT_FOUND, "method not found: session/load")
            sid = self._known(params)
            for update in transcript(sid):
                self.notify_update(sid, update)
            return self._session_state(sid)
        if method == "session/resume":
            if not self.can_resume:
                raise RpcFailure(METHOD_NOT_FOUND, "method not found: session/resume")
            sid = self._known(params)
            if self.args.replay_on_resume:
                for update in transcript(sid):
                    self.notify_update(sid, update)
            return self._session_state(sid)
        if method == "session/set_mode" and self.args.modes:
            sid = self._known(params)
            mode = params.get("modeId")
            if mode not in {m["id"] for m in MODES}:
                raise RpcFailure(INVALID_PARAMS, f"unknown mode: {mode!r}")
            self.mode[sid] = mode
            return {}
        if method == "session/set_config_option" and self.args.modes:
            sid = self._known(params)
            value = params.get("value")
            config_id = params.get("configId")
            if (config_id == "effort" and value in {v for v, _ in EFFORTS}) or (
                config_id == "fast" and params.get("type") == "boolean" and isinstance(value, bool)
            ):
                self.extra.setdefault(sid, {})[config_id] = value
                return {"configOptions": self._config_options(sid)}
            if config_id != "model" or value not in {v for v, _ in MODELS}:
                raise RpcFailure(INVALID_PARAMS, f"unknown option value: {value!r}")
            self.model[sid] = value
            return {"configOptions": self._config_options(sid)}
        if method == "session/prompt":
            sid = self._known(params)
            text = " ".join(
                b.get("text", "")
                for b in params.get("prompt") or []
                if isinstance(b, dict) and b.get("type") == "text"
            ).strip()
            parts = text.split(maxsplit=2)
            if text == "exit":
                sys.stdout.flush()
                os._exit(3)
            if len(parts) == 3 and parts[0] == "retitle":
                target, title = parts[1], parts[2]
                if target in self.by_id and not self.args.stale_titles:
                    self.by_id[target]["title"] = title
                self.notify_update(target, {"sessionUpdate": "session_info_update", "title": title})
            else:
                if text == "whoami":
                    reply = f"mode={self.mode.get(sid, '-')} model={self.model.get(sid, '-')}"
                elif text == "options":
                    extra = self.extra.get(sid, {})
                    reply = f"effort={extra.get('effort', '-')} fast={extra.get('fast', '-')}"
                else:
                    reply = f"ok: {text}"
                self.notify_update(
                    sid,
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": reply},
                    },
                )
            self.by_id[sid]["updatedAt"] = iso(time.time())
            return {"stopReason": "end_turn"}
        raise RpcFailure(METHOD_NOT_FOUND, f"method not found: {method}")

    def _config_options(self, sid: str) -> list[dict[str, Any]]:
        option: dict[str, Any] = {
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "options": [{"value": v, "name": n} for v, n in MODELS],
        }
        if sid in self.model:
            option["currentValue"] = self.model[sid]
        elif self.args.defaults_on_reopen:
            option["currentValue"] = MODELS[0][0]
        extra = self.extra.get(sid, {})
        effort: dict[str, Any] = {
            "id": "effort",
            "name": "Effort",
            "category": "thought_level",
            "type": "select",
            "options": [{"value": v, "name": n} for v, n in EFFORTS],
        }
        fast: dict[str, Any] = {"id": "fast", "name": "Fast", "type": "boolean"}
        for config_option, default in ((effort, EFFORTS[0][0]), (fast, False)):
            if config_option["id"] in extra:
                config_option["currentValue"] = extra[config_option["id"]]
            elif self.args.defaults_on_reopen:
                config_option["currentValue"] = default
        return [option, effort, fast]

    def _session_state(self, sid: str) -> dict[str, Any]:
        """The modes and config options of a session/new, load or resume answer (``--modes``):
        the current mode / model only when known to this process."""
        if not self.args.modes:
            return {}
        modes: dict[str, Any] = {"availableModes": [dict(m) for m in MODES]}
        if sid in self.mode:
            modes["currentModeId"] = self.mode[sid]
        elif self.args.defaults_on_reopen:
            modes["currentModeId"] = MODES[0]["id"]
        return {"modes": modes, "configOptions": self._config_options(sid)}

    def _known(self, params: dict[str, Any]) -> str:
        sid = params.get("sessionId")
        if not isinstance(sid, str) or sid not in self.by_id:
            raise RpcFailure(RESOURCE_NOT_FOUND, f"unknown session: {sid!r}")
        return sid


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=250)
    parser.add_argument("--page-size", type=int, default=20)
    parser.add_argument("--cwd", default=None)
    parser.add_argument("--hold-lists", metavar="PATH", default=None)
    parser.add_argument("--no-list", action="store_true")
    parser.add_argument("--stale-titles", action="store_true")
    parser.add_argument("--oldest-first", action="store_true")
    parser.add_argument("--modes", action="store_true")
    parser.add_argument("--defaults-on-reopen", action="store_true")
    parser.add_argument("--replay-on-resume", action="store_true")
    reopen = parser.add_mutually_exclusive_group()
    reopen.add_argument("--resume-only", action="store_true")
    reopen.add_argument("--load-only", action="store_true")
    reopen.add_argument("--neither", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    PagedAgent(parse_args(argv)).run()


if __name__ == "__main__":
    main()
