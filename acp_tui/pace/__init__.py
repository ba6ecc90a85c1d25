"""How the one event loop is shared with the person at the keyboard: background work (the
agents' readers, the transcript's catch-up) gives way while a key is on its way to the screen
(:mod:`.input_first`). Below every other layer: the wire's reader and the UI both use it."""
