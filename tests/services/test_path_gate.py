"""The path gate (acp_tui/services/path_gate.py): every kind of thing a path can lead to,
judged the same way for every surface (the surfaces' own tests: tests/test_path_surfaces.py).

The classes: symlinks (to a file outside, to a folder outside, dangling, chains, a loop, a
linked parent folder), hard links, FIFOs, sockets, devices, and races (a link or a pipe put in
place between the resolution and the open). Nothing here may block: every open that could is
run in a thread with a deadline.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.services import path_gate
from acp_tui.services.path_gate import PathRefused, resolve_path

#: An open that blocks would hang for ever: a call taking this long has blocked.
DEADLINE = 20.0


def within_deadline(call: Callable[[], Any]) -> Any:
    """``call()``'s result or exception, failing the test if it blocks."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as error:
            box["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    assert not thread.is_alive(), "the call blocked"
    if "error" in box:
        raise box["error"]
    return box.get("value")


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
    (outside / "secret.txt").write_text("secret\n")
    return outside


@pytest.fixture
def unix_socket(root: Path) -> Iterator[Path]:
    path = root / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    try:
        yield path
    finally:
        server.close()


def links(root: Path, outside: Path) -> dict[str, Path]:
    """Every kind of link that leads outside ``root``, planted in it."""
    (root / "to-file").symlink_to(outside / "secret.txt")
    (root / "to-dir").symlink_to(outside)
    (root / "dangling").symlink_to(outside / "not-yet.txt")
    (root / "chain-3").symlink_to(outside / "secret.txt")
    (root / "chain-2").symlink_to("chain-3")
    (root / "chain-1").symlink_to(root / "chain-2")
    (root / "relative").symlink_to(Path("..") / outside.name / "secret.txt")
    return {
        "a link to a file outside": root / "to-file",
        "a file in a linked folder outside": root / "to-dir" / "secret.txt",
        "a dangling link to outside": root / "dangling",
        "a chain of links ending outside": root / "chain-1",
        "a relative link up and out": root / "relative",
        "dot-dot after a linked folder": root / "to-dir" / ".." / "elsewhere" / "secret.txt",
    }


# ---------------------------------------------------------------------------- resolving


def test_a_link_is_judged_by_its_target(root: Path, outside: Path) -> None:
    for what, path in links(root, outside).items():
        resolved = resolve_path(path, roots=[root])
        assert resolved.written_inside, what
        assert not resolved.inside and resolved.escapes, what
        with pytest.raises(PathRefused) as refused:
            resolved.require_file()
        assert refused.value.reason == "escapes", what
        assert "outside" in str(refused.value), what


def test_links_that_stay_inside_are_followed(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "real.txt").write_text("x")
    (root / "alias").symlink_to(root / "sub" / "real.txt")
    (root / "alias-2").symlink_to("alias")
    (root / "subdir-link").symlink_to(root / "sub")
    for name in ("alias", "alias-2", "subdir-link/real.txt"):
        resolved = resolve_path(name, base=root, roots=[root]).require_file()
        assert resolved.real == (root / "sub" / "real.txt").resolve()
        assert resolved.via_link


def test_a_path_written_outside_is_not_an_escape(root: Path, outside: Path) -> None:
    """The person's own choice of a path outside (``@/etc/hosts``) is not a link trick."""
    resolved = resolve_path(outside / "secret.txt", roots=[root])
    assert not resolved.written_inside and not resolved.escapes and not resolved.inside
    assert resolved.require_file() is resolved


def test_a_linked_root_is_resolved_like_its_paths(tmp_path: Path, root: Path) -> None:
    via = tmp_path / "via"
    via.symlink_to(root)
    assert resolve_path(via / "notes.md", roots=[via]).require_file().inside
    assert resolve_path(root / "notes.md", roots=[via]).inside


def test_no_roots_means_no_containment(outside: Path) -> None:
    assert resolve_path(outside / "secret.txt").inside


def test_each_kind_is_named(root: Path, outside: Path, unix_socket: Path) -> None:
    os.mkfifo(root / "pipe")
    (root / "loop-a").symlink_to("loop-b")
    (root / "loop-b").symlink_to("loop-a")
    kinds = {
        root / "notes.md": "file",
        root: "directory",
        root / "nothing": "missing",
        root / "notes.md" / "under-a-file": "missing",
        root / "pipe": "fifo",
        unix_socket: "socket",
        Path("/dev/null"): "character device",
        root / "loop-a": "link",
    }
    for path, kind in kinds.items():
        assert resolve_path(path).kind == kind, path


@pytest.mark.parametrize(
    ("name", "word"),
    [("pipe", "named pipe"), ("sock", "socket"), ("/dev/zero", "device"), ("/dev/tty", "device")],
)
def test_pipes_sockets_and_devices_are_refused_with_a_message(
    root: Path, unix_socket: Path, name: str, word: str
) -> None:
    if not os.path.exists(root / name):
        if name.startswith("/dev/"):
            pytest.skip(f"{name} is not on this machine")
        os.mkfifo(root / name)
    resolved = resolve_path(name, base=root, roots=[root])
    with pytest.raises(PathRefused) as refused:
        within_deadline(lambda: path_gate.open_to_read(resolved))
    assert refused.value.reason == "not a file" and word in str(refused.value)
    with pytest.raises(PathRefused):
        within_deadline(lambda: path_gate.open_for_overwrite(resolved))
    with pytest.raises(PathRefused):
        within_deadline(lambda: path_gate.replace_file(resolved, b"x"))


def test_a_link_to_a_pipe_or_device_is_refused_too(root: Path) -> None:
    os.mkfifo(root / "pipe")
    (root / "to-pipe").symlink_to(root / "pipe")
    (root / "to-zero").symlink_to("/dev/zero")
    for name in ("to-pipe", "to-zero"):
        resolved = resolve_path(name, base=root)
        with pytest.raises(PathRefused):
            within_deadline(lambda resolved=resolved: path_gate.open_to_read(resolved))


def test_a_nul_byte_is_not_a_path() -> None:
    with pytest.raises(ValueError):
        resolve_path("a\0b")


# ---------------------------------------------------------------------------- reading


def test_a_regular_file_is_read(root: Path) -> None:
    resolved = resolve_path("notes.md", base=root, roots=[root])
    assert path_gate.read_bytes(resolved, 100) == b"mine\n"
    assert path_gate.read_bytes(resolved, 3) is None  # over the limit


def test_a_link_planted_after_the_check_fails_the_open(root: Path, outside: Path) -> None:
    """The race O_NOFOLLOW closes: judged inside, then swapped for a link to outside."""
    resolved = resolve_path("notes.md", base=root, roots=[root]).require_file()
    (root / "notes.md").unlink()
    (root / "notes.md").symlink_to(outside / "secret.txt")
    with pytest.raises(PathRefused) as refused:
        path_gate.open_to_read(resolved)
    assert refused.value.reason == "changed"


def test_a_folder_swapped_for_a_link_after_the_check_fails_the_open(
    root: Path, outside: Path
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "secret.txt").write_text("mine")
    resolved = resolve_path("sub/secret.txt", base=root, roots=[root]).require_file()
    (root / "sub" / "secret.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside)
    with pytest.raises(PathRefused) as refused:
        path_gate.open_to_read(resolved)
    assert refused.value.reason == "changed"
    with pytest.raises(PathRefused):
        path_gate.replace_file(resolved, b"x")
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_a_pipe_planted_after_the_check_is_refused_without_blocking(root: Path) -> None:
    resolved = resolve_path("notes.md", base=root, roots=[root]).require_file()
    (root / "notes.md").unlink()
    os.mkfifo(root / "notes.md")
    with pytest.raises(PathRefused) as refused:
        within_deadline(lambda: path_gate.open_to_read(resolved))
    assert refused.value.reason == "changed"


# ---------------------------------------------------------------------------- creating


def plant_everything(folder: Path, name: str, outside: Path) -> None:
    """At ``name`` and its next free names: a link to a file outside, a dangling link, a
    FIFO, a hard link to a file outside, a regular file."""
    stem, _, suffix = name.partition(".")
    names = [name, *(f"{stem}-{n}.{suffix}" for n in range(2, 6))]
    (folder / names[0]).symlink_to(outside / "secret.txt")
    (folder / names[1]).symlink_to(outside / "created-through-a-link.txt")
    os.mkfifo(folder / names[2])
    os.link(outside / "secret.txt", folder / names[3])
    (folder / names[4]).write_text("an earlier export\n")


def test_a_new_file_never_goes_through_what_is_planted_at_its_name(
    tmp_path: Path, outside: Path
) -> None:
    folder = path_gate.private_directory(tmp_path / "data" / "exports")
    plant_everything(folder.real, "export.md", outside)
    path, file = within_deadline(lambda: path_gate.create_new(folder, "export.md"))
    with file:
        file.write(b"new\n")
    assert path == folder.real / "export-6.md"
    assert path.read_text() == "new\n" and not path.is_symlink()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (outside / "created-through-a-link.txt").exists()
    assert (folder.real / "export-5.md").read_text() == "an earlier export\n"


def test_the_private_folder_is_made_and_kept_0700(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    made = path_gate.private_directory(tmp_path / "a" / "b")
    assert made.kind == "directory"
    assert stat.S_IMODE((tmp_path / "a" / "b").stat().st_mode) == 0o700
    # A folder made on the way (acp-tui's data folder) is an ordinary one.
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o777 & ~umask
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    path_gate.private_directory(loose)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700


def test_a_private_folder_that_is_a_file_or_pipe_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    os.mkfifo(tmp_path / "pipe")
    for name in ("file", "pipe"):
        with pytest.raises(PathRefused):
            within_deadline(lambda name=name: path_gate.private_directory(tmp_path / name))


# ---------------------------------------------------------------------------- overwriting


def test_a_named_file_is_emptied_and_made_private(root: Path) -> None:
    target = root / "bug.jsonl"
    target.write_text("an older recording\n")
    target.chmod(0o644)
    with path_gate.open_for_overwrite(resolve_path(target, roots=[root])) as file:
        file.write(b"new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    fresh = root / "fresh.jsonl"
    with path_gate.open_for_overwrite(resolve_path(fresh, roots=[root])) as file:
        file.write(b"x")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_a_named_file_is_never_written_through_a_link(root: Path, outside: Path) -> None:
    """Outside or inside, dangling or not: a link at the name is refused, never followed."""
    (root / "inside.txt").write_text("keep\n")
    (root / "link-inside").symlink_to(root / "inside.txt")
    planted = [*links(root, outside).values(), root / "link-inside"]
    for path in planted:
        with pytest.raises(PathRefused):
            path_gate.open_for_overwrite(resolve_path(path, roots=[root]))
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (outside / "not-yet.txt").exists()
    assert (root / "inside.txt").read_text() == "keep\n"


def test_a_named_file_with_another_hard_link_is_refused(root: Path, outside: Path) -> None:
    os.link(outside / "secret.txt", root / "bug.jsonl")
    with pytest.raises(PathRefused) as refused:
        path_gate.open_for_overwrite(resolve_path(root / "bug.jsonl", roots=[root]))
    assert "hard link" in str(refused.value)
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_a_link_planted_at_a_new_name_after_the_check_is_not_followed(
    root: Path, outside: Path
) -> None:
    resolved = resolve_path(root / "new.jsonl", roots=[root])
    assert resolved.kind == "missing"
    (root / "new.jsonl").symlink_to(outside / "planted.txt")
    with pytest.raises(PathRefused) as refused:
        path_gate.open_for_overwrite(resolved)
    assert refused.value.reason == "changed"
    assert not (outside / "planted.txt").exists()


# ---------------------------------------------------------------------------- replacing


def test_replacing_leaves_a_hard_link_elsewhere_as_it_was(root: Path, outside: Path) -> None:
    os.link(outside / "secret.txt", root / "shared.txt")
    path_gate.replace_file(resolve_path(root / "shared.txt", roots=[root]), b"new\n")
    assert (root / "shared.txt").read_text() == "new\n"
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_replacing_never_makes_folders_through_a_link_planted_meanwhile(
    root: Path, outside: Path
) -> None:
    resolved = resolve_path(root / "a" / "b" / "c.txt", roots=[root])
    (root / "a").symlink_to(outside)
    with pytest.raises(PathRefused):
        path_gate.replace_file(resolved, b"x")
    assert not (outside / "b").exists()
