"""Permission requests and the turn they belong to (issue 17 #12), at the link, without a
screen: after session/cancel and until the turn's answer, a request is answered ``cancelled``
at once (the person never sees it); one still waiting when the turn ends is answered
``cancelled`` and its presenter is cancelled (its dialog closes)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.session.agent.controller import SessionController
from acp_tui.session.agent.events import FaceHooks
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store import AgentMessage, SessionStore
from tests.agents import hostile_core as core
from tests.waits import until

pytestmark = pytest.mark.anyio
HOSTILE = [sys.executable, str(Path(core.__file__).with_name("hostile_agent.py"))]


def last_reply(store: SessionStore) -> str:
    state = store.get(core.SESSION_ID)
    texts = [e.text for e in state.transcript if isinstance(e, AgentMessage)] if state else []
    return texts[-1] if texts else ""


async def test_a_request_after_cancel_is_answered_cancelled_without_asking(
    tmp_path: Path,
) -> None:
    store = SessionStore()
    asked: list[Any] = []

    async def person(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "yes"}}

    controller = SessionController(
        AgentSpec(HOSTILE, cwd=str(tmp_path)),
        store=store,
        face=FaceHooks(permission_handler=person),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await until(lambda: controller.current_session_id is not None, "the session")
        controller.send_prompt(core.SESSION_ID, "permission-after-cancel")
        await until(lambda: "Working" in last_reply(store), "the turn to run")
        await controller.cancel(core.SESSION_ID)
        await until(
            lambda: core.LATE_PERMISSION in last_reply(store), "the late permission's reply"
        )
        assert last_reply(store).endswith('{"outcome": "cancelled"}')
        assert asked == []
        await until(lambda: not controller.is_busy(core.SESSION_ID), "the turn to end")
        # The next turn's requests are asked again.
        controller.send_prompt(core.SESSION_ID, "permission-then-end")
        await until(lambda: len(asked) == 1, "one question asked")
        controller.request_stop()


async def test_a_request_still_waiting_when_the_turn_ends_is_answered_cancelled(
    tmp_path: Path,
) -> None:
    store = SessionStore()
    presenting = anyio.Event()
    closed = anyio.Event()

    async def person(params: Any) -> dict[str, Any]:
        presenting.set()
        try:
            await anyio.sleep_forever()
        finally:
            closed.set()  # the dialog is closed
        raise AssertionError("unreachable")

    controller = SessionController(
        AgentSpec(HOSTILE, cwd=str(tmp_path)),
        store=store,
        face=FaceHooks(permission_handler=person),
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await until(lambda: controller.current_session_id is not None, "the session")
        controller.send_prompt(core.SESSION_ID, "permission-then-end")
        with anyio.fail_after(10):
            await presenting.wait()
            await closed.wait()
        await until(lambda: not controller.is_busy(core.SESSION_ID), "the turn to end")
        controller.send_prompt(core.SESSION_ID, "last-answer")
        await until(lambda: last_reply(store).startswith("last answer:"), "the last answer")
        assert last_reply(store) == 'last answer: {"outcome": "cancelled"}'
        controller.request_stop()
