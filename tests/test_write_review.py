"""Review before the write lands (issue 40), over real pipes: the demo agent (``/rewrite``)
and the official SDK's agent (``rewritefile``) write a file through the client in three
places; the review keeps some hunks, and exactly those are on disk, byte for byte; the agent
is told the file's real state in the documented words (it says what it received); all
rejected leaves the file untouched; the reviewed write is checkpointed (it can be undone);
cancelling rejects what waits; with nobody to review, the fallback decides at once; with
review off, nothing is asked. Also the wording and the queue on their own."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from acp_tui.demo_agent import demo_agent_argv
from acp_tui.services.hunks import FileChange
from acp_tui.session.asking.write_reviews import (
    REJECTED_CODE,
    PendingWrite,
    WriteReviews,
    verdict,
)
from acp_tui.session.checkpoints.settings import CheckpointSettings
from acp_tui.session.launch.factory import AgentParts
from acp_tui.session.launch.spec import AgentSpec
from acp_tui.store.entries import AgentMessage

pytestmark = pytest.mark.anyio

SDK_AGENT = [sys.executable, str(Path(__file__).parent / "agents" / "sdk_agent.py")]
LINES = "".join(f"line {number}\n" for number in range(1, 31))

Presenter = Callable[[PendingWrite, int, int], Awaitable[frozenset[int] | None]]


def keeping(kept: frozenset[int] | None, seen: list[PendingWrite]) -> Presenter:
    async def present(pending: PendingWrite, position: int, total: int) -> frozenset[int] | None:
        seen.append(pending)
        return kept

    return present


async def run_turn(
    project: Path,
    argv: list[str],
    prompt: str,
    presenter: Presenter | None,
    *,
    review: str = "ask",
    store: Path | None = None,
) -> tuple[str, AgentParts, str]:
    """One turn; returns what the agent said, the parts, and the session's id."""
    spec = AgentSpec(
        tuple(argv),
        cwd=str(project),
        review_writes=review,
        checkpoints=CheckpointSettings(store=store, enabled=store is not None),
    )
    parts = AgentParts(spec, policy="yolo")
    if presenter is not None:
        parts.write_reviews.set_presenter(presenter)
    else:
        parts.write_reviews.fallback = "deny"
    controller = parts.controller()
    async with anyio.create_task_group() as group:
        group.start_soon(controller.run)
        with anyio.fail_after(60):
            while controller.current_session_id is None:
                await anyio.sleep(0.02)
            session_id = controller.current_session_id
            controller.send_prompt(session_id, prompt)
            await anyio.sleep(0.1)
            while controller.is_busy(session_id):
                await anyio.sleep(0.05)
        state = parts.store.get(session_id)
        assert state is not None
        said = "".join(e.text for e in state.transcript if isinstance(e, AgentMessage))
        controller.request_stop()
    return said, parts, session_id


AGENTS = {
    "demo": (demo_agent_argv(), "/rewrite review.txt", "review.txt", "demo agent"),
    "sdk": (SDK_AGENT, "please rewritefile", "sdk-review.txt", "sdk agent"),
}


def flat(text: str) -> str:
    """A message as the agent said it, its line breaks as it chose them, spaces folded."""
    return " ".join(text.split())


@pytest.mark.parametrize("agent", AGENTS)
async def test_one_hunk_rejected_leaves_exactly_the_kept_hunks_and_says_so(
    tmp_path: Path, agent: str
) -> None:
    argv, prompt, name, who = AGENTS[agent]
    target = tmp_path / name
    target.write_text(LINES)
    seen: list[PendingWrite] = []
    said, _, _ = await run_turn(tmp_path, argv, prompt, keeping(frozenset({0, 2}), seen))
    assert len(seen) == 1
    change = seen[0].change
    assert len(change.hunks) == 3 and change.old == LINES
    written = target.read_bytes()
    assert written == change.apply({0, 2}).encode()  # type: ignore[union-attr]
    text = written.decode()
    assert f"line 1 (revised by the {who})" in text and f"line 21 (revised by the {who})" in text
    assert f"line 11 (revised by the {who})" not in text and "line 11\n" in text
    # What the agent received: the documented words, and the diff against what it sent.
    assert str(REJECTED_CODE) in said
    assert f"The user kept hunks 1, 3 and rejected hunks 2 of 3 of this write to {target}" in flat(
        said
    )
    assert f"-line 11 (revised by the {who})" in said and "+line 11" in said


@pytest.mark.parametrize("agent", AGENTS)
async def test_all_rejected_leaves_the_file_untouched(tmp_path: Path, agent: str) -> None:
    argv, prompt, name, _who = AGENTS[agent]
    target = tmp_path / name
    target.write_text(LINES)
    seen: list[PendingWrite] = []
    said, _, _ = await run_turn(tmp_path, argv, prompt, keeping(frozenset(), seen))
    assert len(seen) == 1
    assert target.read_text() == LINES
    assert f"The user rejected this write: {target} was not changed." in flat(said)


