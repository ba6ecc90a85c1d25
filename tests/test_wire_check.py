"""``acp-tui replay --check``: clean on real recordings, and each kind of protocol error in a
deliberately broken copy of one is found and said in one line (time, direction, what)."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.devtools.replay import run_check
from acp_tui.devtools.wire_check import check_recording
from acp_tui.protocol.recording import load_recording

DATA = Path(__file__).resolve().parent / "data" / "recordings"
DEMO = DATA / "demo-permission.jsonl"
SDK = DATA / "sdk-permission.jsonl"

Lines = list[dict[str, Any]]


def demo_lines() -> Lines:
    return [json.loads(line) for line in DEMO.read_bytes().splitlines() if line.strip()]


def find(lines: Lines, predicate: Callable[[dict[str, Any]], bool]) -> int:
    for index, line in enumerate(lines):
        message = line.get("msg")
        if isinstance(message, dict) and predicate(message):
            return index
    raise AssertionError("no such line")


def method_is(name: str, direction: str = "") -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("method") == name


def answer_to(lines: Lines, method: str, nth: int = 0) -> int:
    """The line answering the ``nth`` client request ``method``."""
    requests = [
        line["msg"]["id"]
        for line in lines
        if line.get("dir") == "to_agent" and line.get("msg", {}).get("method") == method
    ]
    request_id = requests[nth]
    return find(
        lines,
        lambda m: (
            m.get("id") == request_id and "method" not in m and ("result" in m or "error" in m)
        ),
    )


def problems_of(tmp_path: Path, lines: Lines) -> list[str]:
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return [problem.format() for problem in check_recording(load_recording(path))]


def only(problems: list[str], needle: str) -> str:
    hits = [p for p in problems if needle in p]
    assert len(hits) == 1, f"expected one problem with {needle!r} in {problems}"
    return hits[0]


@pytest.mark.parametrize(
    "path",
    [
        DEMO,
        SDK,
        DATA / "claude-agent-acp-bash.jsonl",
        DATA / "fast-agent-execute.jsonl",
        DATA / "mistral-vibe-bash.jsonl",
    ],
    ids=["demo agent", "sdk agent", "claude-agent-acp", "fast-agent", "mistral-vibe"],
)
def test_real_recordings_are_clean(path: Path) -> None:
    out = io.StringIO()
    assert run_check(load_recording(path), out) == 0
    assert "no protocol errors" in out.getvalue()


def test_the_check_runs_headless_and_exits_1_with_one_line_per_error(tmp_path: Path) -> None:
    lines = demo_lines()
    lines.insert(3, {"t": 0.2, "dir": "from_agent", "junk": "not JSON", "text": "Loading model"})
    del lines[answer_to(lines, "session/prompt", 1)]
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    probe = (
        "import sys\n"
        "from acp_tui.devtools.replay import main\n"
        "code = main(['--check', sys.argv[1]])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print('LOADED', loaded)\n"
        "sys.exit(code)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 1, completed.stderr
    out = completed.stdout.splitlines()
    assert out[-1] == "LOADED []"
    assert out[0].endswith("2 protocol errors (43 lines, 1 connection)")
    assert (
        out[1]
        == "     0.200s  from_agent  junk on the agent's stdout (not JSON): Loading model  (line 4)"
    )
    assert "to_agent    session/prompt (id 4) never answered by the agent" in out[2]


def test_the_command_line_checks_too(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "replay", "--check", str(SDK)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0 and "no protocol errors" in completed.stdout
    broken = tmp_path / "b.jsonl"
    broken.write_text('{"format": "acp-tui-wire", "version": 1}\nnot json\n', encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "replay", "--check", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 1
    assert "not a recording line: not JSON" in completed.stdout and "(line 2)" in completed.stdout


def test_a_response_without_a_request(tmp_path: Path) -> None:
    lines = demo_lines()
    index = answer_to(lines, "session/new")
    lines.insert(index + 1, copy.deepcopy(lines[index]))
    problem = only(problems_of(tmp_path, lines), "which no request is waiting for")
    assert "from_agent  response to id 1, which no request is waiting for" in problem


def test_a_request_without_a_response(tmp_path: Path) -> None:
    lines = demo_lines()
    del lines[answer_to(lines, "session/list")]
    only(
        problems_of(tmp_path, lines), "to_agent    session/list (id 2) never answered by the agent"
    )


def test_a_request_of_the_agent_the_client_never_answered(tmp_path: Path) -> None:
    lines = demo_lines()
    read = find(lines, method_is("fs/read_text_file"))
    request_id = lines[read]["msg"]["id"]
    reply = next(
        i
        for i, line in enumerate(lines)
        if line.get("dir") == "to_agent"
        and line.get("msg", {}).get("id") == request_id
        and i > read
    )
    del lines[reply]
    only(problems_of(tmp_path, lines), "fs/read_text_file (id 0) never answered by the client")


def test_an_error_answer_is_a_note_with_its_data_not_a_protocol_error(tmp_path: Path) -> None:
    """An error answer is valid JSON-RPC: two testers' checks of real agents (Qwen Code's
    refused option) exited 1 on one. It is listed apart, with the reason in its data."""
    lines = demo_lines()
    index = answer_to(lines, "session/prompt", 1)
    message = lines[index]["msg"]
    del message["result"]
    message["error"] = {"code": -32603, "message": "model overloaded", "data": {"retry": 30}}
    only(
        problems_of(tmp_path, lines),
        'error answer to session/prompt: -32603 model overloaded (data: {"retry": 30})',
    )
    path = tmp_path / "noted.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = io.StringIO()
    assert run_check(load_recording(path), out) == 0
    said = out.getvalue()
    assert "no protocol errors" in said
    assert "1 error answer (valid protocol):" in said and "model overloaded" in said


def test_a_session_that_never_opened_gets_its_updates_reported(tmp_path: Path) -> None:
    lines = demo_lines()
    index = answer_to(lines, "session/new")
    message = lines[index]["msg"]
    del message["result"]
    message["error"] = {"code": -32000, "message": "Authentication required"}
    problems = problems_of(tmp_path, lines)
    only(problems, "error answer to session/new: -32000 Authentication required")
    only(problems, "which was never opened")


def test_junk_on_the_agents_stdout(tmp_path: Path) -> None:
    lines = demo_lines()
    lines.insert(
        5, {"t": 0.31, "dir": "from_agent", "junk": "not JSON", "text": "\x1b[31mWARN\x1b[0m"}
    )
    problem = only(problems_of(tmp_path, lines), "junk on the agent's stdout")
    assert "\x1b" not in problem  # the report is safe to print, like everything else


def test_a_message_sent_before_initialize_was_answered(tmp_path: Path) -> None:
    lines = demo_lines()
    new = find(lines, method_is("session/new"))
    moved = lines.pop(new)
    lines.insert(1, moved)  # before the initialize request's answer
    problem = only(problems_of(tmp_path, lines), "sent before initialize was answered")
    assert problem.endswith("session/new  (line 2)")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda u: u.update(sessionUpdate="frobnicate"),
            "session/update frobnicate is not a variant the client knows",
        ),
        (
            lambda u: u.pop("toolCallId"),
            "session/update tool_call the client could not apply: missing field 'toolCallId'",
        ),
    ],
    ids=["unknown variant", "malformed tool_call"],
)
def test_updates_the_store_cannot_apply(
    tmp_path: Path, change: Callable[[dict[str, Any]], Any], expected: str
) -> None:
    lines = demo_lines()
    index = find(
        lines,
        lambda m: (
            m.get("method") == "session/update"
            and m["params"]["update"]["sessionUpdate"] == "tool_call"
        ),
    )
    change(lines[index]["msg"]["params"]["update"])
    problem = only(problems_of(tmp_path, lines), expected)
    assert f"(line {index + 1})" in problem


def _cancelled_mid_permission(answer: dict[str, Any] | None) -> Lines:
    """The demo recording cut at its permission request, then a cancel, the permission
    answered with ``answer`` (or not at all), and the prompt answered cancelled."""
    lines = demo_lines()
    permission = find(lines, method_is("session/request_permission"))
    session = lines[permission]["msg"]["params"]["sessionId"]
    permission_id = lines[permission]["msg"]["id"]
    prompt_id = lines[answer_to(lines, "session/prompt", 0)]["msg"]["id"]
    lines = lines[: permission + 1]
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}
    lines.append({"t": 3.0, "dir": "to_agent", "msg": cancel})
    if answer is not None:
        reply = {"jsonrpc": "2.0", "id": permission_id, "result": {"outcome": answer}}
        lines.append({"t": 3.1, "dir": "to_agent", "msg": reply})
    done = {"jsonrpc": "2.0", "id": prompt_id, "result": {"stopReason": "cancelled"}}
    lines.append({"t": 3.2, "dir": "from_agent", "msg": done})
    return lines


def test_a_permission_request_left_unanswered_after_a_cancel(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, _cancelled_mid_permission(None))
    only(problems, "permission request (id 1) left unanswered after session/cancel")
    assert not any("never answered" in p for p in problems)


def test_a_permission_request_answered_otherwise_than_cancelled_after_a_cancel(
    tmp_path: Path,
) -> None:
    answer = {"outcome": "selected", "optionId": "allow_once"}
    problems = problems_of(tmp_path, _cancelled_mid_permission(answer))
    only(problems, "answered selected after session/cancel; it must be answered cancelled")
    assert problems_of(tmp_path, _cancelled_mid_permission({"outcome": "cancelled"})) == []


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"id": 99, "method": "session/list", "params": {}}, 'no "jsonrpc": "2.0" member'),
        ({"jsonrpc": "1.0", "method": "x"}, 'jsonrpc is "1.0", not "2.0"'),
        ({"jsonrpc": "2.0", "id": True, "method": "x"}, "x: bad request id true"),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "x"}, "x: bad request id"),
        ({"jsonrpc": "2.0", "method": 7}, "method is not a name: 7"),
        ({"jsonrpc": "2.0", "method": "x", "params": 3}, "x: params is not an object or an array"),
        ({"jsonrpc": "2.0", "params": {}}, "neither a request nor a response"),
        ({"jsonrpc": "2.0", "id": 5}, "response to id 5 has no result and no error"),
        ({"jsonrpc": "2.0", "id": 5, "result": 1, "error": {}}, "has both result and error"),
        ({"jsonrpc": "2.0", "id": None, "result": {}}, "a result with a null id"),
        ({"jsonrpc": "2.0", "id": 1.5e400, "result": {}}, "response with a bad id"),
        ({"jsonrpc": "2.0", "id": 3, "error": "boom"}, "malformed error object"),
    ],
)
def test_malformed_json_rpc(tmp_path: Path, message: dict[str, Any], expected: str) -> None:
    lines = demo_lines()
    lines.insert(len(lines) - 1, {"t": 50.0, "dir": "from_agent", "msg": message})
    problem = only(problems_of(tmp_path, lines), expected)
    assert problem.startswith("    50.000s  from_agent  ")


def test_a_request_id_reused_while_pending(tmp_path: Path) -> None:
    lines = demo_lines()
    prompt = find(lines, method_is("session/prompt"))
    again = copy.deepcopy(lines[prompt])
    again["msg"]["method"] = "session/set_mode"
    lines.insert(prompt + 1, again)
    problem = only(problems_of(tmp_path, lines), "reused while session/prompt")
    assert "session/set_mode: request id 3 reused" in problem


@pytest.mark.parametrize("given_up", [True, False], ids=["given up", "just left"])
def test_a_request_its_sender_gave_up_on_before_closing_is_not_an_error(
    tmp_path: Path, given_up: bool
) -> None:
    """acp-tui quitting mid-turn sends $/cancel_request for the prompt and closes: the agent
    never answering it is not the agent's fault (the check called acp-tui's own recording of
    an ordinary quit faulty). Left without the cancel, it still is reported."""
    lines = demo_lines()
    index = answer_to(lines, "session/prompt", nth=1)
    request_id = lines[index]["msg"]["id"]
    t = lines[index]["t"]
    del lines[index]
    if given_up:
        cancel = {
            "jsonrpc": "2.0",
            "method": "$/cancel_request",
            "params": {"requestId": request_id},
        }
        lines.insert(index, {"t": t, "dir": "to_agent", "msg": cancel})
    assert lines[-1].get("event") == "closed" and lines[-1]["by"] == "client"
    problems = problems_of(tmp_path, lines)
    unanswered = [p for p in problems if "never answered" in p]
    if given_up:
        assert unanswered == [], problems
    else:
        assert len(unanswered) == 1 and f"session/prompt (id {request_id})" in unanswered[0]
