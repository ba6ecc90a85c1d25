"""Property tests: never raises, text = concatenation of chunks, deterministic replay."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import AgentMessage, SessionStore

SIDS = ["s1", "s2", "ghost"]

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=5)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
text_block = st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=8))
maybe_id = st.one_of(st.none(), st.sampled_from(["m1", "m2", "m3"]))


def _chunk(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda c, mid: {"sessionUpdate": kind, "content": c, **({"messageId": mid} if mid else {})},
        text_block,
        maybe_id,
    )


valid_update = st.one_of(
    _chunk("agent_message_chunk"),
    _chunk("user_message_chunk"),
    _chunk("agent_thought_chunk"),
    st.builds(
        lambda k, mid, c: {"sessionUpdate": k, "messageId": mid, "content": c},
        st.sampled_from(["user_message", "agent_message", "agent_thought"]),
        st.sampled_from(["m1", "m2", "u1"]),
        st.one_of(st.none(), st.lists(text_block, max_size=2)),
    ),
    st.builds(
        lambda k, tid, status, title: {
            "sessionUpdate": k,
            "toolCallId": tid,
            **({"status": status} if status else {}),
            **({"title": title} if title else {}),
        },
        st.sampled_from(["tool_call", "tool_call_update"]),
        st.sampled_from(["t1", "t2"]),
        st.sampled_from([None, "pending", "in_progress", "completed", "failed"]),
        st.one_of(st.none(), st.text(max_size=5)),
    ),
    st.builds(
        lambda e: {"sessionUpdate": "plan", "entries": e},
        st.lists(st.fixed_dictionaries({"content": st.text(max_size=3)}), max_size=2),
    ),
    st.builds(
        lambda t, m: {"sessionUpdate": "session_info_update", **t, **m},
        st.sampled_from(
            [{}, {"title": None}, {"title": "T"}, {"updatedAt": "2025-01-01T00:00:00Z"}]
        ),
        st.sampled_from([{}, {"_meta": None}, {"_meta": {"a": {"b": 1}}}, {"_meta": {"a": None}}]),
    ),
    st.builds(
        lambda u, s: {"sessionUpdate": "usage_update", "used": u, "size": s},
        st.integers(0, 10),
        st.integers(0, 10),
    ),
    st.builds(
        lambda s: {"sessionUpdate": "state_update", "state": s, "stopReason": "end_turn"},
        st.sampled_from(["running", "idle", "requires_action", "_x"]),
    ),
    st.just({"sessionUpdate": "current_mode_update", "currentModeId": "code"}),
    st.just({"sessionUpdate": "available_commands_update", "availableCommands": []}),
)
garbage_update = st.one_of(
    json_value,
    st.builds(
        lambda k, d: {"sessionUpdate": k, **d},
        st.text(max_size=12),
        st.dictionaries(st.text(max_size=6), json_value, max_size=4),
    ),
    st.builds(
        lambda k, d: {"sessionUpdate": k, **d},
        st.sampled_from(
            [
                "agent_message_chunk",
                "tool_call",
                "tool_call_update",
                "plan",
                "usage_update",
                "session_info_update",
                "user_message",
                "state_update",
                "notice",
                "config_option_update",
            ]
        ),
        st.dictionaries(
            st.sampled_from(
                [
                    "content",
                    "messageId",
                    "toolCallId",
                    "entries",
                    "used",
                    "size",
                    "title",
                    "_meta",
                    "state",
                    "configOptions",
                    "cost",
                ]
            ),
            json_value,
            max_size=4,
        ),
    ),
)
params = st.one_of(
    st.builds(
        lambda sid, u: {"sessionId": sid, "update": u},
        st.sampled_from(SIDS),
        st.one_of(valid_update, garbage_update),
    ),
    json_value,
)
client_op = st.one_of(
    st.tuples(st.just("register"), st.sampled_from(SIDS)),
    st.tuples(st.just("prompt_sent"), st.sampled_from(SIDS)),
    st.tuples(st.just("prompt_finished"), st.sampled_from(SIDS)),
    st.tuples(st.just("begin_replay"), st.sampled_from(SIDS)),
    st.tuples(st.just("end_replay"), st.sampled_from(SIDS)),
    st.tuples(st.just("list"), st.sampled_from(SIDS)),
    st.tuples(st.just("take"), st.just("")),
)
op = st.one_of(st.tuples(st.just("apply"), params), client_op)


def run_ops(ops: list[tuple[str, Any]]) -> SessionStore:
    store = SessionStore(clock=lambda: 1_700_000_000.0)
    store.subscribe(lambda: None)
    store.register_session("s1", cwd="/w")
    for name, arg in ops:
        if name == "apply":
            store.apply(arg)
        elif name == "register":
            store.register_session(arg, cwd="/w")
        elif name == "prompt_sent":
            store.prompt_sent(arg, "hello")
        elif name == "prompt_finished":
            store.prompt_finished(
                arg,
                {
                    "stopReason": "end_turn",
                    "usage": {"totalTokens": 1, "inputTokens": 1, "outputTokens": 0},
                },
            )
        elif name == "begin_replay":
            store.begin_replay(arg)
        elif name == "end_replay":
            store.end_replay(arg, {"modes": None})
        elif name == "list":
            store.apply_list_page(
                {
                    "sessions": [
                        {
                            "sessionId": arg,
                            "cwd": "/l",
                            "title": "L",
                            "updatedAt": "2024-01-01T00:00:00Z",
                        }
                    ]
                }
            )
        elif name == "take":
            store.take_changes()
    return store


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=40))
def test_any_sequence_never_raises_and_is_deterministic(ops: list[tuple[str, Any]]) -> None:
    a = run_ops(ops)
    b = run_ops(ops)
    snap = a.snapshot()
    assert snap == b.snapshot()
    # reading everything never raises either
    for s in a.sessions.values():
        for e in s.transcript:
            e.to_dict()
        _ = s.display_title
    a.search("l")
    a.take_changes()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=6), st.booleans()), min_size=1, max_size=60))
def test_message_text_is_concatenation_of_its_chunks(chunks: list[tuple[str, bool]]) -> None:
    """Each agent message's text is exactly the concatenation of the chunks routed to it,
    whatever unknown updates and reads are interleaved."""
    store = SessionStore()
    store.register_session("s")
    expected: list[str] = [""]
    for i, (t, new_message) in enumerate(chunks):
        if new_message and i:
            store.apply(
                {
                    "sessionId": "s",
                    "update": {
                        "sessionUpdate": "user_message_chunk",
                        "content": {"type": "text", "text": "u"},
                    },
                }
            )
            expected.append("")
        store.apply(
            {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": t},
                },
            }
        )
        expected[-1] += t
        if i % 7 == 3:
            store.apply({"sessionId": "s", "update": {"sessionUpdate": "_vendor", "x": i}})
        if i % 5 == 2:
            _ = store.get("s").transcript  # type: ignore[union-attr]
            for e in store.get("s").transcript:  # type: ignore[union-attr]
                _ = getattr(e, "text", None)
    msgs = [e for e in store.get("s").transcript if isinstance(e, AgentMessage)]  # type: ignore[union-attr]
    assert [m.text for m in msgs] == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m1", "m2", "m3"]), st.text(max_size=4)), max_size=40))
def test_message_text_by_message_id(chunks: list[tuple[str, str]]) -> None:
    store = SessionStore()
    store.register_session("s")
    expected: dict[str, str] = {}
    for mid, t in chunks:
        store.apply(
            {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": mid,
                    "content": {"type": "text", "text": t},
                },
            }
        )
        expected[mid] = expected.get(mid, "") + t
    got = {e.message_id: e.text for e in store.get("s").transcript}  # type: ignore[union-attr]
    assert got == expected
