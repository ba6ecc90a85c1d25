"""How the export's review pane looks (issue 43), armed: the origin, the summary, one row a
redaction (what, its masked preview, where, the rule), one undone, the buttons and the keys,
at 120x40 and at 80x24."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.text.redaction import Redactor
from acp_tui.ui.screens.armed import DialogOrigin
from acp_tui.ui.screens.redaction_review import RedactionReview
from tests.ui.chat_helpers import wait_for

TEXTS = [
    (
        "entry 1 (your message)",
        "deploy with sk-ant-api03-Qw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nMQw3rTy7uIo9pAs2dFg4h\n"
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx3abcDEFghiJKLmnoPQRstUVwxyz01\n"
        "-----END RSA PRIVATE KEY-----\nfrom /home/ann/work and /home/bob, mail ops@example.com",
    ),
    ("entry 2 (tool output)", "postgres://app:s3cr3t@db.internal/main"),
]


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("the chat would be here")

    def on_mount(self) -> None:
        redactor = Redactor(home="/home/ann")
        for where, text in TEXTS:
            redactor.scrub(text, where)
        self.push_screen(
            RedactionReview(
                redactor.findings,
                origin=DialogOrigin("demo agent", "Deploy the service"),
                arm_delay=0,
            )
        )


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_review_pane(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot) -> None:
        review = pilot.app.screen
        assert isinstance(review, RedactionReview)
        await wait_for(pilot, lambda: review.armed, "armed")
        await pilot.press("down", "down", "down", "down", "space")
        assert review.undone == {3}
        await pilot.pause()

    assert snap_compare(_Host(), terminal_size=size, run_before=run_before)
