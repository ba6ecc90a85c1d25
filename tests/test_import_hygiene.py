"""The wire core and the store are pure Python: importing them must not load Textual or Rich.

Every module file under the packages is imported (found with pkgutil), so a module added
later is covered without touching this test.
"""

from __future__ import annotations

import json

import pytest

from tests.python_probe import run_python

PURE_PACKAGES = ["acp_tui.protocol", "acp_tui.store"]
PURE_MODULES = [
    "acp_tui.text.safety",
    "acp_tui.cli.headless",
    "acp_tui.cli.export",
    "acp_tui.devtools.replay",
    "acp_tui.devtools.wire_check",
]
FORBIDDEN = ["textual", "rich"]

_PROBE = """
import importlib, json, pkgutil, sys
packages, modules = json.loads(sys.argv[1]), json.loads(sys.argv[2])
imported = []
for name in packages:
    package = importlib.import_module(name)
    imported.append(name)
    for info in pkgutil.walk_packages(package.__path__, prefix=name + "."):
        importlib.import_module(info.name)
        imported.append(info.name)
for name in modules:
    importlib.import_module(name)
    imported.append(name)
loaded = sorted(
    m for m in sys.modules if m.split(".")[0] in {"textual", "rich"}
)
print(json.dumps({"imported": imported, "forbidden": loaded}))
"""


def _probe(packages: list[str], modules: list[str]) -> dict[str, list[str]]:
    return json.loads(run_python(_PROBE, json.dumps(packages), json.dumps(modules), timeout=60))


@pytest.mark.parametrize("package", PURE_PACKAGES)
def test_package_imports_no_textual_or_rich(package: str) -> None:
    result = _probe([package], [])
    assert f"{package}.jsonrpc" in result["imported"] or package != "acp_tui.protocol"
    assert len(result["imported"]) > 1, "pkgutil found no modules: the probe is broken"
    assert result["forbidden"] == [], f"{package} pulled in {result['forbidden']}"


def test_headless_and_text_safety_import_no_textual_or_rich() -> None:
    result = _probe([], PURE_MODULES)
    assert result["forbidden"] == []


def test_probe_would_notice_rich() -> None:
    """The probe itself works: importing Rich is detected."""
    result = _probe([], ["rich.text"])
    assert "rich" in result["forbidden"]


#: Loaded with the first Markdown drawn, not on the way to a ready prompt (about a sixth of
#: that way on a 2-core machine: bench/README.md, "Start-up").
MARKDOWN_MACHINERY = ["markdown_it", "rich.markdown", "rich.syntax", "pygments"]

_STARTUP_PROBE = """
import json, sys
import acp_tui.cli.main, acp_tui.cli.tui, acp_tui.ui.app
print(json.dumps(sorted(m for m in sys.modules if m in json.loads(sys.argv[1]))))
"""


def _startup_probe(probe: str = _STARTUP_PROBE) -> list[str]:
    """Which of MARKDOWN_MACHINERY ``probe`` left loaded."""
    return json.loads(run_python(probe, json.dumps(MARKDOWN_MACHINERY), timeout=60))


def test_the_app_loads_no_markdown_machinery_before_it_draws_markdown() -> None:
    assert _startup_probe() == []


def test_the_startup_probe_would_notice_markdown_machinery() -> None:
    probe = _STARTUP_PROBE.replace(
        "acp_tui.ui.app\n", "acp_tui.ui.app, acp_tui.ui.render.markdown\n"
    )
    assert "markdown_it" in _startup_probe(probe)
