"""From a config file, a command line or the launcher's pick to a running controller: the
agent's spec (:mod:`.spec`), the one resolver that makes it (:mod:`.resolve`) and the one
factory that builds what a face runs it with (:mod:`.factory`)."""
