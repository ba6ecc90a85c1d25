"""The ACP wire, declared once: its names (:mod:`~acp_tui.wire.constants`), its message
shapes (:mod:`~acp_tui.wire.schema`, with :mod:`~acp_tui.wire.content` and
:mod:`~acp_tui.wire.client_methods`, checked against the official JSON schema), and each
``session/update`` kind as the client takes it (:mod:`~acp_tui.wire.updates`), reached
through one tolerant coercion step (:mod:`~acp_tui.wire.coerce`, with the field readers of
:mod:`~acp_tui.wire.fields`).

The bottom layer beside :mod:`acp_tui.text`: declarations and checks of decoded JSON, no
I/O. The protocol layer speaks it; the store reads ``session/update`` through it.
"""
