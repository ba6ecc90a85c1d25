"""``acp-tui --serve``: the app served to a browser by textual-serve on 127.0.0.1.

One server (a subprocess on a free loopback port, always killed) for the module. A plain
HTTP check needs nothing else; the browser check drives headless Chromium over the DevTools
protocol and is skipped, with the reason, where Chromium is not installed (in CI, where .ci/run
installs it, a skip fails the run).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.cli.web import app_command, refusal, strip_serve_options
from tests.chromium import HEADLESS_FLAGS, find_chromium

CHROMIUM_FLAGS = [*HEADLESS_FLAGS, "--window-size=1200,800"]


#: How long a start or a page may take before the test fails: only a hang needs this long, so it
#: is generous (a machine busy with other work is several times slower than an idle one).
WAIT_LIMIT = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """The process and everything it started (textual-serve runs one app per browser tab)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def get(url: str, timeout: float = 2.0) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8", "replace")


def start_server(
    workdir: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """``acp-tui --serve`` on a free port in ``workdir`` (its output in server.log), once it
    answers at the address it printed (with its token); the process and that address."""
    port = free_port()
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "--serve", "--port", str(port), *args],
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + WAIT_LIMIT
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited: {log_path.read_text()}")
            printed = re.search(rf"(http://127\.0\.0\.1:{port}/[\w-]+/)", log_path.read_text())
            if printed:
                with contextlib.suppress(OSError):
                    if get(printed.group(1))[0] == 200:
                        return process, printed.group(1)
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not answer: {log_path.read_text()}")
            time.sleep(0.1)
    except BaseException:
        kill_group(process)
        raise


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Path]]:
    """The server's address (with its token) and its log."""
    workdir = Path(tempfile.mkdtemp(prefix="acp-tui-web-"))
    process, url = start_server(workdir)
    try:
        yield url, workdir / "server.log"
    finally:
        kill_group(process)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="module")
def server(served: tuple[str, Path]) -> str:
    return served[0]


def test_command_drops_only_our_serve_options() -> None:
    assert strip_serve_options(["--serve", "--port", "9000", "--demo"]) == ["--demo"]
    assert strip_serve_options(["--port=9000", "--serve", "--", "agent", "--port", "1"]) == [
        "--",
        "agent",
        "--port",
        "1",
    ]
    command = app_command(["--serve", "--yolo", "--", "my agent"])
    assert command.endswith("-m acp_tui --yolo -- 'my agent'")


def test_page_is_served_over_http(server: str) -> None:
    status, html = get(server)
    assert status == 200
    assert "textual.js" in html  # the textual-serve web client
    token = server.rstrip("/").rsplit("/", 1)[1]
    port = server.split(":")[2].split("/")[0]
    assert f'data-session-websocket-url="ws://127.0.0.1:{port}/{token}/ws"' in html
    assert "acp-tui" in html  # the page title
    status, script = get(server + "static/js/textual.js")
    assert status == 200 and "WebSocket" in script


# ---------------------------------------------------------------------------- who may drive it


