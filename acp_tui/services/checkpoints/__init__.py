"""Checkpoints of a project's files (no Textual): the shadow git repository
(:mod:`~acp_tui.services.checkpoints.shadow`), the journal of each session's turns
(:mod:`~acp_tui.services.checkpoints.journal`) and the gated reading and putting back of
files (:mod:`~acp_tui.services.checkpoints.files`). The session layer
(:mod:`acp_tui.session.checkpoints`) decides when to snapshot and what a rewind does."""
