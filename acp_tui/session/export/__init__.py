"""Exports of a session to share: Markdown (:mod:`.markdown`) and a self-contained HTML page
(:mod:`.html_page`), redacted on request (:mod:`acp_tui.text.redaction`), written through the
path gate into acp-tui's exports folder."""
