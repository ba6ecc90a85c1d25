"""``acp-tui --serve``: the same app in a web browser, via textual-serve, on 127.0.0.1, for
the person who started it and no one else.

textual-serve runs ``python -m acp_tui ARGS`` (our command line minus ``--serve`` and
``--port``) for each browser tab that connects and relays its terminal over a WebSocket:
whoever drives that WebSocket reads the screen and types into the app, which runs commands
and edits files through the agent. So:

- Only the loopback interface is used (not reachable from the network).
- Everything is served under a random token, ``http://127.0.0.1:PORT/TOKEN/``, printed when
  the server starts: the page, its scripts and the WebSocket. Another user of the machine, or a
  page that guesses the port, gets nothing.
- A browser page of any other site can still reach 127.0.0.1, so every request's ``Host`` must
  be the served address (a DNS-rebound name is refused) and its ``Origin``, when it has one,
  must be the served page's; a WebSocket must have that ``Origin`` (browsers always send one).
- Every refusal is logged on the server's terminal, with why (the request's own words shown
  escaped).

textual-serve has no hook for checking a request, so :class:`GuardedServer` wraps the
aiohttp application it builds (its ``_make_app``) in an application of ours, with public
aiohttp API only: the guard is a middleware, the token a sub-application's prefix (so
textual-serve's own URLs, built from its router, carry it).
"""

from __future__ import annotations

import hmac
import logging
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from acp_tui.cli.say import say
from acp_tui.text.safety import escaped_line

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["HOST", "app_command", "refusal", "serve", "strip_serve_options"]

HOST = "127.0.0.1"

log = logging.getLogger("acp_tui.web")


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


def refusal(
    *,
    path: str,
    host: str | None,
    origin: str | None,
    websocket: bool,
    served: str,
    token: str,
) -> str | None:
    """Why a request to the server at ``served`` (``127.0.0.1:PORT``) is refused, or None.

    The path must start with ``/TOKEN/``; ``Host`` must be ``served``; ``Origin``, when
    given, must be ``http://`` + ``served``, and a WebSocket must give it."""
    given = path.split("/", 2)[1] if path.startswith("/") else ""
    if not hmac.compare_digest(given.encode(), token.encode()):
        return "no token in the address"
    if (host or "").lower() != served:
        return f"Host {escaped_line(host or '(none)', 100)} is not {served}"
    if origin is None:
        if websocket:
            return "a WebSocket with no Origin"
        return None
    if origin.lower() != f"http://{served}":
        return f"Origin {escaped_line(origin, 100)} is not http://{served}"
    return None


Handler = Callable[["web.Request"], Awaitable["web.StreamResponse"]]


def guarded_server_class() -> type[Any]:
    """:class:`GuardedServer`, made on first use (textual-serve and aiohttp are imported
    only by ``--serve``)."""
    from aiohttp import web
    from textual_serve.server import Server

    class GuardedServer(Server):
        """textual-serve's server, reachable only at the tokened address from its own page."""

        def __init__(self, command: str, *, host: str, port: int, token: str) -> None:
            super().__init__(command, host=host, port=port, title="acp-tui")
            self.token = token
            self.served = f"{host}:{port}"
            self.url = f"http://{self.served}/{token}/"

        async def _make_app(self) -> web.Application:
            inner = await super()._make_app()
            outer = web.Application(middlewares=[self._guard])
            outer.add_subapp(f"/{self.token}/", inner)
            outer.on_response_prepare.append(_no_referrer)
            return outer

        @web.middleware
        async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
            websocket = request.headers.get("Upgrade", "").lower() == "websocket"
            why = refusal(
                path=request.path,
                host=request.headers.get("Host"),
                origin=request.headers.get("Origin"),
                websocket=websocket,
                served=self.served,
                token=self.token,
            )
            if why is None and request.path == f"/{self.token}":
                raise web.HTTPFound(self.url)
            if why is not None:
                what = "WebSocket" if websocket else request.method
                where = escaped_line(request.path.replace(self.token, "TOKEN"), 200)
                log.warning(
                    "acp-tui --serve: refused %s %s from %s: %s", what, where, request.remote, why
                )
                raise web.HTTPForbidden(
                    text="acp-tui: refused. Open the address acp-tui --serve printed.\n"
                )
            return await handler(request)

        async def on_startup(self, app: web.Application) -> None:
            say(
                f"acp-tui is served at {self.url}\n"
                "Open it in a browser on this machine. Whoever has this address can use "
                "acp-tui as you\n(read the screen, type, and so run commands and edit files "
                "through the agent): keep it to yourself.\nPress Ctrl+C to stop."
            )

    return GuardedServer


async def _no_referrer(request: web.Request, response: web.StreamResponse) -> None:
    """The page loads a font from another site: the address (with its token) never goes
    there as a Referer."""
    response.headers["Referrer-Policy"] = "no-referrer"


def serve(argv: Sequence[str], port: int = 8000, host: str = HOST) -> int:
    """Serve until Ctrl+C; returns the exit code."""
    try:
        server_class = guarded_server_class()
    except ImportError:
        say(
            "acp-tui --serve needs textual-serve: pip install textual-serve",
            file=sys.stderr,
        )
        return 2
    if not 0 < port < 65536:
        say(f"acp-tui: --port {port}: not a TCP port", file=sys.stderr)
        return 2
    server = server_class(app_command(argv), host=host, port=port, token=secrets.token_urlsafe(24))
    try:
        server.serve()
    except OSError as error:
        say(f"acp-tui: cannot serve on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
