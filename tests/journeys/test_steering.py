"""The queue from the keyboard and "send now", in a real terminal against the demo agent and
the official SDK's agent, judged on the screen and on the wire (``--record``): a queued
message edited, moved first and removed with keys only; Alt+S during a turn injects the
message into it where the agent advertises ``session/inject`` (the demo agent), else cancels
the turn and sends it at once, saying so (the SDK agent)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.journeys.frame import assert_frame, prompt_text
from tests.journeys.terminal import Terminal, agent_command

SDK = ["--", *agent_command("sdk_agent.py")]
#: (arguments, size, the prompt of a turn that runs until cancelled, the reply to "TEXT").
CASES: dict[str, tuple[list[str], int, int, str, str]] = {
    "demo-120x40": (["--demo"], 120, 40, "/slow 120", "{upper}"),
    "demo-80x24": (["--demo"], 80, 24, "/slow 120", "{upper}"),
    "sdk-120x40": (SDK, 120, 40, "slow", "You said: {text}"),
    "sdk-80x24": (SDK, 80, 24, "slow", "You said: {text}"),
}


def to_agent(recording: Path) -> list[dict[str, Any]]:
    """The messages acp-tui sent the agent, in order."""
    sent = []
    for line in recording.read_text().splitlines():
        record = json.loads(line)
        if record.get("dir") == "to_agent" and isinstance(record.get("msg"), dict):
            sent.append(record["msg"])
    return sent


def prompts(recording: Path) -> list[str]:
    return [
        " ".join(block.get("text", "") for block in m["params"]["prompt"])
        for m in to_agent(recording)
        if m.get("method") == "session/prompt"
    ]


def methods(recording: Path) -> list[str]:
    return [m["method"] for m in to_agent(recording) if "method" in m]


def started(terminal: Callable[..., Terminal], case: str) -> tuple[Terminal, Path, str, str]:
    args, cols, rows, slow, reply = CASES[case]
    term = terminal(cols=cols, rows=rows)
    recording = term.home / "wire.jsonl"
    term.start(["--record", str(recording), *args])
    term.wait_header("New session")
    term.send(slow)
    # The agent streams: the turn's prompt is on the wire (a "send now" before it would
    # cancel a prompt that never went out, which is right, but another journey).
    term.wait_for("Working on it" if slow.startswith("/slow") else "......", timeout=60)
    return term, recording, slow, reply


def answer(reply: str, text: str) -> str:
    return reply.format(upper=text.upper(), text=text)


@pytest.mark.parametrize("case", ["demo-80x24", "sdk-120x40"])
def test_a_queued_message_is_edited_moved_and_removed_with_keys_only(
    terminal: Callable[..., Terminal], case: str
) -> None:
    term, recording, slow, reply = started(terminal, case)
    term.send("first one")
    term.wait_for("⏳ first one")
    term.send("second one")
    term.wait_for("⏳ second one")
    # Up on the empty prompt: the last queued message, to edit; Up again: the one before.
    term.press("Up")
    term.wait_for("✎ editing")
    term.wait_until(lambda _: prompt_text(term) == "second one", "the last one in the prompt")
    term.type(" v2")
    term.press("Up")
    term.wait_until(lambda _: prompt_text(term) == "first one", "the one before it")
    term.wait_for("⏳ second one v2")  # the edit kept
    term.press("Down", "Down")  # past the last: an empty prompt, nothing edited
    term.wait_gone("✎ editing")
    assert "Message the agent" in prompt_text(term)
    # Tab reaches the rows, one Tab from the prompt, and the focus is seen on the row's text
    # (it was a background of rgb 30 against 39). Down to the second, Home moves it first,
    # Delete removes the other.
    unfocused = term.coloured_line("⏳ first one")
    term.press("Tab")
    term.wait_until(
        lambda _: term.coloured_line("⏳ first one") not in ("", unfocused),
        "the first row to show its focus",
    )
    term.press("Down")
    term.wait_until(
        lambda _: term.coloured_line("⏳ first one") == unfocused,
        "the focus to leave the first row",
    )
    term.press("Home")
    term.wait_until(
        lambda screen: screen.find("⏳ second one v2") < screen.find("⏳ first one"),
        "the second one moved first",
    )
    term.press("Down", "Delete")
    term.wait_gone("⏳ first one")
    term.wait_for("⏳ second one v2")
    assert_frame(term, "the queue edited with keys")
    # Escape cancels the turn; what is left of the queue goes, as it was edited.
    term.press("Escape")
    term.wait_for(answer(reply, "second one v2"), timeout=60)
    term.wait_gone("working…", timeout=60)
    assert prompts(recording) == [slow, "second one v2"]


@pytest.mark.parametrize("case", ["demo-120x40", "sdk-80x24"])
def test_send_now_injects_where_advertised_else_cancels_and_sends(
    terminal: Callable[..., Terminal], case: str
) -> None:
    term, recording, slow, reply = started(terminal, case)
    demo = case.startswith("demo")
    term.send("for later")
    term.wait_for("⏳ for later")
    term.type("right now")
    term.press("M-s")  # Alt+S: send now (Ctrl+Enter where the terminal tells it apart)
    if demo:
        # Into the running turn: the agent says what it took, and goes on.
        term.wait_for("Steered mid-turn: you said “right now”", timeout=60)
        term.wait_until(lambda s: "working…" in s and "⏳ for later" in s, "the turn goes on")
        sent = methods(recording)
        assert "session/inject" in sent and "session/cancel" not in sent
        injected = [m for m in to_agent(recording) if m.get("method") == "session/inject"]
        assert injected[0]["params"]["mode"] == "steer"
        assert injected[0]["params"]["content"] == [{"type": "text", "text": "right now"}]
        assert prompts(recording) == [slow]
        # The queued row's own key: Tab to it, Alt+S.
        term.press("Tab")
        term.wait_for("Send now")  # the row's keys in the footer
        term.press("M-s")
        term.wait_for("Steered mid-turn: you said “for later”", timeout=60)
        term.wait_gone("⏳ for later")
        assert prompts(recording) == [slow] and "session/cancel" not in methods(recording)
        term.press("Escape")
        term.wait_gone("working…", timeout=60)
    else:
        # No inject: the turn is cancelled, said so, and the message goes at once, before
        # the one queued earlier.
        term.wait_for("Cancelled the turn to send your message now", timeout=60)
        term.wait_for(answer(reply, "right now"), timeout=60)
        term.wait_for(answer(reply, "for later"), timeout=60)
        sent = methods(recording)
        assert "session/inject" not in sent
        assert prompts(recording) == [slow, "right now", "for later"], recording.read_text()
        cancel = sent.index("session/cancel")
        second = [i for i, m in enumerate(sent) if m == "session/prompt"][1]
        assert cancel < second
    assert_frame(term, "after send now")
