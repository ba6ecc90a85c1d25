"""No process started for an agent outlives acp-tui.

Agents and the terminals they ask for run in their own process groups, and shutdown signals
those groups; but a process that calls ``setsid`` (a daemon, ``setsid sleep &``, ``nohup``
with a double fork) leaves the group, and an agent's children outlive a crashed agent. Three
mechanisms:

- **Marking.** Every agent and terminal process gets :data:`OWNER_VAR` in its environment:
  this acp-tui's pid, a random token, and a tag naming the agent or terminal. Descendants
  inherit it, and the system keeps a process's environment as it was at exec, so a process
  cannot take the mark off itself (only a new program started with a cleared environment
  can, see below).
- **Sweeping.** :func:`sweep` kills every process that carries the mark of one agent or
  terminal (when it is released, stopped or crashed) or any of ours (:func:`sweep` with no tag,
  at exit). Processes and their environments are read through psutil, so this works wherever
  psutil reads them (Linux, macOS, the BSDs, Windows); a process whose environment cannot be
  read (another user's) is not ours to kill.
- **Subreaper** (Linux only). acp-tui makes itself a child subreaper
  (``prctl(PR_SET_CHILD_SUBREAPER)``): an orphan anywhere below it is re-parented to it rather
  than to init. Orphans that exit are reaped here (:func:`reap`), so a busy agent cannot fill
  the process table with zombies. An orphan re-parented to us that carries no mark (it
  cleared its environment) is swept too, unless it carries :data:`SPARE_VAR` with this
  process's token: that is set in acp-tui's own environment and removed from every agent's,
  so what acp-tui itself starts for the person (a browser opening a link) is never taken for
  an agent's leftover.

Elsewhere (macOS, the BSDs, Windows) there is no subreaper: marked processes are still swept,
a process that cleared its environment escapes, and process groups are the rest of what the
platform gives. Where psutil cannot read environments at all, sweeping is off
(:func:`supported`) and shutdown signals the process groups, even after the leader has exited.

Direct children that asyncio or a thread waits for are registered (:func:`register`) and
never reaped here, and no zombie is reaped while one is being spawned (:func:`spawning` on the
event loop, :func:`spawning_from_thread` elsewhere), so an exit status another waiter is about
to collect is never taken from it: Python's ``subprocess`` reads a stolen status as exit 0.
Children acp-tui runs itself go through :mod:`acp_tui.services.children`.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from itertools import count
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psutil

log = logging.getLogger(__name__)

OWNER_VAR = "ACP_TUI_OWNER"
SPARE_VAR = "ACP_TUI_SPARE"
_PR_SET_CHILD_SUBREAPER = 36
#: Passes of a sweep: each can find processes forked while the previous pass was killing.
_SWEEP_PASSES = 5
#: How long a sweep waits, at most, for processes caught in the middle of an exec to show
#: their environment (an exec takes well under a millisecond; a busy machine can pause one).
_SETTLE_SECONDS = 0.2

_token = os.urandom(8).hex()  # not `secrets`: its import costs start-up time
_tags = count(1)
_enabled = False
_subreaper = False
_supported: bool | None = None
_registered: set[int] = set()
_spawning = 0
#: Held by a thread between starting a child and registering it, and by :func:`reap`: a
#: child started from a thread (git, an editor, shell mode) is never reaped before it is
#: registered, so its exit status is never taken from the code that waits for it.
_spawn_lock = threading.Lock()
#: psutil's handle on each process seen by the last scan, by pid.
_handles: dict[int, psutil.Process] = {}


def supported() -> bool:
    """Whether marking and sweeping work here: psutil reads process environments (probed on
    this process once)."""
    global _supported
    if _supported is None:
        try:
            import psutil

            _supported = isinstance(psutil.Process(os.getpid()).environ(), dict)
        except Exception:  # an unsupported platform: psutil raises what it has
            _supported = False
    return _supported


def has_subreaper() -> bool:
    """Whether this process is a child subreaper (Linux, once :func:`enable` ran)."""
    return _subreaper


def enable() -> bool:
    """Sweep at exit and, on Linux, make this process a child subreaper; safe to call again.
    Returns whether sweeping is in force (False where psutil reads no environments)."""
    global _enabled, _subreaper
    if _enabled:
        return True
    if not supported():
        return False
    _subreaper = _become_subreaper()
    if _subreaper:
        os.environ[SPARE_VAR] = _spare_value()
    _enabled = True
    atexit.register(sweep)
    return True


def _become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: only a process that starts an agent pays for it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            log.warning("cannot become a child subreaper (errno %d)", ctypes.get_errno())
            return False
    except (OSError, AttributeError):
        return False
    return True


def new_tag(kind: str) -> str:
    """A tag for one agent or terminal process and its descendants."""
    return f"{kind}-{next(_tags)}"


def child_env(tag: str, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a process started for an agent: ours, then ``overrides``, then
    the mark (which the overrides cannot replace), without the spare mark."""
    env = dict(os.environ)
    if overrides:
        env.update(overrides)
    env.pop(SPARE_VAR, None)
    env[OWNER_VAR] = _owner_value(tag)
    return env


