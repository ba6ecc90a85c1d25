"""A recorded session played back through the controller: the stand-in agent process of each
(re)start (one recorded connection each, a :class:`~acp_tui.protocol.replay_peer.ReplayPeer`
in this process) and the person's recorded actions repeated through the
:class:`~acp_tui.session.agent.controller.SessionController` it is bound to. ``acp-tui replay`` is in
:mod:`acp_tui.devtools.replay`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.protocol.process import AgentProcess, AgentStartError
from acp_tui.protocol.recording import FROM_AGENT, TO_AGENT, Recording
from acp_tui.protocol.replay_peer import ReplayPeer, ReplayProcess

if TYPE_CHECKING:
    from acp_tui.session.agent.controller import SessionController

#: The requests that open a session, in the order a client may try them.
OPENING_METHODS = ("session/new", "session/load", "session/resume")

#: How long a recorded prompt waits for its session to be open on this client.
SESSION_OPEN_WAIT = 30.0


def first_opening(recording: Recording) -> tuple[str, str | None]:
    """How the recorded client opened its first session: (method, session id for a load or
    resume). A replay opens it the same way, so the client's own request is the recorded one."""
    for entry in recording.segments[0].entries:
        message = entry.message
        if entry.direction != TO_AGENT or not isinstance(message, dict):
            continue
        method = message.get("method")
        if method in OPENING_METHODS and "id" in message:
            params = message.get("params")
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            return method, session_id if isinstance(session_id, str) else None
    return "session/new", None


def agent_name(recording: Recording) -> str:
    """The agent's name from the recorded ``initialize`` answer ('' if there is none)."""
    for entry in recording.segments[0].entries:
        message = entry.message
        if entry.direction != FROM_AGENT or not isinstance(message, dict):
            continue
        result = message.get("result")
        if isinstance(result, dict) and "protocolVersion" in result:
            info = result.get("agentInfo", result.get("info"))  # v1, v2
            if isinstance(info, dict):
                name = info.get("title") or info.get("name")
                return name if isinstance(name, str) else ""
            return ""
    return ""


def requested_version(recording: Recording) -> int:
    """The protocol version the recorded client asked for (2 for a ``--protocol 2`` run), so
    that the replayed client asks the same and takes the recorded answer."""
    for entry in recording.segments[0].entries:
        message = entry.message
        if entry.direction != TO_AGENT or not isinstance(message, dict):
            continue
        if message.get("method") == "initialize":
            params = message.get("params")
            version = params.get("protocolVersion") if isinstance(params, dict) else None
            return 2 if version == 2 else 1
    return 1


class ReplaySession:
    """One replay in the TUI: makes the stand-in agent process for each (re)start of the
    agent (one recorded connection each), and repeats the person's recorded actions through
    the :class:`~acp_tui.session.agent.controller.SessionController` it is bound to."""

    def __init__(self, recording: Recording, *, speed: float = 1.0) -> None:
        self.recording = recording
        self.speed = speed
        self._next = 0
        self.controller: SessionController | None = None
        self.notify: Callable[[str], None] = lambda text: None
        self.cancel_permissions: Callable[[str], object] = lambda session_id: None
        self.peers: list[ReplayPeer] = []

    @property
    def label(self) -> str:
        name = agent_name(self.recording) or "agent"
        return f"replay · {name}"

    def bind(
        self,
        controller: SessionController,
        notify: Callable[[str], None] | None = None,
        cancel_permissions: Callable[[str], object] | None = None,
    ) -> None:
        """The controller (and screen) the next connection belongs to."""
        self.controller = controller
        if notify is not None:
            self.notify = notify
        if cancel_permissions is not None:
            self.cancel_permissions = cancel_permissions

    def process_for(self, argv: Sequence[str], **_: Any) -> AgentProcess:
        """The launcher's process factory: the next recorded connection, played in-process."""
        segments = self.recording.segments
        if self._next >= len(segments):
            raise AgentStartError(argv, "the recording has no more agent runs to replay")
        segment = segments[self._next]
        peer = ReplayPeer(
            segment,
            speed=self.speed,
            driver=self._drive,
            on_note=self._note,
            automatic=self._automatic(),
        )
        self._next += 1
        self.peers.append(peer)
        return ReplayProcess(peer, segment.argv or list(argv))

    def _automatic(self) -> set[str]:
        """What the client sends on its own: the reopening of a session (``--resume ID`` at
        start, the session on screen after a restart). A new session is made on demand (by the
        recorded person's message, or Ctrl+N), so the replay asks for it."""
        if self._next > 0:
            return {"session/load", "session/resume"}
        method = first_opening(self.recording)[0]
        return set() if method == "session/new" else {method}

    def _note(self, text: str) -> None:
        self.notify(text[:1].upper() + text[1:])

    async def _drive(self, method: str, params: Any) -> None:
        controller = self.controller
        if controller is None:
            return
        params = params if isinstance(params, dict) else {}
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            session_id = ""
        if method == "session/prompt":
            await self._wait_open(controller, session_id)
            blocks = [b for b in params.get("prompt") or [] if isinstance(b, dict)]
            text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            controller.send_prompt(session_id, text, blocks)
        elif method == "session/cancel":
            self.cancel_permissions(session_id)
            controller.spawn(lambda: controller.cancel(session_id), "cancel")
        elif method == "session/set_mode":
            mode = str(params.get("modeId", ""))
            controller.spawn(lambda: controller.set_mode(session_id, mode), "change mode")
        elif method == "session/set_config_option":
            config_id, value = str(params.get("configId", "")), params.get("value")
            controller.spawn(
                lambda: controller.set_config_option(session_id, config_id, value), "set option"
            )
        elif method == "session/new":
            controller.spawn(controller.new_session, "new session")
        elif method in ("session/load", "session/resume"):
            cwd = params.get("cwd") if isinstance(params.get("cwd"), str) else None
            controller.spawn(lambda: controller.open_session(session_id, cwd), "open session")
        elif method == "session/close":
            controller.spawn(lambda: controller.close_session(session_id), "close session")
        elif method == "session/delete":
            controller.spawn(lambda: controller.delete_session(session_id), "delete session")
        else:
            self._note(f"{method} from the recording is not repeated on a replay")

    @staticmethod
    async def _wait_open(controller: SessionController, session_id: str) -> None:
        # The recorded prompt may come right after the answer that opened its session; this
        # client must have taken that answer in first. (The controller has no event for one
        # session opening; this is a short, bounded wait on its state.)
        with anyio.move_on_after(SESSION_OPEN_WAIT):
            while not controller.is_open(session_id):  # noqa: ASYNC110
                await anyio.sleep(0.02)
