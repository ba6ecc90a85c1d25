"""The exported Markdown's outline: the turns are its sections, the agent's headings nest
under them, code stays as written; a tool call's command is in it."""

from __future__ import annotations

from acp_tui.session.export.markdown import transcript_markdown, under_a_turn
from acp_tui.store import SessionStore
from acp_tui.store.entries import ShellRun


def test_headings_go_two_levels_down_and_code_is_left_alone() -> None:
    text = "\n".join(
        [
            "# Title",
            "## Section one",
            "   ### indented",
            "###### deepest",
            "#not a heading",
            "```python",
            "# a comment, not a heading",
            "```",
            "~~~",
            "## inside tildes",
            "~~~",
            "####",
        ]
    )
    assert under_a_turn(text).split("\n") == [
        "### Title",
        "#### Section one",
        "   ##### indented",
        "###### deepest",
        "#not a heading",
        "```python",
        "# a comment, not a heading",
        "```",
        "~~~",
        "## inside tildes",
        "~~~",
        "######",
    ]


def test_the_export_nests_the_agents_sections_and_shows_the_command() -> None:
    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s", cwd="/w")
    store.prompt_sent("s", "# my question")

    def update(fields: dict[str, object]) -> None:
        store.apply({"sessionId": "s", "update": fields})

    update(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "## Section one\n\ntext"},
        }
    )
    update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t",
            "title": "execute",
            "kind": "execute",
            "status": "completed",
            "rawInput": {"command": "ls -la /tmp"},
        }
    )
    state = store.get("s")
    assert state is not None
    lines = transcript_markdown(state).split("\n")
    assert [line for line in lines if line.startswith("## ")] == ["## You", "## Agent"]
    assert "### my question" in lines and "#### Section one" in lines
    assert "$ ls -la /tmp" in lines


def test_output_the_agent_fenced_is_fenced_once() -> None:
    """claude-agent-acp sends a command's output as one ```console block: the export had it
    inside a fence of its own, so a viewer showed the ```console and ``` lines as output."""
    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s", cwd="/w")
    store.prompt_sent("s", "list it")
    store.apply(
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "t",
                "title": "ls -la",
                "kind": "execute",
                "status": "completed",
                "content": [
                    {
                        "type": "content",
                        "content": {"type": "text", "text": "```console\ntotal 12\nnotes.txt\n```"},
                    }
                ],
            },
        }
    )
    state = store.get("s")
    assert state is not None
    text = transcript_markdown(state)
    assert "```\ntotal 12\nnotes.txt\n```" in text
    assert "```console" not in text


def test_a_shell_mode_command_is_exported_as_the_terminal_drew_it() -> None:
    from acp_tui.text.terminal_screen import TerminalScreen

    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s", cwd="/w")
    screen = TerminalScreen(40)
    entry = store.add_shell_run("s", "make test", "/w", screen)
    store.shell_output("s", entry, b"\x1b[32m5 passed\x1b[0m\r\n10%\r100%\r\n", exit_code=2)
    state = store.get("s")
    assert state is not None
    text = transcript_markdown(state)
    assert "**Shell** `$ make test` — _exit 2_\n```text\n5 passed\n100%\n```" in text


def test_kept_shell_commands_come_back_in_place_after_a_replay() -> None:
    from acp_tui.text.terminal_screen import TerminalScreen

    store = SessionStore(clock=lambda: 1000.0)
    store.register_session("s", cwd="/w")
    coloured = TerminalScreen(40)
    coloured.feed(b"\x1b[31mred\x1b[0m line\r\n")
    kept = [
        {"after": 1, "command": "ls", "cwd": "/w", "exit_code": 0, "output": coloured.ansi()},
        {"after": 0, "command": "pwd", "cwd": "/w", "exit_code": 2, "output": "/w\r\n"},
        {"after": 9, "command": "late", "cwd": "/w", "exit_code": -2, "output": ""},
    ]
    store.shell_records = lambda session_id: kept if session_id == "s" else []
    store.begin_replay("s", cwd="/w")
    for kind, text in (("user", "one"), ("agent", "reply one"), ("user", "two")):
        store.apply(
            {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": f"{kind}_message_chunk",
                    "content": {"type": "text", "text": text},
                },
            }
        )
    state = store.end_replay("s", {})
    shape = [
        entry.command if isinstance(entry, ShellRun) else entry.kind for entry in state.transcript
    ]
    assert shape == ["pwd", "user", "agent", "ls", "user", "late"]
    ls = next(e for e in state.transcript if isinstance(e, ShellRun) and e.command == "ls")
    assert ls.screen.lines() == coloured.lines()  # its colours too
    assert "**Shell** `$ pwd` — _exit 2_" in transcript_markdown(state)
