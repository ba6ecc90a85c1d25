from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from acp_tui.services.errors import (
    INVALID_PARAMS,
    PERMISSION_DENIED,
    RESOURCE_NOT_FOUND,
    ServiceError,
)
from acp_tui.services.files import FileService
from acp_tui.services.paths import OutsideRequest

pytestmark = pytest.mark.anyio

LINES = "one\ntwo\r\nthree\nfour\nfive"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    return outside


async def read(service: FileService, path: Path | str, **extra: object) -> str:
    result = await service.read_text_file({"sessionId": "s", "path": str(path), **extra})
    assert set(result) == {"content"}
    return result["content"]


async def test_read_whole_file(root: Path) -> None:
    (root / "a.txt").write_bytes(LINES.encode())
    assert await read(FileService([root]), root / "a.txt") == LINES


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (1, 1, "one\n"),
        (2, 2, "two\r\nthree\n"),
        (4, None, "four\nfive"),
        (None, 2, "one\ntwo\r\n"),
        (5, 10, "five"),
        (9, 3, ""),
        (3, 0, ""),
    ],
)
async def test_line_and_limit(
    root: Path, line: int | None, limit: int | None, expected: str
) -> None:
    (root / "a.txt").write_bytes(LINES.encode())
    extra = {
        key: value for key, value in {"line": line, "limit": limit}.items() if value is not None
    }
    assert await read(FileService([root]), root / "a.txt", **extra) == expected


async def test_long_lines_are_sliced_exactly(root: Path) -> None:
    long = "x" * (3 * 1024 * 1024) + "\n"
    (root / "big.txt").write_text("first\n" + long + "third\n")
    service = FileService([root])
    assert await read(service, root / "big.txt", line=2, limit=1) == long
    assert await read(service, root / "big.txt", line=3) == "third\n"


@pytest.mark.parametrize("bad", [0, -1, "2", True, 1.5])
async def test_bad_line_is_invalid(root: Path, bad: object) -> None:
    (root / "a.txt").write_text(LINES)
    with pytest.raises(ServiceError) as info:
        await read(FileService([root]), root / "a.txt", line=bad)
    assert info.value.code == INVALID_PARAMS


async def test_invalid_utf8_is_replaced(root: Path) -> None:
    (root / "bin.txt").write_bytes(b"ok \xff\xfe end\n")
    assert await read(FileService([root]), root / "bin.txt") == "ok \ufffd\ufffd end\n"


@pytest.mark.parametrize("path", ["a.txt", "./a.txt", "", "project/a.txt"])
async def test_relative_path_refused(root: Path, path: str) -> None:
    (root / "a.txt").write_text("x")
    service = FileService([root])
    with pytest.raises(ServiceError) as info:
        await service.read_text_file({"sessionId": "s", "path": path})
    assert info.value.code == INVALID_PARAMS
    with pytest.raises(ServiceError) as info:
        await service.write_text_file({"sessionId": "s", "path": path, "content": "y"})
    assert info.value.code == INVALID_PARAMS
    assert (root / "a.txt").read_text() == "x"


async def test_missing_file_not_found(root: Path) -> None:
    with pytest.raises(ServiceError) as info:
        await read(FileService([root]), root / "nope.txt")
    assert info.value.code == RESOURCE_NOT_FOUND
    assert str(root / "nope.txt") in info.value.message


async def test_directory_is_not_a_file(root: Path) -> None:
    (root / "sub").mkdir()
    with pytest.raises(ServiceError) as info:
        await read(FileService([root]), root / "sub")
    assert info.value.code == INVALID_PARAMS


