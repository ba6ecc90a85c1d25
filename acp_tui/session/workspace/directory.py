"""One session browser across agents: the sessions of every agent of a :class:`Workspace`,
merged by last update, each row carrying its agent.

No Textual here. Each agent keeps its own :class:`~acp_tui.store.SessionStore` (its
controller's); the directory only reads them and merges, so an agent that crashes or is
restarted just changes what one source gives. It says which agent needs which ``session/list``
page (:meth:`SessionDirectory.pages_wanted`): lazily, the first page of every agent that can
list, then the next page of agents whose list is not complete when the view nears its end
(the sidebar asks; the screen sends the request through that agent's controller). Agents that
cannot list show what the local index remembers of them (:meth:`SessionDirectory.use_index`).

Filters: by text (title, cwd, id: as one agent's search) and by agent, written in the same
filter as ``@name`` (a prefix of the agent's short name or of its key; several ``@`` words
mean any of them), so one box does both and nothing new has to be learnt.

Agent names are data (a configured name, the agent's own ``agentInfo.name`` or its command):
they are folded to one line and cut short, never interpreted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING, Any

from acp_tui.session.launch.spec import words_of_key
from acp_tui.store import SessionState, SessionStore
from acp_tui.text.safety import one_line

if TYPE_CHECKING:
    from acp_tui.session.workspace.workspace import Workspace

__all__ = [
    "AGENT_NAME_CELLS",
    "AgentSource",
    "DirectoryRows",
    "PageRequest",
    "SessionDirectory",
    "parse_filter",
    "short_agent_name",
]

#: An agent's short name is cut to this many characters (it marks every row).
AGENT_NAME_CELLS = 12
#: Interpreters and launchers whose first real argument names the agent better than they do.
_LAUNCHERS = frozenset(
    {"python", "python3", "node", "npx", "uvx", "uv", "pipx", "bunx", "bun", "deno", "env"}
)


def short_agent_name(argv: Iterable[str], info_name: str | None = None) -> str:
    """A short name for an agent: its ``agentInfo.name`` when it said one, else its command
    (``python -m acp_tui.demo_agent`` gives ``demo_agent``, ``npx @zed/claude-code-acp``
    gives ``claude-code-acp``); one line, at most :data:`AGENT_NAME_CELLS` characters."""
    name = one_line(info_name or "", 200)
    if not name:
        args = [a for a in argv if a]
        word = ""
        i = 0
        while i < len(args):
            word = os.path.basename(args[i].rstrip("/")) or args[i]
            stem = word.split("@", 1)[0] if not word.startswith("@") else word
            if stem.rstrip("0123456789.") in _LAUNCHERS or "=" in word:
                i += 1
                while i < len(args) and args[i].startswith("-"):
                    # "-m module" names it; other flags are skipped.
                    if args[i] == "-m" and i + 1 < len(args):
                        i += 1
                        break
                    i += 1
                continue
            break
        word = word.rsplit(".", 1)[-1] if "." in word and " " not in word else word
        name = one_line(word.rsplit("/", 1)[-1], 200)
    return one_line(name, AGENT_NAME_CELLS) or "agent"


def parse_filter(text: str) -> tuple[tuple[str, ...], str]:
    """Split a filter into agent words (``@name``, casefolded, without the ``@``) and the
    text to search for (the rest, spaces kept between words)."""
    agents: list[str] = []
    words: list[str] = []
    for word in text.split():
        if word.startswith("@") and len(word) > 1:
            agents.append(word[1:].casefold())
        elif word != "@":
            words.append(word)
    return tuple(agents), " ".join(words)


@dataclass(frozen=True, slots=True)
class AgentSource:
    """One agent as the directory sees it: its key in the workspace, its short name, its
    store, and its place (the colour of its mark, ties in the order)."""

    key: str
    name: str
    store: SessionStore
    slot: int

    def matches(self, words: tuple[str, ...]) -> bool:
        """Whether an ``@`` word of the filter selects this agent (no words: every agent)."""
        if not words:
            return True
        name, key = self.name.casefold(), self.key.casefold()
        return any(name.startswith(w) or key.startswith(w) for w in words)


@dataclass(frozen=True, slots=True)
class PageRequest:
    """Send ``session/list`` to agent ``key`` for ``cwd`` (``None``: all directories) with
    ``cursor`` (``None``: the first page), of the archived sessions with ``archived``."""

    key: str
    cwd: str | None
    cursor: str | None
    archived: bool


@dataclass(slots=True)
class DirectoryRows:
    """The merged rows of one view: ``sessions[i]`` belongs to the agent ``keys[i]``."""

    sessions: list[SessionState]
    keys: list[str]
    #: Every agent shown has its whole list (no ``+`` in the count).
    complete: bool
    #: Why an agent's list stopped early (``"name: reason"``), if one did.
    stopped: str | None

    def __len__(self) -> int:
        return len(self.sessions)

    def index_of(self, key: str | None, session_id: str | None) -> int:
        """The row of session ``session_id`` of agent ``key`` (any agent when ``key`` is
        None), or -1."""
        if session_id is None:
            return -1
        for i, s in enumerate(self.sessions):
            if s.id == session_id and (key is None or self.keys[i] == key):
                return i
        return -1


class SessionDirectory:
    """The sessions of every agent of a workspace, merged (see the module's doc).

    ``names``: configured short names by agent key (``[agents.NAME]``); an agent without one
    is named by :func:`short_agent_name`. ``primary``: the key of the agent the view belongs
    to; it comes first among agents (ties in the order, colour slot 0). ``index_records``:
    see :meth:`use_index` (applied to each agent's store as it appears)."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        names: dict[str, str] | None = None,
        primary: str | None = None,
        index_records: Callable[[str], Iterable[Any]] | None = None,
    ) -> None:
        self.workspace = workspace
        #: Each agent's rows of the local index (see :meth:`use_index`), merged into its
        #: store the first time the directory sees that store.
        self.index_records = index_records
        #: Shared, not copied: the workspace's labels grow as agents start, and every view's
        #: directory names an agent the same way.
        self.names: dict[str, str] = names if names is not None else {}
        self.primary = primary
        #: Slots by key, kept for the life of the directory: an agent keeps its colour when
        #: another one stops.
        self._slots: dict[str, int] = {}
        #: Stores the local index was applied to (by identity: a restart makes a new store
        #: only when its controller was made with one).
        self._indexed: set[int] = set()
        self._cache_key: Any = None
        self._cache: DirectoryRows | None = None

    # ------------------------------------------------------------------ sources
    def sources(self) -> list[AgentSource]:
        """Every agent with a controller (running or not: a crashed agent's rows stay, shown
        as they were), the primary first, then in the order they were started."""
        keys = list(self.workspace)
        # Colours follow the order the agents were started, not the view's own agent first:
        # an agent has the same colour in every agent's view.
        for key in keys:
            if key not in self._slots:
                self._slots[key] = len(self._slots)
        if self.primary in keys:
            keys.remove(self.primary)
            keys.insert(0, self.primary)
        found: list[AgentSource] = []
        for key in keys:
            controller = self.workspace.get(key)
            if controller is None:
                continue
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = len(self._slots)
            found.append(AgentSource(key, self.name_of(key), controller.store, slot))
            if self.index_records is not None and id(controller.store) not in self._indexed:
                self._apply_index(key, controller.store, self.index_records)
        return found

    def name_of(self, key: str) -> str:
        """The short name of agent ``key`` (configured, else its own, else its command)."""
        configured = self.names.get(key)
        if configured:
            return short_agent_name((), configured)
        controller = self.workspace.get(key)
        if controller is None:
            return short_agent_name(words_of_key(key))
        agent = controller.agent
        return short_agent_name(controller.argv, agent.name if agent is not None else None)

    def slot_of(self, key: str) -> int:
        """The colour slot of agent ``key`` (``-1`` when the directory does not know it)."""
        return self._slots.get(key, -1)

    def __len__(self) -> int:
        return len(self.workspace)

    def store_of(self, key: str) -> SessionStore | None:
        controller = self.workspace.get(key)
        return controller.store if controller is not None else None

    def version(self) -> tuple[Any, ...]:
        """Changes whenever the merged rows may have: which stores, and each one's version."""
        return tuple((s.key, id(s.store), s.store.version) for s in self.sources())

    # ------------------------------------------------------------------ the local index
    def use_index(self, records_of: Callable[[str], Iterable[Any]]) -> None:
        """Merge what the local index remembers of each agent (``records_of(key)``: its
        :meth:`~acp_tui.store.local_index.LocalIndex.sessions` rows) into its store, once per
        store: agents that cannot list still show the sessions started here."""
        for source in self.sources():
            if id(source.store) not in self._indexed:
                self._apply_index(source.key, source.store, records_of)

    def _apply_index(
        self, key: str, store: SessionStore, records_of: Callable[[str], Iterable[Any]]
    ) -> None:
        self._indexed.add(id(store))
        store.apply_index_records(records_of(key))

    # ------------------------------------------------------------------ rows
    def rows(self, cwd: str | None, *, archived: bool = False, text: str = "") -> DirectoryRows:
        """The sessions of the view: scope ``cwd`` (``None``: all folders), the archived ones
        with ``archived``, filtered by ``text`` (``@agent`` words and search text), newest
        update first across agents (ties: the primary agent first, then each agent's own
        order). Cached until a store changes."""
        agent_words, needle = parse_filter(text)
        cache_key = (self.version(), cwd, archived, agent_words, needle)
        if cache_key == self._cache_key and self._cache is not None:
            return self._cache
        sources = [s for s in self.sources() if s.matches(agent_words)]
        pairs: list[tuple[SessionState, str]] = []
        complete = True
        stopped: str | None = None
        for source in sources:
            store = source.store
            found = (
                store.search(needle, cwd, archived=archived)
                if needle.strip()
                else store.catalog(cwd, archived=archived)
            )
            pairs.extend(zip(found, repeat(source.key)))
            if store.can_list:
                state = store.list_state(cwd, archived=archived)
                complete = complete and state.complete
                if state.stopped and stopped is None:
                    many = len(sources) > 1
                    stopped = f"{source.name}: {state.stopped}" if many else state.stopped
        if len(sources) > 1:
            # Each agent's rows are in order already: a stable sort on the time alone merges
            # the runs (timsort finds them) and leaves ties in the agents' order, the primary's
            # first, each agent's own order within.
            pairs.sort(key=_by_time)
        sessions = [pair[0] for pair in pairs]
        keys = [pair[1] for pair in pairs]
        result = DirectoryRows(sessions, keys, complete, stopped)
        self._cache_key, self._cache = cache_key, result
        return result

    # ------------------------------------------------------------------ pages
    def pages_wanted(
        self,
        cwd: str | None,
        *,
        archived: bool = False,
        text: str = "",
        near_end: bool = False,
        busy: Iterable[str] = (),
    ) -> list[PageRequest]:
        """The ``session/list`` pages the view needs now: the first page of every agent
        (shown by the filter) that can list and has none yet; with ``near_end`` (the view is
        close to its last row) or a search, the next page of every agent whose list goes on.
        ``busy``: agents with a request on its way (asked nothing more)."""
        agent_words, needle = parse_filter(text)
        pending = set(busy)
        wanted: list[PageRequest] = []
        for source in self.sources():
            store = source.store
            if source.key in pending or not source.matches(agent_words):
                continue
            if not store.can_list or (archived and not store.can_archive):
                continue
            state = store.list_state(cwd, archived=archived)
            if not state.pages:
                wanted.append(PageRequest(source.key, cwd, None, archived))
            elif (near_end or needle.strip()) and not state.complete and state.next_cursor:
                wanted.append(PageRequest(source.key, cwd, state.next_cursor, archived))
        return wanted


def _by_time(pair: tuple[SessionState, str]) -> tuple[bool, float]:
    """Newest update first, sessions without one last (as each agent's own order)."""
    missing, newest, _ = pair[0].order_key()
    return missing, newest
