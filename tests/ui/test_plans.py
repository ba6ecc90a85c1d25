"""The demo agent's plan, sent as the unstable ``plan_update`` / ``plan_removed`` (the client
advertises them): one plan block that progresses in place, then marked removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_tui.store.entries import AgentMessage, PlanSnapshot
from acp_tui.ui.widgets.transcript_views import PlanView
from tests.ui.chat_helpers import chat, demo_app, send, settle, wait_for, wait_for_session

pytestmark = pytest.mark.anyio


async def test_a_plan_progresses_in_place_and_is_marked_removed(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        state = screen.store.get(screen.session_id or "")
        assert state is not None
        await send(pilot, "/plan")
        await wait_for(
            pilot,
            lambda: any(
                isinstance(e, AgentMessage) and "All steps are completed" in e.text
                for e in state.transcript
            ),
            "the plan's end",
        )
        await settle(pilot, answered=True)
        [plan] = [e for e in state.transcript if isinstance(e, PlanSnapshot)]
        assert plan.plan_id is not None and plan.version > 2
        assert {e["status"] for e in plan.entries} == {"completed"}
        [view] = screen.query(PlanView)
        assert "Plan" in str(view.query_one("Static").render())
        # The wire: the client said it takes plan updates, and the agent sent them.
        controller = screen.controller
        assert controller is not None and controller.client is not None
        sent = [json.loads(r.text) for r in controller.client.connection.traffic if r.text]
        init = next(m for m in sent if m.get("method") == "initialize")
        assert init["params"]["clientCapabilities"]["plan"] == {}
        await send(pilot, "/plan clear")
        await wait_for(pilot, lambda: plan.removed, "the plan removed")
        await settle(pilot)
        assert view.has_class("-removed")
        assert "removed by the agent" in str(view.query_one("Static").render())
        assert state.plan is None
        assert chat(app).query(PlanView).first() is view
