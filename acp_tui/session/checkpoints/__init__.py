"""Checkpoints and rewind of a session's files (no Textual): when snapshots are taken
(:mod:`~acp_tui.session.checkpoints.book`), what a rewind does
(:mod:`~acp_tui.session.checkpoints.rewind`), and the settings
(:mod:`~acp_tui.session.checkpoints.settings`)."""
