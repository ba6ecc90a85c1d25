"""The schema checker the wire tests rely on can tell a valid message from a broken one."""

from __future__ import annotations

from typing import Any

import pytest
from schema_check import SchemaError, check, check_message


def notification(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": update},
    }


@pytest.mark.parametrize(
    ("update", "valid"),
    [
        ({"sessionUpdate": "notice", "severity": "info", "title": "t"}, True),
        ({"sessionUpdate": "notice", "severity": "info"}, False),  # title is required
        ({"sessionUpdate": "notice", "severity": 3, "title": "t"}, False),
        (
            {"sessionUpdate": "compaction_update", "compactionId": "c", "status": "in_progress"},
            True,
        ),
        ({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c"}, False),
        ({"sessionUpdate": "usage_update", "used": -1, "size": 10}, False),
        (
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": "x"},
            },
            True,
        ),
        ({"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}, False),
        ({"sessionUpdate": "no_such_update"}, False),
    ],
)
def test_v1_session_updates(update: dict[str, Any], valid: bool) -> None:
    if valid:
        check_message(notification(update), 1)
    else:
        with pytest.raises(SchemaError):
            check_message(notification(update), 1)


def test_results_are_checked_by_the_method_they_answer() -> None:
    option = {
        "type": "select",
        "name": "Model",
        "currentValue": "a",
        "options": [{"value": "a", "name": "A"}],
    }
    v1 = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"sessionId": "s", "configOptions": [{**option, "id": "model"}]},
    }
    v2 = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"sessionId": "s", "configOptions": [{**option, "configId": "model"}]},
    }
    check_message(v1, 1, answered_method="session/new")
    check_message(v2, 2, answered_method="session/new")
    with pytest.raises(SchemaError):
        check_message(v1, 2, answered_method="session/new")  # v2 names it configId
    with pytest.raises(SchemaError):
        check_message(
            {"jsonrpc": "2.0", "id": 1, "result": {}}, 2, answered_method="session/prompt"
        )
    with pytest.raises(SchemaError):
        check_message({"jsonrpc": "2.0", "id": 1, "result": {}}, 1)  # answering nothing


def test_requests_and_errors() -> None:
    permission = {
        "sessionId": "s",
        "toolCall": {"toolCallId": "t"},
        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
    }
    check_message(
        {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": permission}, 1
    )
    with pytest.raises(SchemaError):
        check_message(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "session/request_permission",
                "params": permission,
            },
            2,
        )  # v2 asks with a title and a subject
    check_message({"jsonrpc": "2.0", "id": 0, "error": {"code": -32000, "message": "sign in"}}, 1)
    with pytest.raises(SchemaError):
        check_message({"jsonrpc": "2.0", "id": 0, "error": {"message": "no code"}}, 1)
    with pytest.raises(SchemaError):
        check({"id": "x", "name": "n", "args": "not a list"}, "AuthMethodTerminal")
