"""The demo agent uses the protocol layer's public API only (issue 16): no private
attribute of another object, no private name imported, no subclass of Connection."""

from __future__ import annotations

import ast
from pathlib import Path

import acp_tui.demo_agent

PACKAGE = Path(acp_tui.demo_agent.__file__).parent
#: Underscored on purpose and documented: /crash exits without cleanup.
ALLOWED = {"os._exit"}


def private_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            if node.attr.startswith("__") or ast.unparse(node) in ALLOWED:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("acp_tui"):
            if not (node.module or "").startswith("acp_tui.demo_agent"):
                found += [
                    f"{path.name}:{node.lineno} imports {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
        elif isinstance(node, ast.ClassDef):
            bases = [ast.unparse(base) for base in node.bases]
            found += [
                f"{path.name}:{node.lineno} subclasses {b}" for b in bases if "Connection" in b
            ]
    return found


def test_the_demo_agent_touches_nothing_private() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 10
    problems = [problem for path in files for problem in private_uses(path)]
    assert problems == []


def test_the_check_catches_private_access(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from acp_tui.protocol.jsonrpc import _follow_ups, Connection\n"
        "class Mine(Connection):\n"
        "    async def go(self, conn):\n"
        "        await conn._send_lines(b'', 0)\n"
        "        self._fine = 1\n"
    )
    assert private_uses(sample) == [
        "sample.py:1 imports _follow_ups",
        "sample.py:2 subclasses Connection",
        "sample.py:4 ._send_lines",
    ]
