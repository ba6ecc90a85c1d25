"""The controller compiles a fresh clone's tests once before the xdist workers start
(tests/warm_bytecode.py): what is stale, how it is shared out, and that it gets compiled."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests import warm_bytecode


def a_tree(root: Path, modules: int) -> list[Path]:
    (root / "tests").mkdir()
    paths = []
    for number in range(modules):
        path = root / "tests" / f"test_m{number}.py"
        path.write_text(
            f"def test_{number}() -> None:\n    assert {number} == {number}\n" * (number + 1)
        )
        paths.append(path)
    return paths


def controller(workers: Any) -> Any:
    return SimpleNamespace(option=SimpleNamespace(numprocesses=workers))


def test_a_module_without_bytecode_or_with_older_bytecode_is_stale(tmp_path: Path) -> None:
    _first, second, third = a_tree(tmp_path, 3)
    cache = tmp_path / "tests" / "__pycache__"
    cache.mkdir()
    tag = sys.implementation.cache_tag
    (cache / f"test_m0.{tag}-pytest-8.4.2.pyc").write_bytes(b"")  # pytest's, as new
    older = cache / f"test_m1.{tag}.pyc"
    older.write_bytes(b"")
    os.utime(older, (second.stat().st_mtime - 10, second.stat().st_mtime - 10))
    assert warm_bytecode.stale_test_modules(tmp_path) == [second, third]


def test_shares_are_balanced_by_size_and_none_is_empty(tmp_path: Path) -> None:
    paths = a_tree(tmp_path, 7)
    dealt = warm_bytecode.shares(paths, 2)
    assert sorted(path for share in dealt for path in share) == sorted(paths)
    sizes = [sum(path.stat().st_size for path in share) for share in dealt]
    assert max(sizes) - min(sizes) <= max(path.stat().st_size for path in paths)
    assert warm_bytecode.shares(paths[:1], 4) == [[paths[0]]]


def test_the_controller_compiles_the_stale_modules(tmp_path: Path) -> None:
    a_tree(tmp_path, warm_bytecode.AT_LEAST)
    assert len(warm_bytecode.stale_test_modules(tmp_path)) == warm_bytecode.AT_LEAST
    warm_bytecode.warm(controller(2), tmp_path)
    assert warm_bytecode.stale_test_modules(tmp_path) == []


def test_nothing_is_done_without_workers_or_for_a_few_modules(tmp_path: Path) -> None:
    a_tree(tmp_path, warm_bytecode.AT_LEAST)
    for workers in (None, 0, 1, "auto"):
        warm_bytecode.warm(controller(workers), tmp_path)
    assert len(warm_bytecode.stale_test_modules(tmp_path)) == warm_bytecode.AT_LEAST
    few = tmp_path / "few"
    few.mkdir()
    a_tree(few, warm_bytecode.AT_LEAST - 1)
    warm_bytecode.warm(controller(2), few)
    assert len(warm_bytecode.stale_test_modules(few)) == warm_bytecode.AT_LEAST - 1
