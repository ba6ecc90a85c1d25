"""The ACP wire, declared once: its names (:mod:`~acp_tui.wire.constants`) and its message
shapes (:mod:`~acp_tui.wire.schema`, checked against the official JSON schema).

The bottom layer beside :mod:`acp_tui.text`: declarations of decoded JSON, no I/O. The
protocol layer speaks it; the store reads ``session/update`` through it.
"""
