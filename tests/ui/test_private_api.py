"""No module outside acp_tui/ui/textual_patches touches Textual's private API.

Read from the source (the AST), as a contributor's grep would, with what Textual itself
defines to tell its private names from ours:

- an import of a private Textual module or name (``textual._compositor``,
  ``textual.widgets._select``, ``from textual.app import _x``);
- ``self._x`` (or ``super()._x``, ``cls._x``, a ``def _x``) in a class built on Textual's, where
  ``_x`` is private to one of its Textual bases: reading, setting or overriding Textual's own;
- ``something._x`` elsewhere, where ``_x`` is a private name Textual defines and acp_tui's own
  classes do not, and ``something`` is not a module other than Textual's (``os._exit``); and
  ``getattr(something, "_x")`` alike;
- a method of a Textual object replaced from outside (``driver.process_message = ...``).

What remains necessary outside the package is listed in :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import textual

PACKAGE = Path(__file__).resolve().parents[2] / "acp_tui"
PATCHES = PACKAGE / "ui" / "textual_patches"
TEXTUAL = Path(textual.__file__).resolve().parent

#: (module path under acp_tui, what is used) -> why it stays outside the package.
ALLOWED: dict[tuple[str, str], str] = {}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _class_private_defs(node: ast.ClassDef) -> set[str]:
    """Private names one class defines: methods, class attributes, ``self._x = ...``."""
    found: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if is_private(statement.name):
                found.add(statement.name)
            for inner in ast.walk(statement):
                if (
                    isinstance(inner, ast.Attribute)
                    and isinstance(inner.ctx, ast.Store)
                    and isinstance(inner.value, ast.Name)
                    and inner.value.id in ("self", "cls")
                    and is_private(inner.attr)
                ):
                    found.add(inner.attr)
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name) and is_private(t.id))
    return found


def _classes(tree: ast.Module) -> Iterator[tuple[str, ast.ClassDef]]:
    """(qualified name, class) for every class of a module, nested ones too."""
    work: list[tuple[str, ast.AST]] = [("", tree)]
    while work:
        prefix, node = work.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = f"{prefix}{child.name}"
                yield name, child
                work.append((f"{name}.", child))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                work.append((f"{prefix}{child.name}.<locals>.", child))


class Index:
    """What a package's classes define: private names per class, and public methods."""

    def __init__(self, root: Path, package: str) -> None:
        self.private: dict[tuple[str, str], frozenset[str]] = {}
        self.methods: set[str] = set()
        for path in root.rglob("*.py"):
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            module = ".".join(parts)
            for name, node in _classes(ast.parse(path.read_text(encoding="utf-8"))):
                self.private[(module, name)] = frozenset(_class_private_defs(node))
                self.methods.update(
                    item.name
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not item.name.startswith("_")
                    and not any(
                        "property" in ast.unparse(d) or "setter" in ast.unparse(d)
                        for d in item.decorator_list
                    )
                )
        self.all_private = frozenset().union(*self.private.values())


@cache
def textual() -> Index:
    return Index(TEXTUAL, "textual")


@cache
def ours() -> Index:
    return Index(PACKAGE, "acp_tui")


def textual_private_names() -> frozenset[str]:
    return textual().all_private


def textual_method_names() -> frozenset[str]:
    """Public methods of Textual's classes (replacing one from outside with a function is a
    patch). Properties are not methods: setting one is using it."""
    return frozenset(textual().methods)


def ours_private_names() -> frozenset[str]:
    return ours().all_private


def private_of_textual_class(cls: type) -> frozenset[str]:
    """The private names a Textual class and its Textual bases define."""
    names: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "textual":
            names |= textual().private.get((base.__module__, base.__qualname__), frozenset())
    return frozenset(names)


def module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _subclasses(cls: type) -> Iterator[type]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _subclasses(sub)


def textual_private_of(module: object, class_name: str) -> frozenset[str]:
    """The private names of the Textual classes ``class_name`` (in ``module``) is built on,
    or is mixed into (a mixin's ``self`` is the Textual object it is mixed into)."""
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        return frozenset()
    names: set[str] = set()
    for sub in set(_subclasses(cls)):
        names |= private_of_textual_class(sub)
    return frozenset(names)


def _is_self(node: ast.expr) -> bool:
    if isinstance(node, ast.Name) and node.id in ("self", "cls"):
        return True
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):  # a parent that is no package: a name, not a module
        return False