async def test_fifo_is_refused_without_blocking(root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(ServiceError) as info:
        await read(FileService([root]), root / "pipe")
    assert info.value.code == INVALID_PARAMS


async def test_outside_cwd_refused(root: Path, outside: Path) -> None:
    service = FileService([root])
    for path in (outside / "secret.txt", root / ".." / "elsewhere" / "secret.txt"):
        with pytest.raises(ServiceError) as info:
            await read(service, path)
        assert info.value.code == PERMISSION_DENIED
        assert "outside" in info.value.message
    with pytest.raises(ServiceError) as info:
        await service.write_text_file(
            {"sessionId": "s", "path": str(outside / "new.txt"), "content": "x"}
        )
    assert info.value.code == PERMISSION_DENIED
    assert not (outside / "new.txt").exists()


async def test_additional_directories_are_inside(root: Path, outside: Path) -> None:
    service = FileService([root])
    with pytest.raises(ServiceError):
        await read(service, outside / "secret.txt")
    service.set_roots([root, outside])
    assert await read(service, outside / "secret.txt") == "secret\n"


async def test_symlink_escape_refused(root: Path, outside: Path) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    (root / "dangling.txt").symlink_to(outside / "new.txt")
    service = FileService([root])
    for path in (root / "link.txt", root / "linkdir" / "secret.txt"):
        with pytest.raises(ServiceError) as info:
            await read(service, path)
        assert info.value.code == PERMISSION_DENIED
    for path in (root / "link.txt", root / "linkdir" / "new.txt", root / "dangling.txt"):
        with pytest.raises(ServiceError) as info:
            await service.write_text_file({"sessionId": "s", "path": str(path), "content": "x"})
        assert info.value.code == PERMISSION_DENIED
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (outside / "new.txt").exists()


async def test_symlink_inside_is_followed_and_kept(root: Path) -> None:
    (root / "real.txt").write_text("old\n")
    (root / "alias.txt").symlink_to(root / "real.txt")
    service = FileService([root])
    assert await read(service, root / "alias.txt") == "old\n"
    await service.write_text_file(
        {"sessionId": "s", "path": str(root / "alias.txt"), "content": "new\n"}
    )
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


async def test_symlinked_root_is_resolved(tmp_path: Path, root: Path) -> None:
    (root / "a.txt").write_text("hi")
    link_root = tmp_path / "via-link"
    link_root.symlink_to(root)
    service = FileService([link_root])
    assert await read(service, root / "a.txt") == "hi"
    assert await read(service, link_root / "a.txt") == "hi"


async def test_approve_outside_allows(root: Path, outside: Path) -> None:
    asked: list[tuple[str, Path]] = []

    async def approve(request: OutsideRequest) -> bool:
        asked.append((request.operation, request.path))
        return True

    service = FileService([root], approve)
    assert await read(service, outside / "secret.txt") == "secret\n"
    await service.write_text_file(
        {"sessionId": "s", "path": str(outside / "new.txt"), "content": "x"}
    )
    assert (outside / "new.txt").read_text() == "x"
    real_outside = outside.resolve()
    assert asked == [("read", real_outside / "secret.txt"), ("write", real_outside / "new.txt")]


async def test_approve_outside_denies(root: Path, outside: Path) -> None:
    async def deny(request: OutsideRequest) -> bool:
        return False

    with pytest.raises(ServiceError) as info:
        await read(FileService([root], deny), outside / "secret.txt")
    assert info.value.code == PERMISSION_DENIED
    assert "not allowed" in info.value.message


async def test_inside_path_does_not_ask(root: Path) -> None:
    async def approve(request: OutsideRequest) -> bool:
        raise AssertionError("must not ask for a path inside the roots")

    (root / "a.txt").write_text("x")
    assert await read(FileService([root], approve), root / "a.txt") == "x"


async def test_atomic_write_new_file(root: Path) -> None:
    service = FileService([root])
    content = "héllo\r\nwörld\n"
    result = await service.write_text_file(
        {"sessionId": "s", "path": str(root / "new.txt"), "content": content}
    )
    assert result == {}
    assert (root / "new.txt").read_bytes() == content.encode()
    assert sorted(p.name for p in root.iterdir()) == ["new.txt"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((root / "new.txt").stat().st_mode) == 0o666 & ~umask


async def test_atomic_write_keeps_permissions(root: Path) -> None:
    target = root / "script.sh"
    target.write_text("#!/bin/sh\necho old\n")
    target.chmod(0o750)
    inode = target.stat().st_ino
    await FileService([root]).write_text_file(
        {"sessionId": "s", "path": str(target), "content": "#!/bin/sh\necho new\n"}
    )
    assert target.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert sorted(p.name for p in root.iterdir()) == ["script.sh"]


async def test_atomic_write_replaces_not_truncates(root: Path) -> None:
    target = root / "a.txt"
    target.write_text("old content\n")
    with target.open() as before:  # a reader holding the old file keeps seeing it whole
        await FileService([root]).write_text_file(
            {"sessionId": "s", "path": str(target), "content": "new"}
        )
        assert before.read() == "old content\n"
    assert target.read_text() == "new"


async def test_write_read_only_file_refused(root: Path) -> None:
    target = root / "locked.txt"
    target.write_text("keep")
    target.chmod(0o444)
    with pytest.raises(ServiceError) as info:
        await FileService([root]).write_text_file(
            {"sessionId": "s", "path": str(target), "content": "x"}
        )
    assert info.value.code == PERMISSION_DENIED
    assert target.read_text() == "keep"
    assert sorted(p.name for p in root.iterdir()) == ["locked.txt"]


async def test_write_makes_missing_parent_directories(root: Path) -> None:
    """As the agent's own write tool would: an agent that writes a new module in a new folder
    through the client has no other way to make the folder."""
    target = root / "no" / "dir" / "a.txt"
    await FileService([root]).write_text_file(
        {"sessionId": "s", "path": str(target), "content": "x"}
    )
    assert target.read_text() == "x"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.txt"]


async def test_write_under_a_file_is_refused_and_makes_nothing(root: Path) -> None:
    (root / "plain").write_text("a file")
    with pytest.raises(ServiceError) as info:
        await FileService([root]).write_text_file(
            {"sessionId": "s", "path": str(root / "plain" / "sub" / "a.txt"), "content": "x"}
        )
    assert info.value.code == INVALID_PARAMS
    assert "a file is in the way" in info.value.message
    assert (root / "plain").read_text() == "a file"


async def test_a_missing_file_reads_as_resource_not_found_in_words_too(root: Path) -> None:
    """The code and the SDKs' words: some agents tell a new file by the message, not the code
    (Gemini CLI's check looks for "Resource not found")."""
    with pytest.raises(ServiceError) as info:
        await FileService([root]).read_text_file({"sessionId": "s", "path": str(root / "new")})
    assert info.value.code == RESOURCE_NOT_FOUND
    assert info.value.message.startswith("Resource not found: ")
    assert str(root / "new") in info.value.message


async def test_write_over_directory_refused(root: Path) -> None:
    (root / "sub").mkdir()
    with pytest.raises(ServiceError) as info:
        await FileService([root]).write_text_file(
            {"sessionId": "s", "path": str(root / "sub"), "content": "x"}
        )
    assert info.value.code == INVALID_PARAMS
    assert (root / "sub").is_dir()


async def test_write_requires_string_content(root: Path) -> None:
    with pytest.raises(ServiceError) as info:
        await FileService([root]).write_text_file(
            {"sessionId": "s", "path": str(root / "a.txt"), "content": 3}
        )
    assert info.value.code == INVALID_PARAMS


async def test_error_to_jsonrpc() -> None:
    error = ServiceError(RESOURCE_NOT_FOUND, "gone", {"path": "/x"})
    assert error.to_jsonrpc() == {"code": -32002, "message": "gone", "data": {"path": "/x"}}
    assert ServiceError(-32603, "boom").to_jsonrpc() == {"code": -32603, "message": "boom"}