def request_status(url: str, path: str, headers: dict[str, str]) -> int:
    """The status of ``GET path`` on ``url``'s server with exactly these extra headers (a
    WebSocket handshake when they ask for one: 101 is accepted)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=WAIT_LIMIT)
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        for name, value in {"Host": parts.netloc, **headers}.items():
            if value:
                connection.putheader(name, value)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def websocket(origin: str, host: str = "") -> dict[str, str]:
    headers = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        "Origin": origin,
    }
    if host:
        headers["Host"] = host
    return headers


def test_only_its_own_page_at_its_own_address_gets_in(served: tuple[str, Path]) -> None:
    """A page on any other site (cross-origin), one reached by a DNS-rebound name (wrong
    Host), anything without the token: refused, each logged with why. The page itself, its
    script and its WebSocket, at the printed address, work."""
    url, log = served
    parts = urllib.parse.urlsplit(url)
    token = parts.path.strip("/")
    own = f"http://{parts.netloc}"
    rebound = f"evil.example:{parts.port}"
    refused = {
        "the page without the token": ("/", {}),
        "the page with another token": ("/" + "x" * len(token) + "/", {}),
        "the page by a rebound name": (parts.path, {"Host": rebound}),
        "the page fetched by another site": (parts.path, {"Origin": "https://evil.example"}),
        "the script by a rebound name": (f"{parts.path}static/js/textual.js", {"Host": rebound}),
        "a cross-origin WebSocket": (f"{parts.path}ws", websocket("https://evil.example")),
        "a sandboxed page's WebSocket": (f"{parts.path}ws", websocket("null")),
        "a token-less WebSocket": ("/ws", websocket(own)),
        "a WebSocket with another token": ("/" + "x" * len(token) + "/ws", websocket(own)),
        "a WebSocket with no Origin": (f"{parts.path}ws", websocket("")),
        "a rebound page's WebSocket": (
            f"{parts.path}ws",
            websocket(f"http://{rebound}", host=rebound),
        ),
    }
    for what, (path, headers) in refused.items():
        assert request_status(url, path, headers) == 403, what
    # Rich's log handler wraps its lines: read the words.
    logged = " ".join(log.read_text(encoding="utf-8", errors="replace").split())
    assert logged.count("acp-tui --serve: refused") >= len(refused), logged[-3000:]
    assert "Origin https://evil.example is not" in logged and "Host evil.example" in logged
    assert request_status(url, parts.path, {}) == 200
    assert request_status(url, f"{parts.path}static/js/textual.js", {"Origin": own}) == 200
    assert request_status(url, f"{parts.path}ws", websocket(own)) == 101


def test_the_token_never_leaves_as_a_referer(server: str) -> None:
    with urllib.request.urlopen(server, timeout=WAIT_LIMIT) as response:
        assert response.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    ("path", "host", "origin", "is_websocket", "allowed"),
    [
        ("/T0K/", "127.0.0.1:9", None, False, True),
        ("/T0K/ws", "127.0.0.1:9", "http://127.0.0.1:9", True, True),
        ("/T0K/static/x.js", "127.0.0.1:9", "http://127.0.0.1:9", False, True),
        ("/T0K/ws", "127.0.0.1:9", None, True, False),
        ("/T0K/ws", "127.0.0.1:9", "http://localhost:9", True, False),
        ("/T0K/ws", "127.0.0.1:9", "http://127.0.0.1:9.evil.example", True, False),
        ("/T0K/ws", "127.0.0.1:9", "https://127.0.0.1:9", True, False),
        ("/T0K/", "localhost:9", None, False, False),
        ("/T0K/", "127.0.0.1:99", None, False, False),
        ("/T0K/", None, None, False, False),
        ("/T0K/", "127.0.0.1:9\r\nX: y", None, False, False),
        ("/t0k/", "127.0.0.1:9", None, False, False),
        ("/T0KX/", "127.0.0.1:9", None, False, False),
        ("/", "127.0.0.1:9", None, False, False),
        ("//T0K/", "127.0.0.1:9", None, False, False),
    ],
)
def test_the_rule_for_each_request(
    path: str, host: str | None, origin: str | None, is_websocket: bool, allowed: bool
) -> None:
    why = refusal(
        path=path,
        host=host,
        origin=origin,
        websocket=is_websocket,
        served="127.0.0.1:9",
        token="T0K",
    )
    assert (why is None) == allowed, why
    assert why is None or "\n" not in why  # logged on one line, whatever was sent


async def _drive(
    devtools_http: str, url: str, limit: float, until: str = "choose an agent"
) -> tuple[str, str]:
    """Open ``url`` in the browser's page; wait until the app has drawn its screen (``until``
    is in what it sent). Returns the body's classes and the text of what the app sent."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.get(f"{devtools_http}/json/list") as response:
            targets = await response.json(content_type=None)
        page = next(t for t in targets if t.get("type") == "page")
        async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            ids = iter(range(1, 10_000))
            received: list[str] = []

            async def call(method: str, **params: object) -> dict[str, object]:
                message_id = next(ids)
                await ws.send_json({"id": message_id, "method": method, "params": params})
                while True:
                    message = await ws.receive_json()
                    if message.get("method") == "Network.webSocketFrameReceived":
                        frame = message["params"]["response"]
                        data = frame["payloadData"]
                        if frame.get("opcode") == 2:
                            data = base64.b64decode(data).decode("utf-8", "replace")
                        received.append(data)
                    if message.get("id") == message_id:
                        return message

            await call("Network.enable")
            await call("Page.navigate", url=url)
            deadline = time.monotonic() + limit
            classes = ""
            while time.monotonic() < deadline:
                result = await call(
                    "Runtime.evaluate", expression="document.body ? document.body.className : ''"
                )
                classes = str(result.get("result", {}).get("result", {}).get("value", ""))  # type: ignore[union-attr]
                text = re.sub(r"\x1b\[[0-9;?<>]*[A-Za-z]", "", "".join(received))
                if "-first-byte" in classes and until in text:
                    return classes, text
                await asyncio.sleep(0.2)
            return classes, re.sub(r"\x1b\[[0-9;?<>]*[A-Za-z]", "", "".join(received))


