"""The person's settings: the typed config file (:mod:`.schema`, :mod:`.load`), known and
recent agents, prompt history, and every platformdirs path (:mod:`.locations`)."""
