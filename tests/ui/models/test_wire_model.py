"""The inspector's model (acp_tui/ui/models/wire.py): a response is named by its request's
method, a filter keeps one direction and lines with every word, and a message opened whole
is indented JSON in which nothing can act on the terminal."""

from __future__ import annotations

import json

from acp_tui.protocol.jsonrpc import TrafficRecord
from acp_tui.ui.models.wire import WireLog, parse_filter, pretty_message


def record(direction: str, message: object, note: str = "") -> TrafficRecord:
    text = message if isinstance(message, str) else json.dumps(message)
    return TrafficRecord(timestamp=0.0, direction=direction, text=text, note=note)  # type: ignore[arg-type]


def conversation() -> WireLog:
    log = WireLog()
    log.add(record("out", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
    log.add(record("in", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}))
    log.add(record("out", {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {}}))
    log.add(record("in", {"jsonrpc": "2.0", "method": "session/update", "params": {"x": 1}}))
    log.add(
        record(
            "in",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"update": {"sessionUpdate": "agent_message_chunk"}},
            },
        )
    )
    # The agent asks the client, with an id the client also used: ids are per direction.
    log.add(record("in", {"jsonrpc": "2.0", "id": 2, "method": "fs/read_text_file"}))
    log.add(record("out", {"jsonrpc": "2.0", "id": 2, "result": {"content": "hi"}}))
    log.add(record("in", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}))
    log.add(record("in", {"jsonrpc": "2.0", "id": 9, "error": {"code": -1, "message": "no"}}))
    log.add(record("in", "Welcome to SuperAgent", note="not JSON"))
    return log


def test_a_response_is_named_by_the_method_of_its_request() -> None:
    labels = [line.label for line in conversation().lines]
    assert labels == [
        "initialize",
        "initialize (result)",
        "session/prompt",
        "session/update",
        "session/update · agent_message_chunk",
        "fs/read_text_file",
        "fs/read_text_file (result)",
        "session/prompt (result)",
        "#9 (error)",
        "not JSON-RPC",
    ]


def test_a_filter_keeps_a_direction_and_lines_with_every_word() -> None:
    lines = conversation().lines

    def kept(text: str) -> list[str]:
        wanted = parse_filter(text)
        return [line.label for line in lines if wanted.matches(line)]

    assert kept("session/prompt") == ["session/prompt", "session/prompt (result)"]
    assert kept("out") == [
        "initialize",
        "session/prompt",
        "fs/read_text_file (result)",
    ]
    assert kept("→ RESULT") == ["fs/read_text_file (result)"]
    assert kept("in end_turn") == ["session/prompt (result)"]
    assert kept("welcome") == ["not JSON-RPC"]
    assert kept("message_chunk") == ["session/update · agent_message_chunk"]
    assert kept("session/prompt nothing-like-it") == []
    assert not parse_filter("   ") and parse_filter("in")


def test_a_message_opened_whole_is_indented_and_inert() -> None:
    log = WireLog()
    text = "red \x1b[31m bell \x07 flip \u202e end \x9b"
    line = log.add(
        record("in", {"jsonrpc": "2.0", "method": "session/update", "params": {"text": text}})
    )
    shown = pretty_message(line)
    assert shown.splitlines()[0] == "{"
    assert '  "method": "session/update",' in shown.splitlines()
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\x9b" not in shown
    assert "\\u202e" in shown and "\\x9b" in shown and "\\u001b[31m" in shown
    junk = log.add(record("in", "plain \x1b]0;title\x07 junk", note="not JSON"))
    assert pretty_message(junk) == "plain \\x1b]0;title\\x07 junk"


def test_a_row_is_one_line_whatever_the_message_holds() -> None:
    log = WireLog()
    line = log.add(
        record("in", {"jsonrpc": "2.0", "method": "a\nb", "params": {"t": "x\ny\u202e" * 500}})
    )
    row = line.summary(200)
    assert "\n" not in row and "\u202e" not in row
    assert len(row) < 300
