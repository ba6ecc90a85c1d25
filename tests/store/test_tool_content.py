"""The typed views of a tool call (``acp_tui.store.tool_content`` and ``ToolCall``'s
properties): what the transcript, the permission dialog and the export read. Well-formed input
gives the values; any shape an agent can send (wrong types, missing fields, huge values) never
raises and never changes the entry or the input."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.store import PlanSnapshot, SessionStore, ToolCall
from acp_tui.store.entries import PlanItem
from acp_tui.store.tool_content import (
    ContentPart,
    FileDiff,
    FileLocation,
    TerminalRef,
    file_locations,
    tool_outputs,
)
from acp_tui.wire.constants import SESSION_UPDATE_KINDS, UpdateKind

DIFF = {"type": "diff", "path": "/w/app.py", "oldText": "a\n", "newText": "b\n"}
NEW_FILE = {"type": "diff", "path": "/w/new.py", "newText": "x\n"}
TERMINAL = {"type": "terminal", "terminalId": "term-1"}
TEXT = {"type": "content", "content": {"type": "text", "text": "Found 3 issues"}}
IMAGE = {"type": "content", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}}


def tool(**fields: Any) -> ToolCall:
    return ToolCall.from_fields({"toolCallId": "call-1", **fields})


def test_outputs_in_order_typed() -> None:
    call = tool(content=[TEXT, DIFF, TERMINAL, NEW_FILE, IMAGE])
    assert call.outputs == [
        ContentPart("text", "Found 3 issues"),
        FileDiff("/w/app.py", "a\n", "b\n"),
        TerminalRef("term-1"),
        FileDiff("/w/new.py", None, "x\n"),
        ContentPart("image", None),
    ]
    assert call.diffs == [FileDiff("/w/app.py", "a\n", "b\n"), FileDiff("/w/new.py", None, "x\n")]
    assert [d.is_new_file for d in call.diffs] == [False, True]
    assert call.terminal_ids == ["term-1"]
    assert call.text == "Found 3 issues"


def test_locations() -> None:
    call = tool(locations=[{"path": "/w/a.py", "line": 12}, {"path": "/w/b.py"}])
    assert call.file_locations == [FileLocation("/w/a.py", 12), FileLocation("/w/b.py")]
    assert [loc.label for loc in call.file_locations] == ["/w/a.py:12", "/w/b.py"]


@pytest.mark.parametrize(
    ("raw_input", "kind", "command"),
    [
        ({"command": "ls -la"}, "execute", "ls -la"),
        ({"cmd": ["git", "commit", "-m", "a b"]}, "other", "git commit -m 'a b'"),
        ({"command": "git", "args": ["log", "--oneline"]}, "execute", "git log --oneline"),
        ({"argv": ["rm", "-rf", "/"]}, "execute", "rm -rf /"),
        ({"command": "  ", "arguments": ["x y"]}, "execute", "'x y'"),
        ({"path": "x"}, "execute", None),
        ("ls -l", "execute", "ls -l"),  # a bare string is the command of an execute tool...
        ("ls -l", "read", None),  # ...and of no other
        ("", "execute", None),
        ({"command": ["ls", 3]}, "execute", None),
        ({"command": 42, "args": "not a list"}, "execute", None),
        (None, "execute", None),
        ([1, 2], "execute", None),
    ],
)
def test_command(raw_input: Any, kind: str, command: str | None) -> None:
    assert tool(kind=kind, rawInput=raw_input).command == command


def test_command_cwd() -> None:
    assert tool(rawInput={"command": "make", "cwd": "/w"}).command_cwd == "/w"
    for raw in ({"cwd": ""}, {"cwd": 5}, "cwd", None):
        assert tool(rawInput=raw).command_cwd is None


def test_label_prefers_title_then_name_then_id() -> None:
    assert tool(title="Edit app.py", name="edit").label == "Edit app.py"
    assert tool(title="  ", name="edit").label == "edit"
    assert tool().label == "call-1"
    assert ToolCall.from_fields({}).label == ""


# ----------------------------------------------------------------------- hostile shapes

HOSTILE_CONTENT: list[Any] = [
    None,
    "text",
    42,
    {"type": "diff"},
    [None, 1, "x", [], {}],
    [{"type": "diff", "path": 5, "oldText": ["a"], "newText": None}],
    [{"type": "terminal"}, {"type": "terminal", "terminalId": 7}],
    [{"type": "content"}, {"type": "content", "content": "plain"}],
    [{"type": "content", "content": {"type": 3, "text": 4}}],
    [{"type": ["diff"]}, {"type": None}, {"type": "future_kind", "x": 1}],
]


@pytest.mark.parametrize("content", HOSTILE_CONTENT)
def test_hostile_content_is_left_out_not_raised(content: Any) -> None:
    outputs = list(tool_outputs(content))
    for output in outputs:
        if isinstance(output, FileDiff):
            assert isinstance(output.path, str) and isinstance(output.new_text, str)
            assert output.old_text is None or isinstance(output.old_text, str)
        elif isinstance(output, TerminalRef):
            assert isinstance(output.terminal_id, str)
        else:
            assert isinstance(output.block_type, str)
            assert output.text is None or isinstance(output.text, str)
    # The only well-formed pieces above: a diff without a path (shown as an unknown file).
    assert [o for o in outputs if isinstance(o, TerminalRef)] == []
    assert all(isinstance(o, FileDiff | ContentPart) for o in outputs)


@pytest.mark.parametrize(
    "locations",
    [
        None,
        "/w/a.py",
        [None, 1, "x"],
        [{"path": 5}, {"path": ""}, {"line": 3}],
        [{"path": "/w/a.py", "line": True}, {"path": "/w/b.py", "line": "7"}],
    ],
)
def test_hostile_locations(locations: Any) -> None:
    result = file_locations(locations)
    assert all(isinstance(loc.path, str) and loc.path for loc in result)
    assert all(loc.line is None for loc in result)  # a bool or a string is no line number


def test_huge_values() -> None:
    big = "x" * 5_000_000
    many = [DIFF] * 20_000
    call = tool(
        title=big,
        content=[*many, TERMINAL],
        locations=[{"path": big, "line": 10**30}] * 1000,
        rawInput={"command": big, "args": ["a"] * 100_000},
    )
    assert len(call.diffs) == 20_000
    assert call.terminal_ids == ["term-1"]
    assert call.file_locations[0].line == 10**30
    assert call.command is not None and call.command.startswith("x")
    assert call.label == big


def test_with_fields_lays_the_request_over_the_known_call() -> None:
    known = tool(
        title="old",
        kind="edit",
        status="pending",
        content=[DIFF],
        locations=[{"path": "/w/app.py", "line": 9}],
        rawInput={"path": "/w/app.py"},
    )
    before = copy.deepcopy(known.to_dict())
    request = {
        "toolCallId": "call-1",
        "title": "New title",
        "kind": None,  # null: unchanged
        "status": 5,  # wrong type: ignored
        "content": [TERMINAL, "junk"],
        "rawOutput": {"ok": True},
    }
    request_before = copy.deepcopy(request)
    merged = known.with_fields(request)
    assert (merged.title, merged.tool_kind, merged.status) == ("New title", "edit", "pending")
    assert merged.terminal_ids == ["term-1"] and merged.diffs == []
    assert merged.file_locations == [FileLocation("/w/app.py", 9)]
    assert merged.raw_input == {"path": "/w/app.py"} and merged.raw_output == {"ok": True}
    assert known.to_dict() == before  # the store's entry is not touched
    assert request == request_before


@pytest.mark.parametrize("fields", [None, "x", 3, [], {"toolCallId": 5, "title": ["x"]}])
def test_with_fields_of_anything(fields: Any) -> None:
    call = ToolCall.from_fields(fields)
    assert call.label == "" and call.tool_kind == "other" and call.outputs == []


def test_plan_items_typed_and_hostile_entries_never_raise() -> None:
    plan = PlanSnapshot(
        1,
        [
            {"content": "Write tests", "priority": "high", "status": "in_progress"},
            {"content": "Ship"},
            {"content": None, "status": 3, "priority": ["x"]},
            {"content": 42, "status": "agent_own_status"},
            "not an entry",
            None,
            {"content": "x" * 1_000_000, "status": "completed"},
        ],
    )
    assert plan.items == [
        PlanItem("Write tests", "in_progress", "high"),
        PlanItem("Ship", "pending", ""),
        PlanItem("", "pending", ""),
        PlanItem("42", "agent_own_status", ""),
        PlanItem("x" * 1_000_000, "completed", ""),
    ]
    assert PlanSnapshot(2, "not a list").items == []  # type: ignore[arg-type]


# ----------------------------------------------------------------------- properties

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=16,
)
CONTENT_ITEMS = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["diff", "terminal", "content"]) | json_value},
        optional={
            "path": json_value,
            "oldText": json_value,
            "newText": json_value,
            "terminalId": json_value,
            "content": json_value,
        },
    ),
)
TOOL_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "toolCallId": st.text(max_size=4) | json_value,
        "title": json_value,
        "name": json_value,
        "kind": st.sampled_from(["execute", "edit"]) | json_value,
        "status": json_value,
        "content": st.lists(CONTENT_ITEMS, max_size=5) | json_value,
        "locations": st.lists(json_value, max_size=4) | json_value,
        "rawInput": json_value,
        "rawOutput": json_value,
        "entries": st.lists(
            json_value
            | st.fixed_dictionaries({}, optional={"content": json_value, "status": json_value}),
            max_size=4,
        )
        | json_value,
    },
)


def read_everything(call: ToolCall) -> None:
    """Every view, read, and of the type it promises."""
    assert all(isinstance(o, FileDiff | TerminalRef | ContentPart) for o in call.outputs)
    assert all(isinstance(d.path, str) and isinstance(d.new_text, str) for d in call.diffs)
    assert all(isinstance(t, str) for t in call.terminal_ids)
    assert all(isinstance(loc.label, str) and loc.path for loc in call.file_locations)
    assert call.command is None or isinstance(call.command, str)
    assert call.command_untitled is None or isinstance(call.command_untitled, str)
    assert call.command_cwd is None or isinstance(call.command_cwd, str)
    assert isinstance(call.label, str) and isinstance(call.text, str)


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(TOOL_FIELDS, TOOL_FIELDS)
def test_views_of_any_fields_never_raise(known: dict[str, Any], request: dict[str, Any]) -> None:
    snapshot = copy.deepcopy((known, request))
    call = ToolCall.from_fields(known)
    read_everything(call)
    read_everything(call.with_fields(request))
    assert (known, request) == snapshot


@st.composite
def updates(draw: st.DrawFn) -> dict[str, Any]:
    update = draw(TOOL_FIELDS)
    update["sessionUpdate"] = draw(
        st.sampled_from(sorted(SESSION_UPDATE_KINDS)) | st.text(max_size=10) | json_value
    )
    return update


@PROPERTY
@given(st.lists(updates(), max_size=6))
def test_store_reads_any_update_and_its_views_never_raise(batch: list[dict[str, Any]]) -> None:
    """What ``parse_session_update`` of the old pydantic models promised, now of the one code
    that interprets ``session/update``: whatever comes, nothing raises and the input is kept
    as it came; and every tool call the store made can be read through its views."""
    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s1", cwd="/w")
    snapshot = copy.deepcopy(batch)
    for update in batch:
        store.apply_update("s1", update)
    store.apply_update("s1", {"sessionUpdate": UpdateKind.TOOL_CALL, "toolCallId": "ok"})
    assert batch == snapshot
    state = store.get("s1")
    assert state is not None
    calls = [e for e in state.transcript if isinstance(e, ToolCall)]
    assert calls
    for call in calls:
        read_everything(call)
    for plan in (e for e in state.transcript if isinstance(e, PlanSnapshot)):
        assert all(isinstance(i.content, str) and isinstance(i.status, str) for i in plan.items)
