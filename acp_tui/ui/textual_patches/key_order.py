"""A key reaches the bindings of the widget it was typed into, even when a later key has
already moved the focus.

Textual hands a key to the focused widget, and a key the widget does not take itself comes
back to the app, which then looks for a binding along the focus chain *as it is then*. A key
with a priority binding (Ctrl+P, Ctrl+B, Ctrl+N, ...) is acted on at once, before the keys
typed just ahead of it have come back. So Backspaces typed and then Ctrl+P, read in one go
(a fast typist, a terminal multiplexer, a paste of keys), were looked up in the command
palette opened meanwhile: the prompt kept its text, every Backspace was lost.

Here the app notes, for each key it hands on, the widget that had the focus, and which keys
were acted on at once. When a key comes back after a key read *later* was acted on at once,
and the focus has moved since, and the widget it was handed to binds it, the binding acts
there: what Textual would have done had the keys been acted on in order. Otherwise the key
follows the focus as it is, as in Textual: a focus moved by the keys read *before* it is
where it belongs (Shift+Tab then Home: Home scrolls the transcript, where Shift+Tab went),
and the chat screen moves the focus to where typing goes (the sidebar list's keys to its
filter, acp_tui.ui.typing_focus). A key overtaken so whose widget is gone (its dialog closed
meanwhile) is dropped rather than given to whatever has the focus now.

The chain mirrors Textual's ``Screen._binding_chain`` (tested against the installed Textual:
tests/ui/test_key_routing.py), a key's actions are dispatched by Textual's private
``dispatch_key``, and the app's keymap and a node's bindings are Textual's private state.
Switch: ``key-order``; docs/upstream/key-order-priority-bindings.md proposes the fix to
Textual.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakKeyDictionary, ref

from textual import events
from textual._dispatch_key import dispatch_key
from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.keys import key_to_character

from acp_tui.ui.textual_patches.access import bindings as own_bindings
from acp_tui.ui.textual_patches.access import keymap as keymap_of

__all__ = [
    "REMEMBERED_KEYS",
    "KeyOrder",
    "KeyTargets",
    "binding_chain",
    "bindings_where_typed",
    "install",
    "of",
    "typed_before_the_focus_moved",
]

#: Keys handed on and not yet back, at most: a key a widget takes itself never comes back.
REMEMBERED_KEYS = 256


class KeyTargets:
    """Which node each key in flight was handed to, and whether a key read after it was acted
    on first (see the module docstring)."""

    def __init__(self) -> None:
        # The event is kept with its target: its id cannot be reused while it is here.
        self._targets: OrderedDict[int, tuple[events.Key, DOMNode, int]] = OrderedDict()
        self._count = 0
        #: The number of the latest key acted on at once (by a priority binding).
        self._latest_at_once = -1

    def handed(self, event: events.Key, target: DOMNode) -> None:
        """``event`` is about to be handed to ``target`` (unless a priority binding takes it:
        then :meth:`acted_at_once`)."""
        self._count += 1
        self._targets[id(event)] = (event, target, self._count)
        while len(self._targets) > REMEMBERED_KEYS:
            self._targets.popitem(last=False)

    def acted_at_once(self, event: events.Key) -> None:
        """``event`` was taken by a priority binding, ahead of the keys handed on before it; it
        was never handed on."""
        entry = self._targets.pop(id(event), None)
        if entry is not None and entry[0] is event:
            self._latest_at_once = entry[2]

    def peek(self, event: events.Key) -> DOMNode | None:
        """The node ``event`` was handed to, if a key read after it was acted on first (then
        the focus may have moved under it); None otherwise. It stays noted."""
        entry = self._targets.get(id(event))
        if entry is None or entry[0] is not event or entry[2] > self._latest_at_once:
            return None
        return entry[1]

    def back(self, event: events.Key) -> DOMNode | None:
        """As :meth:`peek`, once: the key is forgotten."""
        overtaken = self.peek(event)
        self._targets.pop(id(event), None)
        return overtaken

    def __len__(self) -> int:
        return len(self._targets)


def binding_chain(focused: DOMNode) -> list[tuple[DOMNode, BindingsMap]]:
    """The bindings a key typed into ``focused`` meets, from it up to the app, stopping at the
    first modal screen (Textual's ``_modal_binding_chain``, as if ``focused`` had the focus)."""
    chain = [(node, own_bindings(node).copy()) for node in focused.ancestors_with_self]
    # A key that a widget nearer the focus consumes (text for an input) is not an
    # ancestor's binding.
    consumers: list[DOMNode] = []
    for node, bindings in chain:
        for consumer in consumers:
            for key in list(bindings.key_to_bindings):
                if consumer.check_consume_key(key, key_to_character(key)):
                    del bindings.key_to_bindings[key]
        consumers.append(node)
    keymap = keymap_of(focused.app)
    if keymap:
        for _node, bindings in chain:
            bindings.apply_keymap(keymap)
    for index, (node, _bindings) in enumerate(chain, 1):
        if node.is_modal:
            return chain[:index]
    return chain


def bindings_where_typed(node: DOMNode, key: str) -> list[tuple[DOMNode, Binding]]:
    """The (non-priority) bindings a key typed into ``node`` meets on its way up, nearest
    first, each with the node it is bound on (where its action runs)."""
    return [
        (namespace, binding)
        for namespace, bindings in binding_chain(node)
        for binding in bindings.key_to_bindings.get(key, ())
        if not binding.priority
    ]


def typed_before_the_focus_moved(event: events.Key, app: App[Any]) -> bool:
    """Whether ``event`` went to a widget that has lost the focus since to a key read after it
    (acted on first) and is bound there: its binding acts, found by the app, rather than the
    key going wherever the focus is now. (Never, where ``app`` has the patch off.)"""
    order = of(app)
    origin = order.targets.peek(event) if order is not None else None
    if origin is None or not origin.is_attached:
        return False
    if origin is (origin.app.focused or origin.app.screen):
        return False
    return bool(bindings_where_typed(origin, event.key))


#: The key order of each app that has it.
_apps: WeakKeyDictionary[App[Any], KeyOrder] = WeakKeyDictionary()


def install(app: App[Any]) -> KeyOrder:
    """Give ``app`` its :class:`KeyOrder`; the app calls it for each key (see there)."""
    order = _apps[app] = KeyOrder(app)
    return order


def of(app: App[Any]) -> KeyOrder | None:
    """``app``'s key order, if the patch is on for it."""
    return _apps.get(app)


class KeyOrder:
    """The app's side of the patch: it notes where each key goes (:meth:`handing`, from the
    app's ``on_event``) and acts on a key come back as typed (:meth:`came_back`, from the
    app's ``on_key``). It holds its app weakly: it is the value of its app's entry in a
    :class:`~weakref.WeakKeyDictionary`, which a strong reference would keep forever."""

    def __init__(self, app: App[Any]) -> None:
        self._app = ref(app)
        self.targets = KeyTargets()

    @property
    def app(self) -> App[Any]:
        app = self._app()
        if app is None:
            raise RuntimeError("the app of this key order has gone")
        return app

    async def handing(
        self, event: events.Key, hand: Callable[[events.Event], Awaitable[None]]
    ) -> None:
        """``hand`` gives ``event`` (a key not forwarded yet) to the focused widget, unless a
        priority binding takes it first."""
        app = self.app
        self.targets.handed(event, app.focused or app.screen)
        await hand(event)
        if not event.is_forwarded:
            self.targets.acted_at_once(event)

    async def came_back(self, event: events.Key) -> None:
        """A key back from the widget it was handed to, not taken there. If a key read after
        it was acted on first (Ctrl+P, Ctrl+B), the focus has moved since, and that widget
        binds the key, its binding acts there; such a key for a widget gone meanwhile is
        dropped. Otherwise Textual's own look-up follows, along the focus as it is now."""
        app = self.app
        target = self.targets.back(event)
        if target is None or target is (app.focused or app.screen):
            return
        if not target.is_attached:
            event.prevent_default()  # typed into what is gone (a closed dialog)
            return
        bindings = bindings_where_typed(target, event.key)
        if not bindings:
            return
        event.prevent_default()
        for namespace, binding in bindings:
            if await app.run_action(binding.action, namespace):
                return
        await dispatch_key(app, event)
