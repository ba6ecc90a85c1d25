"""One malformed item in an array the agent sends (an item that is no object) leaves only
itself out: the good items are kept, the rest of the update or answer is taken, and one clear
message says what was left out (in the log, and in ``store.left_out``), not one per repeat.
Every array on the wire that the store reads is checked here."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from acp_tui.store import SessionStore
from acp_tui.store.entries import AgentMessage, PlanSnapshot, ToolCall, UnknownUpdate

BAD_ITEMS = [42, "text", None, [1, 2], True]


def live(protocol_version: int = 1) -> SessionStore:
    store = SessionStore()
    store.protocol_version = protocol_version
    store.register_session("s", cwd="/w")
    return store


def send(store: SessionStore, update: dict[str, Any]) -> None:
    store.apply({"sessionId": "s", "update": update})


def with_bad(good: list[dict[str, Any]], bad: Any) -> list[Any]:
    return [good[0], bad, *good[1:]]


COMMANDS = [{"name": "plan", "description": "Plan"}, {"name": "review", "description": "Rev"}]
OPTIONS = [
    {"id": "model", "name": "Model", "type": "select", "currentValue": "a", "options": []},
    {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": True},
]
ENTRIES = [
    {"content": "one", "priority": "high", "status": "pending"},
    {"content": "two", "priority": "low", "status": "completed"},
]
BLOCKS = [
    {"type": "text", "text": "hello"},
    {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"},
]
LOCATIONS = [{"path": "/w/a.py"}, {"path": "/w/b.py", "line": 3}]


def commands_of(store: SessionStore) -> Any:
    return store.get("s").commands  # type: ignore[union-attr]


def options_of(store: SessionStore) -> Any:
    return store.get("s").config_options  # type: ignore[union-attr]


def plan_of(store: SessionStore) -> Any:
    [plan] = [e for e in store.get("s").transcript if isinstance(e, PlanSnapshot)]  # type: ignore[union-attr]
    return plan.entries


def tool_of(store: SessionStore) -> ToolCall:
    [tool] = [e for e in store.get("s").transcript if isinstance(e, ToolCall)]  # type: ignore[union-attr]
    return tool


def message_of(store: SessionStore) -> Any:
    [message] = [e for e in store.get("s").transcript if isinstance(e, AgentMessage)]  # type: ignore[union-attr]
    return message.content


#: (the array's name, protocol version, the update with the array given, where the store
#: keeps it, what else of the update must be taken, the good items).
CASES: list[tuple[str, int, Any, Any, Any, list[dict[str, Any]]]] = [
    (
        "availableCommands",
        1,
        lambda items: {"sessionUpdate": "available_commands_update", "availableCommands": items},
        commands_of,
        lambda store: True,
        COMMANDS,
    ),
    (
        "configOptions",
        1,
        lambda items: {"sessionUpdate": "config_option_update", "configOptions": items},
        options_of,
        lambda store: True,
        OPTIONS,
    ),
    (
        "entries",
        1,
        lambda items: {"sessionUpdate": "plan", "entries": items},
        plan_of,
        lambda store: store.get("s").plan is not None,
        ENTRIES,
    ),
    (
        "plan.entries",
        1,
        lambda items: {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "p", "entries": items},
        },
        plan_of,
        lambda store: True,
        ENTRIES,
    ),
    (
        "content",
        1,
        lambda items: {
            "sessionUpdate": "tool_call",
            "toolCallId": "t",
            "title": "Edit",
            "status": "in_progress",
            "content": [
                {"type": "content", "content": item} if isinstance(item, dict) else item
                for item in items
            ],
        },
        lambda store: [c["content"] for c in tool_of(store).content],
        lambda store: tool_of(store).status == "in_progress" and tool_of(store).title == "Edit",
        BLOCKS,
    ),
    (
        "locations",
        1,
        lambda items: {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "status": "completed",
            "locations": items,
        },
        lambda store: tool_of(store).locations,
        lambda store: tool_of(store).status == "completed",
        LOCATIONS,
    ),
    (
        "content",
        2,
        lambda items: {"sessionUpdate": "agent_message", "messageId": "m", "content": items},
        message_of,
        lambda store: True,
        BLOCKS,
    ),
]


@pytest.mark.parametrize("bad", BAD_ITEMS, ids=repr)
@pytest.mark.parametrize(
    ("name", "version", "make", "kept", "rest", "good"),
    CASES,
    ids=[f"{case[0]}-v{case[1]}" for case in CASES],
)
def test_a_bad_item_of_an_update_leaves_only_itself_out(
    name: str,
    version: int,
    make: Callable[[list[Any]], dict[str, Any]],
    kept: Callable[[SessionStore], Any],
    rest: Callable[[SessionStore], bool],
    good: list[dict[str, Any]],
    bad: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = live(version)
    with caplog.at_level(logging.WARNING, logger="acp_tui.wire.fields"):
        send(store, make(with_bad(good, bad)))
    transcript = store.get("s").transcript  # type: ignore[union-attr]
    assert not any(isinstance(e, UnknownUpdate) for e in transcript)
    assert kept(store) == good
    assert rest(store)
    [message] = store.left_out
    assert f"{name}[1] (expected an object, got {type(bad).__name__})" in message
    assert [r.getMessage() for r in caplog.records] == [message]


def test_the_same_fault_repeated_is_said_once() -> None:
    """A plan re-sent with each step, the same bad entry in each: one log line."""
    store = live()
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("acp_tui.wire.fields")
    logger.addHandler(handler)
    try:
        for status in ("pending", "in_progress", "completed", "completed"):
            entries = [{"content": "one", "priority": "high", "status": status}, 7]
            send(store, {"sessionUpdate": "plan", "entries": entries})
    finally:
        logger.removeHandler(handler)
    assert len(records) == 1 and "entries[1]" in records[0]
    assert plan_of(store) == [{"content": "one", "priority": "high", "status": "completed"}]


def test_a_field_that_is_no_array_still_rejects_its_update() -> None:
    """Not an item fault: the field itself is wrong, and the update is kept as unknown."""
    store = live()
    send(store, {"sessionUpdate": "available_commands_update", "availableCommands": {"a": 1}})
    transcript = store.get("s").transcript  # type: ignore[union-attr]
    assert any(isinstance(e, UnknownUpdate) for e in transcript)
    assert not store.left_out


@pytest.mark.parametrize("bad", BAD_ITEMS, ids=repr)
def test_bad_items_of_an_answer_opening_a_session_leave_only_themselves_out(bad: Any) -> None:
    store = SessionStore()
    response = {
        "sessionId": "s",
        "modes": {"currentModeId": "code", "availableModes": [{"id": "code", "name": "Code"}, bad]},
        "configOptions": with_bad(OPTIONS, bad),
        "models": {"currentModelId": "a", "availableModels": [bad, {"modelId": "a", "name": "A"}]},
    }
    store.register_session("s", cwd="/w", response=response, new=True)
    state = store.get("s")
    assert state is not None
    assert state.available_modes == [{"id": "code", "name": "Code"}]
    assert state.config_options == OPTIONS and state.current_mode_id == "code"
    [message] = store.left_out
    for name in ("modes.availableModes[1]", "configOptions[1]", "models.availableModels[0]"):
        assert name in message


@pytest.mark.parametrize("bad", BAD_ITEMS, ids=repr)
def test_a_bad_row_of_session_list_leaves_only_itself_out(bad: Any) -> None:
    store = SessionStore()
    store.set_agent_capabilities({"sessionCapabilities": {"list": {}}})
    rows = [{"sessionId": "a", "cwd": "/w"}, bad, {"sessionId": "b", "cwd": "/w"}]
    warnings = store.apply_list_page({"sessions": rows}, cwd="/w")
    assert warnings == ["sessions[1]: not an object"]
    assert {s.id for s in store.catalog("/w")} == {"a", "b"}
    [message] = store.left_out
    assert message.startswith("session/list: left out sessions[1]")


def test_an_update_of_bad_items_only_is_not_taken_and_loses_nothing() -> None:
    """No good item to keep: the update is unknown, and the commands before it stay."""
    store = live()
    send(store, {"sessionUpdate": "available_commands_update", "availableCommands": COMMANDS})
    send(store, {"sessionUpdate": "available_commands_update", "availableCommands": [1, "x"]})
    assert commands_of(store) == COMMANDS
    transcript = store.get("s").transcript  # type: ignore[union-attr]
    assert any(isinstance(e, UnknownUpdate) for e in transcript)
    assert not store.left_out
    # An empty array is no fault: the agent has no commands now.
    send(store, {"sessionUpdate": "available_commands_update", "availableCommands": []})
    assert commands_of(store) == []
