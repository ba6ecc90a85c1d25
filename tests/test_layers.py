"""The layer contract of issue 16: import-linter's contracts in pyproject.toml (the one place
the layers are stated), and our own reading of the source by the same rules, read from there,
that also forbids import cycles (every import counts, also those inside
functions and those under ``if TYPE_CHECKING:``: a module typed against another that imports it
is a cycle all the same, only hidden from the interpreter).

Layers, lowest first: ``text`` (agent text as data, formatting) beside ``wire`` (the ACP
wire's names and shapes), ``protocol`` (JSON-RPC and ACP over stdio), ``config`` (settings
and paths), ``store`` (sessions and transcripts), ``services`` (what the agent asks of the
client), ``session`` (the controller), ``ui`` (Textual), ``cli`` (entry points) beside
``devtools`` (recording and replaying the wire). ``pace`` (how the event loop gives way to a
key) is at the bottom with ``text`` and ``wire``. The demo agent is a program of its own in
the package. The faces, ``ui`` and ``cli``, import nothing of ``protocol``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "acp_tui"
PYPROJECT = PACKAGE.parent / "pyproject.toml"


def contracts() -> list[dict[str, Any]]:
    """The import-linter contracts of pyproject.toml: the one statement of the layers."""
    with PYPROJECT.open("rb") as file:
        return list(tomllib.load(file)["tool"]["importlinter"]["contracts"])


def is_ours(module: str) -> bool:
    return module.split(".")[0] == "acp_tui"


def short(module: str) -> str:
    """``acp_tui.store`` → ``store``; anything outside the package keeps its name."""
    return module.removeprefix("acp_tui.")


def rules_of(
    declared: list[dict[str, Any]],
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(what each layer may import of acp_tui, the outside packages each may not import),
    read from the contracts: a layer may import those below it (and a sibling joined by
    ``:``, never one joined by ``|``), less what a forbidden contract takes away."""
    allowed: dict[str, set[str]] = {}
    outside_forbidden: dict[str, set[str]] = {}
    for contract in declared:
        if contract["type"] != "layers":
            continue
        levels = [
            (
                [short(name.strip()) for name in re.split(r"[|:]", level)],
                "|" not in level,
            )
            for level in contract["layers"]
        ]
        for position, (members, siblings_may_import) in enumerate(levels):
            below = {name for lower, _ in levels[position + 1 :] for name in lower}
            for member in members:
                siblings = set(members) - {member} if siblings_may_import else set()
                allowed.setdefault(member, set()).update(below | siblings)
    for contract in declared:
        if contract["type"] != "forbidden":
            continue
        inside = {short(name) for name in contract["forbidden_modules"] if is_ours(name)}
        outside = {name for name in contract["forbidden_modules"] if not is_ours(name)}
        for source in map(short, contract["source_modules"]):
            allowed.setdefault(source, set()).difference_update(inside)
            outside_forbidden.setdefault(source, set()).update(outside)
    return allowed, outside_forbidden


#: What each layer may import of acp_tui (besides itself and the package root's version),
#: and the outside packages (Textual, Rich) each may not import.
ALLOWED, FORBIDDEN_OUTSIDE = rules_of(contracts())


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports_of(path: Path, here: str | None = None) -> Iterator[tuple[str, bool]]:
    """(imported module, under TYPE_CHECKING) for each import of the file (the module
    ``here``, by default named from its path); ``from X import Y`` gives X and X.Y (Y may be a
    module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    here = here or module_name(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in typing_only
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = here.split(".")
                if path.name != "__init__.py":
                    package = package[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            yield base, id(node) in typing_only
            for alias in node.names:
                yield f"{base}.{alias.name}", id(node) in typing_only


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_known_layer() -> None:
    """A new top-level module must be placed in a layer (the flat top level is gone)."""
    loose = [
        module_name(path)
        for path in sources()
        if layer_of(module_name(path)) not in ALLOWED and module_name(path) != "acp_tui"
    ]
    assert loose == []


def forbidden_outside(module: str) -> set[str]:
    """The outside packages ``module`` may not import: its layer's, and those of any part of
    a layer it is in that a contract names (``ui.models``)."""
    name = short(module)
    return {
        package
        for source, packages in FORBIDDEN_OUTSIDE.items()
        if name == source or name.startswith(source + ".")
        for package in packages
    }


def layer_problems(path: Path, module: str) -> list[str]:
    layer = layer_of(module)
    allowed = ALLOWED.get(layer, set())
    forbidden = forbidden_outside(module)
    wrong = set()
    for imported, _typing in imports_of(path, module):
        top = imported.split(".")[0]
        if top in forbidden:
            wrong.add(imported)
        if top == "acp_tui":
            target = layer_of(imported)
            if target in ("", "__version__", layer) or target in allowed:
                continue
            wrong.add(imported)
    return sorted(wrong)


@pytest.mark.parametrize("path", sources(), ids=lambda path: module_name(path))
def test_imports_follow_the_layers(path: Path) -> None:
    module = module_name(path)
    allowed = sorted(ALLOWED.get(layer_of(module), set()))
    assert layer_problems(path, module) == [], f"{module} may import only {allowed} of acp_tui"


def graph_of(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module (name: path) and the modules of ``modules`` it imports, anywhere in it (at
    the top, inside functions, under ``if TYPE_CHECKING:``)."""
    return {
        module: {imported for imported, _typing in imports_of(path, module) if imported in modules}
        - {module}
        for module, path in modules.items()
    }


def import_graph() -> dict[str, set[str]]:
    return graph_of({module_name(path): path for path in sources()})


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_there_is_no_import_cycle() -> None:
    """Imports inside functions and under ``TYPE_CHECKING`` count: a lazy import or one for the
    type checker that closes a loop is still a loop."""
    assert cycles(import_graph()) == []