async def test_all_kept_is_written_as_sent_and_the_agent_hears_success(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    seen: list[PendingWrite] = []
    said, _, _ = await run_turn(
        tmp_path, demo_agent_argv(), "/rewrite review.txt", keeping(frozenset({0, 1, 2}), seen)
    )
    assert target.read_text() == seen[0].change.new
    assert "as I sent it" in said


async def test_closing_the_review_rejects_the_write(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    said, _, _ = await run_turn(
        tmp_path, demo_agent_argv(), "/rewrite review.txt", keeping(None, [])
    )
    assert target.read_text() == LINES
    assert "The user rejected this write" in said


async def test_the_reviewed_write_is_checkpointed_and_undone(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    seen: list[PendingWrite] = []
    _, parts, session_id = await run_turn(
        tmp_path,
        demo_agent_argv(),
        "/rewrite review.txt",
        keeping(frozenset({1}), seen),
        store=tmp_path.parent / f"{tmp_path.name}-store",
    )
    kept = seen[0].change.apply({1})
    assert target.read_text() == kept
    controller = parts.controller()
    turns = await controller.checkpoints.turns(session_id)
    assert turns and turns[-1].writes, "the reviewed write was recorded"
    plan = await controller.checkpoints.plan_rewind(session_id, turns[-1].number)
    result = await controller.checkpoints.apply(plan, {p.path: None for p in plan.files})
    assert not result.left
    assert target.read_text() == LINES


async def test_with_nobody_to_review_the_fallback_decides_at_once(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    said, _, _ = await run_turn(tmp_path, demo_agent_argv(), "/rewrite review.txt", None)
    assert target.read_text() == LINES  # "deny": nothing written, nobody asked
    assert "The user rejected this write" in said


async def test_review_off_writes_without_asking(tmp_path: Path) -> None:
    target = tmp_path / "review.txt"
    target.write_text(LINES)
    seen: list[PendingWrite] = []
    said, _, _ = await run_turn(
        tmp_path,
        demo_agent_argv(),
        "/rewrite review.txt",
        keeping(frozenset(), seen),
        review="auto",
    )
    assert seen == []
    assert "revised by the demo agent" in target.read_text()
    assert "as I sent it" in said


# --- the queue and the words on their own -------------------------------------------------


def pending(session_id: str = "s", old: str = LINES) -> PendingWrite:
    new = old.replace("line 1\n", "line one\n").replace("line 30\n", "line thirty\n")
    return PendingWrite(session_id, "/p/notes.txt", "notes.txt", FileChange.compute(old, new))


def test_the_words_for_each_outcome() -> None:
    write = pending()
    sent = write.change.new
    assert sent is not None
    write.kept = write.change.all_hunks()
    assert verdict(write, sent) is None
    write.kept = frozenset()
    error = verdict(write, sent)
    assert error is not None and error.code == REJECTED_CODE
    assert error.message == "The user rejected this write: /p/notes.txt was not changed."
    write.kept = frozenset({1})
    error = verdict(write, sent)
    assert error is not None
    first, _, diff = error.message.partition("\n")
    assert first == (
        "The user kept hunks 2 and rejected hunks 1 of 2 of this write to /p/notes.txt; the "
        "file now differs from what you sent. The file on disk compared with your text "
        "(--- what you sent, +++ the file now):"
    )
    # The diff turns what the agent sent into the file on disk.
    assert FileChange.parse(diff, sent).new == write.change.apply({1})
    assert error.data == {"path": "/p/notes.txt", "keptHunks": [2], "rejectedHunks": [1]}


async def test_reviews_wait_their_turn_and_cancelling_rejects_them() -> None:
    reviews = WriteReviews("ask")
    shown: list[tuple[int, int]] = []
    release = anyio.Event()

    async def present(write: PendingWrite, position: int, total: int) -> frozenset[int] | None:
        shown.append((position, total))
        await release.wait()
        return write.change.all_hunks()

    reviews.set_presenter(present)
    results: dict[str, frozenset[int]] = {}
    first, second, other = pending("s"), pending("s"), pending("t")

    async def review(name: str, write: PendingWrite) -> None:
        results[name] = await reviews.review(write)

    async with anyio.create_task_group() as group:
        group.start_soon(review, "first", first)
        group.start_soon(review, "second", second)
        group.start_soon(review, "other", other)
        with anyio.fail_after(5):
            while len(reviews.pending) < 3:
                await anyio.sleep(0.01)
        assert len(shown) == 1 and reviews.position == (1, 3)  # one at a time, "1 of 3"
        assert reviews.cancel_session("s") == 2
        release.set()
    assert results["first"] == frozenset() and results["second"] == frozenset()
    assert results["other"] == other.change.all_hunks()
