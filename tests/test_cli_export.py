"""``acp-tui export SESSION --redact`` against real agents (the demo agent and the official
SDK's): a transcript with a planted API key, a private key block, home paths and an e-mail
address is exported (Markdown and HTML) with none of them, each listed on stderr with a
masked preview; ``--recording`` makes a redacted copy of a ``--record`` file that still
replays."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from acp_tui.cli.main import main
from acp_tui.protocol.recording import load_recording

AGENTS = Path(__file__).resolve().parent / "agents"
KEY = "sk-ant-api03-" + "Qw3rTy7uIo9pAs2dFg4hJk6lZx8cVb1nM" * 2
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBQ7Z1r0t3s4k5e6y7u8i9o0p1a2s3d4f5g6h7j8k9l0zAAAAJgAAAAA\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
MAIL = "dev.ops@example.com"
OTHER = "/home/alice"
TICKET = "ACME-99881"


def prompt() -> str:
    return (
        "hello\n"
        f"my key is {KEY}\n"
        f"the deploy key:\n{PEM}\n"
        f"files in {Path.home()}/work/app.py and {OTHER}/notes.txt, ticket {TICKET}\n"
        f"write to {MAIL}"
    )


def planted() -> list[str]:
    return [KEY, KEY[14:40], "b3BlbnNzaC1rZXkt", MAIL, f"{Path.home()}/work", OTHER, TICKET]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("ACP_TUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("SDK_AGENT_STATE_DIR", str(tmp_path / "sdk-state"))
    (tmp_path / "sdk-state").mkdir()
    (tmp_path / "config.toml").write_text(
        '[export.redact_patterns]\nticket = "ACME-[0-9]{4,}"\n', encoding="utf-8"
    )
    (tmp_path / "proj").mkdir()
    return tmp_path


DEMO = ["--demo"]
SDK = ["--", sys.executable, str(AGENTS / "sdk_agent.py")]


def _ask(data: Path, agent: list[str], capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    cwd = str(data / "proj")
    assert main(["ask", prompt(), "--cwd", cwd, *extra, *agent]) == 0
    err = capsys.readouterr().err
    found = re.search(r"session: (\S+)", err)
    assert found, err
    return found.group(1)


@pytest.mark.parametrize("agent", [DEMO, SDK], ids=["demo", "sdk"])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_redacts_every_planted_secret(
    data: Path, capsys: pytest.CaptureFixture[str], agent: list[str], fmt: str
) -> None:
    session = _ask(data, agent, capsys)
    cwd = str(data / "proj")
    assert main(["export", session, "--redact", "--format", fmt, "--cwd", cwd, *agent]) == 0
    captured = capsys.readouterr()
    path = Path(captured.out.strip())
    assert path.suffix == f".{fmt}" and path.parent == data / "data" / "acp-tui" / "exports"
    text = path.read_text(encoding="utf-8")
    assert "hello" in text.lower()  # the conversation is there
    for secret in planted():
        assert secret not in text, secret
        assert secret not in captured.err, secret
    assert "Redacted by acp-tui" in text and "config pattern" in text
    # Each kind was listed, with where and a masked preview.
    listed = captured.err
    for kind in ("secret (Anthropic key)", "private key", "home directory", "e-mail address"):
        assert kind in listed, listed
    assert "config pattern 'ticket'" in listed and "entry 1 (your message)" in listed
    assert "sk-a••••••" in listed


def test_without_redact_the_export_is_as_written(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = _ask(data, DEMO, capsys)
    assert main(["export", session, "--cwd", str(data / "proj"), "--demo"]) == 0
    text = Path(capsys.readouterr().out.strip()).read_text(encoding="utf-8")
    assert KEY in text and "Redacted" not in text


def test_an_unknown_session_fails_and_writes_nothing(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "no-such-session", "--redact", *SDK]) != 0
    assert "no-such-session" in capsys.readouterr().err
    assert not (data / "data" / "acp-tui" / "exports").exists() or not any(
        (data / "data" / "acp-tui" / "exports").iterdir()
    )


def test_a_redacted_copy_of_a_recording_still_replays(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = data / "proj" / "wire.jsonl"
    _ask(data, DEMO, capsys, "--record", str(record))
    assert KEY in record.read_text(encoding="utf-8")
    assert main(["export", "--recording", str(record), "--redact"]) == 0
    captured = capsys.readouterr()
    copy = Path(captured.out.strip())
    text = copy.read_text(encoding="utf-8")
    for secret in planted():
        assert secret not in text, secret
    assert "[redacted Anthropic key]" in text and "secret (Anthropic key)" in captured.err
    recording = load_recording(copy)
    try:
        assert recording.problems == []
        assert sum(len(segment.entries) for segment in recording.segments) > 4
    finally:
        recording.close()


def test_usage_errors(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--demo"]) == 2
    assert main(["export", "--recording", "x.jsonl"]) == 2
    assert "--redact" in capsys.readouterr().err
