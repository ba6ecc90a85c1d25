"""An ACP agent written with the official Python SDK (`agent-client-protocol`), used as an
independent peer in end-to-end tests. Run it as ``python tests/agents/sdk_agent.py``.

Behaviour, chosen by the prompt text:
- anything: streams ``You said: <text>`` back word by word as agent_message_chunks;
- contains ``permission``: a tool call, a permission request, then ``outcome: <optionId>``;
- contains ``think``: an agent_thought_chunk and a plan before the reply;
- contains ``refuse``: stop reason ``refusal``; ``maxtokens``: ``max_tokens``;
- contains ``slow``: streams a chunk every 50 ms until cancelled (stop reason ``cancelled``);
- contains ``stubborn``: streams a chunk every 50 ms for 10 minutes, ignoring session/cancel;
- contains ``writefiles``: changes files of the session's directory both ways: appends a line
  to ``sdk-notes.txt`` through the client (``fs/write_text_file``), creates ``sdk-created.txt``
  and deletes ``sdk-delete-me.txt`` directly on disk;
- contains ``rewritefile``: one write through the client changing ``sdk-review.txt`` in several
  places; says ``write ok`` or ``write error CODE: MESSAGE`` (what the client answered);
- contains ``crash``: writes to stderr and exits with code 3 mid-turn; ``killself``: SIGKILL.

Three sessions exist from the start in the agent's working directory (with a short history
each) and one in ``/elsewhere``; session/list pages them two at a time. session/load replays
history. Environment switches: ``SDK_AGENT_STATE_DIR`` (persist sessions as JSON there, so a
second process can load them), ``SDK_AGENT_NO_LIST`` (do not advertise session/list),
``SDK_AGENT_NO_LOAD`` (do not advertise session/load), ``SDK_AGENT_RESUME`` (advertise and
serve session/resume), ``SDK_AGENT_RESUME_UNIMPLEMENTED`` (advertise session/resume and answer it
"method not found", as pydantic-acp and the TS SDK do), ``SDK_AGENT_AUTH`` (session/new answers auth_required),
``SDK_AGENT_INIT_DELAY`` / ``SDK_AGENT_NEW_DELAY`` (seconds to wait before answering initialize /
session/new: an agent slow to start, as claude-agent-acp takes some 5 s for session/new);
``SDK_AGENT_INIT_GATE`` / ``SDK_AGENT_NEW_GATE`` / ``SDK_AGENT_LOAD_GATE`` (a file path: answer
initialize / session/new / session/load only once that file exists, so a test holds the agent in its slow start for as long as it needs,
however loaded the machine); ``SDK_AGENT_NEW_FAILS_UNLESS`` (a file path: session/new answers an
internal error until that file exists); ``SDK_AGENT_COST`` (each turn adds that amount to the
session's cost, reported at the turn's end in a usage_update in ``SDK_AGENT_CURRENCY``, default
EUR; a prompt containing ``cost=X`` adds X instead: negative lowers the total; unset: no cost
is reported); ``SDK_AGENT_USAGE`` (a usage_update without a cost at each turn's end);
``SDK_AGENT_MODES`` (sessions have the modes ``default`` and ``plan``, as claude-agent-acp's;
a reply in plan mode starts ``(plan mode)``); ``SDK_AGENT_CLOSE`` (advertise and serve
session/close: a closed session that never had a prompt is forgotten, as agents that keep a
session only once it has a conversation do; ``SDK_AGENT_CLOSE_GATE``: answer session/close
only once that file exists).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from pathlib import Path
from typing import Any


def _start_lighter() -> None:
    """Spare the suite most of the SDK's import: 1.3-1.6 CPU s at every start of this agent,
    about fifty starts a run. ``acp.schema`` declares ~280 pydantic models, and pydantic builds
    each one's validator as the class is made and reads each one's source for the fields'
    docstrings (the SDK asks for ``use_attribute_docstrings``). Deferred, a model is built when
    first used, as it would have been; the docstrings only describe fields in a JSON schema.
    Nothing on the wire changes. Both are pydantic internals: if they move, the agent starts
    the slow way and works the same."""
    try:
        from pydantic._internal import _config, _fields
    except ImportError:
        return
    if isinstance(getattr(_config, "config_defaults", None), dict):
        _config.config_defaults["defer_build"] = True
    if hasattr(_fields, "extract_docstrings_from_cls"):

        def no_docstrings(cls: type, use_inspect: bool = False) -> dict[str, str]:
            return {}

        _fields.extract_docstrings_from_cls = no_docstrings


_start_lighter()

from acp import (  # noqa: E402 (after _start_lighter, which must run first)
    Agent,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    start_tool_call,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.interfaces import Client  # noqa: E402
from acp.schema import (  # noqa: E402
    AgentCapabilities,
    AgentPlanUpdate,
    AuthMethodAgent,
    Cost,
    Implementation,
    ListSessionsResponse,
    PermissionOption,
    PlanEntry,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    ToolCallUpdate,
    UsageUpdate,
)

PAGE_SIZE = 2


def _flag(name: str) -> bool:
    return bool(os.environ.get(name))


def _delay(name: str) -> float:
    try:
        return float(os.environ.get(name) or 0)
    except ValueError:
        return 0.0


async def _wait_for_gate(name: str) -> None:
    gate = os.environ.get(name)
    if gate:
        while not os.path.exists(gate):
            await asyncio.sleep(0.02)


class SdkTestAgent(Agent):
    def __init__(self) -> None:
        self._conn: Client | None = None
        self._state_dir = os.environ.get("SDK_AGENT_STATE_DIR")
        # session id -> {"cwd", "title", "updatedAt", "history": [(role, text)]}
        self.sessions: dict[str, dict[str, Any]] = {}
        self._cancelled: dict[str, asyncio.Event] = {}
        self._load_state()
        if not self.sessions:
            here = os.getcwd()
            for index, (title, updated) in enumerate(
                [
                    ("Refactor the parser", "2025-01-01T10:00:00Z"),
                    ("Fix \x1b[31mred\x1b[0m bug\x07 now", "2025-01-02T10:00:00Z"),
                    ("Write docs", "2025-01-03T10:00:00Z"),
                ],
                start=1,
            ):
                self.sessions[f"pre-{index}"] = {
                    "cwd": here,
                    "title": title,
                    "updatedAt": updated,
                    "history": [("user", f"question {index}"), ("agent", f"answer {index}")],
                }
            self.sessions["pre-elsewhere"] = {
                "cwd": "/elsewhere",
                "title": "Somewhere else",
                "updatedAt": "2024-12-31T10:00:00Z",
                "history": [("user", "hi"), ("agent", "hello")],
            }

    # ------------------------------------------------------------------ state

    def _state_file(self) -> Path | None:
        return Path(self._state_dir) / "sdk_agent_sessions.json" if self._state_dir else None

    def _load_state(self) -> None:
        path = self._state_file()
        if path is not None and path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            for session in data.values():
                session["history"] = [tuple(item) for item in session["history"]]
            self.sessions = data

    def _save_state(self) -> None:
        path = self._state_file()
        if path is not None:
            path.write_text(json.dumps(self.sessions), encoding="utf-8")

    # ------------------------------------------------------------------ ACP

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    @property
    def conn(self) -> Client:
        assert self._conn is not None
        return self._conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        await asyncio.sleep(_delay("SDK_AGENT_INIT_DELAY"))
        await _wait_for_gate("SDK_AGENT_INIT_GATE")
        session_caps = SessionCapabilities(
            list=None if _flag("SDK_AGENT_NO_LIST") else SessionListCapabilities(),
            resume=SessionResumeCapabilities()
            if _flag("SDK_AGENT_RESUME") or _flag("SDK_AGENT_RESUME_UNIMPLEMENTED")
            else None,
            close=SessionCloseCapabilities() if _flag("SDK_AGENT_CLOSE") else None,
        )
        return InitializeResponse(
            protocol_version=1,
            agent_capabilities=AgentCapabilities(
                load_session=not _flag("SDK_AGENT_NO_LOAD"),
                session_capabilities=session_caps,
            ),
            agent_info=Implementation(name="sdk-test-agent", title="SDK Test Agent", version="1.0"),
            auth_methods=[
                AuthMethodAgent(id="login", name="Log in with a browser"),
                AuthMethodAgent(id="api-key", name="API key"),
            ]
            if _flag("SDK_AGENT_AUTH")
            else [],
        )

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        await asyncio.sleep(_delay("SDK_AGENT_NEW_DELAY"))
        await _wait_for_gate("SDK_AGENT_NEW_GATE")
        if _flag("SDK_AGENT_AUTH"):
            raise RequestError.auth_required()
        fails_unless = os.environ.get("SDK_AGENT_NEW_FAILS_UNLESS")
        if fails_unless and not Path(fails_unless).exists():
            # As claude-agent-acp answers when its Claude Code process will not start.
            raise RequestError.internal_error({"details": "Claude Code process exited with code 1"})
        session_id = f"sess-{uuid.uuid4().hex[:8]}"
        self.sessions[session_id] = {
            "cwd": cwd,
            "title": None,
            "updatedAt": "2025-02-01T10:00:00Z",
            "history": [],
        }
        self._save_state()
        if not _flag("SDK_AGENT_MODES"):
            return NewSessionResponse(session_id=session_id)
        self.sessions[session_id]["mode"] = "default"
        modes = SessionModeState(
            current_mode_id="default",
            available_modes=[
                SessionMode(id="default", name="Default", description="Ask before edits"),
                SessionMode(id="plan", name="Plan", description="Plan only, change nothing"),
            ],
        )
        return NewSessionResponse(session_id=session_id, modes=modes)

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        if mode_id not in ("default", "plan"):
            raise RequestError.invalid_params({"modeId": mode_id})
        session["mode"] = mode_id
        self._save_state()

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        await _wait_for_gate("SDK_AGENT_CLOSE_GATE")
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        if not session["history"]:
            del self.sessions[session_id]
            self._save_state()

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse | None:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        await _wait_for_gate("SDK_AGENT_LOAD_GATE")
        for role, text in session["history"]:
            update = (
                update_user_message_text(text)
                if role == "user"
                else update_agent_message_text(text)
            )
            await self.conn.session_update(session_id=session_id, update=update)
        return LoadSessionResponse()

    async def resume_session(
        self, session_id: str, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        if _flag("SDK_AGENT_RESUME_UNIMPLEMENTED"):
            raise RequestError.method_not_found("session/resume")
        if session_id not in self.sessions:
            raise RequestError.resource_not_found(session_id)
        return ResumeSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        matching = [
            (session_id, session)
            for session_id, session in self.sessions.items()
            if cwd is None or os.path.realpath(session["cwd"]) == os.path.realpath(cwd)
        ]
        start = int(cursor) if cursor else 0
        page = matching[start : start + PAGE_SIZE]
        next_start = start + PAGE_SIZE
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=session_id,
                    cwd=session["cwd"],
                    title=session["title"],
                    updated_at=session["updatedAt"],
                )
                for session_id, session in page
            ],
            next_cursor=str(next_start) if next_start < len(matching) else None,
        )

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        event = self._cancelled.get(session_id)
        if event is not None:
            event.set()

    async def _report_usage(self, session_id: str, session: dict[str, Any], text: str) -> None:
        """The context used, and (``SDK_AGENT_COST``) the session's cost so far."""
        per_turn = os.environ.get("SDK_AGENT_COST")
        if not (per_turn or _flag("SDK_AGENT_USAGE")):
            return
        cost = None
        if per_turn:
            step = float(per_turn)
            for word in text.split():
                if word.startswith("cost="):
                    step = float(word.removeprefix("cost="))
            total = max(0.0, float(session.get("cost", 0.0)) + step)
            session["cost"] = total
            currency = os.environ.get("SDK_AGENT_CURRENCY") or "EUR"
            cost = Cost(amount=round(total, 6), currency=currency)
        used = sum(len(said) for _role, said in session["history"]) // 4
        await self.conn.session_update(
            session_id=session_id,
            update=UsageUpdate(session_update="usage_update", used=used, size=200_000, cost=cost),
        )

    async def _say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(
            session_id=session_id, update=update_agent_message_text(text)
        )

    async def _write_files(self, session_id: str, cwd: Path) -> None:
        notes = cwd / "sdk-notes.txt"
        old = notes.read_text() if notes.is_file() else ""
        await self.conn.session_update(
            session_id=session_id,
            update=start_tool_call(
                "write-1", "Write sdk-notes.txt", kind="edit", status="in_progress"
            ),
        )
        await self.conn.write_text_file(
            session_id=session_id, path=str(notes), content=old + "written by the sdk agent\n"
        )
        await self.conn.session_update(
            session_id=session_id, update=update_tool_call("write-1", status="completed")
        )
        (cwd / "sdk-created.txt").write_text("created on disk by the sdk agent\n")
        (cwd / "sdk-delete-me.txt").unlink(missing_ok=True)

    async def _rewrite_file(self, session_id: str, cwd: Path) -> None:
        """One write through the client changing ``sdk-review.txt`` in several places (every
        tenth line gets a note; made with 30 lines if missing); says what the client answered."""
        target = cwd / "sdk-review.txt"
        if target.is_file():
            rows = target.read_text().splitlines(keepends=True)
            for index in range(0, len(rows), 10):
                rows[index] = rows[index].rstrip("\n") + " (revised by the sdk agent)\n"
            content = "".join(rows)
        else:
            content = "".join(f"line {number}\n" for number in range(1, 31))
        try:
            await self.conn.write_text_file(
                session_id=session_id, path=str(target), content=content
            )
        except RequestError as error:
            await self._say(session_id, f"write error {error.code}: {error}\n")
            return
        await self._say(session_id, "write ok\n")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        text = " ".join(getattr(block, "text", "") for block in prompt)
        session["history"].append(("user", text))
        if session["title"] is None:
            session["title"] = text[:40]
        cancelled = self._cancelled[session_id] = asyncio.Event()
        reply = ""

        if "crash" in text:
            await self._say(session_id, "about to crash")
            print("sdk agent: fatal error, giving up", file=sys.stderr, flush=True)
            os._exit(3)

        if "killself" in text:
            await self._say(session_id, "goodbye")
            print("sdk agent: killing myself", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        if "think" in text:
            await self.conn.session_update(
                session_id=session_id, update=update_agent_thought_text("secret thoughts")
            )
            await self.conn.session_update(
                session_id=session_id,
                update=AgentPlanUpdate(
                    session_update="plan",
                    entries=[
                        PlanEntry(content="read the code", priority="high", status="completed"),
                        PlanEntry(content="answer", priority="medium", status="in_progress"),
                    ],
                ),
            )

        if "writefiles" in text:
            await self._write_files(session_id, Path(session["cwd"]))
        if "rewritefile" in text:
            await self._rewrite_file(session_id, Path(session["cwd"]))

        if "permission" in text:
            await self.conn.session_update(
                session_id=session_id,
                update=start_tool_call("tool-1", "Edit src/app.py", kind="edit", status="pending"),
            )
            response = await self.conn.request_permission(
                session_id=session_id,
                tool_call=ToolCallUpdate(tool_call_id="tool-1", title="Edit src/app.py"),
                options=[
                    PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
                    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
                    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
                ],
            )
            outcome = response.outcome
            chosen = getattr(outcome, "option_id", None) or outcome.outcome
            allowed = chosen in ("allow", "always")
            await self.conn.session_update(
                session_id=session_id,
                update=update_tool_call("tool-1", status="completed" if allowed else "failed"),
            )
            reply = f"outcome: {chosen}"
            await self._say(session_id, reply)
        elif "stubborn" in text:
            for _ in range(12_000):
                await self._say(session_id, ".")
                await asyncio.sleep(0.05)
        elif "slow" in text:
            while not cancelled.is_set():
                await self._say(session_id, ".")
                try:
                    await asyncio.wait_for(cancelled.wait(), 0.05)
                except TimeoutError:
                    pass
            session["history"].append(("agent", "..."))
            self._save_state()
            return PromptResponse(stop_reason="cancelled")
        else:
            said = f"You said: {text}"
            if session.get("mode") == "plan":
                said = f"(plan mode) {said}"
            words = said.split(" ")
            for index, word in enumerate(words):
                piece = word if index == 0 else " " + word
                reply += piece
                await self._say(session_id, piece)

        session["history"].append(("agent", reply))
        await self._report_usage(session_id, session, text)
        self._save_state()
        if "refuse" in text:
            return PromptResponse(stop_reason="refusal")
        if "maxtokens" in text:
            return PromptResponse(stop_reason="max_tokens")
        return PromptResponse(stop_reason="end_turn")


async def main() -> None:
    await run_agent(SdkTestAgent(), use_unstable_protocol=True)


if __name__ == "__main__":
    asyncio.run(main())