def test_an_import_for_the_type_checker_closes_a_cycle(tmp_path: Path) -> None:
    """The graph reads every kind of import: a loop closed under ``TYPE_CHECKING`` is found."""
    first = tmp_path / "first.py"
    first.write_text("from acp_tui.ui.second import thing\n", encoding="utf-8")
    second = tmp_path / "second.py"
    second.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from acp_tui.ui.first import Other\n",
        encoding="utf-8",
    )
    graph = graph_of({"acp_tui.ui.first": first, "acp_tui.ui.second": second})
    assert cycles(graph) == [["acp_tui.ui.first", "acp_tui.ui.second"]]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_rules_are_read_from_the_contracts() -> None:
    """Layers below are allowed, an independent sibling (``|``) is not, a ``:`` sibling is, and
    a forbidden contract takes away both our modules and outside packages."""
    declared = [
        {
            "type": "layers",
            "layers": ["acp_tui.top", "acp_tui.a | acp_tui.b", "acp_tui.c : acp_tui.d"],
        },
        {
            "type": "forbidden",
            "source_modules": ["acp_tui.a"],
            "forbidden_modules": ["acp_tui.d", "textual"],
        },
    ]
    allowed, outside = rules_of(declared)
    assert allowed == {
        "top": {"a", "b", "c", "d"},
        "a": {"c"},
        "b": {"c", "d"},
        "c": {"d"},
        "d": {"c"},
    }
    assert outside == {"a": {"textual"}}


def test_the_layer_check_catches_an_upward_import_declared_in_pyproject(tmp_path: Path) -> None:
    """The rules of pyproject.toml as read: the store may not import the session or the ui,
    the demo agent may not import the client, config may not import the protocol."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from acp_tui.ui import app\nfrom acp_tui.protocol import jsonrpc\n", encoding="utf-8"
    )
    assert layer_problems(probe, "acp_tui.store.probe") == ["acp_tui.ui", "acp_tui.ui.app"]
    assert layer_problems(probe, "acp_tui.demo_agent.probe") == ["acp_tui.ui", "acp_tui.ui.app"]
    assert layer_problems(probe, "acp_tui.config.probe") == [
        "acp_tui.protocol",
        "acp_tui.protocol.jsonrpc",
        "acp_tui.ui",
        "acp_tui.ui.app",
    ]
    assert layer_problems(probe, "acp_tui.cli.probe") == [
        "acp_tui.protocol",
        "acp_tui.protocol.jsonrpc",
    ]
    assert layer_problems(probe, "acp_tui.devtools.probe") == []


def test_the_faces_speak_the_session_layers_words_not_the_wires(tmp_path: Path) -> None:
    """The TUI and the command line import nothing of ``protocol`` (its errors, its client,
    its process): the session layer names what they need. The dev tools (``--record``,
    ``replay``, its wire check) read and play recordings, and may."""
    probe = tmp_path / "probe.py"
    probe.write_text("from acp_tui.protocol.client import AcpError\n", encoding="utf-8")
    for face in ("ui", "ui.screens.chat", "cli"):
        assert layer_problems(probe, f"acp_tui.{face}.probe") != [], face
    for below in ("devtools", "session", "demo_agent"):
        assert layer_problems(probe, f"acp_tui.{below}.probe") == [], below
    assert "protocol" not in ALLOWED["ui"] | ALLOWED["cli"]


def test_the_wire_declaration_is_a_bottom_layer() -> None:
    """The wire's names and shapes import nothing of the app (nor does ``text``, beside
    them); everything that reads the wire may import them, except settings and paths."""
    assert ALLOWED["wire"] == set() and ALLOWED["text"] == set()
    assert {"wire", "text"} <= ALLOWED["protocol"] & ALLOWED["store"] & ALLOWED["session"]
    assert "wire" not in ALLOWED["config"]


def test_the_layer_check_catches_a_screen_import_outside_ui(tmp_path: Path) -> None:
    """The checker itself: a store module importing Textual is reported."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from acp_tui.text import safety\n"
        "def draw():\n    from textual.app import App\n"
        "if TYPE_CHECKING:\n    from acp_tui.session.agent.controller import SessionController\n",
        encoding="utf-8",
    )
    assert layer_problems(probe, "acp_tui.store.probe") == [
        "acp_tui.session.agent.controller",
        "acp_tui.session.agent.controller.SessionController",
        "textual.app",
        "textual.app.App",
    ]
    assert layer_problems(probe, "acp_tui.ui.probe") == []
    # A part of a layer held to more than its layer: the views' models draw nothing.
    assert layer_problems(probe, "acp_tui.ui.models.probe") == ["textual.app", "textual.app.App"]


# ---------------------------------------------------------------------------- import-linter

ROOT = PACKAGE.parent


def lint_imports(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``lint-imports`` beside this Python, on the checkout (never a cache)."""
    command = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(command), "--no-cache", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_import_linter_contracts_of_pyproject_are_kept() -> None:
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(contracts())} kept, 0 broken" in result.stdout


def test_import_linter_reports_a_broken_contract(tmp_path: Path) -> None:
    """The same tool on a contract the code breaks (the ui imports Textual): it fails, so a
    green run above means the contracts were checked."""
    config = tmp_path / "contracts.ini"
    config.write_text(
        "[importlinter]\nroot_package = acp_tui\ninclude_external_packages = True\n\n"
        "[importlinter:contract:probe]\nname = probe\ntype = forbidden\n"
        "source_modules = acp_tui.ui\nforbidden_modules = textual\n",
        encoding="utf-8",
    )
    result = lint_imports("--config", str(config))
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
