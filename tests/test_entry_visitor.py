"""Every kind of transcript entry reaches every face that renders entries through one visitor
(``acp_tui.store.entries.EntryVisitor``): the transcript's views, the Markdown export and the
headless text and JSON renderers. A new kind is a new method there, and mypy names each face
that lacks it; the probe below shows it does, on the faces as they are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from acp_tui.store.entries import Entry, EntryVisitor, MessageEntry
from tests.test_code_checks import ROOT

#: Each face, as the probe imports it: (module, class).
FACES = [
    ("acp_tui.cli.headless_render", "TextRenderer"),
    ("acp_tui.cli.headless_render", "JsonRenderer"),
    ("acp_tui.session.export.markdown", "_Markdown"),
    ("acp_tui.ui.widgets.transcript_views", "_Views"),
]


def kinds() -> list[type[Entry]]:
    """Every class of entry the store makes (the abstract bases left out)."""
    found: list[type[Entry]] = []
    todo = list(Entry.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls is not MessageEntry:
            found.append(cls)
    return found


def visitor_methods() -> set[str]:
    return {
        name
        for name, value in vars(EntryVisitor).items()
        if callable(value) and not name.startswith("_")
    }


class Recorder:
    def __getattr__(self, name: str) -> Any:
        return lambda entry, context: (name, entry, context)


def test_each_kind_calls_a_method_of_its_own() -> None:
    called: dict[str, type[Entry]] = {}
    for cls in kinds():
        assert "accept" in vars(cls), f"{cls.__name__} does not say which method renders it"
        entry = cls.__new__(cls)
        name, seen, context = entry.accept(Recorder(), "context")
        assert seen is entry and context == "context"
        assert name not in called, f"{cls.__name__} and {called[name].__name__} share {name}"
        called[name] = cls
    assert set(called) == visitor_methods()


def test_every_face_implements_every_method_of_the_visitor() -> None:
    import importlib

    for module, name in FACES:
        face = getattr(importlib.import_module(module), name)
        missing = {m for m in visitor_methods() if not callable(getattr(face, m, None))}
        assert not missing, f"{name} lacks {missing}"


PROBE = """\
from typing import Any, Protocol

{imports}
from acp_tui.store.entries import Entry, EntryVisitor


class WithANewKind(EntryVisitor[Any, Any], Protocol):
    def new_kind(self, entry: Entry, context: Any, /) -> Any: ...


def as_they_are({params}) -> None:
{as_they_are}


def with_a_new_kind({params}) -> None:
{with_a_new_kind}
"""


def test_mypy_names_every_face_that_lacks_a_new_kind(tmp_path: Path) -> None:
    """One mypy run (a cold cache of its own: some 5 s of CPU): each face is a visitor as the
    visitor is (no error), and none is once the visitor has one more kind: one error per
    face, naming it and the kind."""
    imports = "\n".join(f"from {module} import {name}" for module, name in FACES)
    params = ", ".join(f"face{i}: {name}" for i, (_, name) in enumerate(FACES))
    probe = tmp_path / "probe.py"
    probe.write_text(
        PROBE.format(
            imports=imports,
            params=params,
            as_they_are="\n".join(
                f"    a{i}: EntryVisitor[Any, Any] = face{i}" for i in range(len(FACES))
            ),
            with_a_new_kind="\n".join(
                f"    b{i}: WithANewKind = face{i}" for i in range(len(FACES))
            ),
        ),
        encoding="utf-8",
    )
    config, cache = str(ROOT / "pyproject.toml"), str(tmp_path / "cache")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", config, "--cache-dir", cache, str(probe)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == len(FACES), done.stdout
    for _, name in FACES:
        assert f'"{name}" is missing following "WithANewKind" protocol member' in done.stdout
    assert done.stdout.count("note:     new_kind") == len(FACES), done.stdout
    lines = probe.read_text(encoding="utf-8").splitlines()
    assert all("WithANewKind = face" in lines[int(e.split(":")[1]) - 1] for e in errors)
