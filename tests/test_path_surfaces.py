"""Every surface that touches a file for someone, against every kind of planted path.

The surfaces: ``@`` mentions (and pasted image paths), the ``@`` completion list, the fs
services' writes, a diff's file, exports, ``--record`` (a file named, or none), and replay's
input (``acp-tui replay``, ``--check``). The kinds: links to a file or folder outside, dangling
links, chains, a linked parent folder, hard links, FIFOs, sockets and devices
(the gate itself: tests/services/test_path_gate.py; the inspector's save:
tests/ui/test_replay.py). Nothing may block: each call that could runs with a deadline.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.protocol.recording import load_recording
from acp_tui.services.errors import INVALID_PARAMS, ServiceError
from acp_tui.services.files import FileService
from acp_tui.session.export.markdown import write_export
from acp_tui.session.prompts.attachments import (
    PromptCapabilities,
    build_prompt,
    image_paths_in_paste,
)
from acp_tui.store.session import SessionState
from acp_tui.ui.widgets.diff_view import first_line_in_file
from acp_tui.ui.widgets.prompt_sources import scan_files
from tests.services.test_path_gate import links, plant_everything, within_deadline

RICH = PromptCapabilities(image=True, embedded_context=True, known=True)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
SECRET = "secret\n"
#: A CLI call that blocked would be killed here and fail the test.
CLI_LIMIT = 60


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.md").write_text("mine\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "shot.png").write_bytes(PNG)
    return outside


@pytest.fixture
def specials(root: Path) -> Iterator[dict[str, Path]]:
    """A FIFO, a socket and devices, the first two planted in the project."""
    os.mkfifo(root / "pipe")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(root / "sock"))
    (root / "to-zero").symlink_to("/dev/zero")
    found = {
        "a FIFO": root / "pipe",
        "a socket": root / "sock",
        "/dev/zero": Path("/dev/zero"),
        "a link to /dev/zero": root / "to-zero",
    }
    if os.path.exists("/dev/tty"):
        found["/dev/tty"] = Path("/dev/tty")
    try:
        yield found
    finally:
        server.close()


def mention(path: Path, root: Path) -> str:
    try:
        return "@" + path.relative_to(root).as_posix()
    except ValueError:
        return f"@{path}"


# ---------------------------------------------------------------------------- @ mentions


def test_a_mention_that_leads_outside_through_a_link_is_not_sent(root: Path, outside: Path) -> None:
    """``@notes.md``, a link the agent planted to a secret: nothing of it goes to the agent,
    the message is not sent, and the person is told where it leads."""
    for what, path in links(root, outside).items():
        text = f"look at {mention(path, root)} please"
        built = within_deadline(lambda text=text: build_prompt(text, root, RICH))
        assert built.refused is not None and "outside" in built.refused, what
        assert SECRET not in repr(built.blocks), what
        assert [block["type"] for block in built.blocks] == ["text"], what


def test_a_mention_of_a_pipe_socket_or_device_is_refused_without_blocking(
    root: Path, specials: dict[str, Path]
) -> None:
    for what, path in specials.items():
        text = f"read {mention(path, root)}"
        built = within_deadline(lambda text=text: build_prompt(text, root, RICH))
        assert built.refused is not None, what
        assert "not a file" in built.refused or "outside" in built.refused, what
        assert [block["type"] for block in built.blocks] == ["text"], what


def test_mentions_that_stay_inside_or_are_written_outside_are_sent(
    root: Path, outside: Path
) -> None:
    """A link inside the project is followed; a path the person wrote outside it is their
    choice; a hard link is the file itself (no link to judge: sent as any file)."""
    (root / "docs").mkdir()
    (root / "docs" / "real.md").write_text("real\n")
    (root / "alias.md").symlink_to(root / "docs" / "real.md")
    (root / "docs-link").symlink_to(root / "docs")
    os.link(root / "notes.md", root / "hard.md")
    for text, expected in (
        ("@alias.md", "real\n"),
        ("@docs-link/real.md", "real\n"),
        (f"@{outside / 'secret.txt'}", SECRET),
        ("@hard.md", "mine\n"),
    ):
        built = build_prompt(text, root, RICH)
        assert built.refused is None, text
        assert built.blocks[1]["resource"]["text"] == expected, text


def test_a_dangling_mention_is_plain_text(root: Path, outside: Path) -> None:
    (root / "dangling").symlink_to(root / "gone.md")
    built = build_prompt("see @dangling", root, RICH)
    assert built.refused is None and len(built.blocks) == 1


def test_a_pasted_image_path_through_a_link_outside_is_pasted_as_text(
    root: Path, outside: Path, specials: dict[str, Path]
) -> None:
    (root / "shot.png").symlink_to(outside / "shot.png")
    os.mkfifo(root / "fifo.png")
    for pasted in ("shot.png", str(root / "shot.png"), "fifo.png"):
        found = within_deadline(lambda pasted=pasted: image_paths_in_paste(pasted, root))
        assert found is None, pasted
    assert image_paths_in_paste(str(outside / "shot.png"), root) == [outside / "shot.png"]


# ---------------------------------------------------------------------------- @ completion


def test_the_completion_offers_a_link_only_to_a_file_inside(
    root: Path, outside: Path, specials: dict[str, Path]
) -> None:
    planted = links(root, outside)
    (root / "docs").mkdir()
    (root / "docs" / "real.md").write_text("x")
    (root / "alias.md").symlink_to(root / "docs" / "real.md")
    (root / "loop-a").symlink_to("loop-b")
    (root / "loop-b").symlink_to("loop-a")
    listed = within_deadline(lambda: scan_files(root))
    assert "alias.md" in listed and "docs/real.md" in listed and "notes.md" in listed
    for what, path in {**planted, **specials}.items():
        if path.is_relative_to(root):
            assert path.relative_to(root).as_posix() not in listed, what
    assert not {"loop-a", "loop-b"} & set(listed)


# ---------------------------------------------------------------------------- fs services


@pytest.mark.anyio
async def test_the_agent_cannot_write_a_pipe_socket_or_device(
    root: Path, specials: dict[str, Path]
) -> None:
    async def allow(request: object) -> bool:
        return True  # even allowed outside: never one of these

    service = FileService([root], allow)
    for what, path in specials.items():
        params = {"sessionId": "s", "path": str(path), "content": "x"}
        with pytest.raises(ServiceError) as info:
            await service.write_text_file(params)
        assert info.value.code == INVALID_PARAMS, what
        with pytest.raises(ServiceError) as info:
            await service.read_text_file({"sessionId": "s", "path": str(path)})
        assert info.value.code == INVALID_PARAMS, what
    assert stat.S_ISFIFO((root / "pipe").lstat().st_mode)


@pytest.mark.anyio
async def test_an_agent_write_to_a_hard_link_leaves_the_other_name_as_it_was(
    root: Path, outside: Path
) -> None:
    os.link(outside / "secret.txt", root / "shared.txt")
    await FileService([root]).write_text_file(
        {"sessionId": "s", "path": str(root / "shared.txt"), "content": "new"}
    )
    assert (outside / "secret.txt").read_text() == SECRET


# ---------------------------------------------------------------------------- a diff's file


def test_a_diff_naming_a_pipe_or_device_is_not_read(root: Path, specials: dict[str, Path]) -> None:
    for what, path in specials.items():
        found = within_deadline(lambda path=path: first_line_in_file(str(path), "a\n", "b\n"))
        assert found is None, what
    (root / "code.py").write_text("one\ntwo\nthree\n")
    assert first_line_in_file(str(root / "code.py"), "two\n", "2\n") == 2


# ---------------------------------------------------------------------------- exports


def test_an_export_never_goes_through_what_is_planted_at_its_name(
    tmp_path: Path, outside: Path
) -> None:
    folder = tmp_path / "data" / "exports"
    folder.mkdir(parents=True)
    state = SessionState("s1")
    state.title = "Planted"
    name = time.strftime("acp-tui-Planted-%Y%m%d-%H%M%S.md")
    plant_everything(folder, name, outside)
    path = within_deadline(lambda: write_export(folder, state, "# exported\n"))
    assert path.parent == folder and path.read_text() == "# exported\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert (outside / "secret.txt").read_text() == SECRET
    assert not (outside / "created-through-a-link.txt").exists()


# ---------------------------------------------------------------------------- --record


def acp_tui(*args: str, cwd: Path, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=CLI_LIMIT,
        check=False,
        env={**os.environ, "XDG_DATA_HOME": str(data)},
    )


def test_record_refuses_links_pipes_devices_and_hard_links(
    tmp_path: Path, root: Path, outside: Path, specials: dict[str, Path]
) -> None:
    """A planted link at the record target (inside or out, dangling), a FIFO (which blocked
    for ever), a device, a file hard-linked elsewhere: refused at once, nothing written."""
    (root / "inside-link").symlink_to(root / "notes.md")
    os.link(outside / "secret.txt", root / "hard.jsonl")
    targets = {
        **links(root, outside),
        **specials,
        "a link to a file inside": root / "inside-link",
        "a hard link": root / "hard.jsonl",
    }
    for what, target in targets.items():
        shown = os.path.relpath(target, root) if target.is_relative_to(root) else str(target)
        done = acp_tui("ask", "hi", "--record", shown, "--demo", cwd=root, data=tmp_path)
        assert done.returncode == 2, (what, done.stderr)
        assert f"--record {shown}: " in done.stderr and "Traceback" not in done.stderr, what
    assert (outside / "secret.txt").read_text() == SECRET
    assert (root / "notes.md").read_text() == "mine\n"
    assert not (outside / "not-yet.txt").exists()


def test_record_without_a_file_writes_into_the_data_folder_and_says_where(
    tmp_path: Path, root: Path
) -> None:
    done = acp_tui("ask", "hello", "--record", "--demo", cwd=root, data=tmp_path / "data")
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "data" / "acp-tui" / "recordings"
    [recorded] = list(folder.iterdir())
    assert f"acp-tui: the wire was recorded in {recorded}" in done.stderr
    assert stat.S_IMODE(recorded.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(p.name for p in root.iterdir()) == ["notes.md"]  # git status stays clean
    assert load_recording(recorded).segments[0].entries


def test_record_to_a_named_file_is_private_and_replaces_an_older_one(
    tmp_path: Path, root: Path
) -> None:
    (root / "bug.jsonl").write_text("an older recording\n")
    (root / "bug.jsonl").chmod(0o644)
    done = acp_tui("ask", "hello", "--record", "bug.jsonl", "--demo", cwd=root, data=tmp_path)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((root / "bug.jsonl").stat().st_mode) == 0o600
    assert load_recording(root / "bug.jsonl").segments[0].entries
    assert f"recorded in {root / 'bug.jsonl'}" in done.stderr


# ---------------------------------------------------------------------------- replay


def test_replay_refuses_a_pipe_socket_or_device_without_blocking(
    tmp_path: Path, root: Path, specials: dict[str, Path]
) -> None:
    for what, path in specials.items():
        for check in (["--check"], []):
            done = acp_tui("replay", *check, str(path), cwd=root, data=tmp_path)
            assert done.returncode == 2, (what, done.stdout, done.stderr)
            assert "not a file" in done.stderr and "Traceback" not in done.stderr, what


def test_replay_reads_a_recording_through_a_link(tmp_path: Path, root: Path) -> None:
    """Reading is judged by the target: a link to a recording is that recording."""
    recording = Path(__file__).parent / "data" / "recordings"
    first = sorted(recording.glob("*.jsonl"))[0]
    (root / "linked.jsonl").symlink_to(first)
    done = acp_tui("replay", "--check", "linked.jsonl", cwd=root, data=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "lines," in done.stdout
