"""The reducer's short ways for a streamed agent text or thought chunk (issue 20's wire target) do
what the full way does: same state, same changes, whatever comes between the chunks."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import SessionStore


class FullWay(dict):  # type: ignore[type-arg]
    """An update the short way does not take (it takes plain dicts only)."""


text = st.text(max_size=4)
message_id = st.one_of(st.none(), st.sampled_from(["m1", "m2"]), st.integers(0, 2))
content = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, text),
    st.just({"type": "image", "data": "AA==", "mimeType": "image/png"}),
    st.just({"type": "text", "text": 5}),
    st.just({"type": "text"}),
    st.just("not a block"),
)
update = st.one_of(
    st.builds(
        lambda kind, c, mid: {
            "sessionUpdate": kind,
            "content": c,
            **({} if mid is None else {"messageId": mid}),
        },
        st.sampled_from(
            ["agent_message_chunk"] * 3 + ["agent_thought_chunk"] * 2 + ["user_message_chunk"]
        ),
        content,
        message_id,
    ),
    st.just({"sessionUpdate": "agent_message_chunk"}),
    st.just({"sessionUpdate": "_vendor_thing", "x": 1}),
    st.just({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"}),
)
op = st.one_of(
    st.tuples(st.just("update"), update),
    st.tuples(
        st.sampled_from(["prompt_sent", "prompt_finished", "take", "replay", "keep"]), st.none()
    ),
)


def run(ops: list[tuple[str, Any]], full_way: bool) -> list[Any]:
    store = SessionStore(clock=lambda: 1_700_000_000.0)
    store.register_session("s", cwd="/w")
    seen: list[Any] = []
    for name, arg in ops:
        if name == "update":
            store.apply({"sessionId": "s", "update": FullWay(arg) if full_way else dict(arg)})
        elif name == "prompt_sent":
            store.prompt_sent("s", "hi")
        elif name == "prompt_finished":
            store.prompt_finished("s", {"stopReason": "end_turn"})
        elif name == "replay":
            store.begin_replay("s")
        elif name == "keep":
            store.begin_replay("s", keep=True)
        else:
            changes = store.take_changes()
            seen.append((changes.sessions, changes.entries))
    changes = store.take_changes()
    seen.append((changes.sessions, changes.entries))
    for entry in store.get("s").transcript:  # type: ignore[union-attr]
        seen.append((entry.to_dict(), entry.version))
    seen.append(store.snapshot())
    return seen


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=30))
def test_the_short_way_for_text_chunks_changes_what_the_full_way_changes(
    ops: list[tuple[str, Any]],
) -> None:
    assert run(ops, full_way=False) == run(ops, full_way=True)


def test_a_stream_of_chunks_takes_the_short_way_and_reports_one_entry() -> None:
    store = SessionStore()
    store.register_session("s")
    store.take_changes()
    for word in ("one ", "two ", "three"):
        store.apply(
            {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": "m1",
                    "content": {"type": "text", "text": word},
                },
            }
        )
    (message,) = store.get("s").transcript  # type: ignore[union-attr]
    assert message.text == "one two three" and message.version == 3  # type: ignore[attr-defined]
    changes = store.take_changes()
    assert changes.entries == {"s": {message.id}} and changes.parts("s") == {"transcript"}
