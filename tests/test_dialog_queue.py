"""The one queue both dialogs that ask the person wait in (acp_tui.session.asking.dialog_queue): the
permission broker and the elicitation queue show their requests one at a time, oldest first,
only those whose session is on screen, counting "k of n"; the same test for both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from acp_tui.session.asking.dialog_queue import DialogQueue
from acp_tui.session.asking.elicitation import ACCEPT, answer
from acp_tui.session.asking.elicitation_queue import ElicitationQueue
from acp_tui.session.asking.permissions import PermissionBroker

pytestmark = pytest.mark.anyio


def permission(session: str) -> dict[str, Any]:
    return {
        "sessionId": session,
        "toolCall": {"toolCallId": f"t-{session}", "title": session},
        "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
    }


def elicitation(session: str) -> dict[str, Any]:
    return {
        "sessionId": session,
        "mode": "form",
        "message": "m",
        "requestedSchema": {"properties": {"n": {"type": "string"}}},
    }


KINDS: dict[str, tuple[Callable[[], DialogQueue[Any, Any]], Callable[[str], Any], Any]] = {
    "permission": (PermissionBroker, permission, "yes"),
    "elicitation": (ElicitationQueue, elicitation, answer(ACCEPT, {"n": "x"})),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_one_at_a_time_oldest_first_only_where_the_person_is(kind: str) -> None:
    make, params, reply = KINDS[kind]
    queue = make()
    on_screen = {"current": "s2"}
    shown: list[str] = []
    release = {"s1": anyio.Event(), "s2": anyio.Event(), "s3": anyio.Event()}

    async def present(pending: Any, position: int, total: int) -> Any:
        shown.append(pending.session_id)
        await release[pending.session_id].wait()
        return reply

    queue.ready = lambda pending: pending.session_id == on_screen["current"]
    queue.set_presenter(present)
    answered: list[str] = []

    async def ask(session: str) -> None:
        await queue.request(params(session))
        answered.append(session)

    async with anyio.create_task_group() as group:
        for session in ("s1", "s2", "s3"):
            group.start_soon(ask, session)
            await anyio.wait_all_tasks_blocked()
        # Only the on-screen session's request is shown; the others wait, in order.
        assert shown == ["s2"] and queue.position == (1, 3)
        on_screen["current"] = "s1"
        queue.reconsider()
        await anyio.wait_all_tasks_blocked()
        assert shown == ["s2"], "never two dialogs at once"
        release["s2"].set()
        await anyio.wait_all_tasks_blocked()
        assert shown == ["s2", "s1"]
        on_screen["current"] = "s3"
        release["s1"].set()
        await anyio.wait_all_tasks_blocked()
        queue.reconsider()
        await anyio.wait_all_tasks_blocked()
        release["s3"].set()
    assert shown == ["s2", "s1", "s3"]
    assert answered == ["s2", "s1", "s3"]
    assert queue.pending == [] and queue.position == (0, 0) and queue.shown is None
