"""``acp-tui --serve``: the same app in a web browser, via textual-serve, on 127.0.0.1.

textual-serve runs ``python -m acp_tui ARGS`` (our command line minus ``--serve`` and
``--port``) for each browser tab that connects and relays its terminal over a websocket.
Only the loopback interface is used: the app can run commands and edit files through the
agent, so it must not be reachable from the network.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

__all__ = ["HOST", "app_command", "serve", "strip_serve_options"]

HOST = "127.0.0.1"


def strip_serve_options(argv: Sequence[str]) -> list[str]:
    """``argv`` without ``--serve`` and ``--port N`` / ``--port=N`` (only before ``--``:
    the agent's own arguments are left alone)."""
    result: list[str] = []
    items = list(argv)
    index = 0
    while index < len(items):
        item = items[index]
        if item == "--":
            result.extend(items[index:])
            break
        if item == "--serve" or item.startswith("--port="):
            index += 1
            continue
        if item == "--port":
            index += 2
            continue
        result.append(item)
        index += 1
    return result


def app_command(argv: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser session."""
    return shlex.join([sys.executable, "-m", "acp_tui", *strip_serve_options(argv)])


def serve(argv: Sequence[str], port: int = 8000, host: str = HOST) -> int:
    """Serve until Ctrl+C; returns the exit code."""
    try:
        from textual_serve.server import Server
    except ImportError:
        print(
            "acp-tui --serve needs textual-serve: pip install textual-serve",
            file=sys.stderr,
        )
        return 2
    if not 0 < port < 65536:
        print(f"acp-tui: --port {port}: not a TCP port", file=sys.stderr)
        return 2
    server = Server(app_command(argv), host=host, port=port, title="acp-tui")
    try:
        server.serve()
    except OSError as error:
        print(f"acp-tui: cannot serve on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