def _other_modules(tree: ast.Module) -> set[str]:
    """The names a module binds to modules that are not Textual's, anywhere in it (``os._exit``
    is the os module's own): ``import os``, ``import a.b as c``, and ``from a import b`` where
    ``b`` is itself a module (``from concurrent.futures import thread``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if alias.name.split(".")[0] != "textual"
            )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] == "textual":
                continue
            found.update(
                alias.asname or alias.name
                for alias in node.names
                if _is_module(f"{node.module}.{alias.name}")
            )
    return found


def uses(path: Path, module: object | None = None) -> Iterator[tuple[int, str]]:
    """(line, what) for each touch of Textual's private API in the module at ``path``
    (imported as ``module``: by default, named from its path under acp_tui)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "textual" and any(map(is_private, parts)):
                    yield node.lineno, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            if parts[0] != "textual":
                continue
            if any(map(is_private, parts)):
                yield node.lineno, f"import {node.module}"
            for alias in node.names:
                if is_private(alias.name):
                    yield node.lineno, f"import {node.module}.{alias.name}"
    if module is None:
        module = importlib.import_module(module_of(path))
    textual_names, ours = textual_private_names(), ours_private_names()
    functions = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    other_modules = _other_modules(tree)
    in_class: dict[int, frozenset[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            private = textual_private_of(module, node.name)
            for inner in ast.walk(node):
                in_class[id(inner)] = private
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    item.name in private
                ):
                    yield item.lineno, f"def {node.name}.{item.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            if _is_self(node.value):
                if node.attr in in_class.get(id(node), ()):
                    yield node.lineno, f"{ast.unparse(node.value)}.{node.attr}"
            elif (
                node.attr in textual_names
                and node.attr not in ours
                and not (isinstance(node.value, ast.Name) and node.value.id in other_modules)
            ):
                yield node.lineno, f"{ast.unparse(node.value)}.{node.attr}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and (
            isinstance(node.value, ast.Lambda)
            or (isinstance(node.value, ast.Name) and node.value.id in functions)
        ):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and not _is_self(target.value)
                    and target.attr in textual_method_names()
                ):
                    yield node.lineno, f"{ast.unparse(target)} = (a function)"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
            and node.args[1].value in textual_names
            and node.args[1].value not in ours
        ):
            yield (
                node.lineno,
                f"{node.func.id}({ast.unparse(node.args[0])}, {node.args[1].value!r})",
            )


def ui_modules() -> list[Path]:
    """The modules that may hold Textual objects: the UI, and the command line that runs it
    (the layers below import no Textual)."""
    return sorted(
        path
        for folder in (PACKAGE / "ui", PACKAGE / "cli")
        for path in folder.rglob("*.py")
        if PATCHES not in path.parents
    )


def found_outside() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for path in ui_modules():
        for line, what in uses(path):
            found.setdefault((str(path.relative_to(PACKAGE)), what), line)
    return found


def test_no_module_outside_the_patches_touches_textuals_private_api() -> None:
    found = found_outside()
    unexplained = sorted(
        f"acp_tui/{where}:{line}: {what}"
        for (where, what), line in found.items()
        if (where, what) not in ALLOWED
    )
    assert unexplained == [], "move these into acp_tui/ui/textual_patches:\n" + "\n".join(
        unexplained
    )


def test_every_exception_is_still_needed() -> None:
    stale = sorted(set(ALLOWED) - set(found_outside()))
    assert stale == []


PLANTED = """
import os
from concurrent.futures import thread as pool_thread

import textual._time
from textual._compositor import Compositor
from textual.app import App
from textual.screen import Screen
from textual.widgets._select import SelectOverlay


class Planted(Screen):
    def _on_timer_update(self):
        self._mine = self._dirty_widgets

    def paint(self, app: App) -> None:
        app._driver.write("")
        getattr(app, "_keymap", None)
        self._own_thing = 1


class Plain:
    def __init__(self) -> None:
        self._dirty_widgets = set()  # not a Textual object: its own attribute


def leave() -> None:
    os._exit(0)  # the os module's, not Textual's
    pool_thread._shutdown = True  # a module's own, imported from its package


def hook(message):
    pass


def install(driver):
    driver.process_message = hook
"""


def test_the_check_finds_each_kind_of_touch(tmp_path: Path) -> None:
    """The check can fail: a module planted with each kind of use is caught on each, and an
    object's own private attributes are not."""
    path = tmp_path / "planted.py"
    path.write_text(PLANTED, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("planted", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = {what for _line, what in uses(path, module)}
    assert found == {
        "import textual._time",
        "import textual._compositor",
        "import textual.widgets._select",
        "def Planted._on_timer_update",
        "self._dirty_widgets",
        "app._driver",
        "getattr(app, '_keymap')",
        "driver.process_message = (a function)",
    }