def register(pid: int) -> None:
    """A direct child something else waits for (asyncio, a thread): never reaped here."""
    _registered.add(pid)


def unregister(pid: int) -> None:
    _registered.discard(pid)


@contextlib.contextmanager
def spawning() -> Iterator[None]:
    """Around a spawn on the event loop: its child exists before it can be registered."""
    global _spawning
    _spawning += 1
    try:
        yield
    finally:
        _spawning -= 1


@contextlib.contextmanager
def spawning_from_thread() -> Iterator[None]:
    """Around a blocking spawn (``subprocess.Popen``) and the :func:`register` of its pid, in
    any thread: :func:`reap`, wherever it runs, waits for neither."""
    with _spawn_lock:
        yield


def sweep(tag: str | None = None) -> int:
    """Kill every process marked with ``tag`` (or any of ours when None), and every unmarked
    orphan re-parented to us; then reap what is dead. Returns how many were signalled.
    Quick and synchronous: one scan of the processes per round."""
    if not supported():
        return 0
    wanted = _owner_value(tag) if tag is not None else _owner_value("")
    killed = 0
    passes = 0
    settle_by = time.monotonic() + _SETTLE_SECONDS
    while passes < _SWEEP_PASSES:
        victims: list[int] = []
        unsettled = False
        orphans = _children() - _registered if _subreaper else set()
        for pid in _processes():
            verdict = _is_victim(pid, wanted, exact=tag is not None, orphan=pid in orphans)
            unsettled = unsettled or verdict is None
            if verdict:
                victims.append(pid)
        killed += sum(_kill(pid) for pid in victims)
        if victims:
            passes += 1
        elif not unsettled or time.monotonic() > settle_by:
            break
        else:
            time.sleep(0.001)  # a process in the middle of an exec: look again once it is done
    reap()
    if killed:
        log.info("killed %d leftover process(es) of %s", killed, tag or "acp-tui's agents")
    return killed


def kill_everything() -> None:
    """At a forced exit (acp-tui ends without stopping its agents in order): SIGKILL every
    direct child's process group (agents and terminals lead their own), then every other
    process of ours (:func:`sweep`). Synchronous: the caller ends the process next."""
    for pid in list(_registered):
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(OSError):
                kill(pid, signal.SIGKILL)
    sweep()


def reap() -> int:
    """Collect the exit status of orphans re-parented to us that have exited (never one
    that asyncio or a thread waits for). Returns how many were reaped."""
    if not _subreaper or _spawning:
        return 0
    if not _spawn_lock.acquire(blocking=False):
        return 0  # a thread is starting a child: reap the next time
    try:
        return _reap_exited()
    finally:
        _spawn_lock.release()


def _reap_exited() -> int:
    reaped = 0
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return reaped
        if info is None or info.si_pid in _registered:
            return reaped  # nothing dead, or a registered child (collected by its waiter)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(info.si_pid, os.WNOHANG)
            reaped += 1


def is_marked(pid: int, tag: str | None = None) -> bool:
    """Whether a process carries our mark (``tag``'s, or any of ours). For tests."""
    wanted = _owner_value(tag) if tag is not None else _owner_value("")
    marker = _marker(_environ(pid))
    return marker is not None and (
        marker == wanted if tag is not None else marker.startswith(wanted)
    )


# -- internals -------------------------------------------------------------------------------


def _owner_value(tag: str) -> str:
    return f"{os.getpid()}:{_token}:{tag}"


def _spare_value() -> str:
    return f"{os.getpid()}:{_token}"


