"""Entry points: argument parsing and dispatch (:mod:`.main`), the TUI launch (:mod:`.tui`),
the headless commands (:mod:`.headless`), replay, the wire check and the web mode."""
