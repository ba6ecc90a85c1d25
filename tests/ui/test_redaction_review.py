"""The export's review pane against the demo agent: a transcript with a planted API key, a
private key block, home paths and an e-mail address opens the review, which lists each one
(kind, where, a masked preview: never the secret), lets the person undo one, and writes an
export holding none of the others; Escape writes nothing. A dialog that acts: it arms."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import Vertical
from textual.widgets import Static

from acp_tui.text.redaction import EMAIL, HOME, PATTERN, PRIVATE_KEY, SECRET, Redactor
from acp_tui.ui.screens.redaction_review import RedactionReview, finding_row, summary
from tests.ui.chat_helpers import demo_app, send, wait_for, wait_for_session
from tests.ui.test_resilience import screen_text

pytestmark = pytest.mark.anyio

KEY = "sk-ant-api03-" + "Qw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nM" * 2
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAx3abcDEFghiJKLmnoPQRstUVwxyz0123456789ABCDEFGHIJ\n"
    "-----END RSA PRIVATE KEY-----"
)
MAIL = "dev.ops@example.com"


def message() -> str:
    return (
        f"hello\nkey {KEY}\n{PEM}\nsee {Path.home()}/work/app.py and /home/alice/notes, "
        f"ticket ACME-99881, write to {MAIL}"
    )


def exports(tmp_path: Path) -> list[Path]:
    folder = tmp_path / ".data" / "exports"
    return sorted(folder.glob("acp-tui-*")) if folder.exists() else []


async def open_review(pilot: object, tmp_path: Path, fmt: str = "md") -> RedactionReview:
    app = pilot.app  # type: ignore[attr-defined]
    screen = await wait_for_session(pilot)  # type: ignore[arg-type]
    await send(pilot, message())  # type: ignore[arg-type]
    await wait_for(
        pilot,  # type: ignore[arg-type]
        lambda: screen.store.get(screen.session_id).stop_reason == "end_turn",
        "the turn",
        20,
    )
    screen.tools.export_transcript(fmt)
    await wait_for(pilot, lambda: isinstance(app.screen, RedactionReview), "the review")  # type: ignore[arg-type]
    review = app.screen
    assert isinstance(review, RedactionReview)
    review.arm_delay = 0.05
    review._arm_later()
    await wait_for(pilot, lambda: review.armed, "the review armed")  # type: ignore[arg-type]
    return review


@pytest.mark.parametrize("fmt", ["md", "html"])
async def test_the_review_lists_each_redaction_and_the_export_holds_none(
    tmp_path: Path, fmt: str
) -> None:
    app = demo_app(tmp_path, tmp_path / "state", redact_patterns={"ticket": "ACME-[0-9]{4,}"})
    async with app.run_test(size=(120, 40)) as pilot:
        review = await open_review(pilot, tmp_path, fmt)
        kinds = {finding.kind for finding in review.findings}
        assert kinds == {SECRET, PRIVATE_KEY, HOME, EMAIL, PATTERN}
        # Each is listed, masked: no secret is on screen, whole or in part.
        rows = review.query_one("#findings")
        assert rows.option_count == len(review.findings)  # type: ignore[attr-defined]
        box = review.query_one(Vertical).region
        rows_on_screen = screen_text(app).split("\n")[box.y : box.bottom]
        shown = "\n".join(row[box.x : box.right] for row in rows_on_screen)
        for secret in (KEY, KEY[:20], "MIIEowIBAAKCAQEAx3", MAIL, "alice", "ACME-99881"):
            assert secret not in shown, secret
        assert "private key" in shown and "sk-a••••••" in shown
        assert "entry 1 (your message)" in shown
        # Undo the first e-mail address: Down to it, Space.
        first_mail = next(n for n, f in enumerate(review.findings) if f.kind == EMAIL)
        await pilot.press(*["down"] * (first_mail + 1))
        assert review.highlighted == first_mail
        await pilot.press("space")
        assert review.undone == {first_mail}
        assert "kept as written" in str(review.query_one("#summary", Static).render())
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(exports(tmp_path)), "the export written")
        [path] = exports(tmp_path)
        assert path.suffix == f".{fmt}"
        text = path.read_text(encoding="utf-8")
        for secret in (KEY, "MIIEowIBAAKCAQEAx3", f"{Path.home()}/work", "/home/alice"):
            assert secret not in text, secret
        assert "ACME-99881" not in text
        # The one undone was written as it was; every other e-mail is redacted.
        assert text.count(MAIL) == 1
        assert "Redacted by acp-tui" in text and "1 left as written by the person" in text


async def test_escape_writes_nothing_and_the_prompt_keeps_its_typing(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        review = await open_review(pilot, tmp_path)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RedactionReview), "closed")
        assert review.answered and exports(tmp_path) == []


async def test_keys_before_the_review_arms_go_to_the_prompt(tmp_path: Path) -> None:
    app = demo_app(tmp_path, tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_session(pilot)
        await send(pilot, message())
        await wait_for(
            pilot,
            lambda: screen.store.get(screen.session_id).stop_reason == "end_turn",
            "the turn",
            20,
        )
        screen.tools.export_transcript()
        await wait_for(pilot, lambda: isinstance(app.screen, RedactionReview), "the review")
        review = app.screen
        assert isinstance(review, RedactionReview)
        review.arm_delay = 60.0
        review._arm_later()
        await pilot.press("y", "a", "y")
        await pilot.pause(review.burst_window + 0.1)
        assert not review.answered and exports(tmp_path) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RedactionReview), "closed")
        assert screen.query_one("#prompt").text.endswith("yay")  # type: ignore[attr-defined]


def test_the_summary_counts_each_kind_and_a_row_shows_only_the_preview() -> None:
    redactor = Redactor(home="/home/x")
    redactor.scrub(f"a@b.org c@d.org /home/x/y /home/z https://u:pw12@h.io {KEY}", "w")
    assert summary(redactor.findings, {1}) == (
        "6 found (2 e-mail addresses, 2 home directories, 1 password in URL, 1 secret)"
        " · 5 to redact · 1 kept as written"
    )
    [key] = [finding for finding in redactor.findings if finding.kind == SECRET]
    assert finding_row(key, False).plain.startswith("✓ redact  secret  sk-a•••••• (")
    assert KEY[:8] not in finding_row(key, True).plain