def _processes() -> list[int]:
    """Every process but this one. psutil keeps its handle on each between scans, so a
    process seen before costs only the read of its environment."""
    import psutil

    me = os.getpid()
    _handles.clear()
    for process in psutil.process_iter():
        if process.pid != me:
            _handles[process.pid] = process
    return list(_handles)


def _handle(pid: int) -> psutil.Process | None:
    import psutil

    handle = _handles.get(pid)
    if handle is None:
        try:
            handle = psutil.Process(pid)
        except psutil.Error:
            return None
    return handle


def _environ(pid: int) -> dict[str, str] | None:
    """The process's environment as it was at exec; None when it is gone or not ours to read
    (another user's): not ours to kill either."""
    import psutil

    handle = _handle(pid)
    if handle is None:
        return None
    try:
        return handle.environ()
    except (psutil.Error, OSError):
        return None


def _marker(environ: Mapping[str, str] | None) -> str | None:
    return environ.get(OWNER_VAR) if environ else None


def _children() -> set[int]:
    """This process's children: with the subreaper, every orphan below it is one."""
    import psutil

    try:
        return {child.pid for child in psutil.Process(os.getpid()).children()}
    except psutil.Error:
        return set()


def _kill(pid: int) -> bool:
    try:
        if hasattr(signal, "SIGKILL"):
            os.kill(pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            import psutil

            psutil.Process(pid).kill()
    except (ProcessLookupError, PermissionError):
        return False
    except Exception:  # psutil.Error, where os.kill is not the way
        return False
    return True


def _is_victim(pid: int, wanted: str, *, exact: bool, orphan: bool) -> bool | None:
    """Whether to kill ``pid`` (``orphan``: a child of ours that asyncio does not wait for);
    None when it cannot be told yet (in the middle of an exec)."""
    environ = _environ(pid)
    if environ == {}:
        settled, environ = _empty_environ_confirmed(pid)
        if not settled:
            return None
    marker = _marker(environ)
    if marker is not None and (marker == wanted if exact else marker.startswith(wanted)):
        return True
    if not orphan:
        return False
    # An orphan re-parented to us: an agent's, unless acp-tui itself started it.
    return environ is not None and environ.get(SPARE_VAR) != _spare_value() and not _is_ours(marker)


def _empty_environ_confirmed(pid: int) -> tuple[bool, dict[str, str] | None]:
    """Read again an environment that read empty: whether it is settled, and what it is
    then (Linux; elsewhere an empty environment is taken as read). During an exec, ``/proc`` shows the new program's
    environment empty until it is laid out; taken at its word, a browser acp-tui opened would
    look like an orphan that cleared its own. It is empty only if it stays so while the
    environment's place in memory (ASLR puts it elsewhere on every exec, and it is 0 while
    one is under way) stays the same."""
    before = _environment_span(pid)
    environ = _environ(pid)
    if environ != {}:
        return True, environ
    after = _environment_span(pid)
    if before is None or after is None:
        return True, None  # gone, a zombie or a kernel thread: nothing of an agent's to kill
    if before != after or before[1] == b"0":
        return False, None
    return True, environ


#: The states in ``/proc/<pid>/stat`` of a process that has ended: a zombie, or dead.
_ENDED = (b"Z", b"X", b"x")
#: ``PF_KTHREAD`` in the flags of ``/proc/<pid>/stat``: a kernel thread (no memory of its own,
#: so no environment, ever; listed where acp-tui runs as root outside a container).
_KERNEL_THREAD = 0x00200000


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (the state first). Linux's
    own: psutil does not give where a process's environment lies, which tells an exec under
    way from a cleared environment, and the subreaper that needs it is Linux's too."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2 :].split()


def _environment_span(pid: int) -> tuple[bytes, bytes] | None:
    """Where the process's environment lies in its memory: the start and end addresses, the
    third and second last fields of ``/proc/<pid>/stat``. None for a process that has none to
    wait for: gone, a zombie (or dead) or a kernel thread."""
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 10 or fields[0] in _ENDED:
        return None
    try:
        if int(fields[6]) & _KERNEL_THREAD:
            return None
    except ValueError:
        return None
    return (fields[-3], fields[-2])


def _is_ours(marker: str | None) -> bool:
    """A live mark of ours with another tag: that process belongs to another agent or
    terminal still running, and is swept with it."""
    return marker is not None and marker.startswith(_owner_value(""))