def open_in_chromium(tmp_path: Path, url: str, until: str) -> tuple[str, str]:
    """Load ``url`` in headless Chromium until the app sent ``until``; (body classes, text)."""
    browser = find_chromium()
    if browser is None:
        pytest.skip("Chromium is not installed (apt-get install chromium): browser check not run")
    pytest.importorskip("aiohttp", reason="aiohttp (a textual-serve dependency) is missing")
    process = subprocess.Popen(
        [
            browser,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert process.stderr is not None
        devtools = None
        deadline = time.monotonic() + WAIT_LIMIT
        while devtools is None and time.monotonic() < deadline:
            line = process.stderr.readline().decode("utf-8", "replace")
            if not line and process.poll() is not None:
                break
            match = re.search(r"DevTools listening on ws://([^/]+)/", line)
            if match:
                devtools = f"http://{match.group(1)}"
        if devtools is None:
            pytest.fail("Chromium did not start its DevTools endpoint")
        # Keep reading its log so a full pipe never blocks the browser.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        return asyncio.run(
            asyncio.wait_for(_drive(devtools, url, limit=WAIT_LIMIT, until=until), 2 * WAIT_LIMIT)
        )
    finally:
        kill_group(process)


def test_page_shows_the_app_in_headless_chromium(server: str, tmp_path: Path) -> None:
    classes, text = open_in_chromium(tmp_path, server, "choose an agent")
    assert "-loaded" in classes, f"the web client did not connect: body class {classes!r}"
    assert "-first-byte" in classes, "the app sent nothing to the page"
    assert "choose an agent" in text, f"the launcher is not on the page: {text[-500:]!r}"
    assert "Start a session with" in text


def test_page_loads_make_no_session(tmp_path: Path) -> None:
    """Each page load runs the app on its own agent: it makes no session until a message is
    sent, so reloading the page leaves nothing in the session list."""
    data = tmp_path / "data"
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    server, url = start_server(tmp_path, "--demo", env=env)
    try:
        for _ in range(2):
            # The agent has answered initialize once its version is in the header.
            _, text = open_in_chromium(tmp_path, url, "demo agent 0.")
            assert "demo agent 0." in text, text[-500:]
    finally:
        kill_group(server)
    index = data / "acp-tui" / "sessions.sqlite3"
    assert index.exists(), "the app did not run"
    with sqlite3.connect(index) as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (0,)


# ------------------------------------------------------ the private method we rely on


def test_textual_serve_still_builds_its_app_in_the_method_we_override() -> None:
    """GuardedServer puts its guard in front of the application textual-serve builds in its
    private ``Server._make_app``: a textual-serve without that method (or building a
    different application in it) would serve the app unguarded or not at all. The version
    installed is in the range pyproject.toml pins, for this reason."""
    import inspect
    from importlib.metadata import requires, version

    from packaging.requirements import Requirement
    from textual_serve.server import Server

    from acp_tui.cli.web import guarded_server_class

    pins = [Requirement(r) for r in requires("acp-tui") or []]
    (pin,) = [r for r in pins if r.name == "textual-serve"]
    assert any(spec.operator == "<" for spec in pin.specifier), pin  # an upper bound
    assert version("textual-serve") in pin.specifier, (version("textual-serve"), pin)
    assert inspect.iscoroutinefunction(Server.__dict__.get("_make_app")), "_make_app is gone"
    guarded = guarded_server_class()
    assert "_make_app" in guarded.__dict__

    async def build() -> tuple[list[str], set[str]]:
        server = guarded("true", host="127.0.0.1", port=free_port(), token="t0k3n")
        outer = await server._make_app()
        infos = [resource.get_info() for resource in outer.router.resources()]
        prefixes = [str(info.get("prefix")) for info in infos]
        inner = infos[0]["app"]
        return prefixes, {str(name) for name in inner.router.named_resources()}

    prefixes, names = asyncio.run(build())
    assert prefixes == ["/t0k3n"]  # everything is under the token, behind the guard
    assert {"index", "websocket"} <= names  # textual-serve's page and socket, from _make_app
