"""Compaction (upsert by id, summary chunks, patch semantics) and notices (live events, not
history) in the store, and what an export keeps of them."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.session.export.markdown import transcript_markdown
from acp_tui.store import AgentMessage, Compaction, Notice, SessionStore, UnknownUpdate

SID = "s1"


def up(variant: str, /, **fields: Any) -> dict[str, Any]:
    return {"sessionId": SID, "update": {"sessionUpdate": variant, **fields}}


def chunk(compaction_id: str, text: str) -> dict[str, Any]:
    return up(
        "compaction_summary_chunk",
        compactionId=compaction_id,
        content={"type": "text", "text": text},
    )


@pytest.fixture
def store() -> SessionStore:
    s = SessionStore(clock=lambda: 1000.0)
    s.register_session(SID, cwd="/w")
    return s


def transcript(store: SessionStore) -> list[Any]:
    state = store.get(SID)
    assert state is not None
    return state.transcript


def test_a_compaction_keeps_its_place_and_takes_every_update_by_id(store: SessionStore) -> None:
    store.apply(up("compaction_update", compactionId="c1", status="in_progress"))
    store.apply(
        up("agent_message_chunk", content={"type": "text", "text": "meanwhile"}, messageId="m")
    )
    store.apply(chunk("c1", "Summary "))
    store.apply(chunk("c1", "so far."))
    store.apply(up("compaction_update", compactionId="c1", status="completed"))
    first, message = transcript(store)
    assert isinstance(first, Compaction) and isinstance(message, AgentMessage)
    assert first.status == "completed"
    assert first.summary_text == "Summary so far."  # omitted summary: kept
    assert first.version == 4


def test_summary_error_and_meta_patch_as_the_schema_says(store: SessionStore) -> None:
    store.apply(
        up(
            "compaction_update",
            compactionId="c",
            status="in_progress",
            summary=[{"type": "text", "text": "whole"}],
        )
    )
    (entry,) = transcript(store)
    assert entry.summary_text == "whole"
    store.apply(up("compaction_update", compactionId="c", status="in_progress", summary=[]))
    assert entry.summary == []
    store.apply(chunk("c", "again"))
    store.apply(
        up(
            "compaction_update",
            compactionId="c",
            status="failed",
            summary=None,
            error="out of memory",
            _meta={"k": 1},
        )
    )
    assert entry.summary == [] and entry.error == "out of memory" and entry.meta == {"k": 1}
    store.apply(up("compaction_update", compactionId="c", status="failed"))
    assert entry.error == "out of memory", "omitted: unchanged"
    store.apply(up("compaction_update", compactionId="c", status="failed", error=None))
    assert entry.error is None
    # A malformed optional field is ignored (default-on-error), the status still counts.
    store.apply(up("compaction_update", compactionId="c", status="cancelled", error=5))
    assert entry.status == "cancelled" and len(transcript(store)) == 1


def test_a_chunk_for_an_unseen_id_starts_a_compaction_and_ids_stay_apart(
    store: SessionStore,
) -> None:
    store.apply(chunk("a", "first"))
    store.apply(chunk("b", "second"))
    a, b = transcript(store)
    assert (a.compaction_id, a.status, a.summary_text) == ("a", "in_progress", "first")
    assert (b.compaction_id, b.summary_text) == ("b", "second")


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "compaction_update", "compactionId": "c"},
        {"sessionUpdate": "compaction_update", "status": "completed"},
        {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c", "content": "text"},
        {"sessionUpdate": "notice", "severity": "info", "title": "  "},
        {"sessionUpdate": "notice", "title": "no severity"},
    ],
)
def test_malformed_updates_are_kept_as_unknown_with_the_reason(
    store: SessionStore, update: dict[str, Any]
) -> None:
    store.apply({"sessionId": SID, "update": update})
    (entry,) = transcript(store)
    assert isinstance(entry, UnknownUpdate) and entry.error


def test_a_notice_with_a_malformed_description_still_shows(store: SessionStore) -> None:
    store.apply(up("notice", severity="_vendor", title="Heads up", description=["not", "text"]))
    (entry,) = transcript(store)
    assert isinstance(entry, Notice)
    assert (entry.title, entry.severity, entry.description, entry.source) == (
        "Heads up",
        "_vendor",
        None,
        "agent",
    )


@pytest.mark.parametrize("keep", [False, True], ids=["fresh", "kept-transcript"])
def test_notices_are_live_events_not_replayed_history(store: SessionStore, keep: bool) -> None:
    if keep:
        store.apply(up("user_message_chunk", content={"type": "text", "text": "hi"}))
    store.begin_replay(SID, keep=keep)
    store.apply(up("user_message_chunk", content={"type": "text", "text": "hi"}))
    store.apply(up("notice", severity="info", title="Replayed notice"))
    store.end_replay(SID, {})
    assert not any(isinstance(e, Notice) for e in transcript(store))
    store.apply(up("notice", severity="info", title="Live notice"))
    assert [e.title for e in transcript(store) if isinstance(e, Notice)] == ["Live notice"]


def test_an_export_leaves_out_the_agents_notices_and_keeps_the_clients(
    store: SessionStore,
) -> None:
    store.apply(up("notice", severity="warning", title="Agent says rate limited"))
    store.add_notice(SID, "Allowed once: Write a.py")
    store.apply(up("compaction_update", compactionId="c", status="completed"))
    state = store.get(SID)
    assert state is not None
    markdown = transcript_markdown(state)
    assert "rate limited" not in markdown
    assert "Allowed once: Write a.py" in markdown
    assert "context compaction: completed" in markdown
