"""What needs the person across sessions (issue 19): the attention board's events, oldest
waiting session and window title; the terminal signals' text (agent data) can never break out
of its OSC sequence; the permission broker holds a request whose session is not on screen, and
the agent's cancel of such a request clears it."""

from __future__ import annotations

import re

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.session.asking.permissions import PendingPermission, PermissionBroker
from acp_tui.session.workspace.attention import AttentionBoard
from acp_tui.store import LIVE_ERROR, LIVE_UNREAD, LIVE_WAITING, LIVE_WORKING
from acp_tui.text.osc import desktop_notification, osc_text, window_title

pytestmark = pytest.mark.anyio

# --- the board -------------------------------------------------------------------------------


def test_events_of_a_session_that_works_waits_and_finishes() -> None:
    board = AttentionBoard()
    assert board.note("a", "s1", LIVE_WORKING) is None
    assert board.note("a", "s1", LIVE_WAITING) == "waiting"
    assert board.note("a", "s1", LIVE_WAITING) is None  # no news, no second toast
    assert board.note("a", "s1", LIVE_WORKING) is None  # answered
    assert board.note("a", "s1", LIVE_UNREAD) == "finished"
    assert board.note("a", "s1", None) is None  # read
    board.note("a", "s1", LIVE_WORKING)
    assert board.note("a", "s1", LIVE_ERROR) == "failed"
    board.note("a", "s1", LIVE_WORKING)
    assert board.note("a", "s1", None) == "finished"  # ended on screen


def test_the_oldest_waiting_session_across_agents_and_the_title() -> None:
    board = AttentionBoard()
    assert board.title() == "acp-tui"
    board.note("claude", "c1", LIVE_WAITING)
    board.note("demo", "d1", LIVE_WAITING)
    board.note("demo", "d2", LIVE_UNREAD)
    assert board.title() == "acp-tui · 2 waiting · 1 done"
    oldest = board.oldest_waiting()
    assert oldest is not None and (oldest.agent_key, oldest.session_id) == ("claude", "c1")
    other = board.oldest_waiting(besides=("claude", "c1"))
    assert other is not None and other.session_id == "d1"
    board.note("claude", "c1", LIVE_WORKING)
    assert board.title() == "acp-tui · 1 waiting · 1 done"
    board.forget_agent("demo")
    assert board.title() == "acp-tui" and board.oldest_waiting() is None


# --- OSC text --------------------------------------------------------------------------------

HOSTILE = [
    "ends\x07 then \x1b]2;pwned\x07",
    "ST \x1b\\ and C1 ST \x9c and C1 OSC \x9d0;x\x9c",
    "csi \x1b[2J\x1b[31m red \x9b31m",
    "lines\nand\rreturns\u2028and\u2029paragraphs",
    "nul\x00 del\x7f bidi \u202e reversed \u2066",
    "semi;colons;in;a;title",
]
#: What may never appear inside an OSC string: its terminators and any other control.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("protocol", ["osc9", "osc777", "both"])
def test_agent_text_never_breaks_out_of_a_desktop_notification(text: str, protocol: str) -> None:
    out = desktop_notification(text, text, protocol)  # type: ignore[arg-type]
    sequences = re.findall(r"\x1b\](9|777);([^\x07]*)\x07", out)
    assert "".join(f"\x1b]{n};{body}\x07" for n, body in sequences) == out
    assert len(sequences) == (2 if protocol == "both" else 1)
    for number, body in sequences:
        assert not _CONTROL.search(body), repr(body)
        if number == "777":
            # notify;title;body: the title has none (the body is the rest, ";" and all)
            assert body.count(";") == 2 + osc_text(text, 200).count(";")
            assert body.split(";")[1] == osc_text(text, 80).replace(";", ",")


@pytest.mark.parametrize("text", HOSTILE)
def test_agent_text_never_breaks_out_of_the_window_title(text: str) -> None:
    out = window_title(f"acp-tui · {text}")
    assert out.startswith("\x1b]2;") and out.endswith("\x07")
    assert not _CONTROL.search(out[4:-1]), repr(out)


@given(st.text())
def test_any_text_is_one_printable_line(text: str) -> None:
    clean = osc_text(text, 200)
    assert not _CONTROL.search(clean)
    assert all(ch.isprintable() for ch in clean)
    assert len(clean) <= 200


def test_off_sends_nothing() -> None:
    assert desktop_notification("t", "b", "off") == ""


# --- the broker holds what is not on screen --------------------------------------------------


def _params(session_id: str, title: str) -> dict[str, object]:
    return {
        "sessionId": session_id,
        "toolCall": {"toolCallId": f"t-{title}", "title": title},
        "options": [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}],
    }


async def test_a_request_of_a_session_not_on_screen_waits_and_others_go_first() -> None:
    on_screen = {"current": "s2"}
    shown: list[str] = []

    async def present(pending: PendingPermission, position: int, total: int) -> str | None:
        shown.append(pending.session_id)
        return "yes"

    broker = PermissionBroker()
    broker.ready = lambda pending: pending.session_id == on_screen["current"]
    broker.set_presenter(present)
    answers: dict[str, object] = {}

    async def ask(session_id: str) -> None:
        answers[session_id] = await broker.request(_params(session_id, session_id))

    async with anyio.create_task_group() as group:
        group.start_soon(ask, "s1")
        await anyio.wait_all_tasks_blocked()
        group.start_soon(ask, "s2")
        await anyio.wait_all_tasks_blocked()
        # The on-screen session's request went first; the other still waits, unshown.
        assert shown == ["s2"] and "s1" not in answers
        assert [p.session_id for p in broker.pending] == ["s1"]
        on_screen["current"] = "s1"
        broker.reconsider()
    assert shown == ["s2", "s1"]
    assert answers["s1"] == {"outcome": {"outcome": "selected", "optionId": "yes"}}


async def test_the_agents_cancel_of_a_waiting_request_clears_it() -> None:
    """``$/cancel_request`` cancels the handler's task: the request leaves the queue unshown."""
    shown: list[str] = []

    async def present(pending: PendingPermission, position: int, total: int) -> str | None:
        shown.append(pending.session_id)
        return "yes"

    broker = PermissionBroker()
    broker.ready = lambda pending: False
    broker.set_presenter(present)
    async with anyio.create_task_group() as group:
        group.start_soon(broker.request, _params("s1", "Delete build/"))
        await anyio.wait_all_tasks_blocked()
        assert broker.queue_length == 1
        group.cancel_scope.cancel()
    assert broker.queue_length == 0 and not shown
