"""InputHistory: JSON-lines persistence of sent prompts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acp_tui.config.history import InputHistory


def test_round_trip_keeps_order_and_multiline_text(tmp_path: Path) -> None:
    path = tmp_path / "state" / "history.jsonl"  # parent does not exist yet
    history = InputHistory(path)
    assert history.entries == []
    for text in ("first", "two\nlines", "naïve ✓ unicode"):
        assert history.append(text)
    assert history.save()

    again = InputHistory(path)
    assert again.entries == ["first", "two\nlines", "naïve ✓ unicode"]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in lines] == again.entries


def test_consecutive_repeats_and_blank_text_are_not_added() -> None:
    history = InputHistory(None)
    assert history.append("a")
    assert not history.append("a")
    assert not history.append("   \n ")
    assert history.append("b")
    assert history.append("a")  # not consecutive: kept
    assert history.entries == ["a", "b", "a"]


def test_limit_keeps_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    history = InputHistory(path, limit=3)
    for index in range(10):
        history.append(f"prompt {index}")
    assert history.entries == ["prompt 7", "prompt 8", "prompt 9"]
    history.save()
    assert InputHistory(path, limit=3).entries == ["prompt 7", "prompt 8", "prompt 9"]
    # A smaller limit applies to what is loaded too.
    assert InputHistory(path, limit=2).entries == ["prompt 8", "prompt 9"]


@pytest.mark.parametrize(
    "content",
    [b'{"text": "ok"}\n{not json\n', b"\xff\xfe\x00garbage", b'{"text": 5}\n', b"[1, 2]\n"],
)
def test_corrupt_file_is_set_aside_and_history_starts_empty(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "history.jsonl"
    path.write_bytes(content)
    history = InputHistory(path)
    assert history.entries == []
    assert not path.exists()
    assert (tmp_path / "history.jsonl.corrupt").read_bytes() == content
    # The next save writes a fresh file and leaves the bad one where it was put.
    history.append("fresh")
    assert history.save()
    assert InputHistory(path).entries == ["fresh"]
    assert (tmp_path / "history.jsonl.corrupt").exists()


def test_unreadable_path_never_raises(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    path.mkdir()  # a directory where the file should be: reading it fails
    history = InputHistory(path)
    assert history.entries == []
    assert (tmp_path / "history.jsonl.corrupt").is_dir()


def test_missing_file_is_an_empty_history_and_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    assert InputHistory(path).entries == []
    assert not path.exists()


def test_plain_string_lines_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    path.write_text('"old style"\n\n{"text": "new style"}\n', encoding="utf-8")
    assert InputHistory(path).entries == ["old style", "new style"]


def test_save_is_atomic_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.jsonl"
    history = InputHistory(path)
    history.append("one")
    assert history.save()
    assert sorted(os.listdir(tmp_path)) == ["history.jsonl"]

    # A failure at the rename keeps the old file intact and cleans up the temp file.
    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk on fire")

    history.append("two")
    monkeypatch.setattr(os, "replace", failing_replace)
    assert history.save() is False
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == ["history.jsonl"]
    assert InputHistory(path).entries == ["one"]


def test_in_memory_history_saves_nothing(tmp_path: Path) -> None:
    history = InputHistory(None)
    history.append("x")
    assert history.save()
    assert os.listdir(tmp_path) == []


def test_saving_in_the_background_writes_the_newest_list(tmp_path: Path) -> None:
    """The prompt saves on Enter without waiting for the disk; saves started one after the
    other end with the newest entries on disk, and none is left half-written."""
    path = tmp_path / "history.jsonl"
    history = InputHistory(path)
    threads = []
    for number in range(20):
        history.append(f"prompt {number}")
        threads.append(history.save_in_background())
    history.wait_saved(timeout=30)
    for thread in threads:
        thread.join(timeout=30)
    assert InputHistory(path).entries == [f"prompt {number}" for number in range(20)]
    assert [entry.name for entry in tmp_path.iterdir()] == ["history.jsonl"]


def test_search_finds_this_projects_prompts_first_then_the_others_newest_first(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.jsonl"
    history = InputHistory(path)
    history.append("Fix the flaky test", "/src/a")
    history.append("write the docs", "/src/b")
    history.append("an old prompt without a project")
    history.append("fix THE parser", "/src/a")
    history.append("Fix the flaky test", "/src/b")  # sent here too: listed once, as here
    assert history.save()
    again = InputHistory(path)  # the projects survive a restart
    found = again.search("the", "/src/a")
    assert [(f.text, f.here) for f in found] == [
        ("fix THE parser", True),
        ("Fix the flaky test", True),
        ("write the docs", False),
    ]
    assert [(f.text, f.cwd) for f in again.search("FLAKY", "/src/c")] == [
        ("Fix the flaky test", "/src/b")
    ]
    assert again.search("nothing like it", "/src/a") == []
    assert len(again.search("", None)) == 4
